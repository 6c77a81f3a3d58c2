#version 460
#define KEY_BITS 32
#include "baselines/hash_build.glsl"
