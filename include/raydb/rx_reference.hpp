// raydb::RxReference: the CPU reference for RxIndex (sorted keys + binary search), with the same
// lookup API shape. Lookups run on all hardware threads. Used by tests and by `raydb bench` to
// check every GPU result whole.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

/// The CPU reference index: sorted copies of the keys (it owns them) and binary search. Const
/// calls may run from several threads at once.
class RxReference {
 public:
  /// Copies and sorts `keys` (row id = position) and the optional `values` (one per key).
  explicit RxReference(KeySpan keys, std::span<const uint32_t> values = {});

  /// Point lookups: one RxLookup per key, as RxIndex::lookup answers them.
  std::vector<RxLookup> lookup(KeySpan points) const;
  /// Inclusive range lookups, as RxIndex::lookup_ranges answers them.
  std::vector<RxLookup> lookup_ranges(RangeSpan ranges) const;
  /// All matching (query, row) pairs, sorted.
  std::vector<RxRowMatch> collect_rows(KeySpan points) const;
  std::vector<RxRowMatch> collect_rows(RangeSpan ranges) const;  ///< As above, for ranges.

  uint64_t size() const { return keys_.size(); }  ///< Number of keys.

 private:
  RxLookup range(uint64_t lo, uint64_t hi) const;
  void append_rows(uint32_t query, uint64_t lo, uint64_t hi, std::vector<RxRowMatch>& out) const;
  std::vector<uint64_t> keys_;        ///< sorted
  std::vector<uint32_t> rows_;        ///< row of each sorted key; ascending among equal keys
  std::vector<uint64_t> prefix_sum_;  ///< prefix_sum_[i] = sum of values of sorted keys [0, i)
};

}  // namespace raydb
