#version 460
#include "dpbis/dpbis_common.glsl"

// Algorithm 1 over the codes: a row qualifies when its bin lies strictly between the boundary
// bins (b_lo < code < b_hi; b_lo may be -1). One invocation per bitmap word of 32 rows, whose 32
// code bytes it reads as two 16-byte loads (the codes are padded to whole words and start 16-byte
// aligned), both in flight before either is used; the word is written whole, without atomics.
// The compare runs on 4 codes at once (in_range4): per code a shift, mask, two compares and a
// select came to about 250 integer operations per 36 bytes moved, most of the H100's integer
// rate at its memory rate; the 4-wide compare needs about a third of that.
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisSelectParams {
  uint64_t codes;
  uint64_t bitmap;
  uint rows;
  int b_lo;
  int b_hi;
  uint pad0;
}
pc;

void main() {
  uint word = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint first = word * 32u;
  if (first >= pc.rows) return;
  uvec4 q[2] = {U32x4Array(pc.codes).v[word * 2u], U32x4Array(pc.codes).v[word * 2u + 1u]};
  // code in [lo, lo + width): b_lo < code < b_hi.
  int lo = max(pc.b_lo + 1, 0);
  int width = min(pc.b_hi, 256) - lo;
  uint bits = 0u;
  if (width >= 256) {
    bits = 0xFFFFFFFFu;
  } else if (width > 0) {
    uint lo4 = uint(lo) * 0x01010101u;
    uint width4 = uint(width) * 0x01010101u;
    for (uint i = 0u; i < 8u; ++i) bits |= group_rows(in_range4(q[i / 4u][i % 4u], lo4, width4), i);
  }
  uint valid = pc.rows - first;
  if (valid < 32u) bits &= (1u << valid) - 1u;
  U32Array(pc.bitmap).v[word] = bits;
}
