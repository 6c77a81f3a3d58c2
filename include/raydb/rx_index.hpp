// raydb::RxIndex: the RX index of RTIndeX. Each key becomes a primitive (a triangle, or a box)
// at coordinates decomposed from its bits (x = k[22:0], y = k[45:23], z = k[63:46]); a point
// lookup is one ray along z, a range lookup one ray along x per 2^23-key line. Every hit is
// re-checked against the exact key, so results are exact at any magnitude.
//
// Ownership: an RxIndex owns its device buffers and acceleration structures and keeps its
// Context alive. Thread-safety: any thread may call any member, also on one index at once;
// calls on one Context are serialised (see Context), so results are those of one call after
// another. build_stats() and last_probe() report the latest call of any thread.
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

// How a lookup turns ray hits into results.
enum class RxLookupMethod {
  automatic,     // hit_and_scan with key_order, else any_hit
  any_hit,       // RTIndeX: the any-hit shader counts and sums every matching primitive
  hit_and_scan,  // the thesis's revised lookup: a ray finds one match, then the key-sorted
                 // records are walked to the run's ends (needs key_order). Exact even where a
                 // driver repeats any-hit calls for one primitive.
};
const char* to_string(RxLookupMethod m);
// RxIndex::set_diagnostic: no_trace loads each query and stores a result without a ray;
// trace_only traces and stores the hit primitive without the exact re-check or the scan.
enum class RxDiagnostic { none, no_trace, trace_only };
const char* to_string(Primitive p);

struct RxBuildOptions {
  Primitive primitive = Primitive::triangles;
  // Copy each BLAS into a structure of its compacted size (the paper's choice).
  bool compact = true;
  // Keep the BVH updatable in place (RxIndex::update). Compaction is then skipped.
  bool allow_update = false;
  BuildPreference preference = BuildPreference::none;
  // Lay primitives out in key order (row ids kept in a side array). Builders without a spatial
  // sort of their own (lavapipe) need it; with false, primitive i is row i.
  bool key_order = true;
  // Primitives per BLAS; larger inputs are split over several BLAS under one TLAS.
  // 0 = the device's maxPrimitiveCount (capped at 2^28).
  uint64_t max_primitives_per_blas = 0;
  // A range [lo, hi] needs (hi >> 23) - (lo >> 23) + 1 rays; wider ranges are rejected.
  uint64_t max_rays_per_range = uint64_t{1} << 16;
  // automatic = the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  RxLookupMethod method = RxLookupMethod::automatic;
  // hit_and_scan over triangles: trace opaque rays, so traversal commits the first triangle it
  // crosses and a closest-hit shader reports it, with no any-hit call per candidate and a 4-byte
  // ray payload. Exact either way: rays cross only triangles of the keys they look for, and a
  // committed hit is re-checked (and traced again the any-hit way should the check fail).
  bool opaque_triangles = true;
  // Sort each batch of lookups by key (ranges by lo) on the GPU before tracing (the thesis's
  // sorted probes and spatially close query mapping: neighbouring rays then walk the same BVH
  // nodes); results still come back in the caller's order. The sort's time is
  // RxProbeStats::sort_ms, not part of probe_ms. Can be changed after the build:
  // RxIndex::set_sort_probes().
  bool sort_probes = false;
  // BVH partitioning: the key-sorted primitives are split into this many contiguous parts (key
  // ranges of equal primitive count, to within one), and the parts' BLAS are built one at a time
  // under one TLAS: generate a part's primitives, build, compact, free the part's primitive,
  // scratch and uncompacted buffers, then the next part. Peak build memory is then about one
  // part's temporaries plus the finished BLAS, instead of all of them at once, for P - 1 more
  // submissions and host round trips. A part larger than max_primitives_per_blas gets several
  // BLAS. Must be at least 1; more parts than primitives give one part per primitive. Lookups
  // are the same for every value. Parts of unequal size add one 4-byte load per hit (the first
  // primitive of the hit's BLAS, from a buffer of one entry per BLAS).
  uint32_t partitions = 1;
  // Duplicate-key compression: one primitive per distinct key (at the first record of its run of
  // equal keys) instead of one per key, so a column with few distinct keys builds a much smaller
  // BVH. Needs the hit_and_scan method (the scan walks the run from its first record; any_hit is
  // rejected with Errc::invalid_argument) and no allow_update (an update could change the number
  // of distinct keys). Costs a 4-byte index entry per distinct key (resident) and one more load
  // per hit; with unique keys nothing changes. RxBuildStats::primitives says what was built.
  bool compress_duplicates = false;
};

// Times in milliseconds (GPU timestamps unless named host_), sizes in bytes.
struct RxBuildStats {
  double upload_ms = 0;     // keys and values to the device
  double sort_ms = 0;       // GPU layout: radix sort by key, values into key order, duplicates, and
                            // with compress_duplicates the distinct-key index
  double convert_ms = 0;    // keys -> triangles / boxes
  double bvh_build_ms = 0;  // BLAS builds + TLAS build
  double compact_ms = 0;    // compaction copies
  // The paper's build time (convert + build + compact); sort_ms comes on top.
  double build_ms() const {
    return convert_ms + bvh_build_ms + compact_ms;
  }                                    // the paper's build time
  uint64_t bvh_bytes = 0;              // BLAS (compacted if enabled) + TLAS
  uint64_t bvh_uncompacted_bytes = 0;  // BLAS before compaction + TLAS
  uint64_t build_peak_bytes = 0;       // most device memory raydb held during the build
  uint64_t resident_bytes = 0;         // what the index holds afterwards (BVH + columns)
  uint32_t blas_count = 0;
  uint32_t partitions = 0;  // parts built one at a time (RxBuildOptions::partitions, at most
                            // one per primitive)
  uint64_t primitives = 0;  // primitives in the BVH: the keys, or the distinct keys when
                            // compress_duplicates
  bool unique_keys = false;
};

class RxIndex;
namespace detail {
struct RxIndexImpl;
struct RxIndexView;
// What another backend of the same index reads (src/ops/rx/rx_view.hpp): the records and options.
RxIndexView rx_view(const RxIndex& index);
}  // namespace detail

class RxIndex {
 public:
  // Builds an index over `keys` (row id = position). `values`, when not empty, must have one
  // value per key; lookups then sum them. At most 2^32 - 2 keys (row ids are 32-bit, and
  // kMissRow is reserved). An empty key column gives an index on which every lookup misses.
  static Result<RxIndex> build(const Context& ctx, KeySpan keys,
                               std::span<const uint32_t> values = {},
                               const RxBuildOptions& options = {});

  // Point lookups; `out` must have room for one result per key.
  Status lookup(KeySpan points, std::span<RxLookup> out);
  Result<std::vector<RxLookup>> lookup(KeySpan points);
  // Range lookups [lo, hi], inclusive.
  Status lookup_ranges(RangeSpan ranges, std::span<RxLookup> out);
  Result<std::vector<RxLookup>> lookup_ranges(RangeSpan ranges);
  // Every matching (query, row) pair, in no particular order, into `out`. Nothing is dropped
  // silently: when more pairs match than `out` holds, the result says how many exist.
  Result<RxCollectResult> collect_rows(KeySpan points, std::span<RxRowMatch> out);
  Result<RxCollectResult> collect_rows(RangeSpan ranges, std::span<RxRowMatch> out);

  // Refits the BVH in place to new keys (same count; needs allow_update). Lookups stay exact;
  // the paper found refitted BVHs slow down as keys move far, so rebuild() after large changes.
  Status update(KeySpan keys, std::span<const uint32_t> values = {});
  // Rebuilds from scratch with the same options.
  Status rebuild(KeySpan keys, std::span<const uint32_t> values = {});

  uint64_t size() const;
  KeyWidth key_width() const;
  TraversalMode traversal() const;
  RxLookupMethod method() const;  // never automatic
  bool opaque_hits() const;       // RxBuildOptions::opaque_triangles in effect
  // RxBuildOptions::sort_probes for the following lookups; needs no rebuild.
  void set_sort_probes(bool sort);
  // For measuring, not for answers: the following point lookups run only part of their work and
  // return no usable results (bench rx --diagnostic). Needs hit_and_scan over opaque triangles in
  // the ray-tracing pipeline; other lookups then fail with Errc::invalid_argument.
  void set_diagnostic(RxDiagnostic diagnostic);
  const RxBuildOptions& options() const;
  const RxBuildStats& build_stats() const;
  const RxProbeStats& last_stats() const;  // of the most recent lookup call

  RxIndex(RxIndex&&) noexcept;
  RxIndex& operator=(RxIndex&&) noexcept;
  ~RxIndex();

 private:
  friend detail::RxIndexView detail::rx_view(const RxIndex& index);
  explicit RxIndex(std::unique_ptr<detail::RxIndexImpl> impl);
  std::unique_ptr<detail::RxIndexImpl> impl_;
};

}  // namespace raydb
