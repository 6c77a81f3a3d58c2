#version 460
#extension GL_EXT_ray_tracing : require
// Nothing to do on a miss: the intersection shader already wrote every bit.
void main() {}
