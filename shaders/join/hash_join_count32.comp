#version 460
#define KEY_BITS 32
#include "join/hash_join_count.glsl"
