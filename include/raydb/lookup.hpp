// The value types every key index shares (RxIndex, CgrxIndex, SortedIndex, HashIndex and their
// OptiX twins): one lookup's result, (query, row) matches, probe statistics, and the BVH build
// preference of the ray-traced ones. Plain values: no ownership, no thread-safety concerns.
#pragma once

#include <cstdint>

namespace raydb {

/// The BVH builder's trade-off (VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_{TRACE,BUILD}_BIT_KHR,
/// OPTIX_BUILD_FLAG_PREFER_FAST_{TRACE,BUILD}); none asks for neither.
enum class BuildPreference { none, fast_trace, fast_build };
const char* to_string(BuildPreference p);

inline constexpr uint32_t kMissRow = 0xFFFFFFFFu;

/// The result of one lookup: the smallest matching row id (kMissRow when none), the number of
/// matching rows, and the sum of their values (0 without a value column).
struct RxLookup {
  uint32_t first_row = kMissRow;  ///< smallest matching row id (position in the key column)
  uint32_t count = 0;             ///< matching rows
  uint64_t sum = 0;               ///< sum of their values (0 without a value column)
  bool hit() const { return count != 0; }  ///< Whether any row matched.
  /// Field-wise equality (results are compared whole with a reference).
  friend bool operator==(const RxLookup&, const RxLookup&) = default;
};

/// One (query, row) match of collect_rows().
struct RxRowMatch {
  uint32_t query;  ///< position of the lookup in its batch
  uint32_t row;    ///< the matching row id
  /// Field-wise equality.
  friend bool operator==(const RxRowMatch&, const RxRowMatch&) = default;
  /// By query, then row: the order references sort matches in.
  friend bool operator<(const RxRowMatch& a, const RxRowMatch& b) {
    return a.query != b.query ? a.query < b.query : a.row < b.row;
  }
};

/// collect_rows(): `total` matches exist; min(total, capacity) of them were written.
struct RxCollectResult {
  uint64_t total = 0;                                 ///< matches that exist
  uint64_t written = 0;                               ///< matches written to the caller's span
  bool complete() const { return written == total; }  ///< Whether every match was written.
};

/// Where a batch of lookups spent its time (milliseconds, host-measured or GPU timestamps).
struct RxProbeStats {
  double upload_ms = 0;    ///< queries to the device
  double sort_ms = 0;      ///< RxBuildOptions::sort_probes: the GPU sort of the lookups
  double probe_ms = 0;     ///< the traversal launch(es)
  double download_ms = 0;  ///< results back
  uint64_t rays = 0;       ///< rays (or compute invocations) launched
  /// A pipelined call whose kernels wrote the results straight into pinned host memory, so no
  /// download ran (download_ms 0): RX and cgRX by default (docs/e2e.md).
  bool results_direct = false;
};

}  // namespace raydb
