#version 460
#extension GL_EXT_ray_tracing : require
// Never called (see rtscan_refine.rahit).
void main() {}
