#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// A group's approximate bitmap from the sieving vectors: per column, the rows between two borders
// (upper vector AND NOT lower vector), ANDed over the group's columns. A 0 upper address stands
// for the all-ones vector (the last border), a 0 lower address for the empty one (the first).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Vec { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Out { uint w[]; };

layout(push_constant, scalar) uniform RtScanSieveParams {
  uint64_t upper[3];
  uint64_t lower[3];
  uint64_t bitmap;
  uint words;
  uint rows;
  uint columns;
  uint empty;  // bit d: column d's approximation selects no row
}
pc;

void main() {
  uint w = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (w >= pc.words) return;
  uint valid = pc.rows - w * 32u;
  uint r = valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
  for (uint d = 0u; d < pc.columns; ++d) {
    if ((pc.empty & (1u << d)) != 0u) r = 0u;
    if (pc.upper[d] != 0ul) r &= Vec(pc.upper[d]).w[w];
    if (pc.lower[d] != 0ul) r &= ~Vec(pc.lower[d]).w[w];
  }
  Out(pc.bitmap).w[w] = r;
}
