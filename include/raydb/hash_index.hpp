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

struct HashBuildStats {
  double upload_ms = 0;         // keys and values to the device (GPU timestamps)
  double sort_ms = 0;           // radix sort and record layout
  double insert_ms = 0;         // filling the table
  uint64_t table_slots = 0;     // a power of two, at least twice the key count
  uint64_t resident_bytes = 0;  // table (16 bytes per slot) + with duplicates, records (16 per key)
  bool unique_keys = false;
};

class HashIndex;
namespace detail {
struct HashIndexImpl;
struct HashTableView;
HashTableView hash_table_view(const HashIndex& index);  // for the hash join (src/ops/join/)
}  // namespace detail

class HashIndex {
 public:
  // As RxIndex::build: row id = position, optional values, at most 2^32 - 2 keys.
  static Result<HashIndex> build(const Context& ctx, KeySpan keys,
                                 std::span<const uint32_t> values = {});

  Status lookup(KeySpan points, std::span<RxLookup> out);
  Result<std::vector<RxLookup>> lookup(KeySpan points);

  uint64_t size() const;
  KeyWidth key_width() const;
  const HashBuildStats& build_stats() const;
  const RxProbeStats& last_stats() const;  // rays is 0

  HashIndex(HashIndex&&) noexcept;
  HashIndex& operator=(HashIndex&&) noexcept;
  ~HashIndex();

 private:
  explicit HashIndex(std::unique_ptr<detail::HashIndexImpl> impl);
  friend detail::HashTableView detail::hash_table_view(const HashIndex& index);
  std::unique_ptr<detail::HashIndexImpl> impl_;
};

}  // namespace raydb
