#version 460
#extension GL_EXT_ray_tracing : require
// Nothing to do on a miss: the payload still says CGRX_NO_BUCKET.
void main() {}
