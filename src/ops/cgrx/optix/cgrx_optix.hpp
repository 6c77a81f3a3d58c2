// raydb::CgrxOptixIndex (internal): the OptiX twin behind CgrxIndex with CgrxBuildOptions::api =
// optix. A cgRX index's lookups run through NVIDIA OptiX instead of Vulkan, for the cross-API
// comparison (docs/optix.md, "cgRX through OptiX"). It takes the Vulkan index's
// bucket representatives (laid out into the same triangles and markers by the same host code,
// src/ops/cgrx/cgrx_layout.cpp) and its key records (copied once into cudaMalloc'd memory, since
// CUDA's random reads of imported Vulkan memory are slow), builds an OptiX GAS with the same build
// flags, and traces the same rays with the same bucket check and search (cgrx/cgrx_lookup.h), so
// its results equal the Vulkan index's bit for bit.
//
// Optional: raydb built without OptiX headers, a machine without the driver's libnvoptix, or one
// without CUDA interop answers through optix_support() and every build() fails with
// Errc::unsupported and that reason.
//
// Ownership: a CgrxOptixIndex owns its GAS, pipeline and buffers (its own copies of the records
// and per-primitive buckets); the CgrxIndex must outlive build() and rebuild() and must not be
// rebuilt meanwhile (lookups read only the twin's copies). Thread-safety: none: one thread at a
// time, and no other call on its Context meanwhile (the OptiX twins take no Context lock).
// The cgRX join runs through it when its index has api = optix (include/raydb/join.hpp).
#pragma once

#include <memory>
#include <span>

#include "raydb/cgrx_index.hpp"
#include "raydb/optix.hpp"

namespace raydb {

class CgrxOptixIndex;
namespace detail {
struct CgrxOptixImpl;
/// The cgRX join's run lookups (src/ops/cgrx/cgrx_runs.hpp).
Status cgrx_lookup_runs(CgrxOptixIndex& index, KeySpan points, std::span<RxLookup> out);
}  // namespace detail

/// CgrxIndex built and probed through OptiX (needs the OptiX backend; see optix_support()).
class CgrxOptixIndex {
 public:
  /// Builds the GAS over `index`'s representatives with its options (bucket size, compaction,
  /// build preference, first-ray window). Errc::unsupported
  /// where OptiX is unavailable (optix_support()'s reason), the records are not shared with CUDA,
  /// or the primitives are more than one GAS holds. The index's diagnostic is not carried over:
  /// set the twin's own with set_diagnostic().
  static Result<CgrxOptixIndex> build(const CgrxIndex& index);
  /// Builds the GAS again from the same index (for timing repeats).
  Status rebuild();

  /// As CgrxIndex::set_diagnostic, through the same flags of cgrx/cgrx_lookup.h: no_trace finds
  /// the bucket by a binary search instead of rays (exact results), trace_only returns the bucket
  /// the rays name as first_row and the rays cast as count (not lookup results).
  void set_diagnostic(RxDiagnostic diagnostic);
  /// Point lookups: one RxLookup per key of `points` into `out` (room for points.size();
  /// Errc::output_too_small otherwise). Keys must have the index's width.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// Inclusive range lookups [lo, hi]: one RxLookup per range into `out` (room for ranges.size()).
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);

  /// Times in ms: upload_ms and sort_ms are the Vulkan index's (OptiX reuses its records);
  /// host_layout_ms = the representatives read back, laid out and uploaded (host wall time);
  /// bvh_build_ms optixAccelBuild, compact_ms optixAccelCompact (CUDA events). Bytes:
  /// bvh_bytes the GAS; build_peak_bytes the most OptiX-owned device memory at once (records'
  /// copy included); resident_bytes the records' copy + per-primitive buckets + GAS.
  const CgrxBuildStats& build_stats() const;
  /// upload_ms, probe_ms (the launches), download_ms (CUDA events); rays as the Vulkan index
  /// counts them (every ray cast).
  const RxProbeStats& last_stats() const;
  /// As CgrxIndex::last_fallbacks(): lookups whose rays named a bucket the exact keys rejected.
  uint64_t last_fallbacks() const;

  /// Moves; the source is left empty (only destruction or assignment).
  CgrxOptixIndex(CgrxOptixIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  CgrxOptixIndex& operator=(CgrxOptixIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~CgrxOptixIndex();

 private:
  friend Status detail::cgrx_lookup_runs(CgrxOptixIndex&, KeySpan, std::span<RxLookup>);
  explicit CgrxOptixIndex(std::unique_ptr<detail::CgrxOptixImpl> impl);
  std::unique_ptr<detail::CgrxOptixImpl> impl_;
};

}  // namespace raydb
