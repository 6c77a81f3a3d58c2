// raydb::CgrxIndex: the coarse-granular RX index (cgRX, Henneberg et al. 2024). Keys are sorted
// with their row ids and cut into buckets of `bucket_size` consecutive keys; only each bucket's
// largest key (its representative) becomes a triangle, at the RX coordinates, plus one marker per
// non-empty line and plane so that a ray can always reach "the next representative". A lookup
// finds its bucket with at most four rays, confirms it against the exact keys, binary-searches
// the bucket and scans forward. Results are exact at any magnitude (docs/cgrx.md).
//
// Units: times in milliseconds (GPU timestamps unless named host_), sizes in bytes.
// Ownership: a CgrxIndex owns its device buffers and acceleration structures and keeps its
// Context alive; key and value spans are only read during the call. Thread-safety: as RxIndex:
// any thread, also on one index at once; calls on one Context are serialised (see Context).
// The tracing API is an option (CgrxBuildOptions::api; docs/optix.md).
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

/// How a CgrxIndex is built (bucket size, primitive, BVH preference, tracing API); plain values.
struct CgrxBuildOptions {
  /// Keys per bucket: a power of two >= 2. The thesis's variants use 2^5 (cgRX5x4) and 2^8
  /// (cgRX8x4). Larger buckets mean fewer triangles and longer in-bucket searches.
  uint32_t bucket_size = 32;
  /// Copy the BLAS into a structure of its compacted size, where that saves at least
  /// compact_min_saving of its bytes (as RxBuildOptions::compact_min_saving).
  bool compact = true;
  /// The least fraction of the BLAS's bytes (0 to 1) that compaction must save to run; 0: whenever
  /// allowed. Outside [0, 1]: Errc::invalid_argument.
  double compact_min_saving = 0.10;
  /// The BLAS's build preference flag (the OptiX twin's GAS gets the same). fast_trace: on the
  /// H100 it made unsorted lookups 15-20% faster than none (2^26 keys; docs/optix.md, "cgRX").
  BuildPreference preference = BuildPreference::fast_trace;
  /// automatic = the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  /// Cast the first ray of a lookup only as far as nearly every gap between representatives on a
  /// line (CgrxBuildStats::ray_window) and the rest of the line only on a miss, instead of one
  /// closest-hit ray to the end of the line (up to 2^23 keys). Results are the same either way.
  bool window_first_ray = true;
  /// Which API traces the lookups. optix: after the Vulkan build, an OptiX GAS is built over the
  /// same representatives and markers (the same host layout, src/ops/cgrx/cgrx_layout.cpp) and a
  /// copy of the key records, and lookup and lookup_ranges trace through it with the same bucket
  /// check and search, so results equal the Vulkan path's bit for bit; build_stats(),
  /// last_stats() and last_fallbacks() are then the OptiX path's (CUDA events; upload_ms and
  /// sort_ms the shared layout's). The Vulkan BVH is still built (the device-resident lookups of
  /// raydb/device_indexes.hpp trace through it; cgrx_build from device buffers refuses optix), so
  /// build memory and time include it.
  /// Errc::unsupported, naming why, where OptiX is unavailable (optix_support() in
  /// raydb/optix.hpp).
  RayTracingApi api = RayTracingApi::vulkan;
  /// Which backend runs the build's key sort: automatic follows the context
  /// (ContextOptions::backend, RAYDB_BACKEND); cuda is Errc::unsupported, naming why, where CUDA
  /// cannot run; vulkan keeps it in Vulkan compute. Results are the same on either.
  Backend backend = Backend::automatic;
};

/// Where a CgrxIndex build spent its time (ms) and memory (bytes).
struct CgrxBuildStats {
  double upload_ms = 0;       ///< keys and values to the device
  double sort_ms = 0;         ///< GPU radix sort by key into (key, row, value) records
  double host_layout_ms = 0;  ///< representatives gathered, read back, triangles + markers laid out
                              ///< on the host and uploaded (host wall time); cgrx_build: the
                              ///< layout's device submission, waited for (host wall time)
  double bvh_build_ms = 0;    ///< BLAS + TLAS builds
  double compact_ms = 0;      ///< compaction copy
  /// What cgRX calls its build (triangles, BVH, compaction); sort_ms comes on top.
  double build_ms() const { return host_layout_ms + bvh_build_ms + compact_ms; }
  uint64_t bvh_bytes = 0;              ///< BLAS (compacted if enabled) + TLAS
  uint64_t bvh_uncompacted_bytes = 0;  ///< BLAS before compaction + TLAS
  uint64_t build_peak_bytes = 0;       ///< most device memory raydb held during the build
  uint64_t resident_bytes = 0;         ///< what the index holds afterwards (BVH, records, buckets)
  uint64_t buckets = 0;                ///< ceil(n / bucket_size)
  uint64_t representatives = 0;        ///< representative triangles (one per distinct bucket max)
  uint64_t row_markers = 0;            ///< one per non-empty line of 2^23 keys
  uint64_t plane_markers = 0;          ///< one per non-empty plane of 2^46 keys
  uint32_t ray_window = 0;   ///< the first ray's length in keys; 0: to the end of the line
  bool unique_keys = false;  ///< whether no key occurs twice
};

class CgrxIndex;
namespace detail {
struct CgrxIndexImpl;
struct DeviceIndexAccess;  // the device-resident API (raydb/device_indexes.hpp)
/// What the cgRX join reads (src/ops/cgrx/cgrx_runs.hpp): the records and run lookups.
CgrxIndexImpl& cgrx_impl(CgrxIndex& index);
}  // namespace detail

/// The cgRX index: keys in sorted buckets, one primitive per bucket representative; exact
/// point and range lookups (ownership and thread-safety as RxIndex, see the file comment).
class CgrxIndex {
 public:
  /// Builds an index over `keys` (row id = position). `values`, when not empty, must have one
  /// value per key; lookups then sum them. At most 2^32 - 2 keys. An empty key column gives an
  /// index on which every lookup misses. A bad bucket size is Errc::invalid_argument.
  static Result<CgrxIndex> build(const Context& ctx, KeySpan keys,
                                 std::span<const uint32_t> values = {},
                                 const CgrxBuildOptions& options = {});

  /// Point lookups; `out` must have room for one result per key. Results as RxIndex: smallest
  /// matching row id, number of matches, 64-bit sum of their values.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// As lookup(points, out), into a new vector.
  Result<std::vector<RxLookup>> lookup(KeySpan points);
  /// Range lookups [lo, hi], inclusive, of any width (one bucket search, then a scan).
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  /// As lookup_ranges(ranges, out), into a new vector.
  Result<std::vector<RxLookup>> lookup_ranges(RangeSpan ranges);

  /// Number of keys (rows) indexed.
  uint64_t size() const;
  /// Width of the keys the index was built from; lookups must use it.
  KeyWidth key_width() const;
  TraversalMode traversal() const;  ///< never automatic
  uint32_t bucket_size() const;     ///< keys per bucket
  /// Times a part of each lookup (RxDiagnostic): no_trace finds the bucket by a binary search over
  /// the representatives instead of rays (results stay exact); trace_only casts the rays and stores
  /// the bucket they name as first_row and the rays cast as count (not lookup results).
  void set_diagnostic(RxDiagnostic diagnostic);
  const CgrxBuildOptions& options() const;  ///< as built
  /// Where the build spent its time (ms) and memory (bytes).
  const CgrxBuildStats& build_stats() const;
  /// Of the most recent lookup call. rays counts every ray cast (1 to 3 per lookup).
  const RxProbeStats& last_stats() const;
  /// Lookups of the most recent call whose rays named a bucket the exact keys then rejected (they
  /// were answered by an exact binary search instead). 0 unless the driver's traversal is wrong;
  /// the tests require 0 so that they test the geometry, not the fallback.
  uint64_t last_fallbacks() const;

  /// Moves; the source is left empty (only destruction or assignment).
  CgrxIndex(CgrxIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  CgrxIndex& operator=(CgrxIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~CgrxIndex();

 private:
  explicit CgrxIndex(std::unique_ptr<detail::CgrxIndexImpl> impl);
  friend detail::CgrxIndexImpl& detail::cgrx_impl(CgrxIndex& index);
  friend struct detail::DeviceIndexAccess;
  std::unique_ptr<detail::CgrxIndexImpl> impl_;
};

}  // namespace raydb
