#version 460
#include "dpbis/dpbis_common.glsl"

// The rows of bins strictly between the boundary bins from two sieving vectors:
// (code < b_hi) and not (code < b_lo + 1). Memory-bound, so each invocation owns 4 bitmap words
// and moves them as one 16-byte load per vector and one 16-byte store (a 4-byte access per
// invocation kept too few bytes in flight); vectors are `stride` words apart, stride a multiple of
// 4, and the padding words are 0, so the loads never leave a vector. The last invocation's
// bitmap words may run past the end: it stores word by word.
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisSieveParams {
  uint64_t vectors;  // vector k (k >= 1) at word offset (k - 1) * stride
  uint64_t bitmap;
  uint rows;
  uint words;
  int b_lo;
  int b_hi;
  uint bins;
  uint stride;
}
pc;

// The bits of word i that lie before `rows`.
uint valid_bits(uint i) {
  uint valid = pc.rows - i * 32u;
  return valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

uvec4 vector_words(int k, uint q, uvec4 valid) {
  if (k <= 0) return uvec4(0u);             // no code is below 0
  if (uint(k) >= pc.bins) return valid;     // every code is below bins
  uint64_t at = pc.vectors + uint64_t(uint(k - 1)) * uint64_t(pc.stride) * 4ul;  // 64-bit: large
  return U32x4Array(at).v[q];
}

void main() {
  uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint first = q * 4u;
  if (first >= pc.words) return;
  uvec4 valid = uvec4(valid_bits(first), valid_bits(first + 1u), valid_bits(first + 2u),
                      valid_bits(first + 3u));
  // Both loads are issued before either is used.
  uvec4 hi = vector_words(pc.b_hi, q, valid);
  uvec4 lo = vector_words(pc.b_lo + 1, q, valid);
  uvec4 bits = hi & ~lo & valid;
  if (pc.words - first >= 4u) {
    U32x4Array(pc.bitmap).v[q] = bits;
    return;
  }
  for (uint j = 0u; first + j < pc.words; ++j) U32Array(pc.bitmap).v[first + j] = bits[j];
}
