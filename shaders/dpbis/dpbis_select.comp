#version 460
#include "dpbis/dpbis_common.glsl"

// Algorithm 1 over the codes: a row qualifies when its bin lies strictly between the boundary
// bins (b_lo < code < b_hi; b_lo may be -1). One invocation per bitmap word of 32 rows.
layout(local_size_x = 64) in;
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
  uint bits = 0u;
  for (uint i = 0u; i < 8u; ++i) {
    uint w = U32Array(pc.codes).v[word * 8u + i];
    for (uint j = 0u; j < 4u; ++j) {
      uint r = i * 4u + j;
      int code = int((w >> (8u * j)) & 0xFFu);
      if (first + r < pc.rows && code > pc.b_lo && code < pc.b_hi) bits |= 1u << r;
    }
  }
  U32Array(pc.bitmap).v[word] = bits;
}
