// Inside the RX index (rx_index.cpp: lookups and the public API; rx_build.cpp: layout and BVH
// builds): the implementation object an RxIndex owns.
#pragma once

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/accel.hpp"
#include "backend/vk/blas.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "common/capture.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/rx/optix/rx_optix.hpp"
#include "ops/rx/rx_params.hpp"
#include "ops/rx/rx_view.hpp"
#include "raydb/rx_index.hpp"

namespace raydb::detail {

// The most primitives in one BLAS: keeps 9 * chunk float indices below 2^32.
inline constexpr uint64_t kMaxChunk = uint64_t{1} << 28;

struct RxIndexImpl {
  std::shared_ptr<VkContext> ctx;
  RxBuildOptions options;
  TraversalMode mode = TraversalMode::pipeline;
  RxLookupMethod method = RxLookupMethod::hit_and_scan;
  KeyWidth width = KeyWidth::bits32;
  uint64_t n = 0;
  uint64_t chunk = 1;  // most primitives per BLAS
  bool unique = true;

  // BLAS k holds primitives [first, first + count). Parts (RxBuildOptions::partitions) are runs of
  // consecutive pieces: part i is pieces [part_begin[i], part_begin[i + 1]).
  struct Piece {
    uint64_t first;
    uint32_t count;
  };
  std::vector<Piece> pieces;
  std::vector<uint32_t> part_begin;
  // The BLAS size when every BLAS but the last has it (then the shaders find a BLAS's first
  // primitive by a multiplication); 0 when they differ and `instance_first` holds each one.
  uint64_t uniform_piece = 1;
  uint64_t primitives = 0;  // n, or the number of distinct keys with compress_duplicates

  Buffer records;  // one (key, row, value) record per key, key order (row order without key_order)
  Buffer primitive_records;  // compress_duplicates: the record of each primitive; else empty
  Buffer instance_first;     // first primitive of each BLAS when uniform_piece is 0; else empty
  std::vector<AccelStruct> blas;
  AccelStruct tlas;
  std::vector<uint32_t> host_values;  // row order; kept only when allow_update
  std::unique_ptr<KeyRecordBuilder> record_builder;
  std::unique_ptr<LookupBatch> batch;
  // Traces run ~40% slower beside a copy queue's download (lookup_batch.hpp): the pipelined
  // chunks write their results straight into pinned memory. Not with sort_probes: its results
  // land at scattered places in the chunk, and 16-byte writes scattered across PCIe made its
  // chunk kernels ten times slower (H100: 514 ms a call against 51 ms), so the next chunk's trace
  // writes them out in order (ResultPath::carried).
  static constexpr ResultPath kResultPath = ResultPath::direct;
  // Per-query (query, row) output of collect_rows, kept between calls.
  Buffer matches_dev, matches_host, counter_dev;
  // sort_probes: the caller's index of each sorted query, and the sort's kernels and buffers.
  Buffer order_dev, sort_keys_dev;
  std::unique_ptr<RadixSort> probe_sort;
  RadixSort::Temps probe_sort_temps;
  // Sorted probes in a pipelined call: each chunk's sort keys, order and sort temporaries, one
  // set per LookupBatch slot (free whenever its slot is), made at build, grown once.
  struct ChunkSort {
    Buffer keys, order;
    RadixSort::Temps temps;
  };
  std::array<ChunkSort, LookupBatch::kSlots> chunk_sorts;

  ComputePipeline* build_kernel = nullptr;  // the context's (kernel())
  std::unique_ptr<ComputePipeline> distinct_kernel;
  std::unique_ptr<TlasBinding> binding;
  // The probe, by traversal mode: the context's rt_kernel() or tlas_kernel(), over `binding`.
  RtPipeline* rt = nullptr;
  ComputePipeline* query_kernel = nullptr;

  RxBuildStats build_stats;
  RxProbeStats probe_stats;

  RxDiagnostic diagnostic = RxDiagnostic::none;

  // RxBuildOptions::api = optix: the OptiX twin over `records`, which the public lookups and stats
  // go through. Declared after the buffers it borrows, so it is destroyed before them.
  std::unique_ptr<RxOptixIndex> optix;

  // rx_submit_lookup's last submission, kept until its GPU work is done (rx_device_io.cpp).
  // Declared last: destroyed (and waited for) before the buffers it reads.
  std::shared_ptr<void> pending_submission;

  // RxIndex::set_diagnostic: the RX_FLAG_DIAG_* bit (rx_mapping.h) of the next probes.
  uint32_t diagnostic_flags(bool ranges) const {
    if (diagnostic == RxDiagnostic::none) return 0;
    if (ranges || mode != TraversalMode::pipeline || !opaque_hits())
      throw Error(Errc::invalid_argument,
                  "RX diagnostics need point lookups with hit_and_scan over opaque triangles in "
                  "the ray-tracing pipeline");
    return diagnostic == RxDiagnostic::no_trace ? RX_FLAG_DIAG_NO_TRACE : RX_FLAG_DIAG_TRACE_ONLY;
  }

  bool opaque_hits() const {
    return method == RxLookupMethod::hit_and_scan && options.primitive == Primitive::triangles &&
           options.opaque_triangles;
  }

  VkGeometryFlagsKHR geometry_flags() const {
    // A diagnostic for the build-time comparison with OptiX (docs/optix.md,
    // Diagnostics::vk_geometry_flags).
    switch (ctx->diagnostics.vk_geometry_flags) {
      case VkGeometryFlagsDiagnostic::none:
        return 0;
      case VkGeometryFlagsDiagnostic::opaque:
        return VK_GEOMETRY_OPAQUE_BIT_KHR;
      case VkGeometryFlagsDiagnostic::standard:
        break;
    }
    return VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR;
  }
  VkBuildAccelerationStructureFlagsKHR blas_flags() const {
    VkBuildAccelerationStructureFlagsKHR f = 0;
    if (options.allow_update) f |= VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_UPDATE_BIT_KHR;
    if (options.compact && !options.allow_update)
      f |= VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR;
    if (options.preference == BuildPreference::fast_trace)
      f |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
    if (options.preference == BuildPreference::fast_build)
      f |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR;
    return f;
  }
  uint64_t primitive_bytes() const { return options.primitive == Primitive::aabbs ? 24 : 36; }
  uint32_t build_flags() const {
    return (width == KeyWidth::bits64 ? RX_FLAG_KEY64 : 0u) |
           (options.primitive == Primitive::aabbs ? RX_FLAG_AABBS : 0u);
  }

  BuildRequest blas_request(const Piece& piece, VkDeviceAddress primitives_address) const {
    BuildRequest req;
    req.primitive_count = piece.count;
    req.flags = blas_flags();
    req.geometry =
        options.primitive == Primitive::aabbs
            ? aabb_geometry(primitives_address, geometry_flags())
            : triangle_geometry(primitives_address, req.primitive_count, geometry_flags());
    return req;
  }

  // With `source` (rx_build from device buffers) k.data and v are unused.
  void build(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source = nullptr);
  void compress_keys();
  void plan_pieces();
  // The one BLAS of a one-part build, its primitives and scratch, made while the GPU uploads or
  // sorts the keys (KeyRecordBuilder::build's while_uploading; the host waits there otherwise):
  // for the build of n primitives, where it fits twice over in half the device's memory; none
  // otherwise.
  struct PremadeBvh {
    uint64_t primitives = 0;
    Buffer prims;
    BlasMemory memory;
  };
  std::optional<PremadeBvh> premake_bvh();
  Buffer primitive_buffer(uint64_t count) const;  // for `count` primitives, the BLAS build's input
  void build_parts(PremadeBvh* premade = nullptr);
  void refit_blas();
  // The builds of pieces [begin, end) (build_blas, record_blas_builds): each piece's primitives
  // are generated into `prims`, which the pieces share one after the other.
  std::vector<BlasBuild> piece_builds(uint32_t begin, uint32_t end, const Buffer& prims);
  void build_tlas();
  void update(KeySpan k, std::span<const uint32_t> v);
  void ensure_probe_kernels();
  // Runs one batch. `out` (may be null) receives one result per query; with `collect`, matching
  // (query, row) pairs go to `matches`, at most `capacity` of them.
  RxCollectResult probe(const QueryBatch& q, RxLookup* out, bool collect = false,
                        RxRowMatch* matches = nullptr, uint64_t capacity = 0);
  // sort_probes: the chunk sorts' buffers for chunks of min(lookup_chunk(), n) points, so that a
  // first pipelined lookup call allocates nothing (the build calls it).
  void reserve_chunk_sorts();
  // Grows `slot`'s chunk sort to `count` queries; records their sort (keys, then the radix sort
  // into its order) and the barrier before a trace reads the order.
  // carrying: the trace also writes out the previous chunk's results (ChunkCarry).
  void record_chunk_sort(VkCommandBuffer cmd, unsigned slot, VkDeviceAddress queries,
                         uint64_t count, bool ranges, VkPipelineStageFlags trace_stage,
                         bool carrying);
  void lay_out(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source = nullptr,
               const std::function<void()>& while_uploading = {});
  RxCollectResult read_matches(RxRowMatch* matches, uint64_t capacity);
  // Sorted point lookups read their keys from the sorted copy (RX_FLAG_SORTED_QUERIES), where
  // sorted_keys is not 0.
  static void read_sorted_points(RxProbeParams& p, bool ranges, VkDeviceAddress sorted_keys);
  // The probe push constants that come from the index (all but queries, results, matches, order,
  // the slice and the match capacity).
  void fill_index_params(RxProbeParams& p, bool ranges, bool collect) const;
  // Records the traversal of `count` lookups in slices the launch limits allow.
  void record_trace(VkCommandBuffer cmd, RxProbeParams& p, uint64_t count);
  // With api = optix: builds `optix` over `index` (whose impl this is); otherwise nothing.
  void attach_optix(const RxIndex& index);
  // The twin the public lookups go through; throws Errc::unsupported for the Vulkan-only
  // switches set after the build (sort_probes, a diagnostic).
  RxOptixIndex& traced_optix();
};

// The build options' lookup method (automatic resolved) and their consistency checks; throw
// Errc::invalid_argument naming the option.
RxLookupMethod resolve_method(const RxBuildOptions& o);
void validate_layout_options(const RxBuildOptions& o, RxLookupMethod method);

}  // namespace raydb::detail
