// The sorted-array baseline: per lookup, a binary search for the first key >= lo in the dense
// sorted key column, then the 16-byte key-sorted records (common/records.glsl) for row ids and
// values. Same queries and results as the RX kernels, so the two are compared on identical work.
//
// Compiled once per key width (sorted_lookup32.comp, sorted_lookup64.comp define KEY_BITS): with
// 32-bit keys every load, compare and index is 32-bit; a runtime width switch would leave 64-bit
// compares and a branch in the search's inner loop.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/rx_mapping.h"

#if KEY_BITS == 64
#define Key uint64_t
#else
#define Key uint
#endif

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) readonly buffer KeyArray { Key k[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer RecordArray { uvec4 r[]; };
struct LookupResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { LookupResult r[]; };

// Mirrors raydb::detail::SortedLookupParams.
layout(push_constant, scalar) uniform SortedLookupParams {
  uint64_t keys;     // the n keys, ascending
  uint64_t records;  // the n key-sorted records, same order
  uint64_t queries;  // points, or (lo, hi) pairs
  uint64_t results;
  uint n;
  uint num_queries;
  uint query_offset;
  uint flags;  // RX_FLAG_RANGES | RX_FLAG_FIRST_HIT_ONLY (unique keys, point lookups)
}
pc;

// Record layout: (key, row, value, 0) for 32-bit keys, (key lo, key hi, row, value) for 64-bit.
#if KEY_BITS == 64
Key record_key(uvec4 r) { return uint64_t(r.x) | (uint64_t(r.y) << 32); }
uint record_row(uvec4 r) { return r.z; }
uint record_value(uvec4 r) { return r.w; }
#else
Key record_key(uvec4 r) { return r.x; }
uint record_row(uvec4 r) { return r.y; }
uint record_value(uvec4 r) { return r.z; }
#endif

// The first position whose key is >= x (n if none). Branch-free with a trip count that depends
// on n only (ceil(log2 n)): every invocation of a subgroup runs the same iterations, the
// comparison becomes a select rather than a divergent branch, and there is no early exit that
// would desynchronise the subgroup's loads (Khuong and Morin's branch-free lower bound).
uint lower_bound(KeyArray keys, uint n, Key x) {
  if (n == 0u) return 0u;
  uint base = 0u;
  for (uint len = n; len > 1u;) {
    uint step = len >> 1u;
    base = keys.k[base + step] < x ? base + step : base;
    len -= step;
  }
  return base + (keys.k[base] < x ? 1u : 0u);
}

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
  uint stride = (pc.flags & RX_FLAG_RANGES) != 0u ? 2u : 1u;
  KeyArray queries = KeyArray(pc.queries);
  Key lo = queries.k[q * stride];
  Key hi = queries.k[q * stride + stride - 1u];
  KeyArray keys = KeyArray(pc.keys);
  RecordArray records = RecordArray(pc.records);
  uint p = lower_bound(keys, pc.n, lo);
  LookupResult res = LookupResult(RX_MISS_ROW, 0u, 0ul);
  if ((pc.flags & RX_FLAG_FIRST_HIT_ONLY) != 0u) {
    // Unique keys, point lookup: the key at p (already in cache from the search's last step)
    // decides hit or miss; a hit reads one record, a miss none, and there is no second search
    // for the upper bound nor a walk to find where the run ends.
    if (p < pc.n && keys.k[p] == lo) {
      uvec4 r = records.r[p];
      res = LookupResult(record_row(r), 1u, uint64_t(record_value(r)));
    }
  } else {
    // Duplicates or a range: walk the records while key <= hi (rows ascend within a run of equal
    // keys but not across runs, hence the min).
    for (; p < pc.n; ++p) {
      uvec4 r = records.r[p];
      if (record_key(r) > hi) break;
      res.count += 1u;
      res.first_row = min(res.first_row, record_row(r));
      res.sum += uint64_t(record_value(r));
    }
  }
  ResultArray(pc.results).r[q] = res;
}
