#version 460
#extension GL_EXT_ray_tracing : require
#include "rx/rx_common.glsl"

// Closest-hit for opaque triangle rays (RX_FLAG_OPAQUE): report the committed primitive; the ray
// generation shader re-checks its key. Uses its own small payload (location 1), so such rays
// carry 4 bytes instead of the any-hit path's running result.
layout(location = 1) rayPayloadInEXT uint entry;

void main() { entry = rx_primitive(gl_InstanceID, gl_PrimitiveID); }
