// raydb::RxJoin: the ray-traced index nested-loop equi-join of two key columns. The build side is
// indexed by RX (include/raydb/rx_index.hpp); each probe-side key is cast as a ray. Output is
// either every matching (build row, probe row) pair, into a buffer sized exactly by a first
// counting pass, or an aggregate (matches, sum of build-side values) that materializes nothing.
// Duplicates on both sides are joined exactly: a probe key matching k build rows gives k pairs.
//
// Units: times in milliseconds of GPU time (timestamps), counts in pairs.
// Ownership: an RxJoin owns its index (and so its device memory); probe keys are copied per call.
// Thread-safety: none (see Context).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

struct JoinPair {
  uint32_t build_row;
  uint32_t probe_row;
  friend bool operator==(const JoinPair&, const JoinPair&) = default;
  friend bool operator<(const JoinPair& a, const JoinPair& b) {
    return a.build_row != b.build_row ? a.build_row < b.build_row : a.probe_row < b.probe_row;
  }
};

struct JoinAggregate {
  uint64_t matches = 0;          // matching (build row, probe row) pairs
  uint64_t build_value_sum = 0;  // sum of the build side's value over every pair (mod 2^64)
  friend bool operator==(const JoinAggregate&, const JoinAggregate&) = default;
};

struct JoinStats {
  double count_ms = 0;    // the counting pass (a lookup per probe key)
  double collect_ms = 0;  // the pass that writes the pairs (pairs() only)
  uint64_t matches = 0;
};

class RxJoin {
 public:
  // Indexes the build side (row id = position; `values`, when given, are summed by aggregate()).
  static Result<RxJoin> build(const Context& ctx, KeySpan build_keys,
                              std::span<const uint32_t> build_values = {},
                              const RxBuildOptions& options = {});

  // Every matching pair, in no particular order. Errc::limit_exceeded when more than 2^32 - 1
  // pairs match (the device's pair counter is 32-bit): use aggregate() or split the probe side.
  Result<std::vector<JoinPair>> pairs(KeySpan probe_keys);
  // The number of pairs and the build-side value sum, without materializing pairs.
  Result<JoinAggregate> aggregate(KeySpan probe_keys);

  const RxIndex& index() const { return index_; }
  const JoinStats& last() const { return stats_; }

 private:
  explicit RxJoin(RxIndex index) : index_(std::move(index)) {}
  RxIndex index_;
  JoinStats stats_;
};

// CPU references (a hash join): the pairs sorted, and the aggregate.
std::vector<JoinPair> join_pairs_reference(KeySpan build_keys, KeySpan probe_keys);
JoinAggregate join_aggregate_reference(KeySpan build_keys, std::span<const uint32_t> build_values,
                                       KeySpan probe_keys);

}  // namespace raydb
