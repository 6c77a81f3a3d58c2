// raydb::RtScanTable: RTScan (Lv et al., PVLDB 17(6)), conjunctive range predicates over uint32
// columns answered with ray tracing. Built once per table:
//   - Uniform Encoding: every column re-coded by rank (1..N, see uniform_encoding.hpp), so rays
//     meet an even number of records whatever the value distribution; on the GPU by default.
//   - Data Sieving: per column K equal-depth bins whose borders never split a value, and K - 1 bit
//     vectors F_i = [key < border_i] on the device.
//   - One BVH per group of at most three columns: one axis-aligned cube per row, centred at the
//     row's keys in that group (missing axes at 0), with an intersection shader.
// A query rewrites its constants to codes, approximates each predicate by the nearest sieving
// borders (positive or negative selection), ANDs the approximations of a group's columns, and then
// fixes the rows between the approximation and the true box with axis-parallel rays over "refine
// boxes" (Matrix RT Refine): a lattice of pitch I across the rays, segments of length L separated
// by gaps S along them. The intersection shader re-checks the row's exact integer keys against
// every predicate of the group and sets or clears its bit, so geometry only decides which rows are
// looked at, never the answer. Group results are ANDed.
//
// Modes (the paper's variants, for comparison): rtscan (all of the above); rtc3 (no encoding, no
// sieving, cubes at raw values, one box per group of three: the paper's RTc3); rtc1 (the same per
// column, groups of one: RTc1, with cubes where the paper used triangles); rtindex (RTIndex's
// scan: per column one triangle per row at its raw value and one ray along the key axis over the
// whole predicate range, an any-hit shader doing the exact re-check; no sieving). The lattice
// options do not apply to rtindex.
//
// Units: keys and constants are uint32; times are GPU milliseconds from timestamps unless named
// host_; sizes in bytes. Ownership: the table owns its device buffers and BVHs and keeps the
// Context alive; results are Bitmaps it hands over. Thread-safety: any thread, also on one
// table at once; calls on one Context are serialised (see Context); last_stats() reports the latest
// of any thread. The tracing API of the refine is an option (RtScanOptions::api; docs/optix.md).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb {

enum class RtScanMode { rtscan, rtc3, rtc1, rtindex };
const char* to_string(RtScanMode mode);
Result<RtScanMode> parse_rtscan_mode(const std::string& text);  ///< rtscan | rtc3 | rtc1 | rtindex

/// How an RtScanTable is built and queried.
struct RtScanOptions {
  /// Which RTScan variant to build (see RtScanMode).
  RtScanMode mode = RtScanMode::rtscan;
  /// Uniform Encoding on the GPU (radix sort of (value, row) pairs) rather than on the host's
  /// threads; the mapping table and sieving borders then stay on the device and selections are
  /// planned there (raydb/device_rtscan.hpp says what comes back). rtscan mode only.
  bool gpu_encoding = true;
  /// Sieving bins per column (K; K - 1 bit vectors are stored), 1 to 4096. rtscan mode only.
  uint32_t bins = 128;
  /// Column groups, each of 1 to 3 distinct columns, together covering every column once (e.g.
  /// {{0, 1, 2}, {3}} is 3+1, {{0, 1}, {2, 3}} is 2+2). Empty: consecutive groups of three (rtc1:
  /// of one; rtindex: always of one).
  std::vector<std::vector<uint32_t>> groups;
  /// Automatic: the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  ///@{
  /// The ray lattice, in key units (codes in rtscan mode, values otherwise); 0 picks the default.
  /// interval (I): pitch of the lattice across the rays; default key range / 1200 (the artifact's),
  /// at least 1; in one-column groups 32 x key range / rows (about 32 rows per ray). spacing (S):
  /// gap between segments along a ray, at most I; default I. segment (L): segment length; default
  /// key range / 90 (the artifact's 1e8 / 90 at 1e8 rows), at least the cube width. epsilon:
  /// widening of every cube for float32 coordinates; default 8 ulps of the largest key (the paper's
  /// 2^(bits - 23) is 2 ulps), at least 0.5. Cube width w = I + epsilon.
  double interval = 0, spacing = 0, segment = 0, epsilon = 0;
  ///@}
  /// Count intersection-shader calls (one atomic add each; off for timing runs).
  bool count_intersections = false;
  /// Plan selections on the device (the predicates rewritten to codes, the nearest sieving
  /// borders, the refine boxes and their rays, by a kernel over the device's mapping tables) with
  /// gpu_encoding; off: on the host, from mapping tables and borders read back once (on the H100
  /// the planning kernel added 0.03 ms to each selection, docs/rtscan.md). Tables built from
  /// device buffers (rtscan_build) always plan on the device.
  bool plan_on_device = false;
  /// Which API traces the refine rays. optix: after the Vulkan build, per column group one OptiX
  /// GAS over the very cubes (rtindex: triangles) the Vulkan build makes, and select() runs the
  /// same rewrite, sieve and merge (Vulkan) with the same lattice of rays and exact re-check
  /// traced through OptiX, so bitmaps equal the Vulkan path's bit for bit; last_stats().refine_ms
  /// then covers the OptiX launches (CUDA events) and build_stats().optix the GAS builds. The
  /// Vulkan BVH is still built (the device-resident selections of raydb/device_rtscan.hpp trace
  /// through it; rtscan_build from device buffers refuses optix). Errc::unsupported, naming why,
  /// where OptiX is unavailable (optix_support() in raydb/optix.hpp).
  RayTracingApi api = RayTracingApi::vulkan;
};

/// Where the OptiX part of an RtScanTable build (RtScanOptions::api = optix) spent its time (ms)
/// and memory (bytes).
struct RtScanOptixBuildStats {
  double copy_ms = 0;     ///< the table's keys into memory shared with CUDA (Vulkan timestamps)
  double cubes_ms = 0;    ///< the primitive kernel (the Vulkan build's rtscan_cubes.comp, or
                          ///< rtscan_triangles.comp for rtindex; timestamps)
  double build_ms = 0;    ///< optixAccelBuild, every group (CUDA events)
  double compact_ms = 0;  ///< optixAccelCompact with the compacted-size readback (CUDA events)
  /// What bench compares with RtScanBuildStats::bvh_ms (cubes, builds, compaction).
  double bvh_ms() const { return cubes_ms + build_ms + compact_ms; }
  uint64_t bvh_bytes = 0;              ///< the compacted GASes, all groups
  uint64_t bvh_uncompacted_bytes = 0;  ///< before compaction
  uint64_t key_bytes = 0;              ///< the key copies shared with CUDA
};

/// Where an RtScanTable build spent its time (ms) and memory (bytes).
struct RtScanBuildStats {
  /// Uniform Encoding on the GPU: sort, codes, mapping table, sieving borders.
  double encode_ms = 0;
  /// Host part (host clock): with GPU encoding the encoder's wall clock less its GPU time
  /// (allocation, submits, waits); the whole CPU encoder otherwise.
  double host_encode_ms = 0;
  double upload_ms = 0;  ///< keys to the device
  double sieve_ms = 0;   ///< sieving vectors
  double bvh_ms = 0;     ///< cube generation, BLAS and TLAS builds, compaction
  /// Host clock of the whole build, what a caller waits for (less counter_keys_ms).
  double wall_ms = 0;
  double counter_keys_ms = 0;  ///< keys copied to the host for count_intersections (host clock)
  ///@{
  /// Device bytes of the sieving vectors, the BVH and the keys kept for refinement.
  uint64_t sieve_bytes = 0, bvh_bytes = 0, key_bytes = 0;
  ///@}
  std::vector<uint32_t> bins_used;  ///< per column (fewer than asked when values repeat)
  /// api = optix: the OptiX GASes' build (all zero with api = vulkan). wall_ms includes it.
  RtScanOptixBuildStats optix;
};

/// Where an RTScan query spent its time (ms).
struct RtScanQueryStats {
  double host_rewrite_ms = 0;  ///< predicates to codes, sieving choice, refine boxes (host clock)
  double sieve_ms = 0;         ///< approximate bitmaps from the sieving vectors
  double refine_ms = 0;        ///< ray tracing
  double merge_ms = 0;         ///< AND of the groups' bitmaps
  ///@{
  /// Rays cast and refine boxes traced.
  uint64_t rays = 0, refine_boxes = 0;
  ///@}
  uint64_t intersections = 0;  ///< intersection-shader calls, when counted (else 0)
  /// Rows inside the refine boxes (exact: counted on the host from the keys when
  /// count_intersections is on, else 0).
  uint64_t refined_rows = 0;
  /// GPU time of the query: sieve + refine + merge (ms).
  double gpu_ms() const { return sieve_ms + refine_ms + merge_ms; }
};

class RtScanTable;
namespace detail {
struct RtScanImpl;
RtScanImpl& rtscan_impl(RtScanTable& table);  ///< for the OptiX twin (src/ops/rtscan/optix/)
struct DeviceIndexAccess;                     // the device-resident API (raydb/device_rtscan.hpp)
}  // namespace detail

/// RTScan: multi-column predicates answered by rays through primitives encoded from the
/// columns; owns its device buffers and acceleration structures.
class RtScanTable {
 public:
  /// Equally long columns of at most 2^32 - 2 rows (and at most the device's primitives per BLAS).
  static Result<RtScanTable> build(const Context& ctx,
                                   std::span<const std::span<const uint32_t>> columns,
                                   const RtScanOptions& options = {});
  /// Rows satisfying every predicate (several on one column intersect; none selects every row).
  /// Errc::invalid_argument for a predicate on a column the table lacks.
  Result<Bitmap> select(std::span<const Predicate> predicates);

  /// Rows per column.
  uint64_t rows() const;
  /// Number of columns.
  uint32_t columns() const;
  TraversalMode traversal() const;  ///< never automatic
  /// The options as built (defaults resolved).
  const RtScanOptions& options() const;
  /// Where the build spent its time (ms) and memory (bytes).
  const RtScanBuildStats& build_stats() const;
  /// Statistics of the most recent call (times in ms).
  const RtScanQueryStats& last_stats() const;
  /// Turns the counting of intersection-shader calls on or off for the following queries (refined
  /// rows are counted only if the table was built with count_intersections, which keeps a host
  /// copy of the keys).
  void set_count_intersections(bool on);

  /// Moves; the source is left empty (only destruction or assignment).
  RtScanTable(RtScanTable&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  RtScanTable& operator=(RtScanTable&&) noexcept;
  /// Frees what it holds (device memory included).
  ~RtScanTable();

 private:
  explicit RtScanTable(std::unique_ptr<detail::RtScanImpl> impl);
  friend detail::RtScanImpl& detail::rtscan_impl(RtScanTable& table);
  friend struct detail::DeviceIndexAccess;
  std::unique_ptr<detail::RtScanImpl> impl_;
};

}  // namespace raydb
