// Shared by the SSB trace kernels (ray-tracing pipeline and ray query): the push constants and the
// hooks through which the API-neutral ray and per-row count (ssb/ssb_trace.h, which the OptiX
// programs include too) reach this API's buffers.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_atomic_int64 : require

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer SsbFloats { float v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer SsbRays { uvec2 z[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer SsbU32s { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer SsbI64s { int64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer SsbWords { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer SsbSums { uint64_t s[]; };

// Mirrors raydb::ssb::detail::SsbTraceParams (static_asserts on the C++ side).
layout(push_constant, scalar) uniform SsbTraceParams {
  uint64_t vertices;     // 9 floats per triangle, (x, y, z) of the right-angle vertex first; or 0
  uint64_t rays;         // (z_lo, z_hi) inclusive per ray
  uint64_t row_flags;    // one bit per triangle, cleared before the launch
  uint64_t sums;         // one 64-bit sum per group (two's complement)
  uint64_t counts;       // one 32-bit count per group
  uint64_t multipliers;  // per triangle, multiplies the value (Q1.x: lo_discount); or 0
  uint64_t side_values;  // per triangle, the value when X cannot hold it exactly; or 0
  uint64_t row_groups;   // per triangle, the group code when Y does not hold it; or 0
  float ray_x, ray_y;    // the lattice point inside every triangle
  uint ray_offset;       // first ray of this launch
  uint num_rays;         // rays in this launch
  uint per_row_atomics;  // 1: the paper's atomics per row, no runs (to measure the runs' gain)
  uint unused;
}
pc;

// ---- The hooks ssb/ssb_trace.h needs (ssb_programs.cu defines the OptiX ones). ----
bool ssb_claim_row(uint row) {
  uint bit = 1u << (row & 31u);
  return (atomicOr(SsbWords(pc.row_flags).w[row >> 5], bit) & bit) == 0u;
}
int64_t ssb_row_value(uint row) {
  int64_t value = pc.side_values != 0ul ? SsbI64s(pc.side_values).v[row]
                                        : int64_t(SsbFloats(pc.vertices).v[9u * row]);
  if (pc.multipliers != 0ul) value *= int64_t(SsbU32s(pc.multipliers).v[row]);
  return value;
}
uint ssb_row_group(uint row) {
  if (pc.row_groups != 0ul) return SsbU32s(pc.row_groups).v[row];
  if (pc.vertices == 0ul) return 0u;  // filter_only with one group
  return uint(SsbFloats(pc.vertices).v[9u * row + 1u]);
}
void ssb_group_add(uint group, int64_t sum, uint count) {
  atomicAdd(SsbSums(pc.sums).s[group], uint64_t(sum));
  atomicAdd(SsbWords(pc.counts).w[group], count);
}
bool ssb_per_row_atomics() {
  return pc.per_row_atomics != 0u;
}

#include "ssb/ssb_trace.h"

// The ray of launch index `ray` (ssb/ssb_trace.h): along +Z over its Z interval.
void ssb_ray(uint ray, out vec3 origin, out float tmax) {
  uvec2 z = SsbRays(pc.rays).z[ray];
  origin = vec3(pc.ray_x, pc.ray_y, ssb_ray_start(z.x));
  tmax = ssb_ray_length(z.x, z.y);
}
