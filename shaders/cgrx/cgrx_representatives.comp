#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/records.glsl"

// Gathers each bucket's representative, its last (largest) key, out of the key-sorted records,
// so the host reads n / bucket_size keys instead of n to lay out triangles and markers.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer U64Out { uint64_t v[]; };

layout(push_constant, scalar) uniform CgrxRepParams {
  uint64_t records;  // key order
  uint64_t reps;     // one key per bucket
  uint num_records;
  uint num_buckets;
  uint bucket_shift;
  uint key64;
}
pc;

void main() {
  uint b = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (b >= pc.num_buckets) return;
  // 64-bit: near 2^32 keys, (b + 1) * bucket size may not fit in 32 bits.
  uint last = uint(min(uint64_t(b + 1u) << pc.bucket_shift, uint64_t(pc.num_records))) - 1u;
  U64Out(pc.reps).v[b] = load_record(pc.records, last, pc.key64 != 0u).key;
}
