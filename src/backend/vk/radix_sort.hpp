// Stable LSD radix sort of 32- or 64-bit keys with 32-bit row ids, in Vulkan compute (8 bits a
// pass: histogram per tile, one exclusive scan, stable scatter). It lays RX keys out in key order
// on the GPU and sorts RX's pipelined probe chunks; CUDA's CUB sort is the fast twin on NVIDIA.
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

// How a pass moves elements to their places (shaders/sort/radix_scatter*.comp).
enum class RadixScatter {
  best,    // ranked where the device can run it, else rounds
  ranked,  // subgroup ballots, the tile sorted in shared memory, written in runs
  rounds,  // 256 elements a round behind barriers, each written alone (any device)
};

// Whether the device runs the ranked scatter: subgroups of 8 to 128 lanes in compute shaders with
// ballot, shuffle and arithmetic operations.
bool supports_ranked_scatter(const VkContext& ctx);

class RadixSort {
 public:
  // `scatter`: ranked (Errc::unsupported where the device lacks it), rounds, or the best one.
  explicit RadixSort(VkContext& ctx, RadixScatter scatter = RadixScatter::best);
  RadixScatter scatter() const { return kind_; }

  static constexpr uint64_t kTile = 4096;  // elements a workgroup takes (RADIX_TILE)

  // Work buffers of one sort; keep them alive until the recorded commands have run. Buffers large
  // enough are reused; scans recorded after one another each take further scan levels, until
  // rewind(), which the owner calls once the commands recorded with them have run (a Temps kept
  // between calls then allocates nothing once grown). Once a record() has run, `hist` holds its
  // last pass's scanned histogram: at [digit * tiles + tile], where the tile's first element with
  // that digit went (tiles of kTile elements).
  struct Temps {
    Buffer keys, rows, hist;
    std::vector<Buffer> scan_levels;
    size_t scan_used = 0;  // scan_levels taken since the last rewind()
    void rewind() { scan_used = 0; }
  };

  // Records a sort of the first n keys of `keys` (32- or 64-bit). On completion `keys` holds them
  // in ascending order and `rows` the original position of each (ties keep ascending positions).
  // Both buffers must hold n elements; `rows` need not be initialized. With first_bit > 0 (a
  // multiple of 16) only the key's bits from first_bit up are compared, in fewer passes: keys
  // equal in those bits keep their input order.
  void record(VkCommandBuffer cmd, const Buffer& keys, const Buffer& rows, uint64_t n, bool key64,
              Temps& temps, uint32_t first_bit = 0);
  // Records one stable pass of the sort over the 8 key bits from `shift`, within one 32-bit half
  // of the key (a counting sort by that digit): the n keys at `source` (32- or 64-bit; not read
  // otherwise, nor written) are written to `keys` in the digit's order, keys of equal digits in
  // their input order, and their positions to `rows`. Both buffers must hold n elements. Half of a
  // 16-bit record(), and nothing to copy first: RX's pipelined chunks are ordered this way by their
  // keys' top 8 bits.
  void record_digit(VkCommandBuffer cmd, VkDeviceAddress source, const Buffer& keys,
                    const Buffer& rows, uint64_t n, bool key64, Temps& temps, uint32_t shift);
  // Grows `temps` to what a record() of n keys needs, so that recording one allocates nothing;
  // rewinds them. Only while no recorded commands use them.
  void reserve(Temps& temps, uint64_t n, bool key64);

  // Records an exclusive prefix sum of `count` uint32 values at `data`, in place.
  void record_exclusive_scan(VkCommandBuffer cmd, VkDeviceAddress data, uint64_t count,
                             Temps& temps);

 private:
  // One pass as `p` describes it: per-tile histograms, their scan, the stable scatter.
  void record_pass(VkCommandBuffer cmd, const RadixParams& p, Temps& temps);
  // The next scan level of `temps`, at least `bytes` large.
  const Buffer& scan_level(Temps& temps, uint64_t bytes);

  VkContext& ctx_;
  RadixScatter kind_;
  // The context's shared pipelines (kernel()): a sort made per build or call compiles nothing.
  ComputePipeline &histogram_, &scatter_, &scan_blocks_, &scan_add_;
};

// A barrier between one compute kernel's writes and the next one's reads and writes.
void compute_barrier(VkContext& ctx, VkCommandBuffer cmd);

}  // namespace raydb::detail
