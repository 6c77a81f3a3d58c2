#version 460
#include "sort/radix_common.glsl"

// Moves one tile's elements to their sorted places, stably. The tile is taken in 16 rounds of 256
// consecutive elements; within a round, an element's rank among equal digits is the number of
// lower threads that share its digit, read from a per-digit 256-bit mask. That needs no subgroup
// operations, so the kernel behaves the same at any subgroup size (lavapipe's included).
shared uint masks[RADIX_DIGITS * 8u];
shared uint base[RADIX_DIGITS];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint tile = tile_index();
  base[t] = U32Array(pc.hist).v[t * pc.num_tiles + tile];
  for (uint w = 0u; w < 8u; ++w) masks[t * 8u + w] = 0u;
  barrier();
  uint word = t >> 5u;
  uint bit = 1u << (t & 31u);
  for (uint r = 0u; r < RADIX_ITEMS; ++r) {
    uint i = tile * RADIX_TILE + r * RADIX_THREADS + t;
    bool valid = i < pc.n;
    uint64_t key = 0ul;
    uint d = 0u;
    if (valid) {
      key = load_key(i);
      d = digit_of(key);
      atomicOr(masks[d * 8u + word], bit);
    }
    barrier();
    if (valid) {
      uint rank = bitCount(masks[d * 8u + word] & (bit - 1u));
      for (uint w = 0u; w < word; ++w) rank += bitCount(masks[d * 8u + w]);
      uint dst = base[d] + rank;
      if (pc.key64 != 0u)
        U64Array(pc.keys_out).v[dst] = key;
      else
        U32Array(pc.keys_out).v[dst] = uint(key);
      U32Array(pc.rows_out).v[dst] = pc.rows_in == 0ul ? i : U32Array(pc.rows_in).v[i];
    }
    barrier();
    // Thread t owns digit t: advance its base past this round's elements and clear its mask.
    uint c = 0u;
    for (uint w = 0u; w < 8u; ++w) {
      c += bitCount(masks[t * 8u + w]);
      masks[t * 8u + w] = 0u;
    }
    base[t] += c;
    barrier();
  }
}
