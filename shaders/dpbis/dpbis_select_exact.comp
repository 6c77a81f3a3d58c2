#version 460
#include "dpbis/dpbis_common.glsl"

// Refine::in_select over the codes: dpbis_select.comp's pass that also decides the rows of the
// boundary bins, so no second pass and no atomics are needed. Per bitmap word of 32 rows: rows
// with b_lo < code < b_hi are set; rows whose code is b_lo or b_hi load their value from the
// row-ordered copy of the column (neighbouring invocations load neighbouring words, so the loads
// that happen are mostly coalesced) and are set when lo <= value <= hi; the word is written whole.
// A value's address is formed in 64 bits: the NVIDIA driver forms v[i]'s byte offset in 32 bits
// (see dpbis_vectors.comp), and more than 2^30 rows pass 4 GiB of values.
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisSelectExactParams {
  uint64_t codes;
  uint64_t values;  // the column in row order
  uint64_t bitmap;
  uint rows;
  int b_lo;  // -1: no lower boundary bin
  int b_hi;
  uint lo;   // the accepted interval [lo, hi]
  uint hi;
  uint pad0;
}
pc;

void main() {
  uint word = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint first = word * 32u;
  if (first >= pc.rows) return;
  uvec4 q[2] = {U32x4Array(pc.codes).v[word * 2u], U32x4Array(pc.codes).v[word * 2u + 1u]};
  int lo = max(pc.b_lo + 1, 0);
  int width = min(pc.b_hi, 256) - lo;
  uint lo4 = uint(lo) * 0x01010101u;
  uint width4 = uint(max(width, 0)) * 0x01010101u;
  // The boundary bins: b_hi (0..255) and b_lo, or b_hi again where there is no lower one.
  uint hi4 = uint(pc.b_hi) * 0x01010101u;
  uint lo4_edge = pc.b_lo >= 0 ? uint(pc.b_lo) * 0x01010101u : hi4;
  uint bits = 0u, edge = 0u;
  for (uint i = 0u; i < 8u; ++i) {
    uint w = q[i / 4u][i % 4u];
    if (width > 0) bits |= group_rows(in_range4(w, lo4, width4), i);  // b_hi < 256
    edge |= group_rows(equal_byte4(w, hi4) | equal_byte4(w, lo4_edge), i);
  }
  uint valid = pc.rows - first;
  uint mask = valid < 32u ? (1u << valid) - 1u : 0xFFFFFFFFu;
  edge &= mask;  // padding codes are 0 and may equal a boundary bin
  // One boundary row at a time: with 256 bins a word rarely has two (see the CUDA twin).
  while (edge != 0u) {
    int j = findLSB(edge);
    edge &= edge - 1u;
    uint v = U32Array(pc.values + uint64_t(first + uint(j)) * 4ul).v[0];  // 64-bit: see above
    if (v >= pc.lo && v <= pc.hi) bits |= 1u << uint(j);
  }
  U32Array(pc.bitmap).v[word] = bits & mask;
}
