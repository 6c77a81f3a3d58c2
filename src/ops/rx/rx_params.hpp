// Push-constant blocks of the RX kernels; must match shaders/rx/rx_common.glsl and
// shaders/rx/rx_build_primitives.comp (scalar layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../../shaders/common/rx_mapping.h"

namespace raydb::detail {

struct RxProbeParams {
  uint64_t records, queries, results, matches, match_count;
  uint32_t query_offset, num_queries, chunk_size, flags, match_capacity, num_primitives;
};
static_assert(sizeof(RxProbeParams) == 64 && offsetof(RxProbeParams, query_offset) == 40);

// The per-primitive record (16 bytes) the probe kernels read: key, row id, value.
inline constexpr uint64_t kRxRecordBytes = 16;

struct RxBuildParams {
  uint64_t records, primitives;
  uint32_t first, count, flags, pad0;
};
static_assert(sizeof(RxBuildParams) == 32);

struct RxLayoutParams {
  uint64_t prim_keys, rows, values, records, sorted_keys, duplicates;
  uint32_t n, key64;
};
static_assert(sizeof(RxLayoutParams) == 56);

// Device-side layout of one lookup result (RxResult in GLSL), identical to raydb::RxLookup.
struct RxResultGpu {
  uint32_t first_row, count;
  uint64_t sum;
};
static_assert(sizeof(RxResultGpu) == 16);

}  // namespace raydb::detail
