// Push-constant blocks of the RX kernels; must match shaders/rx/rx_common.glsl and
// shaders/rx/rx_build_primitives.comp (scalar layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../../shaders/common/rx_mapping.h"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb::detail {

struct RxProbeParams {
  uint64_t records, queries, results, matches, match_count, order;
  // 0 unless the build needs them: the first primitive of each BLAS (partitions of unequal size),
  // and the record of each primitive (compress_duplicates).
  uint64_t instance_first, primitive_records;
  uint32_t query_offset, num_queries, chunk_size, flags, match_capacity, num_primitives;
  // Range lookups: a range over more 2^23-key lines than this casts no ray and gets the
  // RX_RANGE_OVER_BOUND result (the device path cannot refuse it on the host).
  uint64_t max_range_lines;
  // Pipelined sorted probes (ResultPath::carried, ChunkCarry): launch slot i also copies results
  // i, i + carry_stride, ... below carry_count of the previous chunk from carry_from to carry_to.
  uint64_t carry_from, carry_to;
  uint32_t carry_count, carry_stride;
};
static_assert(sizeof(RxProbeParams) == 120 && offsetof(RxProbeParams, query_offset) == 64 &&
              offsetof(RxProbeParams, max_range_lines) == 88 &&
              offsetof(RxProbeParams, carry_count) == 112);

// The RX_FLAG_* bits of one probe launch. Unique keys let point lookups stop at their hit;
// hit_and_scan makes every lookup stop at its first match and walk the sorted records; with
// opaque triangles that first match comes from a closest-hit shader instead of any-hit calls.
constexpr uint32_t rx_probe_flags(KeyWidth width, bool ranges, bool unique_keys, bool collect,
                                  RxLookupMethod method, bool opaque_triangles = false) {
  return (width == KeyWidth::bits64 ? RX_FLAG_KEY64 : 0u) | (ranges ? RX_FLAG_RANGES : 0u) |
         (unique_keys && !ranges ? RX_FLAG_FIRST_HIT_ONLY : 0u) |
         (collect ? RX_FLAG_WRITE_MATCHES : 0u) |
         (method == RxLookupMethod::hit_and_scan ? RX_FLAG_SCAN : 0u) |
         (method == RxLookupMethod::hit_and_scan && opaque_triangles ? RX_FLAG_OPAQUE : 0u);
}

// rx_sort_keys.comp: each lookup's sort key (a point, or a range's lo).
struct RxSortKeysParams {
  uint64_t queries, keys;
  uint32_t count, width, key64, pad0;
};
static_assert(sizeof(RxSortKeysParams) == 32);

struct RxBuildParams {
  uint64_t records, primitives, primitive_records;
  uint32_t first, count, flags, pad0;
};
static_assert(sizeof(RxBuildParams) == 40);

// shaders/rx/rx_distinct.comp: the first record of each distinct key (compress_duplicates).
struct RxDistinctParams {
  uint64_t records, starts, index, count;
  uint32_t n, key64, mode, pad0;
};
static_assert(sizeof(RxDistinctParams) == 48);

}  // namespace raydb::detail
