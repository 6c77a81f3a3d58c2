// The sorted-array baseline: per lookup, a binary search for the first key >= lo in the dense
// sorted key column, then the 16-byte key-sorted records (common/records.glsl) for row ids and
// values. Same queries and results as the RX kernels, so the two are compared on identical work.
//
// The search has two levels. The fences hold every SORTED_BLOCK-th key (one per 64-byte block of
// the key column: n/16 keys, 16 MiB at 2^26 32-bit keys), so the search over them stays in L2;
// the fence found picks one 64-byte block, two 32-byte sectors, for the last steps. A plain
// search over the whole column misses L2 on every level whose keys no longer fit there, each in
// its own sector, before its last three levels share one.
//
// Compiled once per key width (sorted_lookup32.comp, sorted_lookup64.comp define KEY_BITS): with
// 32-bit keys every load, compare and index is 32-bit; a runtime width switch would leave 64-bit
// compares and a branch in the search's inner loop. SORTED_FENCES (sorted_fences*.comp) compiles
// the build kernel that gathers the fences instead.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#include "common/rx_mapping.h"

#if KEY_BITS == 64
#define Key uint64_t
#define SORTED_BLOCK 8u
#else
#define Key uint
#define SORTED_BLOCK 16u
#endif

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) readonly buffer KeyArray { Key k[]; };

#ifdef SORTED_FENCES
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) writeonly buffer FenceOut { Key k[]; };
// Mirrors raydb::detail::SortedFenceParams.
layout(push_constant, scalar) uniform SortedFenceParams {
  uint64_t keys;
  uint64_t fences;
  uint n;
  uint m;  // ceil(n / SORTED_BLOCK)
}
pc;

void main() {
  uint j = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (j >= pc.m) return;
  FenceOut(pc.fences).k[j] = KeyArray(pc.keys).k[j * SORTED_BLOCK];
}
#else
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
  uint64_t fences;   // keys[j * SORTED_BLOCK] for j < m
  uint64_t records;  // the n key-sorted records, same order
  uint64_t queries;  // points, or (lo, hi) pairs
  uint64_t results;
  uint n;
  uint m;
  uint num_queries;
  uint query_offset;
  uint flags;  // RX_FLAG_RANGES | RX_FLAG_FIRST_HIT_ONLY (unique keys, point lookups)
  uint pad0;
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

// The first position in [first, first + len) whose key is >= x (first + len if none).
// Branch-free with a trip count that depends on len only (ceil(log2 len)): the invocations of a
// subgroup run the same iterations, the comparison becomes a select rather than a divergent
// branch, and no early exit desynchronises the subgroup's loads (Khuong and Morin).
uint lower_bound(KeyArray keys, uint first, uint len, Key x) {
  if (len == 0u) return first;
  uint base = first;
  for (; len > 1u;) {
    uint step = len >> 1u;
    base = keys.k[base + step] < x ? base + step : base;
    len -= step;
  }
  return base + (keys.k[base] < x ? 1u : 0u);
}

// The first position whose key is >= x (n if none): the fence search picks the block.
uint search(KeyArray keys, Key x) {
  uint j = lower_bound(KeyArray(pc.fences), 0u, pc.m, x);
  // j == 0: keys[0] >= x (or no keys). Otherwise keys[(j - 1) * B] < x <= keys[j * B] (the
  // latter when j < m), so the answer lies in the block after fence j - 1, or is its end.
  if (j == 0u) return 0u;
  uint first = (j - 1u) * SORTED_BLOCK;
  return lower_bound(keys, first, min(SORTED_BLOCK, pc.n - first), x);
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
  uint p = search(keys, lo);
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
#endif
