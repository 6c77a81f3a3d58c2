// The hash join's counting pass (src/ops/join/sort_join.cpp): one invocation per probe key, in row
// order, probes a HashIndex's table (baselines/hash_common.glsl) and writes where its matches lie
// and how many there are, for join/sort_join.comp's EXPAND: unique keys, the build row itself and
// 1; duplicates, the run's position in the key-sorted records and the run's length (from the
// payload the build left at the run's start). Then the totals (join/join_totals.glsl).
#include "baselines/hash_common.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer PayloadArray { uvec4 r[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer JoinTotals { uint v[]; };
#include "join/join_totals.glsl"

#define HASH_JOIN_UNIQUE 1u  // the table's keys are unique: slots hold (key, row, value)
#define HASH_JOIN_SUM 2u     // also sum the build values over the pairs

// Mirrors raydb::detail::HashJoinCountParams.
layout(push_constant, scalar) uniform HashJoinCountParams {
  uint64_t slots;
  uint64_t payloads;    // duplicates: the key-sorted records with each run's payload
  uint64_t probe_keys;  // row order
  uint64_t starts;      // per probe key: build row (unique) or run position (duplicates)
  uint64_t offsets;     // per probe key: its number of matches
  uint64_t totals;      // (pairs lo, pairs hi, sum lo, sum hi)
  uint mask;
  uint num_probe;
  uint probe_offset;
  uint num_in_dispatch;
  uint flags;
  uint pad0;
}
pc;

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint i = local + pc.probe_offset;
  uint64_t pairs = 0ul, sum = 0ul;
  if (local < pc.num_in_dispatch && i < pc.num_probe) {
    Key key = KeyArray(pc.probe_keys).k[i];
    SlotArray slots = SlotArray(pc.slots);
    uint h = hash_of(key) & pc.mask;
    uvec4 s = slots.s[h];
    // At most half full: an empty slot ends every probe sequence.
    while (s.z != HASH_EMPTY && !slot_holds(s, key)) {
      h = (h + 1u) & pc.mask;
      s = slots.s[h];
    }
    uint start = 0u, count = 0u;
    if (s.z != HASH_EMPTY) {
      start = s.z;
      if ((pc.flags & HASH_JOIN_UNIQUE) != 0u) {
        count = 1u;
        sum = uint64_t(s.w);
      } else {
        uvec4 pl = PayloadArray(pc.payloads).r[s.z];
        count = pl.y;
        sum = uint64_t(pl.z) | (uint64_t(pl.w) << 32);
      }
    }
    U32Array(pc.starts).v[i] = start;
    U32Array(pc.offsets).v[i] = count;
    pairs = uint64_t(count);
    if ((pc.flags & HASH_JOIN_SUM) == 0u) sum = 0ul;
  }
  join_add_totals(pc.totals, pairs, sum);
}
