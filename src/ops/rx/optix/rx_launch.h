// The launch parameters of the OptiX RX programs (rx_programs.cu), shared by the host
// (rx_optix.cpp) and the device code. The OptiX twin of raydb::detail::RxProbeParams: the same
// buffers and RX_FLAG_* bits, with the traversable handle in place of the descriptor set.
#pragma once

#include <optix_types.h>

#include <cstdint>

namespace raydb::detail::optix {

// Lookups per row of a 2D launch (RxOptixOptions::launch_2d).
constexpr uint32_t kLaunchRowWidth = 1024;

struct RxLaunchParams {
  OptixTraversableHandle handle;  // the GAS; 0 for an empty index (every ray then misses)
  uint64_t records;               // 16-byte key records (shaders/common/records.glsl)
  uint64_t queries;               // points, or (lo, hi) pairs, of the key width
  uint64_t results;               // one RxLookup per query
  uint64_t matches;               // RX_FLAG_WRITE_MATCHES: (query, row) pairs
  uint64_t match_count;
  uint32_t query_offset;  // index of this launch's first query in the batch
  uint32_t num_queries;   // queries in this launch
  uint32_t flags;         // RX_FLAG_*
  uint32_t match_capacity;
  uint32_t num_primitives;  // records in the index
  uint32_t pad0;
};

}  // namespace raydb::detail::optix
