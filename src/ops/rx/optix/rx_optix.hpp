// raydb::RxOptixIndex (internal): the OptiX twin behind RxIndex with RxBuildOptions::api = optix.
// An RX index's lookups run through NVIDIA OptiX instead of Vulkan, for the cross-API comparison
// (docs/optix.md). It takes the Vulkan index's key records (the buffer is
// imported into CUDA and copied once into cudaMalloc'd memory, since CUDA's random reads of
// imported Vulkan memory are slow), builds an OptiX GAS over the same primitives
// (common/rx_mapping.h, with the same build flags where both APIs have them) and traces the same
// rays with the same exact re-check (rx/rx_lookup.h), so its results equal the Vulkan index's bit
// for bit.
//
// Optional: raydb built without OptiX headers (CMake's OptiX_ROOT), a machine without the
// driver's libnvoptix, or one without CUDA interop answers through optix_support() and every
// build() fails with Errc::unsupported and that reason.
//
// Ownership: an RxOptixIndex owns its GAS, pipeline and buffers and borrows the RxIndex's records:
// the RxIndex must outlive it and must not be rebuilt or updated meanwhile. Thread-safety: none:
// one thread at a time, and no other call on its Context meanwhile (the OptiX twins take no
// Context lock).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "raydb/optix.hpp"
#include "raydb/rx_index.hpp"

namespace raydb {

namespace detail {
struct RxOptixImpl;
}

/// RxIndex built and probed through OptiX (needs the OptiX backend; see optix_support()).
class RxOptixIndex {
 public:
  /// Builds the GAS over `index`'s records with its options. Supported: triangles or boxes,
  /// hit_and_scan (opaque triangles or not) or any_hit, key or row order, 32- or 64-bit keys,
  /// compaction and build preference. Refused with Errc::unsupported: partitions other than 1,
  /// compress_duplicates, allow_update, and more keys than one GAS holds. An index built with
  /// api = optix shares its records with CUDA and the GAS reads them in place; over any other it
  /// reads one copy in memory shared with CUDA, made here (records are 16 bytes a key).
  static Result<RxOptixIndex> build(const RxIndex& index, const RxOptixOptions& options = {});
  /// Builds the GAS again over the same records (for timing repeats).
  Status rebuild();

  /// Point lookups: one RxLookup per key of `points` into `out` (room for points.size();
  /// Errc::output_too_small otherwise). Keys must have the index's width.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// Inclusive range lookups [lo, hi]: one RxLookup per range into `out` (room for ranges.size()).
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  /// As RxIndex::collect_rows: every matching (query, row) pair, at most out.size() written.
  Result<RxCollectResult> collect_rows(KeySpan points, std::span<RxRowMatch> out);
  /// As collect_rows(points, out), for inclusive ranges.
  Result<RxCollectResult> collect_rows(RangeSpan ranges, std::span<RxRowMatch> out);

  /// Times from CUDA events on the context's stream; sizes in bytes. upload_ms and sort_ms are
  /// the Vulkan index's (OptiX reuses its records); convert_ms is the primitive kernel,
  /// bvh_build_ms optixAccelBuild, compact_ms optixAccelCompact (with the compacted-size
  /// readback). build_peak_bytes = the records (OptiX's copy) + the most other OptiX-owned device
  /// memory at once; resident_bytes = the records + the GAS. The Vulkan index's records are not
  /// counted again.
  const RxBuildStats& build_stats() const;
  /// upload_ms, probe_ms (the launches), download_ms; rays as the Vulkan index counts them.
  const RxProbeStats& last_stats() const;

  /// Moves; the source is left empty (only destruction or assignment).
  RxOptixIndex(RxOptixIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  RxOptixIndex& operator=(RxOptixIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~RxOptixIndex();

 private:
  explicit RxOptixIndex(std::unique_ptr<detail::RxOptixImpl> impl);
  std::unique_ptr<detail::RxOptixImpl> impl_;
};

}  // namespace raydb
