#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// RTIndex's primitive, one triangle per row: (k - h, h, -h), (k - h, -h, -h), (k + h, 0, h) for
// key k, which a ray along X at y = z = 0 crosses at x = k, inside the triangle (barycentrics
// 1/4, 1/4, 1/2). h covers float32 rounding of k so no triangle is degenerate.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer Keys { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer Vertices { float f[]; };

layout(push_constant, scalar) uniform RtScanCubeParams {
  uint64_t keys[3];  // only keys[0] is used
  uint64_t vertices;
  uint rows;
  float half_width;
}
pc;

void main() {
  uint row = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (row >= pc.rows) return;
  float k = float(Keys(pc.keys[0]).v[row]), h = pc.half_width;
  float v[9] = float[9](k - h, h, -h, k - h, -h, -h, k + h, 0.0, h);
  Vertices out_v = Vertices(pc.vertices);
  for (uint i = 0u; i < 9u; ++i) out_v.f[row * 9u + i] = v[i];
}
