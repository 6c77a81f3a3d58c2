// raydb::RtScanOptix: an RTScan table's Matrix RT Refine runs through NVIDIA OptiX instead of
// Vulkan, for the cross-API comparison (docs/optix.md, "RTScan through OptiX"). Built from an
// RtScanTable: per column group one OptiX GAS over the very cubes or triangles the Vulkan build
// makes (the same kernel, into memory shared with CUDA), with the same build flags (prefer fast
// trace, compaction); per query the table's own rewrite, sieve and merge (Vulkan), and in between
// the same lattice of rays and the same exact re-check (rtscan/rtscan_refine.h) as OptiX programs.
// Its bitmaps therefore equal the Vulkan table's bit for bit.
//
// Modes: rtscan, rtc3 and rtc1 (cubes, re-checked by an intersection program) and rtindex
// (triangles, re-checked by an any-hit program). Where OptiX or CUDA cannot run, build() fails with
// Errc::unsupported and the reason (optix_support()).
//
// Units: times in GPU milliseconds (Vulkan timestamps for Vulkan work, CUDA events for OptiX);
// sizes in bytes. Ownership: an RtScanOptix owns its GASes, pipeline and key copies and borrows
// the table: the RtScanTable must outlive it. Its selects go through the table, so the table's
// last_stats() shows the latest of either. Thread-safety: none: one thread at a time, and no
// other call on its Context meanwhile (the OptiX twins take no Context lock).
#pragma once

#include <memory>
#include <span>

#include "raydb/rtscan.hpp"
#include "raydb/rx_optix.hpp"  // optix_support()

namespace raydb {

struct RtScanOptixBuildStats {
  double copy_ms = 0;     // the table's keys into memory shared with CUDA (Vulkan timestamps)
  double cubes_ms = 0;    // the primitive kernel (the Vulkan build's rtscan_cubes.comp, or
                          // rtscan_triangles.comp for rtindex; timestamps)
  double build_ms = 0;    // optixAccelBuild, every group (CUDA events)
  double compact_ms = 0;  // optixAccelCompact with the compacted-size readback (CUDA events)
  // What bench compares with RtScanBuildStats::bvh_ms (cubes, builds, compaction).
  double bvh_ms() const { return cubes_ms + build_ms + compact_ms; }
  uint64_t bvh_bytes = 0;              // the compacted GASes, all groups
  uint64_t bvh_uncompacted_bytes = 0;  // before compaction
  uint64_t key_bytes = 0;              // the key copies shared with CUDA
};

namespace detail {
struct RtScanOptixImpl;
}

class RtScanOptix {
 public:
  static Result<RtScanOptix> build(RtScanTable& table);
  // The table's select with the refine through OptiX. The sieve's commands are ordered before the
  // OptiX launches and the merge after them on the GPU (the context's shared timeline semaphore);
  // last_stats().refine_ms covers the OptiX launches only (CUDA events).
  Result<Bitmap> select(std::span<const Predicate> predicates);

  const RtScanOptixBuildStats& build_stats() const;
  const RtScanQueryStats& last_stats() const;

  RtScanOptix(RtScanOptix&&) noexcept;
  RtScanOptix& operator=(RtScanOptix&&) noexcept;
  ~RtScanOptix();

 private:
  explicit RtScanOptix(std::unique_ptr<detail::RtScanOptixImpl> impl);
  std::unique_ptr<detail::RtScanOptixImpl> impl_;
};

}  // namespace raydb
