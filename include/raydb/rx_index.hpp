// raydb::RxIndex: the RX index of RTIndeX. Each key becomes a primitive (a triangle, or a box)
// at coordinates decomposed from its bits (x = k[22:0], y = k[45:23], z = k[63:46]); a point
// lookup is one ray along z, a range lookup one ray along x per 2^23-key line. Every hit is
// re-checked against the exact key, so results are exact at any magnitude.
//
// Ownership: an RxIndex owns its device buffers and acceleration structures and keeps its
// Context alive. Thread-safety: any thread may call any member, also on one index at once;
// calls on one Context are serialised (see Context), so results are those of one call after
// another. build_stats() and last_stats() report the latest call of any thread.
//
// The tracing API is an option (RxBuildOptions::api): with RayTracingApi::optix the same
// lookups trace through NVIDIA OptiX over the same records (docs/optix.md).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/lookup.hpp"

namespace raydb {

enum class Primitive { triangles, aabbs };

/// How a lookup turns ray hits into results.
enum class RxLookupMethod {
  automatic,     ///< hit_and_scan with key_order, else any_hit
  any_hit,       ///< RTIndeX: the any-hit shader counts and sums every matching primitive
  hit_and_scan,  ///< the thesis's revised lookup: a ray finds one match, then the key-sorted
                 ///< records are walked to the run's ends (needs key_order). Exact even where a
                 ///< driver repeats any-hit calls for one primitive.
};
const char* to_string(RxLookupMethod m);
/// RxIndex::set_diagnostic: no_trace loads each query and stores a result without a ray;
/// trace_only traces and stores the hit primitive without the exact re-check or the scan.
enum class RxDiagnostic { none, no_trace, trace_only };
const char* to_string(Primitive p);

/// Switches of the OptiX path (RxBuildOptions::optix, used with api = optix) that bench rx
/// --optix-variant flips one at a time, to measure which difference from the Vulkan path moves
/// time or memory (docs/optix.md, "Gaps"). The defaults are the configuration that mirrors the
/// Vulkan index; every variant returns the same results.
struct RxOptixOptions {
  /// OPTIX_GEOMETRY_FLAG_REQUIRE_SINGLE_ANYHIT_CALL, the twin of Vulkan's
  /// NO_DUPLICATE_ANY_HIT_INVOCATION. Off: OPTIX_GEOMETRY_FLAG_NONE, which lets OptiX call any-hit
  /// more than once per primitive and ray: exact where a match ends the ray (hit-and-scan, unique
  /// point lookups), possibly double-counting elsewhere; bench rx checks every result whole.
  bool single_anyhit = true;
  /// OptixModuleCompileOptions::optLevel: -1 = OPTIX_COMPILE_OPTIMIZATION_DEFAULT, 0..3 the levels.
  int opt_level = -1;
  /// Launch as a 2D grid (1024 wide) instead of one row of lookups: the thread-to-lookup order is
  /// the same, only the launch shape differs.
  bool launch_2d = false;
  /// Trace through an instance AS with one identity instance over the GAS, the hierarchy the
  /// Vulkan path has (a TLAS over one BLAS), instead of the GAS alone (ALLOW_SINGLE_GAS).
  bool two_level = false;
};

/// How an RxIndex is built (primitive, lookup method, BVH preference, partitions, tracing API);
/// plain values.
struct RxBuildOptions {
  Primitive primitive = Primitive::triangles;  ///< what each key becomes in the BVH
  /// Copy each BLAS into a structure of its compacted size (the paper's choice), where that saves
  /// at least compact_min_saving of the BLAS's bytes. The driver's compacted size is queried in
  /// the build's own submission either way (RxBuildStats::bvh_compacted_bytes).
  bool compact = true;
  /// The least fraction of the BLAS's bytes (0 to 1) that compaction must save to run: it costs
  /// an allocation of the compacted copy, the copy, and both copies at the build's peak. On the
  /// H100 it saved 4% of 4.55 GB for 2^26 keys and took about 15 ms of a 160 ms build
  /// (docs/e2e.md), so it is skipped there; builders that compact further still compact. 0:
  /// whenever allowed. Outside [0, 1]: Errc::invalid_argument.
  double compact_min_saving = 0.10;
  /// Keep the BVH updatable in place (RxIndex::update). Compaction is then skipped.
  bool allow_update = false;
  BuildPreference preference = BuildPreference::none;  ///< the BVH builder's trade-off
  /// Lay primitives out in key order (row ids kept in a side array). Builders without a spatial
  /// sort of their own (lavapipe) need it; with false, primitive i is row i.
  bool key_order = true;
  /// Primitives per BLAS; larger inputs are split over several BLAS under one TLAS.
  /// 0 = the device's maxPrimitiveCount (capped at 2^28).
  uint64_t max_primitives_per_blas = 0;
  /// A range [lo, hi] needs (hi >> 23) - (lo >> 23) + 1 rays; wider ranges are rejected.
  uint64_t max_rays_per_range = uint64_t{1} << 16;
  /// automatic = the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  RxLookupMethod method = RxLookupMethod::automatic;  ///< how hits become results
  /// hit_and_scan over triangles: trace opaque rays, so traversal commits the first triangle it
  /// crosses and a closest-hit shader reports it, with no any-hit call per candidate and a 4-byte
  /// ray payload. Exact either way: rays cross only triangles of the keys they look for, and a
  /// committed hit is re-checked (and traced again the any-hit way should the check fail).
  bool opaque_triangles = true;
  /// Sort each batch of lookups by key (ranges by lo) on the GPU before tracing (the thesis's
  /// sorted probes and spatially close query mapping: neighbouring rays then walk the same BVH
  /// nodes); results still come back in the caller's order. A lookup call from host memory
  /// orders each of its pipelined chunks alone (points by their keys' top 8 bits, ranges by their
  /// lo's top 16), and the next chunk's trace writes its results out: on the H100 such calls took
  /// 59 ms from HostBuffers (60 ms from std::vectors) for 2^27 point lookups over 2^26 keys,
  /// against 50 ms unsorted (docs/e2e.md), so sorting pays for whole batches and device-resident
  /// lookups there, not for calls from host memory. The sort's time is
  /// RxProbeStats::sort_ms, not part of probe_ms. Can be changed after the build:
  /// RxIndex::set_sort_probes().
  bool sort_probes = false;
  /// BVH partitioning: the key-sorted primitives are split into this many contiguous parts (key
  /// ranges of equal primitive count, to within one), and the parts' BLAS are built one at a time
  /// under one TLAS: generate a part's primitives, build, compact, free the part's primitive,
  /// scratch and uncompacted buffers, then the next part. Peak build memory is then about one
  /// part's temporaries plus the finished BLAS, instead of all of them at once, for P - 1 more
  /// submissions and host round trips. A part larger than max_primitives_per_blas gets several
  /// BLAS. Must be at least 1; more parts than primitives give one part per primitive. Lookups
  /// are the same for every value. Parts of unequal size add one 4-byte load per hit (the first
  /// primitive of the hit's BLAS, from a buffer of one entry per BLAS).
  uint32_t partitions = 1;
  /// Duplicate-key compression: one primitive per distinct key (at the first record of its run of
  /// equal keys) instead of one per key, so a column with few distinct keys builds a much smaller
  /// BVH. Needs the hit_and_scan method (the scan walks the run from its first record; any_hit is
  /// rejected with Errc::invalid_argument) and no allow_update (an update could change the number
  /// of distinct keys). Costs a 4-byte index entry per distinct key (resident) and one more load
  /// per hit; with unique keys nothing changes. RxBuildStats::primitives says what was built.
  bool compress_duplicates = false;
  /// Which API traces the lookups. optix: the index's key records are laid out as for Vulkan, then
  /// an OptiX GAS is built over the same primitives (common/rx_mapping.h) and lookup,
  /// lookup_ranges and collect_rows trace through it with the same exact re-check, so results
  /// equal the Vulkan path's bit for bit; build_stats() and last_stats() are then the OptiX
  /// path's (CUDA events; upload_ms and sort_ms the shared layout's). The Vulkan BVH is still
  /// built (the device-resident lookups of raydb/device_buffers.hpp trace through it; rx_build
  /// from device buffers refuses optix), so build memory and time include it. Errc::unsupported,
  /// naming why, where OptiX is unavailable (optix_support() in raydb/optix.hpp) and for partitions
  /// other than 1, compress_duplicates, allow_update and sort_probes (the OptiX path builds one GAS
  /// and traces unsorted). Diagnostics (set_diagnostic) are the Vulkan path's: OptiX lookups with
  /// one set are refused.
  RayTracingApi api = RayTracingApi::vulkan;
  /// Which backend runs the build's key sort and, with sort_probes, the probe sort: automatic
  /// follows the context (ContextOptions::backend, RAYDB_BACKEND); cuda is Errc::unsupported,
  /// naming why, where CUDA cannot run; vulkan keeps it in Vulkan compute. Results are the same on
  /// either.
  Backend backend = Backend::automatic;
  /// The OptiX path's experiment switches (api = optix only).
  RxOptixOptions optix;
};

/// Times in milliseconds (GPU timestamps unless named host_), sizes in bytes.
struct RxBuildStats {
  double upload_ms = 0;   ///< keys and values to the device
  double sort_ms = 0;     ///< GPU layout: radix sort by key, values into key order, duplicates, and
                          ///< with compress_duplicates the distinct-key index
  double convert_ms = 0;  ///< keys -> triangles / boxes
  double bvh_build_ms = 0;  ///< BLAS builds + TLAS build
  double compact_ms = 0;    ///< compaction copies
  /// The paper's build time (convert + build + compact); sort_ms comes on top.
  double build_ms() const {
    return convert_ms + bvh_build_ms + compact_ms;
  }                                    // the paper's build time
  uint64_t bvh_bytes = 0;              ///< BLAS (compacted where that ran) + TLAS
  uint64_t bvh_uncompacted_bytes = 0;  ///< BLAS before compaction + TLAS
  /// The Vulkan BLAS's compacted size as the driver reported it, + TLAS; 0 where compaction was
  /// not allowed. Equal to bvh_bytes where compaction ran.
  uint64_t bvh_compacted_bytes = 0;
  uint64_t build_peak_bytes = 0;  ///< most device memory raydb held during the build
  uint64_t resident_bytes = 0;    ///< what the index holds afterwards (BVH + columns)
  uint32_t blas_count = 0;        ///< bottom-level structures under the one TLAS
  uint32_t partitions = 0;   ///< parts built one at a time (RxBuildOptions::partitions, at most
                             ///< one per primitive)
  uint64_t primitives = 0;   ///< primitives in the BVH: the keys, or the distinct keys when
                             ///< compress_duplicates
  bool unique_keys = false;  ///< whether no key occurs twice
};

class RxIndex;
namespace detail {
struct RxIndexImpl;
struct RxIndexView;
/// What another backend of the same index reads (src/ops/rx/rx_view.hpp): the records and options.
RxIndexView rx_view(const RxIndex& index);
struct RxIndexAccess;  // src/ops/rx/rx_device_io.cpp: the device-resident API (device_buffers.hpp)
}  // namespace detail

/// The RX index (see the file comment for the mapping of keys to primitives, ownership and
/// thread-safety).
class RxIndex {
 public:
  /// Builds an index over `keys` (row id = position). `values`, when not empty, must have one
  /// value per key; lookups then sum them. At most 2^32 - 2 keys (row ids are 32-bit, and
  /// kMissRow is reserved). An empty key column gives an index on which every lookup misses.
  static Result<RxIndex> build(const Context& ctx, KeySpan keys,
                               std::span<const uint32_t> values = {},
                               const RxBuildOptions& options = {});

  /// Point lookups; `out` must have room for one result per key.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  /// As lookup(points, out), into a new vector.
  Result<std::vector<RxLookup>> lookup(KeySpan points);
  /// Range lookups [lo, hi], inclusive.
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  /// As lookup_ranges(ranges, out), into a new vector.
  Result<std::vector<RxLookup>> lookup_ranges(RangeSpan ranges);
  /// Every matching (query, row) pair, in no particular order, into `out`. Nothing is dropped
  /// silently: when more pairs match than `out` holds, the result says how many exist.
  Result<RxCollectResult> collect_rows(KeySpan points, std::span<RxRowMatch> out);
  /// As collect_rows(points, out), for inclusive ranges.
  Result<RxCollectResult> collect_rows(RangeSpan ranges, std::span<RxRowMatch> out);

  /// Refits the BVH in place to new keys (same count; needs allow_update). Lookups stay exact;
  /// the paper found refitted BVHs slow down as keys move far, so rebuild() after large changes.
  Status update(KeySpan keys, std::span<const uint32_t> values = {});
  /// Rebuilds from scratch with the same options (with api = optix, the OptiX twin too).
  Status rebuild(KeySpan keys, std::span<const uint32_t> values = {});

  /// Number of keys (rows) indexed.
  uint64_t size() const;
  /// Width of the keys the index was built from; lookups must use it.
  KeyWidth key_width() const;
  TraversalMode traversal() const;  ///< never automatic
  RxLookupMethod method() const;    ///< never automatic
  bool opaque_hits() const;         ///< RxBuildOptions::opaque_triangles in effect
  /// RxBuildOptions::sort_probes for the following lookups; needs no rebuild. Switching it on
  /// makes the device buffers the pipelined calls sort in, as such a build does, so that the next
  /// call allocates nothing; should that fail, the next call makes them and reports why.
  void set_sort_probes(bool sort);
  /// For measuring, not for answers: the following point lookups run only part of their work and
  /// return no usable results (bench rx --diagnostic). Needs hit_and_scan over opaque triangles in
  /// the ray-tracing pipeline; other lookups then fail with Errc::invalid_argument.
  void set_diagnostic(RxDiagnostic diagnostic);
  const RxBuildOptions& options() const;  ///< as built (automatic fields resolved)
  /// Where the build spent its time (ms) and memory (bytes).
  const RxBuildStats& build_stats() const;
  const RxProbeStats& last_stats() const;  ///< of the most recent lookup call

  /// Moves; the source is left empty (only destruction or assignment).
  RxIndex(RxIndex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  RxIndex& operator=(RxIndex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~RxIndex();

 private:
  friend detail::RxIndexView detail::rx_view(const RxIndex& index);
  friend struct detail::RxIndexAccess;
  explicit RxIndex(std::unique_ptr<detail::RxIndexImpl> impl);
  std::unique_ptr<detail::RxIndexImpl> impl_;
};

}  // namespace raydb
