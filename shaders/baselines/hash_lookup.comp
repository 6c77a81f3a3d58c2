#version 460
#include "baselines/hash_common.glsl"
#include "common/records.glsl"
#include "common/rx_mapping.h"

// Point lookups in the hash table: probe to the key's slot, then walk its run of records for the
// count, the value sum and the first row (rows ascend within a run). Same results as RX.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer U64Array { uint64_t v[]; };
struct LookupResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { LookupResult r[]; };

layout(push_constant, scalar) uniform HashLookupParams {
  uint64_t records;
  uint64_t slots;
  uint64_t queries;
  uint64_t results;
  uint n;
  uint mask;
  uint num_queries;
  uint query_offset;
  uint key64;
  uint pad0;
}
pc;

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
  bool key64 = pc.key64 != 0u;
  uint64_t key = key64 ? U64Array(pc.queries).v[q] : uint64_t(U32Array(pc.queries).v[q]);
  LookupResult res = LookupResult(RX_MISS_ROW, 0u, 0ul);
  SlotArray slots = SlotArray(pc.slots);
  uint pos = HASH_EMPTY;
  for (uint h = hash_of(key) & pc.mask;; h = (h + 1u) & pc.mask) {
    uvec4 s = slots.s[h];
    if (s.z == HASH_EMPTY) break;
    if ((uint64_t(s.x) | (uint64_t(s.y) << 32)) == key) {
      pos = s.z;
      break;
    }
  }
  if (pos != HASH_EMPTY) {
    res.first_row = load_record(pc.records, pos, key64).row;
    for (uint p = pos; p < pc.n; ++p) {
      KeyRecord r = load_record(pc.records, p, key64);
      if (r.key != key) break;
      res.count += 1u;
      res.sum += uint64_t(r.value);
    }
  }
  ResultArray(pc.results).r[q] = res;
}
