// Stable LSD radix sort of 32- or 64-bit keys with 32-bit row ids, in Vulkan compute (8 bits a
// pass: histogram per tile, one exclusive scan, stable scatter). It lays RX keys out in key order
// on the GPU; CUDA's CUB sort is the fast twin on NVIDIA (later).
#pragma once

#include <vector>

#include "backend/vk/pipelines.hpp"

namespace raydb::detail {

struct RadixParams {
  uint64_t keys_in, keys_out, rows_in, rows_out, hist;
  uint32_t n, shift, key64, num_tiles;
};
static_assert(sizeof(RadixParams) == 56);

struct ScanParams {
  uint64_t data, block_sums;
  uint32_t count, pad0;
};
static_assert(sizeof(ScanParams) == 24);

class RadixSort {
 public:
  explicit RadixSort(VkContext& ctx);

  // Work buffers of one sort; keep them alive until the recorded commands have run.
  struct Temps {
    Buffer keys, rows, hist;
    std::vector<Buffer> scan_levels;
  };

  // Records a sort of the first n keys of `keys` (32- or 64-bit). On completion `keys` holds them
  // in ascending order and `rows` the original position of each (ties keep ascending positions).
  // Both buffers must hold n elements; `rows` need not be initialized.
  void record(VkCommandBuffer cmd, const Buffer& keys, const Buffer& rows, uint64_t n, bool key64,
              Temps& temps);

  // Records an exclusive prefix sum of `count` uint32 values at `data`, in place.
  void record_exclusive_scan(VkCommandBuffer cmd, VkDeviceAddress data, uint64_t count,
                             Temps& temps);

 private:
  VkContext& ctx_;
  // The context's shared pipelines (kernel()): a sort made per build or call compiles nothing.
  ComputePipeline &histogram_, &scatter_, &scan_blocks_, &scan_add_;
};

// A barrier between one compute kernel's writes and the next one's reads and writes.
void compute_barrier(VkContext& ctx, VkCommandBuffer cmd);

}  // namespace raydb::detail
