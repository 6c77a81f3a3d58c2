#version 460
#include "sort/radix_common.glsl"

// Counts each digit of this pass in one tile.
shared uint counts[RADIX_DIGITS];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = tile_index();
  counts[t] = 0u;
  barrier();
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    uint i = tile * RADIX_TILE + r * RADIX_THREADS + t;
    if (i < pc.n) atomicAdd(counts[digit_of(load_key(i))], 1u);
  }
  barrier();
  U32Array(pc.hist).v[t * pc.num_tiles + tile] = counts[t];
}
