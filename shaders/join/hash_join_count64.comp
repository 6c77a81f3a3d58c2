#version 460
#define KEY_BITS 64
#include "join/hash_join_count.glsl"
