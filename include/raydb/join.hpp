// raydb::RxJoin / raydb::CgrxJoin: the ray-traced index nested-loop equi-join of two key columns.
// The build side is indexed by RX (include/raydb/rx_index.hpp) or by cgRX
// (include/raydb/cgrx_index.hpp); each probe-side key is cast as a ray (cgRX: up to four). Output
// is either every matching (build row, probe row) pair, into a buffer sized exactly by a first
// counting pass, or an aggregate (matches, sum of build-side values) that materializes nothing.
// Duplicates on both sides are joined exactly: a probe key matching k build rows gives k pairs.
//
// Units: times in milliseconds of GPU time (timestamps), counts in pairs.
// Ownership: an RxJoin owns its index (and so its device memory); probe keys are copied per call.
// Thread-safety: any thread, also on one join at once; calls on one Context are serialised (see
// Context), OptiX lookups (the index's api = optix) inside the same lock; last_stats() reports the
// latest call of any thread.
//
// The tracing API is the index's option: RxBuildOptions::api / CgrxBuildOptions::api (in
// JoinOptions: index.api / cgrx.api). With optix the rays trace through OptiX over the same
// records (docs/optix.md); times are then CUDA events.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "raydb/cgrx_index.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

/// One (build row, probe row) pair of a join's output.
struct JoinPair {
  /// Row id on the build side.
  uint32_t build_row;
  /// Row id on the probe side.
  uint32_t probe_row;
  /// Field-wise equality.
  friend bool operator==(const JoinPair&, const JoinPair&) = default;
  /// By build row, then probe row: the order references sort pairs in.
  friend bool operator<(const JoinPair& a, const JoinPair& b) {
    return a.build_row != b.build_row ? a.build_row < b.build_row : a.probe_row < b.probe_row;
  }
};

/// The aggregate output of a join: the matching pairs counted, the build side's values summed.
struct JoinAggregate {
  uint64_t matches = 0;          ///< matching (build row, probe row) pairs
  uint64_t build_value_sum = 0;  ///< sum of the build side's value over every pair (mod 2^64)
  /// Field-wise equality.
  friend bool operator==(const JoinAggregate&, const JoinAggregate&) = default;
};

/// Which side the one-shot joins index; the other side's keys become rays.
enum class JoinSide {
  automatic,  ///< the smaller side (the thesis's inverse mapping when that is the probe side)
  build,
  probe,
};

/// Where a join spent its time (ms) and memory (bytes).
struct JoinStats {
  double index_ms = 0;       ///< one-shot joins: building the index (layout sort + BVH), GPU time;
                             ///< the sort joins: sorting the build side
  double probe_sort_ms = 0;  ///< the sort-merge join: sorting the probe side
  double count_ms = 0;       ///< the counting pass (a lookup per key of the side cast as rays)
  double collect_ms = 0;     ///< the pass that writes the pairs (pairs only)
  /// Matching (build row, probe row) pairs.
  uint64_t matches = 0;
  JoinSide indexed = JoinSide::build;  ///< the side that was indexed (never automatic)
};

/// The index the one-shot joins build on the indexed side.
enum class JoinIndex {
  rx,    ///< RxJoin: a triangle per key; pairs by a second (collect) pass of rays
  cgrx,  ///< CgrxJoin: a triangle per bucket of keys; pairs by copying each key's run of records
};
const char* to_string(JoinIndex kind);

/// How a join is built and probed.
struct JoinOptions {
  /// Which index the indexed side gets.
  JoinIndex kind = JoinIndex::rx;
  /// kind rx. index.api = optix: the rays trace through OptiX over the same records
  /// (Errc::unsupported, naming why, where OptiX is unavailable).
  RxBuildOptions index;
  /// kind cgrx (cgrx.bucket_size: keys per bucket; cgrx.api as index.api).
  CgrxBuildOptions cgrx;
  /// Which side is indexed; automatic: the smaller.
  JoinSide indexed = JoinSide::automatic;
};

/// The ray-traced equi-join: an RxIndex (or cgRX) on the build side, probed by the probe
/// side's keys.
class RxJoin {
 public:
  /// Indexes the build side (row id = position; `values`, when given, are summed by aggregate()).
  /// With options.api = optix both passes trace through OptiX over the index's records
  /// (Errc::unsupported, naming why, where OptiX is unavailable); times are then CUDA events.
  static Result<RxJoin> build(const Context& ctx, KeySpan build_keys,
                              std::span<const uint32_t> build_values = {},
                              const RxBuildOptions& options = {});

  /// Every matching pair, in no particular order. Errc::limit_exceeded when more than 2^32 - 1
  /// pairs match (the device's pair counter is 32-bit): use aggregate() or split the probe side.
  Result<std::vector<JoinPair>> pairs(KeySpan probe_keys);
  /// The number of pairs and the build-side value sum, without materializing pairs.
  Result<JoinAggregate> aggregate(KeySpan probe_keys);
  /// The counting pass alone: each probe key's matches and value sum.
  Result<std::vector<RxLookup>> lookup(KeySpan probe_keys);

  /// The build side's index.
  const RxIndex& index() const { return index_; }
  /// The index's build time (records sort included), ms: with OptiX, the GAS's instead of the
  /// BVH's.
  double index_ms() const;
  /// Statistics of the most recent join call (times in ms).
  const JoinStats& last_stats() const { return stats_; }

 private:
  explicit RxJoin(RxIndex index) : index_(std::move(index)) {}
  RxIndex index_;
  JoinStats stats_;
};

/// The same join with the build side indexed by cgRX. The counting pass is one cgRX lookup per
/// probe key, which also names the key's run in the index's sorted records; for pairs, a scan of
/// the counts places each probe key's pairs and a compute pass copies its run of build rows there
/// (no second pass of rays). collect_ms is that scan and copy. Errors as RxJoin.
class CgrxJoin {
 public:
  /// With options.api = optix the counting pass (and the run lookups of pairs) trace through
  /// OptiX over the index; the copy of the runs stays a Vulkan compute pass over the same records.
  /// Errc::unsupported, naming why, where OptiX is unavailable.
  static Result<CgrxJoin> build(const Context& ctx, KeySpan build_keys,
                                std::span<const uint32_t> build_values = {},
                                const CgrxBuildOptions& options = {});

  /// Every (build row, probe row) pair whose keys are equal, in no particular order.
  Result<std::vector<JoinPair>> pairs(KeySpan probe_keys);
  /// The pairs counted and the build side's values summed, without writing the pairs.
  Result<JoinAggregate> aggregate(KeySpan probe_keys);
  /// One RxLookup per probe key (its matches on the build side).
  Result<std::vector<RxLookup>> lookup(KeySpan probe_keys);

  /// The build side's index.
  const CgrxIndex& index() const { return index_; }
  /// The index's build time (records sort included), ms: with OptiX, the GAS's instead of the
  /// BVH's.
  double index_ms() const;
  /// Statistics of the most recent join call (times in ms).
  const JoinStats& last_stats() const { return stats_; }

 private:
  CgrxJoin(const Context& ctx, CgrxIndex index) : ctx_(ctx), index_(std::move(index)) {}
  Context ctx_;
  CgrxIndex index_;
  JoinStats stats_;
};

/// One-shot joins of two key columns: the side `options.indexed` names is indexed by
/// `options.kind` (RX or cgRX) and the
/// other side's keys are cast as rays, so the result is the same whichever side is indexed.
/// `build_values` (one per build row, or empty) are summed over the pairs by the aggregate.
Result<std::vector<JoinPair>> rx_join(const Context& ctx, KeySpan build_keys, KeySpan probe_keys,
                                      const JoinOptions& options = {}, JoinStats* stats = nullptr);
Result<JoinAggregate> rx_join_aggregate(const Context& ctx, KeySpan build_keys,
                                        std::span<const uint32_t> build_values, KeySpan probe_keys,
                                        const JoinOptions& options = {},
                                        JoinStats* stats = nullptr);
const char* to_string(JoinSide side);

/// The baseline joins that RxJoin is compared with, with the same pairs and aggregates. The build
/// side is sorted on the GPU (CUB where CUDA is available, the Vulkan radix sort otherwise) or put
/// in a HashIndex; a counting pass finds each probe key's run of matching build rows (a merge of
/// both sorted sides, a binary search of the sorted build keys, or a probe of the hash table) and,
/// for pairs, the runs are
/// written into an output of exactly the counted size. JoinStats: index_ms is the build side's sort
/// (hash: sort + insert), probe_sort_ms the probe side's (sort_merge), count_ms and collect_ms
/// the two passes.
enum class BaselineJoin {
  sort_merge,    ///< both sides sorted, then merged (merge path: each invocation finds its share of
                 ///< the merged order by a binary search along a diagonal, then merges it)
  sort_search,   ///< both sides sorted, a binary search of the build keys per sorted probe key (the
                 ///< sort-merge join's counting pass before the merge)
  sorted_array,  ///< the probe side in row order: an index nested-loop join on a sorted array
  hash,          ///< the probe side in row order against the HashIndex table on the build side
};
const char* to_string(BaselineJoin kind);
/// Errc::invalid_argument for mismatched key widths or a value column of the wrong length,
/// Errc::limit_exceeded for more than 2^32 - 2 keys a side or (pairs) more than 2^32 - 2 pairs.
Result<std::vector<JoinPair>> baseline_join(const Context& ctx, BaselineJoin kind,
                                            KeySpan build_keys, KeySpan probe_keys,
                                            JoinStats* stats = nullptr);
Result<JoinAggregate> baseline_join_aggregate(const Context& ctx, BaselineJoin kind,
                                              KeySpan build_keys,
                                              std::span<const uint32_t> build_values,
                                              KeySpan probe_keys, JoinStats* stats = nullptr);

/// CPU references (a hash join): the pairs sorted, and the aggregate.
std::vector<JoinPair> join_pairs_reference(KeySpan build_keys, KeySpan probe_keys);
JoinAggregate join_aggregate_reference(KeySpan build_keys, std::span<const uint32_t> build_values,
                                       KeySpan probe_keys);

}  // namespace raydb
