// Uniform Encoding on the GPU, for columns too large to sort on the host in good time: a stable
// radix sort of (value, row) pairs, then each row's code is its sorted position + 1 (the same
// codes as the CPU's EncodedColumn::encode, ties by row). The mapping table (distinct value ->
// first code) that rewrites query constants and the sieving borders are built on the device too
// (start flags, prefix sum, compaction; a binary search per bin; rtscan_table.comp) and stay
// there: only two counts come back (8 bytes: the distinct values d and the borders m + 1, after
// the fence the encoding waits for).
#pragma once

#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/uniform_encoding.hpp"

namespace raydb::detail::rtscan {

struct GpuEncoding {
  Buffer codes;               // one uint32 code per row
  Buffer values, lo_codes;    // the mapping table: `distinct` uint32 each (d <= n): 8 d bytes
  Buffer borders;             // sieving borders X_0 .. X_m, int64 (sieve_borders' values)
  uint32_t distinct = 0;      // d
  uint32_t border_count = 0;  // m + 1; 0 when there are no rows
  double gpu_ms = 0;          // sort, codes, table, borders (GPU timestamps)
  double host_ms = 0;         // the rest of the wall clock: allocation, submits, waits
};

// Encodes the n uint32 values at `values` (a device buffer, left unchanged) with sieving borders
// for `bins` bins (1 ..= 4096); n <= 2^32 - 2.
GpuEncoding encode_on_gpu(VkContext& ctx, const Buffer& values, uint64_t n, uint32_t bins);

// The mapping table on the host (the OptiX twin and the count_intersections aid plan on the host).
raydb::rtscan::EncodedColumn download_table(VkContext& ctx, const GpuEncoding& e, uint64_t n);

// The first `count` uint32 of a device buffer, on the host (for counters and tests).
std::vector<uint32_t> download_words(VkContext& ctx, const Buffer& src, uint64_t count);

}  // namespace raydb::detail::rtscan
