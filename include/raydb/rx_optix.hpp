// raydb::RxOptixIndex: an RX index's lookups run through NVIDIA OptiX instead of Vulkan, for the
// cross-API comparison (docs/optix.md). It takes the Vulkan index's key records (the buffer is
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

#include "raydb/rx_index.hpp"

namespace raydb {

struct OptixSupport {
  bool available = false;
  std::string reason;   // why not, in words; empty when available
  std::string version;  // the OptiX headers raydb was built with, e.g. "9.0.0"; empty without
};

// Whether RX lookups can run through OptiX on this context's device. Probed once per context
// (loads libnvoptix through optixInit); a missing library or device is an answer, not an error.
const OptixSupport& optix_support(const Context& ctx);

namespace detail {
struct RxOptixImpl;
}

// Switches of the OptiX path that bench rx --optix-variant flips one at a time, to measure which
// difference from the Vulkan path moves time or memory (docs/optix.md, "Gaps"). The defaults are
// the configuration that mirrors the Vulkan index; every variant returns the same results.
struct RxOptixOptions {
  // OPTIX_GEOMETRY_FLAG_REQUIRE_SINGLE_ANYHIT_CALL, the twin of Vulkan's
  // NO_DUPLICATE_ANY_HIT_INVOCATION. Off: OPTIX_GEOMETRY_FLAG_NONE, which lets OptiX call any-hit
  // more than once per primitive and ray: exact where a match ends the ray (hit-and-scan, unique
  // point lookups), possibly double-counting elsewhere; bench rx checks every result whole.
  bool single_anyhit = true;
  // OptixModuleCompileOptions::optLevel: -1 = OPTIX_COMPILE_OPTIMIZATION_DEFAULT, 0..3 the levels.
  int opt_level = -1;
  // Launch as a 2D grid (1024 wide) instead of one row of lookups: the thread-to-lookup order is
  // the same, only the launch shape differs.
  bool launch_2d = false;
  // Trace through an instance AS with one identity instance over the GAS, the hierarchy the
  // Vulkan path has (a TLAS over one BLAS), instead of the GAS alone (ALLOW_SINGLE_GAS).
  bool two_level = false;
};

class RxOptixIndex {
 public:
  // Builds the GAS over `index`'s records with its options. Supported: triangles or boxes,
  // hit_and_scan (opaque triangles or not) or any_hit, key or row order, 32- or 64-bit keys,
  // compaction and build preference. Refused with Errc::unsupported: partitions other than 1,
  // compress_duplicates, allow_update, and more keys than one GAS holds.
  static Result<RxOptixIndex> build(const RxIndex& index, const RxOptixOptions& options = {});
  // Builds the GAS again over the same records (for timing repeats).
  Status rebuild();

  Status lookup(KeySpan points, std::span<RxLookup> out);
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  // As RxIndex::collect_rows: every matching (query, row) pair, at most out.size() written.
  Result<RxCollectResult> collect_rows(KeySpan points, std::span<RxRowMatch> out);
  Result<RxCollectResult> collect_rows(RangeSpan ranges, std::span<RxRowMatch> out);

  // Times from CUDA events on the context's stream; sizes in bytes. upload_ms and sort_ms are
  // the Vulkan index's (OptiX reuses its records); convert_ms is the primitive kernel,
  // bvh_build_ms optixAccelBuild, compact_ms optixAccelCompact (with the compacted-size
  // readback). build_peak_bytes = the records (OptiX's copy) + the most other OptiX-owned device
  // memory at once; resident_bytes = the records + the GAS. The Vulkan index's records are not
  // counted again.
  const RxBuildStats& build_stats() const;
  // upload_ms, probe_ms (the launches), download_ms; rays as the Vulkan index counts them.
  const RxProbeStats& last_stats() const;

  RxOptixIndex(RxOptixIndex&&) noexcept;
  RxOptixIndex& operator=(RxOptixIndex&&) noexcept;
  ~RxOptixIndex();

 private:
  explicit RxOptixIndex(std::unique_ptr<detail::RxOptixImpl> impl);
  std::unique_ptr<detail::RxOptixImpl> impl_;
};

}  // namespace raydb
