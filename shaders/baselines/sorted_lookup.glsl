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
// SORTED_LINES (sorted_lines*.comp) compiles the other layout, SortedLayout::lines: sampled levels
// of one key per 32-key node (level 1 = every 32nd key, level 2 = every 32nd of those, ... up to
// a top level of at most 256 keys). Binary search over the top level, then per level down to the
// key column one node of 32 keys (128 bytes of 32-bit keys, one cache line) is searched by the
// whole subgroup: for each invocation in turn, every lane compares one key of that invocation's
// node and a subgroup sum counts the keys below it. One coalesced load per lookup and level
// replaces the five divergent loads (each its own L1 wavefront) of a binary search over the node.
// Where the subgroup's nodes lie within 4 nodes (sorted probes) each invocation searches its own.
//
// Compiled once per key width (sorted_lookup32.comp, sorted_lookup64.comp define KEY_BITS): with
// 32-bit keys every load, compare and index is 32-bit; a runtime width switch would leave 64-bit
// compares and a branch in the search's inner loop. SORTED_FENCES (sorted_fences*.comp) compiles
// the build kernel that gathers the fences (and the sampled levels) instead.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require
#ifdef SORTED_LINES
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#include "common/rx_mapping.h"

#if KEY_BITS == 64
#define Key uint64_t
#define SORTED_BLOCK 8u
#else
#define Key uint
#define SORTED_BLOCK 16u
#endif
// SortedLayout::lines: keys per node, and at most this many sampled levels (2^32 keys / 32^5 = 4).
#define SORTED_NODE 32u
#define SORTED_MAX_LEVELS 5

layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) readonly buffer KeyArray { Key k[]; };

#ifdef SORTED_FENCES
layout(buffer_reference, scalar, buffer_reference_align = KEY_BITS / 8) writeonly buffer FenceOut { Key k[]; };
// Mirrors raydb::detail::SortedFenceParams.
layout(push_constant, scalar) uniform SortedFenceParams {
  uint64_t keys;
  uint64_t fences;
  uint n;
  uint m;       // ceil(n / stride)
  uint stride;  // SORTED_BLOCK for the fences, SORTED_NODE for a sampled level
  uint pad0;
}
pc;

void main() {
  uint j = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (j >= pc.m) return;
  FenceOut(pc.fences).k[j] = KeyArray(pc.keys).k[j * pc.stride];
}
#else
layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer RecordArray { uvec4 r[]; };
struct LookupResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { LookupResult r[]; };

#ifdef SORTED_LINES
// Mirrors raydb::detail::SortedLinesParams.
layout(push_constant, scalar) uniform SortedLinesParams {
  uint64_t keys;     // the n keys, ascending
  uint64_t samples;  // the sampled levels 1..levels, one after the other
  uint64_t records;  // the n key-sorted records, same order
  uint64_t queries;  // points, or (lo, hi) pairs
  uint64_t results;
  uint n;
  uint levels;  // sampled levels (0: n <= 256, binary search over the keys alone)
  uint num_queries;
  uint query_offset;
  uint flags;  // RX_FLAG_RANGES | RX_FLAG_FIRST_HIT_ONLY (unique keys, point lookups)
  // Level i (1..levels): level_size[i] keys at key offset level_first[i] of `samples`, its key j
  // = key j * 32 of level i - 1. level_size[0] = n (the key column).
  uint level_size[SORTED_MAX_LEVELS + 1];
  uint level_first[SORTED_MAX_LEVELS + 1];
}
pc;
#else
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
#endif

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

#ifdef SORTED_LINES
#if KEY_BITS == 64
Key shuffle_key(Key x, uint lane) {
  return packUint2x32(subgroupShuffle(unpackUint2x32(x), lane));
}
#else
Key shuffle_key(Key x, uint lane) { return subgroupShuffle(x, lane); }
#endif

KeyArray level_keys(uint i) {
  return i == 0u ? KeyArray(pc.keys) : KeyArray(pc.samples + uint64_t(pc.level_first[i]) * uint64_t(KEY_BITS / 8));
}

// One level down: j is the first position of level i whose key is >= x; returns that of level
// i - 1 (`lower`, `size` keys). Level i's key j is lower's key 32 j, so the answer is 0 when j is 0
// (lower's first key is >= x too) and otherwise lies in (32 (j - 1), 32 j]: the keys of the node
// that starts at 32 (j - 1) below x, counted. Called in uniform control flow by every invocation
// of the subgroup.
uint node_search(KeyArray lower, uint size, uint j, Key x) {
  const uint none = 0xFFFFFFFFu;
  uint first = j == 0u ? none : (j - 1u) * SORTED_NODE;
  // The subgroup's nodes within 4 nodes of each other (sorted probes): each invocation searches
  // its own node, every load touching at most 4 lines (8 for 64-bit keys), cheaper than 32
  // rounds of the shared search.
  uint span_lo = subgroupMin(first);
  uint span_hi = subgroupMax(j == 0u ? 0u : first);
  if (span_lo == none || span_hi - span_lo < 4u * SORTED_NODE)
    return first == none ? 0u : lower_bound(lower, first, min(SORTED_NODE, size - first), x);
  uint lane = gl_SubgroupInvocationID;
  uint result = 0u;
  for (uint l = 0u; l < gl_SubgroupSize; ++l) {
    uint f = subgroupShuffle(first, l);  // uniform: the node of invocation l
    if (f == none) continue;
    Key xl = shuffle_key(x, l);
    uint len = min(SORTED_NODE, size - f);
    uint below = 0u;
    for (uint t = lane; t < len; t += gl_SubgroupSize) below += lower.k[f + t] < xl ? 1u : 0u;
    below = subgroupAdd(below);
    if (lane == l) result = f + below;
  }
  return result;
}

// The first position whose key is >= x (n if none): binary search over the top level, then one
// node per level down to the keys.
uint search(KeyArray keys, Key x) {
  uint top = pc.levels;
  uint j = lower_bound(level_keys(top), 0u, pc.level_size[top], x);
  for (uint i = top; i > 0u; --i) j = node_search(level_keys(i - 1u), pc.level_size[i - 1u], j, x);
  return j;
}
#else
// The first position whose key is >= x (n if none): the fence search picks the block.
uint search(KeyArray keys, Key x) {
  uint j = lower_bound(KeyArray(pc.fences), 0u, pc.m, x);
  // j == 0: keys[0] >= x (or no keys). Otherwise keys[(j - 1) * B] < x <= keys[j * B] (the
  // latter when j < m), so the answer lies in the block after fence j - 1, or is its end.
  if (j == 0u) return 0u;
  uint first = (j - 1u) * SORTED_BLOCK;
  return lower_bound(keys, first, min(SORTED_BLOCK, pc.n - first), x);
}
#endif

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
#ifdef SORTED_LINES
  // The node search is a subgroup operation: the invocations past the end search too (for the
  // first query) and return after it.
  bool in_batch = local < pc.num_queries;
  uint q = (in_batch ? local : 0u) + pc.query_offset;
#else
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
#endif
  uint stride = (pc.flags & RX_FLAG_RANGES) != 0u ? 2u : 1u;
  KeyArray queries = KeyArray(pc.queries);
  Key lo = queries.k[q * stride];
  Key hi = queries.k[q * stride + stride - 1u];
  KeyArray keys = KeyArray(pc.keys);
  RecordArray records = RecordArray(pc.records);
  uint p = search(keys, lo);
#ifdef SORTED_LINES
  if (!in_batch) return;
#endif
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
