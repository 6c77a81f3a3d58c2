#version 460
#extension GL_EXT_ray_tracing : require
// Nothing to do on a miss: the payload already holds the lookup's result.
void main() {}
