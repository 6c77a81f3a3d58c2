// RxIndex, the build side: keys laid out in key order on the GPU, primitives generated, BLAS built
// (in parts, compacted), the TLAS over them, refits for update().
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "backend/vk/limits.hpp"
#include "ops/rx/rx_impl.hpp"

namespace raydb::detail {

// One BlasBuild per piece in [begin, end): the kernel that writes its primitives into `prims`
// (shared by the pieces, one after the other) and its build over them.
std::vector<BlasBuild> RxIndexImpl::piece_builds(uint32_t begin, uint32_t end,
                                                 const Buffer& prims) {
  std::vector<BlasBuild> out;
  for (uint32_t k = begin; k < end; ++k) {
    const Piece& piece = pieces[k];
    RxBuildParams p{records.address(),
                    prims.address(),
                    primitive_records ? primitive_records.address() : 0,
                    static_cast<uint32_t>(piece.first),
                    piece.count,
                    build_flags(),
                    0};
    auto write_primitives = [this, p](VkCommandBuffer cmd) {
      build_kernel->dispatch(cmd, &p, p.count);
      memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
                     VK_ACCESS_SHADER_READ_BIT, *ctx);
    };
    out.push_back(
        {blas_request(piece, prims.address()), fmt::format("rx BLAS {}", k), write_primitives});
  }
  return out;
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

std::optional<RxIndexImpl::PremadeBvh> RxIndexImpl::premake_bvh() {
  VkContext& c = *ctx;
  if (options.partitions != 1 || n == 0 || n > chunk || c.memory_budget != 0) return std::nullopt;
  const Piece piece{0, static_cast<uint32_t>(n)};
  BlasBuild request{blas_request(piece, 0), "", {}};
  const auto sizes = build_sizes(c, request.req);
  const uint64_t bytes =
      n * primitive_bytes() + sizes.accelerationStructureSize + sizes.buildScratchSize;
  if (c.allocated_bytes + 2 * bytes > c.info.device_local_bytes / 2) return std::nullopt;
  try {
    PremadeBvh p;
    p.primitives = n;
    p.prims = primitive_buffer(n);
    request = {blas_request(piece, p.prims.address()), "rx BLAS 0", {}};
    p.memory = make_blas_memory(c, std::span<const BlasBuild>(&request, 1));
    return p;
  } catch (const Error& e) {
    if (e.code() != Errc::out_of_memory) throw;
    return std::nullopt;  // made after the records instead, as without room to spare
  }
}

Buffer RxIndexImpl::primitive_buffer(uint64_t count) const {
  return Buffer(
      *ctx, count * primitive_bytes(),
      kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
      MemoryUse::device, "rx primitives");
}

// Builds the BLAS part by part. Each part gets its own primitive and scratch buffers, sized for its
// largest BLAS and freed as soon as its builds are done; its BLAS are then compacted and the
// uncompacted ones freed before the next part starts, so the build never holds more than one
// part's temporaries next to the finished BLAS. A one-part build may bring them made ahead
// (premake_bvh).
void RxIndexImpl::build_parts(PremadeBvh* premade) {
  VkContext& c = *ctx;
  blas.clear();
  build_stats.convert_ms = build_stats.bvh_build_ms = build_stats.compact_ms = 0;
  uint64_t uncompacted = 0, compacted = 0;
  // Made ahead for exactly this plan: one part of one piece of all the primitives.
  if (premade && (premade->primitives != primitives || pieces.size() != 1)) premade = nullptr;
  for (size_t part = 0; part + 1 < part_begin.size(); ++part) {
    uint32_t begin = part_begin[part], end = part_begin[part + 1];
    uint64_t max_count = 0;
    for (uint32_t k = begin; k < end; ++k)
      max_count = std::max<uint64_t>(max_count, pieces[k].count);
    Buffer prims = premade ? std::move(premade->prims) : primitive_buffer(max_count);
    // Compaction (where the options allow it) after the part's primitives and scratch are freed.
    BlasTimes times;
    auto built = build_blas(c, piece_builds(begin, end, prims), times, &prims,
                            premade ? &premade->memory : nullptr, options.compact_min_saving);
    build_stats.convert_ms += times.prepare_ms;
    build_stats.bvh_build_ms += times.build_ms;
    build_stats.compact_ms += times.compact_ms;
    uncompacted += times.uncompacted_bytes;
    compacted += times.compacted_bytes;
    for (auto& b : built) blas.push_back(std::move(b));
  }
  build_stats.bvh_uncompacted_bytes = uncompacted;
  build_stats.bvh_compacted_bytes = compacted;
}

// update(): refits every BLAS to the new keys in one submission, sharing one primitive buffer and
// one scratch buffer sized for the largest BLAS (a refit allocates no new BLAS, so parts would not
// lower its peak).
void RxIndexImpl::refit_blas() {
  VkContext& c = *ctx;
  uint64_t max_count = 0;
  for (const Piece& piece : pieces) max_count = std::max<uint64_t>(max_count, piece.count);
  Buffer prims = primitive_buffer(max_count);
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
  record_blas_builds(c, batch.cmd(), timer, marks, piece_builds(0, np, prims), blas,
                     scratch.aligned_address, true);
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

void RxIndexImpl::build(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source) {
  VkContext& c = *ctx;
  pending_submission.reset();  // its lookups read what is rebuilt here
  if (!source) validate_key_column(k, v);
  width = k.width;
  n = k.size;
  build_stats = {};
  uint64_t limit = c.info.max_primitive_count;
  if (options.max_primitives_per_blas) limit = std::min(limit, options.max_primitives_per_blas);
  chunk = std::max<uint64_t>(1, std::min(limit, kMaxChunk));
  if (!build_kernel)
    build_kernel = &kernel(c, ShaderId::rx_build_primitives, sizeof(RxBuildParams));
  if (!binding) binding = std::make_unique<TlasBinding>(c, kProbeTlasStages);

  // Drop what a previous build held before measuring this one's peak (on the release queue: a
  // GiB of records shared with CUDA takes ~12 ms to free on an H100).
  for (AccelStruct& b : blas) b.release_later();
  blas.clear();
  tlas.release_later();
  for (Buffer* b : {&records, &primitive_records, &instance_first}) c.release_later(std::move(*b));
  // Before any work (and after dropping the previous build): the keys and one BLAS's
  // primitives are on the device at once, at the least (the records, the BVH and its scratch
  // come on top), so a build past the device or the budget is refused here, naming the count,
  // rather than at whichever allocation runs out.
  require_device_memory(
      c, fmt::format("an RX build of {} {}-bit keys", n, k.width == KeyWidth::bits64 ? 64 : 32),
      n * (k.width == KeyWidth::bits64 ? 8 : 4) + std::min<uint64_t>(n, chunk) * primitive_bytes());
  // The probe pipeline is made here, not by the first lookup: a first call on a new index would
  // otherwise wait for the driver's shader compile (up to a second on the H100). After the check,
  // so that a refused build allocates nothing; before the baseline, so that its shader binding
  // table is not counted as the build's.
  ensure_probe_kernels();
  // The pipelined lookups' slots too, sized for point lookups of this index's width.
  if (!batch) batch = std::make_unique<LookupBatch>(c, kResultPath);
  batch->reserve_pipeline(n, k.width == KeyWidth::bits64 ? 8 : 4);
  uint64_t baseline = c.allocated_bytes;
  c.reset_peak();

  if (options.allow_update) host_values.assign(v.begin(), v.end());
  std::optional<PremadeBvh> premade;
  lay_out(k, v, source, [&] { premade = premake_bvh(); });
  build_stats.unique_keys = unique;
  primitives = n;
  // With unique keys every record starts its own run: the index would be the identity.
  if (options.compress_duplicates && !unique && n > 0) compress_keys();
  plan_pieces();
  build_parts(premade ? &*premade : nullptr);
  premade.reset();  // unused: the plan was another (compress_duplicates left fewer primitives)
  build_tlas();
  build_stats.blas_count = static_cast<uint32_t>(blas.size());
  build_stats.partitions = static_cast<uint32_t>(part_begin.size() - 1);
  build_stats.primitives = primitives;
  build_stats.bvh_bytes = tlas.bytes();
  for (auto& b : blas) build_stats.bvh_bytes += b.bytes();
  build_stats.bvh_uncompacted_bytes += tlas.bytes();
  if (build_stats.bvh_compacted_bytes) build_stats.bvh_compacted_bytes += tlas.bytes();
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
  pending_submission.reset();
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
    rt = &rt_kernel(
        c,
        RtShaders{ShaderId::rx_probe_rgen, ShaderId::rx_probe_rmiss, ShaderId::rx_probe_rahit,
                  ShaderId::rx_probe_rchit, ShaderId::rx_probe_rint, kind},
        sizeof(RxProbeParams), kProbeTlasStages);
  if (mode == TraversalMode::ray_query && !query_kernel)
    query_kernel =
        &tlas_kernel(c, ShaderId::rx_probe_query, sizeof(RxProbeParams), kProbeTlasStages);
}

// Keys and values to key-sorted (or row-order) records on the GPU.
void RxIndexImpl::lay_out(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source,
                          const std::function<void()>& while_uploading) {
  if (!record_builder)
    // Records shared with CUDA only for an index traced through OptiX: they take ~15 ms per GiB
    // to make on an H100 against 1.5 ms for Vulkan's own. An OptiX twin built later over a
    // Vulkan index (RxOptixIndex::build) makes a shared copy once.
    record_builder = std::make_unique<KeyRecordBuilder>(
        *ctx, options.backend, /*optix_twin=*/options.api == RayTracingApi::optix);
  KeyRecords r = record_builder->build(k, v, options.key_order, "rx", SortedKeys::none, source,
                                       while_uploading);
  records = std::move(r.records);
  unique = r.unique;
  build_stats.upload_ms = r.upload_ms;
  build_stats.sort_ms = r.sort_ms;
}

}  // namespace raydb::detail
