// vulkan_app's own compute shader, reaching its buffers by device address (no descriptors).
// mode 0 (fill): keys[i] = i * 7919 % 10007 and values[i] = i for i < n (keys 0 .. 6376 twice,
// the rest once); queries[j] = j for j < m (j >= 10007 misses).
// mode 1 (consume): reads raydb's RxLookup per query ({first_row, count, sum}, 16 bytes) and adds
// up the summary: queries that hit, rows found, the hits' first rows, the value sums.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Words { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer Lookups { uvec4 r[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Summary {
  uint hits, rows, first_rows, value_sums;
};

layout(push_constant, scalar) uniform Push {
  uint64_t keys, values, queries, results, summary;
  uint n, m, mode;
} pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (pc.mode == 0u) {
    if (i < pc.n) {
      Words(pc.keys).v[i] = i * 7919u % 10007u;
      Words(pc.values).v[i] = i;
    }
    if (i < pc.m) Words(pc.queries).v[i] = i;
    return;
  }
  if (i >= pc.m) return;
  uvec4 r = Lookups(pc.results).r[i];  // first_row, count, sum (low, high word)
  if (r.y == 0u) return;
  Summary s = Summary(pc.summary);
  atomicAdd(s.hits, 1u);
  atomicAdd(s.rows, r.y);
  atomicAdd(s.first_rows, r.x);
  atomicAdd(s.value_sums, r.z);
}
