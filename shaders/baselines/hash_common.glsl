// The GPU hash table baseline: open addressing with linear probing over a power-of-two table.
// A slot holds a distinct key and the position of its first record in the key-sorted records
// (common/records.glsl); duplicates follow that record. An empty slot has pos == HASH_EMPTY
// (positions stop at 2^32 - 2), so every key value, 0 and the maximum included, can be stored.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define HASH_EMPTY 0xFFFFFFFFu

// Slots of 16 bytes: (key lo, key hi, pos, 0); 32-bit keys leave key hi 0.
layout(buffer_reference, scalar, buffer_reference_align = 16) buffer SlotArray { uvec4 s[]; };

uint hash_of(uint64_t key) {
  // murmur3's 64-bit finalizer, folded to 32 bits.
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdul;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ul;
  key ^= key >> 33;
  return uint(key) ^ uint(key >> 32);
}
