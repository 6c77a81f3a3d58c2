#version 460
#define KEY_BITS 64
#include "baselines/hash_lookup.glsl"
