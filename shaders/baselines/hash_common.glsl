// The GPU hash table baseline: open addressing with linear probing over a power-of-two table
// (index = hash & mask), at most half full. Included by the build and lookup kernels, which are
// compiled once per key width (KEY_BITS 32 or 64: the *32.comp / *64.comp wrappers), so that a
// 32-bit table hashes, compares and indexes in 32-bit arithmetic only.
//
// A slot is 16 bytes, (key lo, key hi, ref, value); 32-bit keys leave key hi 0. ref == HASH_EMPTY
// marks an empty slot (row ids and record positions stop at 2^32 - 2), so every key value, 0 and
// the maximum included, can be stored. What ref means depends on whether the keys are unique:
// - unique keys: ref is the key's row id and value its value: the slot *is* the answer, and a hit
//   costs the probe's own memory sector and nothing else;
// - duplicates: ref is the position of the key's run in the key-sorted records, where the build
//   left the run's precomputed (first row, count, sum lo, sum hi): a hit is the probe plus one
//   16-byte payload read, however long the run.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/rx_mapping.h"

#define HASH_EMPTY 0xFFFFFFFFu
// flags: RX_FLAG_FIRST_HIT_ONLY when the keys are unique (slots hold row and value inline).

#if KEY_BITS == 64
#define Key uint64_t
#else
#define Key uint
#endif

layout(buffer_reference, scalar, buffer_reference_align = 16) buffer SlotArray { uvec4 s[]; };
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) readonly buffer KeyArray { Key k[]; };

#if KEY_BITS == 64
uint hash_of(uint64_t key) {
  // murmur3's 64-bit finalizer, folded to 32 bits: both key halves reach every hash bit.
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdul;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ul;
  key ^= key >> 33;
  return uint(key) ^ uint(key >> 32);
}
bool slot_holds(uvec4 s, uint64_t key) { return s.x == uint(key) && s.y == uint(key >> 32); }
#else
uint hash_of(uint key) {
  // murmur3's 32-bit finalizer: a bijection with full avalanche, so the masked low bits spread
  // sequential and clustered keys as well as random ones, in two 32-bit multiplies (the 64-bit
  // finalizer costs several emulated 64-bit multiplies per lookup on GPUs).
  key ^= key >> 16;
  key *= 0x85ebca6bu;
  key ^= key >> 13;
  key *= 0xc2b2ae35u;
  key ^= key >> 16;
  return key;
}
bool slot_holds(uvec4 s, uint key) { return s.x == key; }
#endif
