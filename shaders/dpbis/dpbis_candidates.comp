#version 460
#include "dpbis/dpbis_common.glsl"

// Algorithm 2: the values of a boundary bin, checked exactly (lo <= v <= hi, bounds included),
// set their rows' bits through the row ids.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform DpBisCandidatesParams {
  uint64_t sorted;
  uint64_t rows;
  uint64_t bitmap;
  uint begin;  // sorted positions [begin, end) of the bin
  uint end;
  uint lo;
  uint hi;
}
pc;

void main() {
  uint p = pc.begin + (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.end) return;
  uint v = U32Array(pc.sorted).v[p];
  if (v < pc.lo || v > pc.hi) return;
  uint row = U32Array(pc.rows).v[p];
  atomicOr(U32Array(pc.bitmap).v[row >> 5u], 1u << (row & 31u));
}
