#version 460
#include "dpbis/dpbis_common.glsl"

// Algorithm 1 over the codes: a row qualifies when its bin lies strictly between the boundary
// bins (b_lo < code < b_hi; b_lo may be -1). One invocation per bitmap word of 32 rows, whose 32
// code bytes it reads as two 16-byte loads (the codes are padded to whole words and start 16-byte
// aligned), both in flight before either is used; the word is written whole, without atomics.
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
  uint bits = 0u;
  for (uint i = 0u; i < 8u; ++i) {
    uint w = q[i / 4u][i % 4u];
    for (uint j = 0u; j < 4u; ++j) {
      uint r = i * 4u + j;
      int code = int((w >> (8u * j)) & 0xFFu);
      if (first + r < pc.rows && code > pc.b_lo && code < pc.b_hi) bits |= 1u << r;
    }
  }
  U32Array(pc.bitmap).v[word] = bits;
}
