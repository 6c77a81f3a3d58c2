#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// A group's approximate bitmap from the sieving vectors: per column, the rows between two borders
// (upper vector AND NOT lower vector), ANDed over the group's columns. A 0 upper address stands
// for the all-ones vector (the last border), a 0 lower address for the empty one (the first).
// The vectors come from the push constants (the host's plan) or, when `plan` is set, from the
// group's record of the device plan (rtscan_plan.comp).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Vec { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Out { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer Plan {
  uint64_t upper[3];
  uint64_t lower[3];
  uint empty;
};

layout(push_constant, scalar) uniform RtScanSieveParams {
  uint64_t upper[3];
  uint64_t lower[3];
  uint64_t bitmap;
  uint words;
  uint rows;
  uint columns;
  uint empty;     // bit d: column d's approximation selects no row
  uint64_t plan;  // the group's RtScanGroupPlan, or 0
}
pc;

void main() {
  uint w = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (w >= pc.words) return;
  uint valid = pc.rows - w * 32u;
  uint r = valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
  bool planned = pc.plan != 0ul;
  uint empty = planned ? Plan(pc.plan).empty : pc.empty;
  for (uint d = 0u; d < pc.columns; ++d) {
    uint64_t upper = planned ? Plan(pc.plan).upper[d] : pc.upper[d];
    uint64_t lower = planned ? Plan(pc.plan).lower[d] : pc.lower[d];
    if ((empty & (1u << d)) != 0u) r = 0u;
    if (upper != 0ul) r &= Vec(upper).w[w];
    if (lower != 0ul) r &= ~Vec(lower).w[w];
  }
  Out(pc.bitmap).w[w] = r;
}
