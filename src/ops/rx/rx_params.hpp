// Push-constant blocks of the RX kernels; must match shaders/rx/rx_common.glsl and
// shaders/rx/rx_build_primitives.comp (scalar layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../../../shaders/common/rx_mapping.h"

namespace raydb::detail {

struct RxProbeParams {
  uint64_t keys, rows, values, queries, results, matches, match_count;
  uint32_t query_offset, num_queries, chunk_size, flags, match_capacity, pad0;
};
static_assert(sizeof(RxProbeParams) == 80 && offsetof(RxProbeParams, query_offset) == 56);

struct RxBuildParams {
  uint64_t keys, primitives;
  uint32_t first, count, flags, pad0;
};
static_assert(sizeof(RxBuildParams) == 32);

// Device-side layout of one lookup result (RxResult in GLSL), identical to raydb::RxLookup.
struct RxResultGpu {
  uint32_t first_row, count;
  uint64_t sum;
};
static_assert(sizeof(RxResultGpu) == 16);

}  // namespace raydb::detail
