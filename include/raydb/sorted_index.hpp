// raydb::SortedIndex: the sorted-array baseline. Keys are radix-sorted on the GPU into the same
// 16-byte records the RX index uses, and the sorted keys are also kept as a dense column; a lookup
// is a branch-free two-level binary search (fences, then one 64-byte block) over the dense keys for
// the first key >= lo, then (unique keys, point lookup) one record read, or a walk over the records
// while keys <= hi, in a Vulkan compute shader (docs/baselines.md). Same lookups and results as
// RxIndex, so the two are compared on identical work (DESIGN.md: baselines are first-class
// operators).
//
// Ownership and thread-safety as for RxIndex.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

struct SortedBuildStats {
  double upload_ms = 0;  // keys and values to the device (GPU timestamps)
  double sort_ms = 0;    // radix sort and record layout
  // dense sorted keys (4 or 8 bytes a key) + fences (one key per 64 bytes of keys) + records (16
  // bytes a key)
  uint64_t resident_bytes = 0;
  bool unique_keys = false;
};

namespace detail {
struct SortedIndexImpl;
}

class SortedIndex {
 public:
  // As RxIndex::build: row id = position, optional values, at most 2^32 - 2 keys.
  static Result<SortedIndex> build(const Context& ctx, KeySpan keys,
                                   std::span<const uint32_t> values = {});

  Status lookup(KeySpan points, std::span<RxLookup> out);
  Result<std::vector<RxLookup>> lookup(KeySpan points);
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  Result<std::vector<RxLookup>> lookup_ranges(RangeSpan ranges);

  uint64_t size() const;
  KeyWidth key_width() const;
  const SortedBuildStats& build_stats() const;
  const RxProbeStats& last_probe() const;  // rays is 0

  SortedIndex(SortedIndex&&) noexcept;
  SortedIndex& operator=(SortedIndex&&) noexcept;
  ~SortedIndex();

 private:
  explicit SortedIndex(std::unique_ptr<detail::SortedIndexImpl> impl);
  std::unique_ptr<detail::SortedIndexImpl> impl_;
};

}  // namespace raydb
