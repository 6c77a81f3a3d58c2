#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// The sort key of each lookup for sorted probes (RxBuildOptions::sort_probes): a point's key, or
// a range's lo. The queries themselves stay in place; the sort orders these copies with each
// lookup's index, and the probe kernels read lookups through that order.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64Array { uint64_t v[]; };

layout(push_constant, scalar) uniform RxSortKeysParams {
  uint64_t queries;  // points, or (lo, hi) pairs, of the key width
  uint64_t keys;     // one key per lookup, of the key width
  uint count;
  uint width;  // 1 for points, 2 for ranges
  uint key64;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
  if (pc.key64 != 0u)
    U64Array(pc.keys).v[i] = U64Array(pc.queries).v[i * pc.width];
  else
    U32Array(pc.keys).v[i] = U32Array(pc.queries).v[i * pc.width];
}
