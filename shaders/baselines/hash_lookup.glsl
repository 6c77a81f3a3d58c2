// Point lookups in the table (baselines/hash_common.glsl): probe to the key's slot or to an empty
// one. Unique keys: the slot holds the answer. Duplicates: one read of the run's payload. Same
// results as RX (first row, count, sum over the run).
#include "baselines/hash_common.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer PayloadArray { uvec4 r[]; };
struct LookupResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { LookupResult r[]; };

// Mirrors raydb::detail::HashLookupParams.
layout(push_constant, scalar) uniform HashLookupParams {
  uint64_t slots;
  uint64_t payloads;  // duplicates only: (first row, count, sum lo, sum hi) at each run's start
  uint64_t queries;
  uint64_t results;
  uint mask;
  uint num_queries;
  uint query_offset;
  uint flags;
}
pc;

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
  Key key = KeyArray(pc.queries).k[q];
  SlotArray slots = SlotArray(pc.slots);
  uint h = hash_of(key) & pc.mask;
  uvec4 s = slots.s[h];
  // At most half full, so an empty slot ends every probe sequence; with unique keys a key occurs
  // once, so the first match ends it too.
  while (s.z != HASH_EMPTY && !slot_holds(s, key)) {
    h = (h + 1u) & pc.mask;
    s = slots.s[h];
  }
  LookupResult res = LookupResult(RX_MISS_ROW, 0u, 0ul);
  if (s.z != HASH_EMPTY) {
    if ((pc.flags & RX_FLAG_FIRST_HIT_ONLY) != 0u) {
      res = LookupResult(s.z, 1u, uint64_t(s.w));
    } else {
      uvec4 pl = PayloadArray(pc.payloads).r[s.z];
      res = LookupResult(pl.x, pl.y, uint64_t(pl.z) | (uint64_t(pl.w) << 32));
    }
  }
  ResultArray(pc.results).r[q] = res;
}
