#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// The sort-based baseline joins (src/ops/join/sort_join.cpp): the build side sorted on the GPU
// (dense keys + records), the probe side either sorted too (the sort-merge join: neighbouring
// threads search neighbouring keys, so the searches share their paths through the build keys) or
// in row order (the sorted-array index join). One invocation per probe key.
//   SORT_JOIN_COUNT:  the run of equal build keys (lower bound + length) of each probe key, and
//                     the totals (pairs, and with SORT_JOIN_SUM the value sum over the pairs;
//                     join/join_totals.glsl).
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
  uint probe_offset;       // this dispatch's first probe key
  uint num_in_dispatch;
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

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  uint i = local + pc.probe_offset;
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
