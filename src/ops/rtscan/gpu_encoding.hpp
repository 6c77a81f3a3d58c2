// Uniform Encoding on the GPU, for columns too large to sort on the host in good time: a stable
// radix sort of (value, row) pairs, then each row's code is its sorted position + 1 (the same
// codes as the CPU's EncodedColumn::encode, ties by row). The mapping table (distinct value ->
// first code) that rewrites query constants is built on the device too (start flags, prefix sum,
// compaction; rtscan_table.comp); only its d distinct entries come back (2 x d words, d <= n).
#pragma once

#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/uniform_encoding.hpp"

namespace raydb::detail::rtscan {

struct GpuEncoding {
  Buffer codes;                        // one uint32 code per row, on the device
  raydb::rtscan::EncodedColumn table;  // the mapping table; its codes() is empty
  double gpu_ms = 0;   // sort, codes, table, and the table's copy back (GPU timestamps)
  double host_ms = 0;  // the rest of the wall clock: allocation, submits, copy out of the mapping
};

// Encodes the n uint32 values at `values` (a device buffer, left unchanged); n <= 2^32 - 2.
GpuEncoding encode_on_gpu(VkContext& ctx, const Buffer& values, uint64_t n);

// The first `count` uint32 of a device buffer, on the host (for counters and tests).
std::vector<uint32_t> download_words(VkContext& ctx, const Buffer& src, uint64_t count);

}  // namespace raydb::detail::rtscan
