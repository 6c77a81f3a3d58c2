// raydb::SortedIndex: the sorted-array baseline. Keys are radix-sorted on the GPU into the same
// 16-byte records the RX index uses, and the sorted keys are also kept as a dense column; a lookup
// searches the dense keys for the first key >= lo, then (unique keys, point lookup) reads one
// record, or walks the records while keys <= hi, in a Vulkan compute shader (docs/baselines.md).
// Same lookups and results as RxIndex, so the two are compared on identical work (DESIGN.md:
// baselines are first-class operators). The search (SortedLayout) is either sampled levels
// searched one 32-key node at a time by a whole subgroup (lines, the default) or a branch-free
// two-level binary search (fences, then one 64-byte block).
//
// Ownership and thread-safety as for RxIndex.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

/// How the search finds the first key >= lo; the key column, the records and the results are the
/// same in both.
enum class SortedLayout {
  /// Fences (every 16th 32-bit / 8th 64-bit key, one per 64 bytes of keys) binary-searched, then
  /// one 64-byte block of the keys: one invocation per lookup, ~log2(n) divergent loads.
  fences,
  /// Sampled levels (every 32nd key, every 32nd of those, ... down to a top of <= 256 keys): the
  /// top binary-searched, then per level one 32-key node compared by the whole subgroup (one
  /// coalesced load per lookup and level). Needs subgroup shuffle and arithmetic in compute
  /// shaders (Vulkan 1.1 subgroup operations).
  lines,
};

/// How a SortedIndex searches (layout and search method).
struct SortedOptions {
  /// lines by default: on the H100, 2^27 unsorted lookups into 2^26 keys took 31.1 ms against
  /// 34.4 ms with fences (sorted: 2.83 vs 2.85 ms; all misses: 30.2 vs 29.6 ms). fences needs no
  /// subgroup operations.
  SortedLayout layout = SortedLayout::lines;
  /// Which backend runs the build's key sort: automatic follows the context
  /// (ContextOptions::backend, RAYDB_BACKEND); cuda is Errc::unsupported, naming why, where CUDA
  /// cannot run; vulkan keeps it in Vulkan compute. Results are the same on either.
  Backend backend = Backend::automatic;
};

const char* to_string(SortedLayout layout);
/// "fences" or "lines"; anything else is Errc::invalid_argument.
Result<SortedLayout> parse_sorted_layout(std::string_view name);

/// Where a SortedIndex build spent its time (ms) and memory (bytes).
struct SortedBuildStats {
  double upload_ms = 0;  ///< keys and values to the device (GPU timestamps)
  double sort_ms = 0;    ///< radix sort and record layout
  /// dense sorted keys (4 or 8 bytes a key) + fences (one key per 64 bytes of keys) or sampled
  /// levels (about one key per 31 keys) + records (16 bytes a key)
  uint64_t resident_bytes = 0;
  bool unique_keys = false;                    ///< whether no key occurs twice
  SortedLayout layout = SortedLayout::fences;  ///< the search structure built
  uint32_t sampled_levels = 0;                 ///< SortedLayout::lines: levels above the keys
};

namespace detail {
struct SortedIndexImpl;
struct DeviceIndexAccess;  // the device-resident API (raydb/device_indexes.hpp)
}  // namespace detail

/// The sorted-array baseline (see the file comment); owns its device buffers, thread-safety as
/// RxIndex.
class SortedIndex {
 public:
  /// As RxIndex::build: row id = position, optional values, at most 2^32 - 2 keys.
  static Result<SortedIndex> build(const Context& ctx, KeySpan keys,
                                   std::span<const uint32_t> values = {},
                                   const SortedOptions& options = {});

  /// Point lookups: one RxLookup per key of `points` into `out` (room for points.size();
  /// Errc::output_too_small otherwise). Keys must have the index's width.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// As lookup(points, out), into a new vector.
  Result<std::vector<RxLookup>> lookup(KeySpan points);
  /// Inclusive range lookups [lo, hi]: one RxLookup per range into `out` (room for ranges.size()).
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  /// As lookup_ranges(ranges, out), into a new vector.
  Result<std::vector<RxLookup>> lookup_ranges(RangeSpan ranges);

  /// Number of keys (rows) indexed.
  uint64_t size() const;
  /// Width of the keys the index was built from; lookups must use it.
  KeyWidth key_width() const;
  /// Where the build spent its time (ms) and memory (bytes).
  const SortedBuildStats& build_stats() const;
  const RxProbeStats& last_stats() const;  ///< rays is 0

  /// Moves; the source is left empty (only destruction or assignment).
  SortedIndex(SortedIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SortedIndex& operator=(SortedIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~SortedIndex();

 private:
  explicit SortedIndex(std::unique_ptr<detail::SortedIndexImpl> impl);
  friend struct detail::DeviceIndexAccess;
  std::unique_ptr<detail::SortedIndexImpl> impl_;
};

}  // namespace raydb
