// raydb::HashIndex: the GPU hash-table baseline for point lookups (open addressing, linear
// probing, power-of-two table at most half full, 16-byte slots). Keys are radix-sorted into the
// same 16-byte records the RX index uses, so each distinct key is inserted once. Unique keys: a
// slot holds key, row id and value, and a lookup is its probe sequence alone. Duplicates: a slot
// points to its key's run, whose first record the build overwrote with the run's (first row,
// count, sum), and a lookup is the probe sequence plus one read. Same results as RxIndex; built
// and probed in Vulkan compute (docs/baselines.md). Range lookups are not a hash table's job:
// they are refused with Errc::unsupported.
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

/// Where a HashIndex build spent its time (ms) and memory (bytes).
struct HashBuildStats {
  double upload_ms = 0;      ///< keys and values to the device (GPU timestamps)
  double sort_ms = 0;        ///< radix sort and record layout
  double insert_ms = 0;      ///< filling the table
  uint64_t table_slots = 0;  ///< a power of two, at least twice the key count
  /// table (16 bytes per slot) + with duplicates, records (16 per key)
  uint64_t resident_bytes = 0;
  bool unique_keys = false;  ///< whether no key occurs twice
};

class HashIndex;
namespace detail {
struct HashIndexImpl;
struct HashTableView;
HashTableView hash_table_view(const HashIndex& index);  ///< for the hash join (src/ops/join/)
struct DeviceIndexAccess;  // the device-resident API (raydb/device_indexes.hpp)
}  // namespace detail

/// How a HashIndex is built; plain values.
struct HashOptions {
  /// Which backend runs the build's key sort: automatic follows the context
  /// (ContextOptions::backend, RAYDB_BACKEND); cuda is Errc::unsupported, naming why, where CUDA
  /// cannot run; vulkan keeps it in Vulkan compute. Results are the same on either.
  Backend backend = Backend::automatic;
};

/// The GPU hash-table baseline for point lookups (see the file comment); owns its device
/// buffers, thread-safety as RxIndex.
class HashIndex {
 public:
  /// As RxIndex::build: row id = position, optional values, at most 2^32 - 2 keys.
  static Result<HashIndex> build(const Context& ctx, KeySpan keys,
                                 std::span<const uint32_t> values = {},
                                 const HashOptions& options = {});

  /// Point lookups: one RxLookup per key of `points` into `out` (room for points.size();
  /// Errc::output_too_small otherwise). Keys must have the index's width.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// As lookup(points, out), into a new vector.
  Result<std::vector<RxLookup>> lookup(KeySpan points);

  /// Number of keys (rows) indexed.
  uint64_t size() const;
  /// Width of the keys the index was built from; lookups must use it.
  KeyWidth key_width() const;
  /// Where the build spent its time (ms) and memory (bytes).
  const HashBuildStats& build_stats() const;
  const RxProbeStats& last_stats() const;  ///< rays is 0

  /// Moves; the source is left empty (only destruction or assignment).
  HashIndex(HashIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  HashIndex& operator=(HashIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~HashIndex();

 private:
  explicit HashIndex(std::unique_ptr<detail::HashIndexImpl> impl);
  friend detail::HashTableView detail::hash_table_view(const HashIndex& index);
  friend struct detail::DeviceIndexAccess;
  std::unique_ptr<detail::HashIndexImpl> impl_;
};

}  // namespace raydb
