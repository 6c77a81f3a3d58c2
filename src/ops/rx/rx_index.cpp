// RxIndex: host side of the RX mapping. Lays keys out, builds the BVH on the GPU, and runs
// batches of lookups through the ray-tracing pipeline or ray queries.
#include "raydb/rx_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/accel.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "common/capture.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/rx/rx_params.hpp"
#include "ops/rx/rx_view.hpp"

namespace raydb {

const char* to_string(Primitive p) {
  return p == Primitive::aabbs ? "aabbs" : "triangles";
}
const char* to_string(RxLookupMethod m) {
  switch (m) {
    case RxLookupMethod::any_hit:
      return "any_hit";
    case RxLookupMethod::hit_and_scan:
      return "hit_and_scan";
    default:
      return "automatic";
  }
}

const char* to_string(BuildPreference p) {
  switch (p) {
    case BuildPreference::fast_trace:
      return "fast_trace";
    case BuildPreference::fast_build:
      return "fast_build";
    default:
      return "none";
  }
}

namespace detail {

namespace {

constexpr uint64_t kMaxChunk = uint64_t{1} << 28;  // keeps 9 * chunk float indices below 2^32

}  // namespace

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
  // Per-query (query, row) output of collect_rows, kept between calls.
  Buffer matches_dev, matches_host, counter_dev;
  // sort_probes: the caller's index of each sorted query, and the sort's kernels and buffers.
  Buffer order_dev, sort_keys_dev;
  std::unique_ptr<RadixSort> probe_sort;
  RadixSort::Temps probe_sort_temps;

  std::unique_ptr<ComputePipeline> build_kernel;
  std::unique_ptr<ComputePipeline> distinct_kernel;
  std::unique_ptr<TlasBinding> binding;
  std::unique_ptr<RtPipeline> rt;
  std::unique_ptr<ComputePipeline> query_kernel;

  RxBuildStats build_stats;
  RxProbeStats probe_stats;

  RxDiagnostic diagnostic = RxDiagnostic::none;

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
    // A diagnostic for the build-time comparison with OptiX (docs/optix.md): RAYDB_VK_GEOMETRY_
    // FLAGS=none drops the flag (exact only where a match ends the ray, as OptiX's multi_anyhit
    // twin), =opaque marks the geometry opaque instead (hit_and_scan over triangles only).
    const char* diag = std::getenv("RAYDB_VK_GEOMETRY_FLAGS");
    if (diag && std::strcmp(diag, "none") == 0) return 0;
    if (diag && std::strcmp(diag, "opaque") == 0) return VK_GEOMETRY_OPAQUE_BIT_KHR;
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

  void build(KeySpan k, std::span<const uint32_t> v);
  void compress_keys();
  void plan_pieces();
  void build_parts();
  void refit_blas();
  // Records, for pieces [begin, end): primitive generation into `prims` then the BLAS build (or
  // refit), one piece after the other, sharing `prims` and `scratch`. `marks` gets 3 timestamps
  // per piece.
  void record_pieces(VkCommandBuffer cmd, GpuTimer& timer, std::vector<uint32_t>& marks,
                     uint32_t begin, uint32_t end, const Buffer& prims, VkDeviceAddress scratch,
                     std::span<AccelStruct> dst, bool update);
  void build_tlas();
  void update(KeySpan k, std::span<const uint32_t> v);
  void ensure_probe_kernels();
  // Runs one batch. `out` (may be null) receives one result per query; with `collect`, matching
  // (query, row) pairs go to `matches`, at most `capacity` of them.
  RxCollectResult probe(const QueryBatch& q, RxLookup* out, bool collect = false,
                        RxRowMatch* matches = nullptr, uint64_t capacity = 0);
  void lay_out(KeySpan k, std::span<const uint32_t> v);
  RxCollectResult read_matches(RxRowMatch* matches, uint64_t capacity);
};

void RxIndexImpl::record_pieces(VkCommandBuffer cmd, GpuTimer& timer, std::vector<uint32_t>& marks,
                                uint32_t begin, uint32_t end, const Buffer& prims,
                                VkDeviceAddress scratch, std::span<AccelStruct> dst, bool update) {
  VkContext& c = *ctx;
  for (uint32_t k = begin; k < end; ++k) {
    const Piece& piece = pieces[k];
    RxBuildParams p{records.address(),
                    prims.address(),
                    primitive_records ? primitive_records.address() : 0,
                    static_cast<uint32_t>(piece.first),
                    piece.count,
                    build_flags(),
                    0};
    if (k > begin)  // the previous build must be done reading primitives and scratch
      memory_barrier(cmd, VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                     VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR |
                         VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT |
                         VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                     VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
                     c);
    marks.push_back(timer.mark(cmd));
    build_kernel->dispatch(cmd, &p, p.count);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                   VK_ACCESS_SHADER_READ_BIT, c);
    marks.push_back(timer.mark(cmd));
    AccelStruct& target = dst[k - begin];
    record_build(c, cmd, blas_request(piece, prims.address()), target, scratch,
                 update ? &target : nullptr);
    marks.push_back(timer.mark(cmd));
  }
}

// Splits the primitives into parts of equal count (to within one), in key order, and each part
// into BLAS of at most `chunk` primitives.
void RxIndexImpl::plan_pieces() {
  pieces.clear();
  part_begin.clear();
  uint64_t parts = std::min<uint64_t>(options.partitions, primitives);
  for (uint64_t i = 0; i < parts; ++i) {
    part_begin.push_back(static_cast<uint32_t>(pieces.size()));
    uint64_t lo = i * primitives / parts, hi = (i + 1) * primitives / parts;
    for (uint64_t f = lo; f < hi; f += chunk)
      pieces.push_back({f, static_cast<uint32_t>(std::min(chunk, hi - f))});
  }
  part_begin.push_back(static_cast<uint32_t>(pieces.size()));
  if (pieces.size() > ctx->info.max_instance_count)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} primitives in {} parts need {} BLAS of at most {} primitives, more "
                            "than the device's {} instances",
                            primitives, parts, pieces.size(), chunk, ctx->info.max_instance_count));
  uniform_piece = pieces.empty() ? 1 : pieces[0].count;
  for (size_t k = 0; k + 1 < pieces.size(); ++k)
    if (pieces[k].count != uniform_piece) uniform_piece = 0;
  if (!pieces.empty() && pieces.back().count > uniform_piece) uniform_piece = 0;
  instance_first.reset();
  if (uniform_piece == 0) {
    std::vector<uint32_t> firsts;
    for (const Piece& piece : pieces) firsts.push_back(static_cast<uint32_t>(piece.first));
    instance_first = Buffer(*ctx, firsts.size() * 4, kStorageUsage, MemoryUse::device,
                            "rx BLAS first primitives");
    CommandBatch batch(*ctx);
    Buffer staging;
    record_upload(*ctx, batch.cmd(), staging, instance_first, firsts.data(), firsts.size() * 4);
    batch.submit_and_wait();
  }
}

// Builds the BLAS part by part. Each part gets its own primitive and scratch buffers, sized for its
// largest BLAS and freed as soon as its builds are done; its BLAS are then compacted and the
// uncompacted ones freed before the next part starts, so the build never holds more than one
// part's temporaries next to the finished BLAS.
void RxIndexImpl::build_parts() {
  VkContext& c = *ctx;
  blas.clear();
  build_stats.convert_ms = build_stats.bvh_build_ms = build_stats.compact_ms = 0;
  uint64_t uncompacted = 0;
  for (size_t part = 0; part + 1 < part_begin.size(); ++part) {
    uint32_t begin = part_begin[part], end = part_begin[part + 1];
    std::vector<AccelStruct> built;
    {
      uint64_t max_count = 0;
      VkDeviceSize scratch_bytes = 0;
      for (uint32_t k = begin; k < end; ++k)
        max_count = std::max<uint64_t>(max_count, pieces[k].count);
      Buffer prims(
          c, max_count * primitive_bytes(),
          kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
          MemoryUse::device, "rx primitives");
      for (uint32_t k = begin; k < end; ++k) {
        auto sizes = build_sizes(c, blas_request(pieces[k], prims.address()));
        scratch_bytes = std::max(scratch_bytes, sizes.buildScratchSize);
        built.emplace_back(c, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR,
                           sizes.accelerationStructureSize, fmt::format("rx BLAS {}", k));
        uncompacted += built.back().bytes();
      }
      Scratch scratch;
      scratch.ensure(c, scratch_bytes);
      CommandBatch batch(c);
      GpuTimer timer(c, 3 * (end - begin));
      timer.reset(batch.cmd());
      std::vector<uint32_t> marks;
      record_pieces(batch.cmd(), timer, marks, begin, end, prims, scratch.aligned_address, built,
                    false);
      accel_write_barrier(c, batch.cmd());
      batch.submit_and_wait();
      for (uint32_t k = 0; k < end - begin; ++k) {
        build_stats.convert_ms += timer.ms(marks[3 * k], marks[3 * k + 1]);
        build_stats.bvh_build_ms += timer.ms(marks[3 * k + 1], marks[3 * k + 2]);
      }
    }  // primitives and scratch freed here
    if (options.compact && !options.allow_update) {
      double ms = 0;
      auto compacted = compact(c, built, ms);
      build_stats.compact_ms += ms;
      built = std::move(compacted);  // frees the uncompacted BLAS
    }
    for (auto& b : built) blas.push_back(std::move(b));
  }
  build_stats.bvh_uncompacted_bytes = uncompacted;
}

// update(): refits every BLAS to the new keys in one submission, sharing one primitive buffer and
// one scratch buffer sized for the largest BLAS (a refit allocates no new BLAS, so parts would not
// lower its peak).
void RxIndexImpl::refit_blas() {
  VkContext& c = *ctx;
  uint64_t max_count = 0;
  for (const Piece& piece : pieces) max_count = std::max<uint64_t>(max_count, piece.count);
  Buffer prims(c, max_count * primitive_bytes(),
               kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
               MemoryUse::device, "rx primitives");
  VkDeviceSize scratch_bytes = 0;
  for (const Piece& piece : pieces)
    scratch_bytes = std::max(
        scratch_bytes, build_sizes(c, blas_request(piece, prims.address())).updateScratchSize);
  Scratch scratch;
  scratch.ensure(c, scratch_bytes);
  CommandBatch batch(c);
  auto np = static_cast<uint32_t>(pieces.size());
  GpuTimer timer(c, 3 * np);
  timer.reset(batch.cmd());
  std::vector<uint32_t> marks;
  record_pieces(batch.cmd(), timer, marks, 0, np, prims, scratch.aligned_address, blas, true);
  accel_write_barrier(c, batch.cmd());
  batch.submit_and_wait();
  build_stats.convert_ms = build_stats.bvh_build_ms = 0;
  for (uint32_t k = 0; k < np; ++k) {
    build_stats.convert_ms += timer.ms(marks[3 * k], marks[3 * k + 1]);
    build_stats.bvh_build_ms += timer.ms(marks[3 * k + 1], marks[3 * k + 2]);
  }
}

// compress_duplicates: the first record of each run of equal keys, found on the GPU (flag run
// starts, exclusive scan, scatter), then copied into a buffer of exactly one entry per distinct
// key so the index keeps no more than it needs.
void RxIndexImpl::compress_keys() {
  VkContext& c = *ctx;
  if (!distinct_kernel)
    distinct_kernel =
        std::make_unique<ComputePipeline>(c, ShaderId::rx_distinct, sizeof(RxDistinctParams));
  // The probe sort's kernels include the exclusive scan; one set serves both.
  if (!probe_sort) probe_sort = std::make_unique<RadixSort>(c);
  RadixSort::Temps temps;
  Buffer starts(c, n * 4, kStorageUsage, MemoryUse::device, "rx run starts");
  Buffer index(c, n * 4, kStorageUsage, MemoryUse::device, "rx distinct index (all)");
  Buffer count(c, 4, kStorageUsage, MemoryUse::device, "rx distinct count");
  Buffer count_host(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "rx distinct count readback");
  uint32_t distinct = 0;
  {
    CommandBatch batch(c);
    VkCommandBuffer cmd = batch.cmd();
    GpuTimer timer(c, 2);
    timer.reset(cmd);
    uint32_t t0 = timer.mark(cmd);
    RxDistinctParams p{records.address(),
                       starts.address(),
                       index.address(),
                       count.address(),
                       static_cast<uint32_t>(n),
                       width == KeyWidth::bits64 ? 1u : 0u,
                       0,
                       0};
    distinct_kernel->dispatch(cmd, &p, n);
    compute_barrier(c, cmd);
    probe_sort->record_exclusive_scan(cmd, starts.address(), n, temps);
    p.mode = 1;
    distinct_kernel->dispatch(cmd, &p, n);
    uint32_t t1 = timer.mark(cmd);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy one{0, 0, 4};
    c.vk.vkCmdCopyBuffer(cmd, count.handle(), count_host.handle(), 1, &one);
    batch.submit_and_wait();
    build_stats.sort_ms += timer.ms(t0, t1);
    count_host.invalidate();
    std::memcpy(&distinct, count_host.mapped(), 4);
  }
  starts.reset();
  primitives = distinct;
  primitive_records =
      Buffer(c, uint64_t{distinct} * 4, kStorageUsage, MemoryUse::device, "rx distinct index");
  CommandBatch batch(c);
  VkBufferCopy region{0, 0, uint64_t{distinct} * 4};
  c.vk.vkCmdCopyBuffer(batch.cmd(), index.handle(), primitive_records.handle(), 1, &region);
  memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  batch.submit_and_wait();
}

void RxIndexImpl::build_tlas() {
  // Hit group 0 handles triangles, 1 boxes (RtPipeline).
  uint32_t group = options.primitive == Primitive::aabbs ? 1 : 0;
  std::vector<VkAccelerationStructureInstanceKHR> inst;
  for (const AccelStruct& b : blas) inst.push_back(identity_instance(b, group));
  double ms = 0;
  tlas = detail::build_tlas(*ctx, inst, "rx TLAS", ms);
  build_stats.bvh_build_ms += ms;
  binding->bind(tlas.handle());
}

void RxIndexImpl::build(KeySpan k, std::span<const uint32_t> v) {
  VkContext& c = *ctx;
  validate_key_column(k, v);
  width = k.width;
  n = k.size;
  build_stats = {};
  uint64_t limit = c.info.max_primitive_count;
  if (options.max_primitives_per_blas) limit = std::min(limit, options.max_primitives_per_blas);
  chunk = std::max<uint64_t>(1, std::min(limit, kMaxChunk));
  if (!build_kernel)
    build_kernel =
        std::make_unique<ComputePipeline>(c, ShaderId::rx_build_primitives, sizeof(RxBuildParams));
  if (!binding)
    binding = std::make_unique<TlasBinding>(
        c, VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_COMPUTE_BIT);

  // Drop what a previous build held before measuring this one's peak.
  blas.clear();
  tlas.reset();
  records.reset();
  primitive_records.reset();
  instance_first.reset();
  uint64_t baseline = c.allocated_bytes;
  c.reset_peak();

  if (options.allow_update) host_values.assign(v.begin(), v.end());
  lay_out(k, v);
  build_stats.unique_keys = unique;
  primitives = n;
  // With unique keys every record starts its own run: the index would be the identity.
  if (options.compress_duplicates && !unique && n > 0) compress_keys();
  plan_pieces();
  build_parts();
  build_tlas();
  build_stats.blas_count = static_cast<uint32_t>(blas.size());
  build_stats.partitions = static_cast<uint32_t>(part_begin.size() - 1);
  build_stats.primitives = primitives;
  build_stats.bvh_bytes = tlas.bytes();
  for (auto& b : blas) build_stats.bvh_bytes += b.bytes();
  build_stats.bvh_uncompacted_bytes += tlas.bytes();
  build_stats.build_peak_bytes = c.peak_bytes - baseline;
  build_stats.resident_bytes = c.allocated_bytes - baseline;
}

void RxIndexImpl::update(KeySpan k, std::span<const uint32_t> v) {
  if (!options.allow_update)
    throw Error(Errc::invalid_argument,
                "update() needs an index built with RxBuildOptions::allow_update");
  if (k.width != width || k.size != n)
    throw Error(
        Errc::invalid_argument,
        fmt::format(
            "update() needs {} keys of {} bits (got {} of {} bits); use rebuild() to change them",
            n, to_string(width), k.size, to_string(k.width)));
  validate_key_column(k, v);
  if (!v.empty()) host_values.assign(v.begin(), v.end());
  lay_out(k, host_values);
  if (n > 0) refit_blas();
  build_tlas();
}

void RxIndexImpl::ensure_probe_kernels() {
  VkContext& c = *ctx;
  RtPrimitives kind =
      options.primitive == Primitive::aabbs ? RtPrimitives::boxes : RtPrimitives::triangles;
  if (mode == TraversalMode::pipeline && !rt)
    rt = std::make_unique<RtPipeline>(
        c,
        RtShaders{ShaderId::rx_probe_rgen, ShaderId::rx_probe_rmiss, ShaderId::rx_probe_rahit,
                  ShaderId::rx_probe_rchit, ShaderId::rx_probe_rint, kind},
        sizeof(RxProbeParams), binding->layout());
  if (mode == TraversalMode::ray_query && !query_kernel)
    query_kernel = std::make_unique<ComputePipeline>(c, ShaderId::rx_probe_query,
                                                     sizeof(RxProbeParams), binding->layout());
}

// Keys and values to key-sorted (or row-order) records on the GPU.
void RxIndexImpl::lay_out(KeySpan k, std::span<const uint32_t> v) {
  if (!record_builder) record_builder = std::make_unique<KeyRecordBuilder>(*ctx);
  KeyRecords r = record_builder->build(k, v, options.key_order, "rx");
  records = std::move(r.records);
  unique = r.unique;
  build_stats.upload_ms = r.upload_ms;
  build_stats.sort_ms = r.sort_ms;
}

RxCollectResult RxIndexImpl::probe(const QueryBatch& q, RxLookup* out, bool collect,
                                   RxRowMatch* matches, uint64_t capacity) {
  VkContext& c = *ctx;
  probe_stats = {};
  validate_queries(q, width);
  probe_stats.rays = rx_ray_count(q, options.max_rays_per_range);
  RxCollectResult collected;
  if (q.count == 0) return collected;
  ensure_probe_kernels();
  if (!batch) batch = std::make_unique<LookupBatch>(c);
  batch->prepare(q);
  if (collect) {
    if (!counter_dev)
      counter_dev = Buffer(c, 4, kStorageUsage, MemoryUse::device, "rx match counter");
    uint64_t mbytes = std::max<uint64_t>(capacity, 1) * sizeof(RxRowMatch);
    if (!matches_dev || matches_dev.size() < mbytes)
      matches_dev = Buffer(c, mbytes, kStorageUsage, MemoryUse::device, "rx matches");
  }

  RxProbeParams p{};
  p.records = records.address();
  p.queries = batch->queries();
  p.results = batch->results();
  p.matches = collect ? matches_dev.address() : 0;
  p.match_count = collect ? counter_dev.address() : 0;
  bool sorting = options.sort_probes && q.count > 1;
  uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
  // With CUDA, CUB sorts the probe keys in memory shared with the Vulkan passes around it, as for
  // the index builds (KeyRecordBuilder); the Vulkan radix sort otherwise.
  const bool cuda_sort = sorting && cuda::use_cuda(c, Backend::automatic);
  if (sorting) {
    if (!cuda_sort && !probe_sort) probe_sort = std::make_unique<RadixSort>(c);
    if (!order_dev || order_dev.size() < q.count * 4 || order_dev.is_exportable() != cuda_sort)
      order_dev = cuda::kernel_buffer(c, cuda_sort, q.count * 4, "rx probe order");
    if (!sort_keys_dev || sort_keys_dev.size() < q.count * key_bytes ||
        sort_keys_dev.is_exportable() != cuda_sort)
      sort_keys_dev = cuda::kernel_buffer(c, cuda_sort, q.count * key_bytes, "rx probe sort keys");
    p.order = order_dev.address();
  }
  p.instance_first = instance_first ? instance_first.address() : 0;
  p.primitive_records = primitive_records ? primitive_records.address() : 0;
  p.chunk_size = static_cast<uint32_t>(uniform_piece);
  p.flags = rx_probe_flags(width, q.ranges, unique, collect, method, opaque_hits()) |
            diagnostic_flags(q.ranges);
  p.match_capacity = static_cast<uint32_t>(std::min<uint64_t>(capacity, 0xFFFFFFFFu));
  p.num_primitives = static_cast<uint32_t>(n);

  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  GpuTimer timer(c, 8);
  timer.reset(cmd);
  VkPipelineStageFlags trace_stage = mode == TraversalMode::pipeline
                                         ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                         : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  if (collect) c.vk.vkCmdFillBuffer(cmd, counter_dev.handle(), 0, 4, 0);
  uint32_t t0, t1;
  batch->record_upload(cmd, timer, t0, t1, trace_stage | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  uint32_t ts = timer.mark(cmd);
  // CUDA sorts: the Vulkan work up to the sort keys is one batch, the trace a second one.
  std::optional<CommandBatch> trace_batch;
  std::optional<cuda::Timer> cuda_timer;
  uint32_t tk = 0, tt = 0, c0 = 0, c1 = 0;
  if (sorting) {  // sort each lookup's key (a range's lo) with its index into order_dev
    RxSortKeysParams sk{batch->queries(),
                        sort_keys_dev.address(),
                        static_cast<uint32_t>(q.count),
                        q.ranges ? 2u : 1u,
                        width == KeyWidth::bits64 ? 1u : 0u,
                        0};
    kernel(c, ShaderId::rx_sort_keys, sizeof(sk)).dispatch(cmd, &sk, q.count);
    if (cuda_sort) {
      tk = timer.mark(cmd);
      cuda::cuda_after(c, cb);
      cb.submit();
      cuda_timer.emplace(c, 2);
      c0 = cuda_timer->mark();
      cuda::sort_pairs(c, sort_keys_dev, order_dev, q.count, width == KeyWidth::bits64);
      c1 = cuda_timer->mark();
      trace_batch.emplace(c);
      cmd = trace_batch->cmd();
      cuda::vulkan_after(c, *trace_batch);
      tt = timer.mark(cmd);
    } else {
      compute_barrier(c, cmd);
      probe_sort->record(cmd, sort_keys_dev, order_dev, q.count, width == KeyWidth::bits64,
                         probe_sort_temps);
    }
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   trace_stage, VK_ACCESS_SHADER_READ_BIT, c);
  }
  uint32_t t2 = timer.mark(cmd);
  uint64_t slice = mode == TraversalMode::pipeline ? rt->max_width() : query_kernel->max_items();
  for (uint64_t first = 0; first < q.count; first += slice) {
    p.query_offset = static_cast<uint32_t>(first);
    p.num_queries = static_cast<uint32_t>(std::min(slice, q.count - first));
    if (mode == TraversalMode::pipeline)
      rt->trace(cmd, &p, p.num_queries, binding->set());
    else
      query_kernel->dispatch(cmd, &p, p.num_queries, binding->set());
  }
  uint32_t t3 = timer.mark(cmd);
  batch->record_download(cmd, trace_stage);
  uint32_t t4 = timer.mark(cmd);
  if (trace_batch) {
    trace_batch->submit_and_wait();
    cb.wait();
  } else {
    cb.submit_and_wait();
  }
  probe_stats.upload_ms = timer.ms(t0, t1);
  // The key extraction (Vulkan) and the sort; with CUDA, the CUB sort between CUDA events.
  probe_stats.sort_ms = !sorting    ? 0.0
                        : cuda_sort ? timer.ms(ts, tk) + cuda_timer->ms(c0, c1) + timer.ms(tt, t2)
                                    : timer.ms(ts, t2);
  probe_stats.probe_ms = timer.ms(t2, t3);
  probe_stats.download_ms = timer.ms(t3, t4);
  batch->read_results(out);
  if (collect) collected = read_matches(matches, capacity);
  return collected;
}

// After a collecting probe: how many pairs matched, and the first `capacity` of them.
RxCollectResult RxIndexImpl::read_matches(RxRowMatch* matches, uint64_t capacity) {
  VkContext& c = *ctx;
  RxCollectResult r;
  uint32_t total = 0;
  {
    Buffer readback(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "rx match count readback");
    CommandBatch cb(c);
    VkBufferCopy one{0, 0, 4};
    c.vk.vkCmdCopyBuffer(cb.cmd(), counter_dev.handle(), readback.handle(), 1, &one);
    cb.submit_and_wait();
    readback.invalidate();
    std::memcpy(&total, readback.mapped(), 4);
  }
  r.total = total;
  r.written = std::min<uint64_t>(total, capacity);
  if (r.written == 0) return r;
  uint64_t bytes = r.written * sizeof(RxRowMatch);
  if (!matches_host || matches_host.size() < bytes)
    matches_host = Buffer(c, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                          "rx matches readback");
  CommandBatch cb(c);
  VkBufferCopy region{0, 0, bytes};
  c.vk.vkCmdCopyBuffer(cb.cmd(), matches_dev.handle(), matches_host.handle(), 1, &region);
  cb.submit_and_wait();
  matches_host.invalidate();
  std::memcpy(matches, matches_host.mapped(), bytes);
  return r;
}

uint64_t rx_ray_count(const QueryBatch& q, uint64_t max_rays_per_range) {
  if (!q.ranges) return q.count;
  uint64_t rays = 0;
  for (uint64_t i = 0; i < q.count; ++i) {
    uint64_t lines = rx_line(q.hi(i)) - rx_line(q.lo(i)) + 1;
    if (lines > max_rays_per_range)
      throw Error(Errc::limit_exceeded,
                  fmt::format("range query {} [{}, {}] spans {} lines of 2^23 keys, more rays "
                              "than max_rays_per_range ({})",
                              i, q.lo(i), q.hi(i), lines, max_rays_per_range));
    rays += lines;
  }
  return rays;
}

RxIndexView rx_view(const RxIndex& index) {
  const RxIndexImpl& i = *index.impl_;
  RxIndexView v;
  v.ctx = i.ctx;
  v.records = &i.records;
  v.keys = i.n;
  v.width = i.width;
  v.unique = i.unique;
  v.method = i.method;
  v.opaque_hits = i.opaque_hits();
  v.options = &i.options;
  v.build_stats = &i.build_stats;
  return v;
}

}  // namespace detail

using detail::capture;
using detail::QueryBatch;

namespace {
RxLookupMethod resolve_method(const RxBuildOptions& o) {
  RxLookupMethod m = o.method;
  if (m == RxLookupMethod::automatic)
    m = o.key_order ? RxLookupMethod::hit_and_scan : RxLookupMethod::any_hit;
  if (m == RxLookupMethod::hit_and_scan && !o.key_order)
    throw Error(Errc::invalid_argument,
                "the hit_and_scan lookup needs key_order (primitives sorted by key)");
  return m;
}

void validate_layout_options(const RxBuildOptions& o, RxLookupMethod method) {
  if (o.partitions == 0)
    throw Error(Errc::invalid_argument, "RxBuildOptions::partitions must be at least 1");
  if (o.compress_duplicates && method != RxLookupMethod::hit_and_scan)
    throw Error(Errc::invalid_argument,
                fmt::format("compress_duplicates needs the hit_and_scan lookup (one primitive per "
                            "distinct key; the scan finds the other rows), not {}",
                            to_string(method)));
  if (o.compress_duplicates && o.allow_update)
    throw Error(Errc::invalid_argument,
                "compress_duplicates cannot be combined with allow_update (an update could change "
                "the number of distinct keys); use rebuild()");
}
}  // namespace
using detail::RxIndexImpl;

RxIndex::RxIndex(std::unique_ptr<RxIndexImpl> impl) : impl_(std::move(impl)) {}
RxIndex::RxIndex(RxIndex&&) noexcept = default;
RxIndex& RxIndex::operator=(RxIndex&&) noexcept = default;
RxIndex::~RxIndex() = default;

Result<RxIndex> RxIndex::build(const Context& ctx, KeySpan keys, std::span<const uint32_t> values,
                               const RxBuildOptions& options) {
  return capture([&]() -> RxIndex {
    auto impl = std::make_unique<RxIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    impl->method = resolve_method(options);
    validate_layout_options(options, impl->method);
    impl->build(keys, values);
    return RxIndex(std::move(impl));
  });
}

Status RxIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, QueryBatch::points(points), out);
}

Result<std::vector<RxLookup>> RxIndex::lookup(KeySpan points) {
  return detail::lookup_vector(*impl_, QueryBatch::points(points));
}

Status RxIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  return detail::lookup_into(*impl_, QueryBatch::of(ranges), out);
}

Result<std::vector<RxLookup>> RxIndex::lookup_ranges(RangeSpan ranges) {
  return detail::lookup_vector(*impl_, QueryBatch::of(ranges));
}

Result<RxCollectResult> RxIndex::collect_rows(KeySpan points, std::span<RxRowMatch> out) {
  return capture([&] {
    return impl_->probe(QueryBatch::points(points), nullptr, true, out.data(), out.size());
  });
}

Result<RxCollectResult> RxIndex::collect_rows(RangeSpan ranges, std::span<RxRowMatch> out) {
  return capture(
      [&] { return impl_->probe(QueryBatch::of(ranges), nullptr, true, out.data(), out.size()); });
}

Status RxIndex::update(KeySpan keys, std::span<const uint32_t> values) {
  return capture([&] { impl_->update(keys, values); });
}

Status RxIndex::rebuild(KeySpan keys, std::span<const uint32_t> values) {
  return capture([&] { impl_->build(keys, values); });
}

uint64_t RxIndex::size() const {
  return impl_->n;
}
KeyWidth RxIndex::key_width() const {
  return impl_->width;
}
TraversalMode RxIndex::traversal() const {
  return impl_->mode;
}
RxLookupMethod RxIndex::method() const {
  return impl_->method;
}
void RxIndex::set_sort_probes(bool sort) {
  impl_->options.sort_probes = sort;
}
void RxIndex::set_diagnostic(RxDiagnostic diagnostic) {
  impl_->diagnostic = diagnostic;
}
bool RxIndex::opaque_hits() const {
  return impl_->opaque_hits();
}
const RxBuildOptions& RxIndex::options() const {
  return impl_->options;
}
const RxBuildStats& RxIndex::build_stats() const {
  return impl_->build_stats;
}
const RxProbeStats& RxIndex::last_stats() const {
  return impl_->probe_stats;
}

}  // namespace raydb
