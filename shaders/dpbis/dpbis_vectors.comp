#version 460
#include "dpbis/dpbis_common.glsl"

// Sieving bit vectors (RTScan's Data Sieving, BinDex's virtual bit vectors made real): vector k,
// for k = 1 .. bins - 1, marks the rows whose bin code is below k. Vector 0 would be empty and
// vector `bins` all rows, so neither is stored. Vectors lie `stride` words apart (words rounded
// up to a multiple of 4, so every vector starts 16-byte aligned for the selection's uvec4 loads);
// the padding words are written 0. One invocation per (vector, word of the stride).
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisVectorsParams {
  uint64_t codes;
  uint64_t vectors;  // (bins - 1) * stride words
  uint rows;
  uint words;
  uint bins;
  uint stride;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= (pc.bins - 1u) * pc.stride) return;  // the host keeps this product below 2^32
  uint k = i / pc.stride + 1u;
  uint word = i % pc.stride;
  uint bits = 0u;
  if (word < pc.words) {
    for (uint j = 0u; j < 8u; ++j) {
      uint w = U32Array(pc.codes).v[word * 8u + j];
      for (uint b = 0u; b < 4u; ++b) {
        uint r = b * 8u + j;  // byte b of the group's word j (dpbis_common.glsl)
        if (word * 32u + r < pc.rows && ((w >> (8u * b)) & 0xFFu) < k) bits |= 1u << r;
      }
    }
  }
  // The vector's base in 64-bit arithmetic: the NVIDIA driver forms v[i]'s byte offset in 32 bits,
  // so indexing all vectors from one base wrapped past 4 GiB (1e9 rows, 128 bins: 16 GB) and
  // overwrote the first vectors (measured on the H100: empty selections, wrong sieve results).
  U32Array(pc.vectors + uint64_t(k - 1u) * uint64_t(pc.stride) * 4ul).v[word] = bits;
}
