#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Second half of a multi-level scan: adds each 4096-block's scanned offset to its values.
layout(local_size_x = 256) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(push_constant, scalar) uniform ScanParams {
  uint64_t data;
  uint64_t block_sums;
  uint count;
  uint pad0;
}
pc;

void main() {
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint offset = U32Array(pc.block_sums).v[block];
  for (uint k = 0u; k < 16u; ++k) {
    uint i = block * 4096u + k * 256u + gl_LocalInvocationID.x;
    if (i < pc.count) U32Array(pc.data).v[i] += offset;
  }
}
