#version 460
#extension GL_EXT_ray_tracing : require
// Never runs (rays skip closest-hit; any-hit ignores every hit); the pipeline's hit group needs one.
void main() {}
