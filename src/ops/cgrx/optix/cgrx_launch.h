// The launch parameters of the OptiX cgRX programs (cgrx_programs.cu), shared by the host
// (cgrx_optix.cpp) and the device code. The OptiX twin of raydb::detail::CgrxProbeParams: the
// same buffers and CGRX_FLAG_* bits, with the traversable handle in place of the descriptor set.
#pragma once

#include <optix_types.h>

#include <cstdint>

namespace raydb::detail::optix {

struct CgrxLaunchParams {
  OptixTraversableHandle handle;  // the GAS (never 0: an empty index does not launch)
  uint64_t records;               // 16-byte key records, key order (shaders/common/records.glsl)
  uint64_t queries;               // points, or (lo, hi) pairs, of the key width
  uint64_t results;               // one RxLookup per query
  uint64_t buckets;               // per primitive: the bucket it names
  uint64_t counters;              // two uint32: rays beyond the first, fallbacks
  uint32_t query_offset;          // index of this launch's first query in the batch
  uint32_t num_queries;           // queries in this launch
  uint32_t flags;                 // CGRX_FLAG_*
  uint32_t bucket_shift;          // log2(bucket size)
  uint32_t num_records;
  uint32_t num_buckets;
  uint32_t ray_window;  // length of the first part of ray 1; 0: one ray to the line's end
  uint32_t pad0;
};

}  // namespace raydb::detail::optix
