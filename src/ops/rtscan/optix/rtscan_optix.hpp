// raydb::RtScanOptix (internal): the OptiX twin behind RtScanTable with RtScanOptions::api =
// optix. An RTScan table's Matrix RT Refine runs through NVIDIA OptiX instead of Vulkan, for the
// cross-API comparison (docs/optix.md, "RTScan through OptiX"). Built from an
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

#include "raydb/optix.hpp"
#include "raydb/rtscan.hpp"

namespace raydb {

namespace detail {
struct RtScanOptixImpl;
}

/// RtScanTable built and queried through OptiX (needs the OptiX backend).
class RtScanOptix {
 public:
  /// Builds the OptiX twin of `table` (sharing its columns; the table must outlive it).
  static Result<RtScanOptix> build(RtScanTable& table);
  /// The table's select with the refine through OptiX. The sieve's commands are ordered before the
  /// OptiX launches and the merge after them on the GPU (the context's shared timeline semaphore);
  /// last_stats().refine_ms covers the OptiX launches only (CUDA events).
  Result<Bitmap> select(std::span<const Predicate> predicates);

  /// Where the build spent its time (ms) and memory (bytes).
  const RtScanOptixBuildStats& build_stats() const;
  /// Statistics of the most recent call (times in ms).
  const RtScanQueryStats& last_stats() const;

  /// Moves; the source is left empty (only destruction or assignment).
  RtScanOptix(RtScanOptix&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  RtScanOptix& operator=(RtScanOptix&&) noexcept;
  /// Frees what it holds (device memory included).
  ~RtScanOptix();

 private:
  explicit RtScanOptix(std::unique_ptr<detail::RtScanOptixImpl> impl);
  std::unique_ptr<detail::RtScanOptixImpl> impl_;
};

}  // namespace raydb
