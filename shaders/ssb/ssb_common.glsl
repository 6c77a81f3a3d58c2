// Shared by the SSB trace kernels (ray-tracing pipeline and ray query): the push constants, the
// ray of a Z interval, and the per-row count that adds a hit row to its group exactly once.
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
  uint64_t vertices;     // 9 floats per triangle: (x, y, z) of the right-angle vertex first
  uint64_t rays;         // (z_lo, z_hi) inclusive per ray
  uint64_t row_flags;    // one bit per triangle, cleared before the launch
  uint64_t sums;         // one 64-bit sum per group (two's complement)
  uint64_t counts;       // one 32-bit count per group
  uint64_t multipliers;  // per triangle, multiplies the value (Q1.x: lo_discount); or 0
  uint64_t side_values;  // per triangle, the value when X cannot hold it exactly; or 0
  float ray_x, ray_y;    // the lattice point inside every triangle
  uint ray_offset;       // first ray of this launch
  uint num_rays;         // rays in this launch
  uint per_row_atomics;  // 1: the paper's atomics per row, no runs (to measure the runs' gain)
  uint unused;
}
pc;

// Along +Z from half a code below z_lo to half a code above z_hi: triangles sit on integer Z
// codes below 2^23, so the ends are exact and never graze a triangle.
void ssb_ray(uint ray, out vec3 origin, out float tmax) {
  uvec2 z = SsbRays(pc.rays).z[ray];
  origin = vec3(pc.ray_x, pc.ray_y, float(z.x) - 0.5);
  tmax = float(z.y - z.x) + 1.0;
}

// The rows one ray counted for one group, not yet added to the group's sums: consecutive hits
// of one group cost one pair of atomics (Q1.x have a single group, which every row of every ray
// would otherwise hit). A ray-tracing payload in the pipeline, a local in the ray-query loop.
struct SsbRun {
  uint group;  // 0xFFFFFFFF: none yet
  uint count;
  int64_t sum;
};

SsbRun ssb_run_start() {
  return SsbRun(0xFFFFFFFFu, 0u, 0l);
}

void ssb_run_flush(inout SsbRun run) {
  if (run.count == 0u) return;
  atomicAdd(SsbSums(pc.sums).s[run.group], uint64_t(run.sum));
  atomicAdd(SsbWords(pc.counts).w[run.group], run.count);
  run.count = 0u;
  run.sum = 0l;
}

// The any-hit work (RTCUDB's Algorithm 1): the first hit of a row sets its flag and adds its
// value to its group (through the ray's run); later hits (from any ray) see the flag and add
// nothing. Sums wrap as two's complement, so the order of additions does not change them.
void ssb_count_row(uint prim, inout SsbRun run) {
  uint bit = 1u << (prim & 31u);
  if ((atomicOr(SsbWords(pc.row_flags).w[prim >> 5], bit) & bit) != 0u) return;
  SsbFloats v = SsbFloats(pc.vertices);
  int64_t value = pc.side_values != 0ul ? SsbI64s(pc.side_values).v[prim]
                                        : int64_t(v.v[9u * prim]);
  if (pc.multipliers != 0ul) value *= int64_t(SsbU32s(pc.multipliers).v[prim]);
  uint group = uint(v.v[9u * prim + 1u]);
  if (pc.per_row_atomics != 0u) {
    atomicAdd(SsbSums(pc.sums).s[group], uint64_t(value));
    atomicAdd(SsbWords(pc.counts).w[group], 1u);
    return;
  }
  if (group != run.group) {
    ssb_run_flush(run);
    run.group = group;
  }
  run.sum += value;
  run.count += 1u;
}
