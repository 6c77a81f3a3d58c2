// Fills the table (baselines/hash_common.glsl) from the key-sorted records: the invocation at the
// first record of each run of equal keys inserts that key, so each distinct key is inserted once
// and a slot is claimed by swapping its ref from HASH_EMPTY, then given the rest.
#include "baselines/hash_common.glsl"

layout(local_size_x = 64) in;
// Record layout (common/records.glsl): (key, row, value, 0) for 32-bit keys, (key lo, key hi,
// row, value) for 64-bit keys. Written here: a run's first record becomes its payload.
layout(buffer_reference, scalar, buffer_reference_align = 16) buffer RecordArray { uvec4 r[]; };

// Mirrors raydb::detail::HashBuildParams.
layout(push_constant, scalar) uniform HashBuildParams {
  uint64_t keys;     // the n keys, ascending (the dense sort output)
  uint64_t records;  // the n key-sorted records
  uint64_t slots;
  uint n;
  uint mask;  // capacity - 1
  uint flags;
  uint pad0;
}
pc;

#if KEY_BITS == 64
uint record_row(uvec4 r) { return r.z; }
uint record_value(uvec4 r) { return r.w; }
#else
uint record_row(uvec4 r) { return r.y; }
uint record_value(uvec4 r) { return r.z; }
#endif

void main() {
  uint p = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (p >= pc.n) return;
  // Run boundaries come from the dense keys, never from the records, which the run owners
  // overwrite below.
  KeyArray keys = KeyArray(pc.keys);
  Key key = keys.k[p];
  if (p > 0u && keys.k[p - 1u] == key) return;
  RecordArray records = RecordArray(pc.records);
  uvec4 r = records.r[p];
  uint ref, value;
  if ((pc.flags & RX_FLAG_FIRST_HIT_ONLY) != 0u) {
    ref = record_row(r);
    value = record_value(r);
  } else {
    // Walk the run once here instead of on every lookup. Its records are read by this invocation
    // only, so its first record can take the payload without a race.
    uint first = record_row(r), count = 1u;
    uint64_t sum = uint64_t(record_value(r));
    for (uint e = p + 1u; e < pc.n && keys.k[e] == key; ++e) {
      uvec4 x = records.r[e];
      first = min(first, record_row(x));
      count += 1u;
      sum += uint64_t(record_value(x));
    }
    records.r[p] = uvec4(first, count, uint(sum), uint(sum >> 32));
    ref = p;
    value = 0u;
  }
  SlotArray slots = SlotArray(pc.slots);
  for (uint h = hash_of(key) & pc.mask;; h = (h + 1u) & pc.mask) {
    if (atomicCompSwap(slots.s[h].z, HASH_EMPTY, ref) == HASH_EMPTY) {
      slots.s[h].x = uint(key);
#if KEY_BITS == 64
      slots.s[h].y = uint(key >> 32);
#else
      slots.s[h].y = 0u;
#endif
      slots.s[h].w = value;
      return;
    }
  }
}
