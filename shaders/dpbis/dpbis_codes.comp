#version 460
#include "dpbis/dpbis_common.glsl"

// Each sorted position finds its bin (the last bin starting at or before it) and ORs the 8-bit
// code into its row's code word (codes start zeroed; the layout is in dpbis_common.glsl).
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisCodesParams {
  uint64_t rows;    // row id of each sorted position
  uint64_t starts;  // bins + 1 entries
  uint64_t codes;   // (n + 31) / 32 * 8 words
  uint n;
  uint bins;
}
pc;

void main() {
  uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.n) return;
  U32Array starts = U32Array(pc.starts);
  uint lo = 0u, hi = pc.bins - 1u;  // last k with starts[k] <= p
  while (lo < hi) {
    uint mid = (lo + hi + 1u) / 2u;
    if (starts.v[mid] <= p) lo = mid; else hi = mid - 1u;
  }
  uint row = U32Array(pc.rows).v[p];
  atomicOr(U32Array(pc.codes).v[code_word(row)], lo << code_shift(row));
}
