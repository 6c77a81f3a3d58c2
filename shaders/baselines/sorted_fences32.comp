#version 460
#define KEY_BITS 32
#define SORTED_FENCES
#include "baselines/sorted_lookup.glsl"
