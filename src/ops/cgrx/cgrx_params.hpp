// Push-constant blocks of the cgRX kernels; must match shaders/cgrx/cgrx_common.glsl and
// shaders/cgrx/cgrx_representatives.comp (scalar layout).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cgrx/cgrx_geometry.h"

namespace raydb::detail {

struct CgrxProbeParams {
  uint64_t records, queries, results, buckets, counters;
  uint32_t query_offset, num_queries, flags, bucket_shift, num_records, num_buckets;
  uint32_t ray_window, pad0;
};
static_assert(sizeof(CgrxProbeParams) == 72 && offsetof(CgrxProbeParams, query_offset) == 40);

struct CgrxRepParams {
  uint64_t records, reps, triangles, buckets, gaps, slots, stats;
  uint32_t num_records, num_buckets, bucket_shift, key64, stage, pad0;
};
static_assert(sizeof(CgrxRepParams) == 80);

}  // namespace raydb::detail
