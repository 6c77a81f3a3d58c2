#version 460
#include "dpbis/dpbis_common.glsl"

// The rows of bins strictly between the boundary bins from two sieving vectors:
// (code < b_hi) and not (code < b_lo + 1). One invocation per bitmap word.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisSieveParams {
  uint64_t vectors;  // vector k (k >= 1) at word offset (k - 1) * words
  uint64_t bitmap;
  uint rows;
  uint words;
  int b_lo;
  int b_hi;
  uint bins;
  uint pad0;
}
pc;

uint vector_word(int k, uint word, uint valid) {
  if (k <= 0) return 0u;                     // no code is below 0
  if (uint(k) >= pc.bins) return valid;      // every code is below bins
  return U32Array(pc.vectors).v[uint(k - 1) * pc.words + word];
}

void main() {
  uint word = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (word >= pc.words) return;
  uint in_word = min(32u, pc.rows - word * 32u);
  uint valid = in_word == 32u ? 0xFFFFFFFFu : ((1u << in_word) - 1u);
  U32Array(pc.bitmap).v[word] = vector_word(pc.b_hi, word, valid) & ~vector_word(pc.b_lo + 1, word, valid);
}
