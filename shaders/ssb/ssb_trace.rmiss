#version 460
#extension GL_EXT_ray_tracing : require
// Nothing to do: the any-hit shader has done the ray's work.
void main() {}
