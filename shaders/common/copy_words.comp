#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// dst = src, 16 bytes per invocation: the device-to-device copy that the memory-bound kernels'
// bandwidth is compared with (vkCmdCopyBuffer may run on a slower copy path).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer Src { uvec4 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) writeonly buffer Dst { uvec4 v[]; };

layout(push_constant, scalar) uniform CopyParams {
  uint64_t src;
  uint64_t dst;
  uint count;  // 16-byte elements (below 2^32: 64 GiB)
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
  Dst(pc.dst).v[i] = Src(pc.src).v[i];
}
