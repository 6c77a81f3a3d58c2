#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Uniform Encoding's last step on the GPU: after a stable sort of (value, row) pairs, the row at
// sorted position i gets code i + 1 (its rank; equal values get consecutive codes in row order).
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Rows { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Codes { uint v[]; };

layout(push_constant, scalar) uniform RtScanCodeParams {
  uint64_t sorted_rows;
  uint64_t codes;
  uint rows;
  uint pad0;
}
pc;

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (i >= pc.rows) return;
  Codes(pc.codes).v[Rows(pc.sorted_rows).v[i]] = i + 1u;
}
