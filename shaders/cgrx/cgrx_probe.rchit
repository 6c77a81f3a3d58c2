#version 460
#extension GL_EXT_ray_tracing : require

// The closest representative or marker ahead of the ray: its primitive (one BLAS, so the
// primitive id is the index into the per-primitive bucket array).
layout(location = 0) rayPayloadInEXT uint hit_primitive;

void main() { hit_primitive = gl_PrimitiveID; }
