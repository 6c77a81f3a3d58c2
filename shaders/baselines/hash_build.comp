#version 460
#include "baselines/hash_common.glsl"
#include "common/records.glsl"

// Inserts the first record of every run of equal keys. Each distinct key is inserted by exactly
// one thread, so a slot is claimed by swapping its pos from HASH_EMPTY and then given its key.
layout(local_size_x = 64) in;
layout(push_constant, scalar) uniform HashBuildParams {
  uint64_t records;
  uint64_t slots;
  uint n;
  uint mask;  // capacity - 1
  uint key64;
  uint pad0;
}
pc;

void main() {
  uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.n) return;
  bool key64 = pc.key64 != 0u;
  uint64_t key = load_record(pc.records, p, key64).key;
  if (p > 0u && load_record(pc.records, p - 1u, key64).key == key) return;
  SlotArray slots = SlotArray(pc.slots);
  for (uint h = hash_of(key) & pc.mask;; h = (h + 1u) & pc.mask) {
    if (atomicCompSwap(slots.s[h].z, HASH_EMPTY, p) == HASH_EMPTY) {
      slots.s[h].x = uint(key);
      slots.s[h].y = uint(key >> 32);
      return;
    }
  }
}
