#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// One cube per row: centred at the row's keys in the group's columns (0 on the axes the group
// lacks), half-width `half_width` on every axis, as VkAabbPositionsKHR. The float rounding of a
// key (half an ulp) is covered by the epsilon inside half_width. row * 6 fits uint: a BLAS holds
// at most the device's primitives (2^29 on NVIDIA).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Keys { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Boxes { float f[]; };

layout(push_constant, scalar) uniform RtScanCubeParams {
  uint64_t keys[3];
  uint64_t boxes;
  uint rows;
  float half_width;
}
pc;

void main() {
  uint row = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (row >= pc.rows) return;
  Boxes b = Boxes(pc.boxes);
  for (uint d = 0u; d < 3u; ++d) {
    float c = pc.keys[d] == 0ul ? 0.0 : float(Keys(pc.keys[d]).v[row]);
    b.f[row * 6u + d] = c - pc.half_width;
    b.f[row * 6u + 3u + d] = c + pc.half_width;
  }
}
