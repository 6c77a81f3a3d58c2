#version 460
#include "dpbis/dpbis_common.glsl"

// Refine::in_select over the sieving vectors: dpbis_sieve_select.comp's pass that also decides
// the rows of the boundary bins. Vector k marks the rows whose code is below k, so per word
//   inner  = V(b_hi) & ~V(b_lo + 1)       (b_lo < code < b_hi: set)
//   border = V(b_hi + 1) & ~V(b_lo) & ~inner   (code is b_lo or b_hi: the value decides)
// Up to four vectors are read instead of two. Each border row loads its value from the row-ordered
// copy of the column and is set when lo <= value <= hi. As in the sieve pass, each invocation owns
// 4 bitmap words (16-byte loads and store; vectors `stride` words apart, padding words 0).
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisSieveExactParams {
  uint64_t vectors;  // vector k (k >= 1) at word offset (k - 1) * stride
  uint64_t values;   // the column in row order
  uint64_t bitmap;
  uint rows;
  uint words;
  int b_lo;  // -1: no lower boundary bin
  int b_hi;
  uint bins;
  uint stride;
  uint lo;  // the accepted interval [lo, hi]
  uint hi;
}
pc;

uint valid_bits(uint i) {
  uint valid = pc.rows - i * 32u;
  return i * 32u >= pc.rows ? 0u : valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

uvec4 vector_words(int k, uint q, uvec4 valid) {
  if (k <= 0) return uvec4(0u);
  if (uint(k) >= pc.bins) return valid;
  uint64_t at = pc.vectors + uint64_t(uint(k - 1)) * uint64_t(pc.stride) * 4ul;  // 64-bit: large
  return U32x4Array(at).v[q];
}

// The lowest row (0..127) of the four words' mask, cleared; 128 when none is left.
uint pop_lowest(inout uvec4 mask) {
  for (uint w = 0u; w < 4u; ++w) {
    if (mask[w] != 0u) {
      uint b = uint(findLSB(mask[w]));
      mask[w] &= mask[w] - 1u;
      return w * 32u + b;
    }
  }
  return 128u;
}

void main() {
  uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint first = q * 4u;
  if (first >= pc.words) return;
  uvec4 valid = uvec4(valid_bits(first), valid_bits(first + 1u), valid_bits(first + 2u),
                      valid_bits(first + 3u));
  // All four loads are issued before any is used.
  uvec4 hi = vector_words(pc.b_hi, q, valid);
  uvec4 lo = vector_words(pc.b_lo + 1, q, valid);
  uvec4 hi1 = vector_words(pc.b_hi + 1, q, valid);
  uvec4 lo0 = vector_words(pc.b_lo, q, valid);
  uvec4 bits = hi & ~lo & valid;
  uvec4 border = hi1 & ~lo0 & ~bits & valid;
  // Four border rows' loads are issued before any is used (see dpbis_select_exact.comp).
  uint64_t first_row = uint64_t(first) * 32ul;  // 64-bit: large columns
  while (any(notEqual(border, uvec4(0u)))) {
    uint r[4], v[4];
    for (uint k = 0u; k < 4u; ++k) r[k] = pop_lowest(border);
    for (uint k = 0u; k < 4u; ++k)
      v[k] = r[k] < 128u ? U32Array(pc.values + (first_row + r[k]) * 4ul).v[0] : 0u;
    for (uint k = 0u; k < 4u; ++k) {
      bool set = r[k] < 128u && v[k] >= pc.lo && v[k] <= pc.hi;
      for (uint j = 0u; j < 4u; ++j)
        bits[j] |= set && (r[k] >> 5u) == j ? 1u << (r[k] & 31u) : 0u;
    }
  }
  if (pc.words - first >= 4u) {
    U32x4Array(pc.bitmap).v[q] = bits;
    return;
  }
  for (uint j = 0u; first + j < pc.words; ++j) U32Array(pc.bitmap).v[first + j] = bits[j];
}
