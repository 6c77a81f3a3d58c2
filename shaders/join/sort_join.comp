#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// The sort-based baseline joins (src/ops/join/baseline_join.cpp): the build side sorted on the
// GPU (dense keys + records), the probe side either sorted too (sort_merge, sort_search) or in row
// order (the sorted-array index join).
//   SORT_JOIN_COUNT:  one invocation per probe key: the run of equal build keys (lower bound +
//                     length, two binary searches) of each probe key, and the totals (pairs, and
//                     with SORT_JOIN_SUM the value sum over the pairs; join/join_totals.glsl).
//   SORT_JOIN_MERGE:  the same runs and totals from a merge of the two sorted sides (merge path):
//                     invocation t owns the steps [t * MERGE_STEPS, (t + 1) * MERGE_STEPS) of the
//                     merged order, finds where its first step splits the two sides by a binary
//                     search along that diagonal, then merges its steps sequentially. Probe side
//                     sorted only.
//   SORT_JOIN_EXPAND: after an exclusive scan of the run lengths, each probe key writes its pairs
//                     (build row, probe row) at its offset.
#include "common/records.glsl"

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer U64Array { uint64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer PairArray { uvec2 p[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer JoinTotals { uint v[]; };
#include "join/join_totals.glsl"

#define SORT_JOIN_COUNT 0u
#define SORT_JOIN_EXPAND 1u
#define SORT_JOIN_MERGE 2u
#define MERGE_STEPS 8u  // merged elements per invocation; must match kMergeSteps (baseline_join.cpp)
#define SORT_JOIN_KEY64 1u        // flags: 64-bit keys
#define SORT_JOIN_PROBE_SORTED 2u  // probe keys come sorted, with their rows in probe_records
#define SORT_JOIN_SUM 4u           // count pass: also sum the build values over the pairs
// EXPAND over a hash table's runs (join/hash_join_count.glsl wrote starts and counts): with
// unique keys the start is the build row itself; with duplicates the run's first record holds
// its first row in .x (the table's payload), the others their own rows.
#define SORT_JOIN_ROW_IS_START 8u
#define SORT_JOIN_RUN_PAYLOAD 16u

// Mirrors raydb::detail::SortJoinParams.
layout(push_constant, scalar) uniform SortJoinParams {
  uint64_t build_keys;     // the build keys, ascending (dense, 4 or 8 bytes each)
  uint64_t build_records;  // the build records in the same order (common/records.glsl)
  uint64_t probe_keys;     // the probe keys: ascending with PROBE_SORTED, else in row order
  uint64_t probe_records;  // PROBE_SORTED: the probe records (their rows), else unused
  uint64_t starts;         // per probe key: the position of its first equal build key
  uint64_t offsets;        // per probe key: its run length (count), scanned before EXPAND
  uint64_t totals;         // (pairs lo, pairs hi, sum lo, sum hi)
  uint64_t pairs;          // EXPAND: the output, (build row, probe row) per pair
  uint num_build;
  uint num_probe;
  uint probe_offset;       // this dispatch's first probe key (MERGE: its first invocation)
  uint num_in_dispatch;    // probe keys (MERGE: invocations) in this dispatch
  uint total_pairs;        // EXPAND: all pairs (the scan's end)
  uint mode;
  uint flags;
  uint pad0;
}
pc;

bool flag(uint f) { return (pc.flags & f) != 0u; }

uint64_t key_at(uint64_t column, uint i) {
  return flag(SORT_JOIN_KEY64) ? U64Array(column).v[i] : uint64_t(U32Array(column).v[i]);
}

// The first build position whose key is >= q (strict: > q) in [0, num_build].
uint build_bound(uint64_t q, bool strict) {
  uint lo = 0u, hi = pc.num_build;
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    uint64_t k = key_at(pc.build_keys, mid);
    if (strict ? k <= q : k < q) lo = mid + 1u; else hi = mid;
  }
  return lo;
}

// The first build position after `start` whose key is > q, where the keys from `start` on are >= q
// (a gallop, then a binary search): O(log run) for a run of equal keys.
uint build_run_end(uint64_t q, uint start) {
  if (start >= pc.num_build || key_at(pc.build_keys, start) != q) return start;
  uint known = start;  // build_keys[known] == q
  uint64_t step = 1ul;
  while (uint64_t(known) + step < uint64_t(pc.num_build) &&
         key_at(pc.build_keys, uint(uint64_t(known) + step)) == q) {
    known = uint(uint64_t(known) + step);
    step *= 2ul;
  }
  uint lo = known + 1u, hi = uint(min(uint64_t(known) + step, uint64_t(pc.num_build)));
  while (lo < hi) {  // hi is num_build or a key > q
    uint mid = lo + (hi - lo) / 2u;
    if (key_at(pc.build_keys, mid) <= q) lo = mid + 1u; else hi = mid;
  }
  return lo;
}

// The build values' sum over the positions [start, end).
uint64_t build_sum(uint start, uint end) {
  uint64_t sum = 0ul;
  for (uint j = start; j < end; ++j)
    sum += uint64_t(load_record(pc.build_records, j, flag(SORT_JOIN_KEY64)).value);
  return sum;
}

// The probe keys that `local` owns in the merge of both sorted sides, their runs, and the totals.
// Merged order: build keys < a probe key come before it, equal ones after, so when probe key i is
// merged the build keys merged so far are exactly those < it: its run starts there.
void merge_count(uint local, bool in_range) {
  uint64_t pairs = 0ul, sum = 0ul;
  if (in_range) {
    uint64_t steps = uint64_t(pc.num_build) + uint64_t(pc.num_probe);
    uint64_t d = uint64_t(local + pc.probe_offset) * uint64_t(MERGE_STEPS);
    uint64_t d_end = min(d + uint64_t(MERGE_STEPS), steps);
    // Probe keys among the first d merged: the largest p such that probe key p - 1 comes before
    // build key d - p (ties: probe first).
    uint lo = uint(d > uint64_t(pc.num_build) ? d - uint64_t(pc.num_build) : 0ul);
    uint hi = uint(min(d, uint64_t(pc.num_probe)));
    while (lo < hi) {
      uint mid = lo + (hi - lo) / 2u;
      if (key_at(pc.probe_keys, mid) <= key_at(pc.build_keys, uint(d - uint64_t(mid)) - 1u))
        lo = mid + 1u;
      else
        hi = mid;
    }
    uint p = lo, b = uint(d - uint64_t(lo));
    // The last probe key's run, reused by equal probe keys that follow it.
    uint64_t last_key = 0ul;
    uint last_start = 0u, last_end = 0u;
    uint64_t last_sum = 0ul;
    bool have_last = false;
    for (uint64_t s = d; s < d_end; ++s) {
      if (p < pc.num_probe &&
          (b == pc.num_build || key_at(pc.probe_keys, p) <= key_at(pc.build_keys, b))) {
        uint64_t q = key_at(pc.probe_keys, p);
        if (!have_last || q != last_key || b != last_start) {
          last_key = q;
          last_start = b;
          last_end = build_run_end(q, b);
          last_sum = flag(SORT_JOIN_SUM) ? build_sum(b, last_end) : 0ul;
          have_last = true;
        }
        U32Array(pc.starts).v[p] = last_start;
        U32Array(pc.offsets).v[p] = last_end - last_start;
        pairs += uint64_t(last_end - last_start);
        sum += last_sum;
        ++p;
      } else {
        ++b;
      }
    }
  }
  join_add_totals(pc.totals, pairs, sum);
}

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint i = local + pc.probe_offset;
  if (pc.mode == SORT_JOIN_MERGE) {
    merge_count(local, local < pc.num_in_dispatch);
    return;
  }
  bool in_range = local < pc.num_in_dispatch && i < pc.num_probe;
  if (pc.mode == SORT_JOIN_EXPAND) {
    if (!in_range) return;
    uint first = U32Array(pc.offsets).v[i];
    uint end = i + 1u < pc.num_probe ? U32Array(pc.offsets).v[i + 1u] : pc.total_pairs;
    uint start = U32Array(pc.starts).v[i];
    uint probe_row = flag(SORT_JOIN_PROBE_SORTED)
                         ? load_record(pc.probe_records, i, flag(SORT_JOIN_KEY64)).row
                         : i;
    for (uint j = 0u; first + j < end; ++j) {
      uint build_row = flag(SORT_JOIN_ROW_IS_START) ? start
                       : flag(SORT_JOIN_RUN_PAYLOAD) && j == 0u
                           ? RecordArray(pc.build_records).r[start].x
                           : load_record(pc.build_records, start + j, flag(SORT_JOIN_KEY64)).row;
      PairArray(pc.pairs).p[first + j] = uvec2(build_row, probe_row);
    }
    return;
  }
  uint64_t pairs = 0ul, sum = 0ul;
  if (in_range) {
    uint64_t q = key_at(pc.probe_keys, i);
    uint start = build_bound(q, false);
    uint end = start < pc.num_build && key_at(pc.build_keys, start) == q ? build_bound(q, true)
                                                                        : start;
    U32Array(pc.starts).v[i] = start;
    U32Array(pc.offsets).v[i] = end - start;
    pairs = uint64_t(end - start);
    if (flag(SORT_JOIN_SUM))
      for (uint j = start; j < end; ++j)
        sum += uint64_t(load_record(pc.build_records, j, flag(SORT_JOIN_KEY64)).value);
  }
  join_add_totals(pc.totals, pairs, sum);
}
