#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// One direction of the copy in copy_words.comp, 16 bytes per invocation: read only (the loads
// feed a value that is stored only if it equals `value`, which the caller's data never gives,
// so nothing is written but the loads cannot be dropped) or write only (`value` everywhere).
// Timed beside the copy, they say which direction a memory-bound kernel falls short in.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer Src { uvec4 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) writeonly buffer Dst { uvec4 v[]; };

layout(push_constant, scalar) uniform StreamParams {
  uint64_t src;
  uint64_t dst;
  uint count;  // 16-byte elements
  uint write;  // 0: read src, 1: write dst
  uint value;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.count) return;
  if (pc.write != 0u) {
    Dst(pc.dst).v[i] = uvec4(pc.value);
    return;
  }
  uvec4 v = Src(pc.src).v[i];
  uint x = v.x ^ v.y ^ v.z ^ v.w;
  if (x == pc.value) Dst(pc.dst).v[0] = uvec4(x);
}
