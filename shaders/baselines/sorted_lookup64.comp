#version 460
#define KEY_BITS 64
#include "baselines/sorted_lookup.glsl"
