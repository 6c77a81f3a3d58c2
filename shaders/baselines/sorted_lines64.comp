#version 460
#define KEY_BITS 64
#define SORTED_LINES
#include "baselines/sorted_lookup.glsl"
