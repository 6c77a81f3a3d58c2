// CgrxIndex: host side of cgRX. Sorts keys into records on the GPU, gathers the bucket
// representatives, lays out representatives and markers (on the host, cgrx_layout.cpp, or for
// cgrx_build on the device, build_scene_on_device), builds one BLAS
// under one TLAS, and runs batches of lookups through the ray-tracing pipeline or ray queries.
#include "raydb/cgrx_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>

#include "backend/optix/optix.hpp"
#include "backend/vk/accel.hpp"
#include "backend/vk/blas.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "ops/cgrx/cgrx_impl.hpp"
#include "ops/cgrx/cgrx_layout.hpp"
#include "ops/cgrx/cgrx_params.hpp"
#include "ops/cgrx/cgrx_runs.hpp"
#include "ops/cgrx/cgrx_view.hpp"
#include "ops/common/device_io.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/common/query_slices.hpp"
#include "raydb/device_indexes.hpp"

namespace raydb {

namespace detail {

CgrxRepParams CgrxIndexImpl::rep_params(const Buffer& reps) const {
  CgrxRepParams p{};
  p.records = records.address();
  p.reps = reps.address();
  p.num_records = static_cast<uint32_t>(n);
  p.num_buckets = static_cast<uint32_t>(num_buckets);
  p.bucket_shift = bucket_shift;
  p.key64 = width == KeyWidth::bits64 ? 1u : 0u;
  return p;
}

// Each bucket's largest key, gathered on the GPU and read back (n / bucket_size keys).
std::vector<uint64_t> CgrxIndexImpl::read_representatives() {
  VkContext& c = *ctx;
  std::vector<uint64_t> reps(num_buckets);
  Buffer reps_dev(c, num_buckets * 8, kStorageUsage, MemoryUse::device, "cgrx representatives");
  Buffer reps_host(c, num_buckets * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                   "cgrx representatives readback");
  CgrxRepParams p = rep_params(reps_dev);
  CommandBatch cb(c);
  kernel(c, ShaderId::cgrx_representatives, sizeof p).dispatch(cb.cmd(), &p, num_buckets);
  memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  VkBufferCopy region{0, 0, num_buckets * 8};
  c.vk.vkCmdCopyBuffer(cb.cmd(), reps_dev.handle(), reps_host.handle(), 1, &region);
  cb.submit_and_wait();
  reps_host.invalidate();
  std::memcpy(reps.data(), reps_host.mapped(), num_buckets * 8);
  return reps;
}

// Refuses a layout of more triangles than one BLAS takes.
static void check_primitives(const VkContext& c, uint64_t n, uint32_t bucket_size, uint64_t np) {
  if (np > c.info.max_primitive_count || np > 0xFFFFFFFFull)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} keys in buckets of {} need {} triangles, more than the device's {} "
                            "per BLAS; use larger buckets",
                            n, bucket_size, np, c.info.max_primitive_count));
}

// Uploads the scene's triangles and per-primitive buckets, builds the BLAS, compacts it.
void CgrxIndexImpl::build_bvh(const CgrxScene& scene) {
  VkContext& c = *ctx;
  const uint64_t np = scene.primitives();
  check_primitives(c, n, options.bucket_size, np);
  Buffer triangles(
      c, scene.triangles.size() * sizeof(float),
      kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
      MemoryUse::device, "cgrx triangles");
  prim_buckets = Buffer(c, np * 4, kStorageUsage, MemoryUse::device, "cgrx primitive buckets");
  {
    auto t0 = std::chrono::steady_clock::now();
    CommandBatch cb(c);
    Buffer s0, s1;
    record_upload(c, cb.cmd(), s0, triangles, scene.triangles.data(),
                  scene.triangles.size() * sizeof(float));
    record_upload(c, cb.cmd(), s1, prim_buckets, scene.bucket.data(), np * 4);
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR |
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT, c);
    cb.submit_and_wait();
    build_stats.host_layout_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  build_blas_over(triangles, np);
}

// The scene on the device (shaders/cgrx/cgrx_representatives.comp, stages 0-2): representatives,
// which primitives the host layout has, their positions by a prefix sum, the gaps sorted for the
// ray window's quantile, then the primitives at the host layout's positions. One submission; the
// four counts (representatives, row and plane markers, ray window) come back with its fence, for
// the BLAS's primitive count, build_stats and the probes' push constant.
void CgrxIndexImpl::build_scene_on_device() {
  static_assert(kRayWindowQuantile == 0.999, "cgrx_representatives.comp hard-codes 999 / 1000");
  VkContext& c = *ctx;
  const uint64_t np = 3 * num_buckets;  // slots; the device's limit applies to those laid out
  if (np > 0xFFFFFFFFull)               // the shader's 32-bit slot indices
    throw Error(Errc::limit_exceeded,
                fmt::format("{} keys in buckets of {} need {} triangle slots on the device, more "
                            "than 2^32 - 1; use larger buckets",
                            n, options.bucket_size, np));
  auto t0 = std::chrono::steady_clock::now();
  Buffer triangles(
      c, np * 9 * sizeof(float),
      kStorageUsage | VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR,
      MemoryUse::device, "cgrx triangles");
  prim_buckets = Buffer(c, np * 4, kStorageUsage, MemoryUse::device, "cgrx primitive buckets");
  Buffer reps(c, num_buckets * 8, kStorageUsage, MemoryUse::device, "cgrx representatives");
  Buffer slots(c, np * 4, kStorageUsage, MemoryUse::device, "cgrx primitive slots");
  Buffer gaps(c, num_buckets * 4, kStorageUsage, MemoryUse::device, "cgrx gaps");
  Buffer gap_rows(c, num_buckets * 4, kStorageUsage, MemoryUse::device, "cgrx gap rows");
  Buffer stats(c, 16, kStorageUsage, MemoryUse::device, "cgrx layout counts");
  Buffer stats_host(c, 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                    "cgrx layout counts readback");
  RadixSort sort(c);
  RadixSort::Temps scan_temps, sort_temps;  // one each: a Temps' buffers live until the wait
  // Room for every bucket's three primitives: how many there are is known after the wait.
  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  c.vk.vkCmdFillBuffer(cmd, stats.handle(), 0, 16, 0);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  CgrxRepParams p = rep_params(reps);
  p.triangles = triangles.address();
  p.buckets = prim_buckets.address();
  p.gaps = gaps.address();
  p.slots = slots.address();
  p.stats = stats.address();
  ComputePipeline& layout = kernel(c, ShaderId::cgrx_representatives, sizeof p);
  for (uint32_t stage = 0; stage < 2; ++stage) {
    p.stage = stage;
    layout.dispatch(cmd, &p, num_buckets);
    compute_barrier(c, cmd);
  }
  sort.record_exclusive_scan(cmd, slots.address(), np, scan_temps);
  sort.record(cmd, gaps, gap_rows, num_buckets, false, sort_temps);
  compute_barrier(c, cmd);
  p.stage = 2;
  layout.dispatch(cmd, &p, num_buckets);
  memory_barrier(
      cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
      VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR,
      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT, c);
  VkBufferCopy region{0, 0, 16};
  c.vk.vkCmdCopyBuffer(cmd, stats.handle(), stats_host.handle(), 1, &region);
  cb.submit_and_wait();
  stats_host.invalidate();
  uint32_t counts[4];
  std::memcpy(counts, stats_host.mapped(), sizeof counts);
  build_stats.host_layout_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  build_stats.representatives = counts[0];
  build_stats.row_markers = counts[1];
  build_stats.plane_markers = counts[2];
  build_stats.ray_window = options.window_first_ray ? counts[3] : 0u;
  const uint64_t laid_out = uint64_t{counts[0]} + counts[1] + counts[2];
  check_primitives(c, n, options.bucket_size, laid_out);
  build_blas_over(triangles, laid_out);
}

// Builds the BLAS over `primitives` triangles (9 floats each) and compacts it.
void CgrxIndexImpl::build_blas_over(const Buffer& triangles, uint64_t np) {
  VkContext& c = *ctx;
  BuildRequest req;
  req.primitive_count = static_cast<uint32_t>(np);
  // Opaque geometry: rays never call any-hit; the closest hit is the answer.
  req.geometry =
      triangle_geometry(triangles.address(), req.primitive_count, VK_GEOMETRY_OPAQUE_BIT_KHR);
  req.flags = options.compact ? VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR : 0;
  if (options.preference == BuildPreference::fast_trace)
    req.flags |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
  if (options.preference == BuildPreference::fast_build)
    req.flags |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR;
  BlasTimes times;
  blas.reset();  // a rebuild frees the old BLAS before the new one is allocated
  blas = build_blas(c, BlasBuild{req, "cgrx BLAS", {}}, times, nullptr, options.compact_min_saving);
  build_stats.bvh_build_ms = times.build_ms;
  build_stats.bvh_uncompacted_bytes = times.uncompacted_bytes;
  if (options.compact) build_stats.compact_ms = times.compact_ms;
}

void CgrxIndexImpl::build_tlas(uint32_t instances) {
  std::vector<VkAccelerationStructureInstanceKHR> inst;
  if (instances)
    inst.push_back(identity_instance(blas, 0, VK_GEOMETRY_INSTANCE_FORCE_OPAQUE_BIT_KHR));
  double ms = 0;
  tlas = detail::build_tlas(*ctx, inst, "cgrx TLAS", ms);
  build_stats.bvh_build_ms += ms;
  binding->bind(tlas.handle());
}

void CgrxIndexImpl::build(KeySpan k, std::span<const uint32_t> v,
                          const DeviceColumnSource* source) {
  VkContext& c = *ctx;
  const uint32_t b = options.bucket_size;
  if (b < 2 || !std::has_single_bit(b))
    throw Error(Errc::invalid_argument,
                fmt::format("bucket_size {} must be a power of two >= 2", b));
  if (!(options.compact_min_saving >= 0 && options.compact_min_saving <= 1))  // NaN too
    throw Error(
        Errc::invalid_argument,
        fmt::format("CgrxBuildOptions::compact_min_saving must be a fraction in [0, 1], not {}",
                    options.compact_min_saving));
  if (!source) validate_key_column(k, v);
  width = k.width;
  n = k.size;
  bucket_shift = static_cast<uint32_t>(std::countr_zero(b));
  num_buckets = (n + b - 1) / b;
  build_stats = {};
  build_stats.buckets = num_buckets;
  if (!binding) binding = std::make_unique<TlasBinding>(c, kProbeTlasStages);
  // As RX's: probe pipeline and lookup slots now, not in a first lookup; not the build's bytes.
  ensure_probe_kernels();
  if (!batch) batch = std::make_unique<LookupBatch>(c, kResultPath);
  batch->reserve_pipeline(n, width == KeyWidth::bits64 ? 8 : 4);

  uint64_t baseline = c.allocated_bytes;
  c.reset_peak();
  if (!record_builder)
    record_builder = std::make_unique<KeyRecordBuilder>(c, options.backend, /*optix_twin=*/true);
  KeyRecords r = record_builder->build(k, v, true, "cgrx", SortedKeys::none, source);
  records = std::move(r.records);
  build_stats.unique_keys = r.unique;
  build_stats.upload_ms = r.upload_ms;
  build_stats.sort_ms = r.sort_ms;

  if (n > 0 && source) {
    build_scene_on_device();
  } else if (n > 0) {
    auto t0 = std::chrono::steady_clock::now();
    CgrxScene scene = cgrx_scene(read_representatives());
    build_stats.host_layout_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    build_stats.representatives = scene.representatives;
    build_stats.row_markers = scene.row_markers;
    build_stats.plane_markers = scene.plane_markers;
    build_stats.ray_window = options.window_first_ray ? scene.ray_window : 0u;
    build_bvh(scene);  // adds its upload to host_layout_ms
  }
  // An empty index still gets a (empty) TLAS, so the descriptor set always names a live one.
  build_tlas(n > 0 ? 1u : 0u);
  build_stats.bvh_bytes = blas.bytes() + tlas.bytes();
  build_stats.bvh_uncompacted_bytes += tlas.bytes();
  build_stats.build_peak_bytes = c.peak_bytes - baseline;
  build_stats.resident_bytes = c.allocated_bytes - baseline;
}

void CgrxIndexImpl::ensure_probe_kernels() {
  VkContext& c = *ctx;
  if (mode == TraversalMode::pipeline && !rt)
    rt = &rt_kernel(
        c,
        RtShaders{ShaderId::cgrx_probe_rgen, ShaderId::cgrx_probe_rmiss, ShaderId::cgrx_probe_rahit,
                  ShaderId::cgrx_probe_rchit, ShaderId::cgrx_probe_rint, RtPrimitives::triangles,
                  /*uses_any_hit=*/false},
        sizeof(CgrxProbeParams), kProbeTlasStages);
  if (mode == TraversalMode::ray_query && !query_kernel)
    query_kernel =
        &tlas_kernel(c, ShaderId::cgrx_probe_query, sizeof(CgrxProbeParams), kProbeTlasStages);
  if (!counters_dev) {
    counters_dev = Buffer(c, 8, kStorageUsage, MemoryUse::device, "cgrx counters");
    counters_host = Buffer(c, 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                           "cgrx counters readback");
  }
}

void CgrxIndexImpl::probe(const QueryBatch& q, RxLookup* out) {
  VkContext& c = *ctx;
  probe_stats = {};
  fallbacks = 0;
  validate_queries(q, width);
  if (q.count == 0) return;
  if (n == 0) {  // nothing to find: every lookup misses, no rays needed
    std::fill(out, out + q.count, RxLookup{});
    return;
  }
  ensure_probe_kernels();
  if (!batch) batch = std::make_unique<LookupBatch>(c, kResultPath);
  CgrxProbeParams p = probe_params(q.ranges);
  if (run_starts) p.flags |= CGRX_FLAG_RUN_START;
  if (lookup_chunk() > 0) {
    probe_pipelined(q, p, out);
  } else {  // one whole batch
    batch->prepare(q);
    p.queries = batch->queries();
    p.results = batch->results();
    CommandBatch cb(c);
    VkCommandBuffer cmd = cb.cmd();
    GpuTimer timer(c, 8);
    timer.reset(cmd);
    c.vk.vkCmdFillBuffer(cmd, counters_dev.handle(), 0, 8, 0);
    uint32_t t0, t1;
    batch->record_upload(cmd, timer, t0, t1, trace_stage());  // its barrier covers the fill too
    uint32_t t2 = timer.mark(cmd);
    record_trace(cmd, p, q.count);
    uint32_t t3 = timer.mark(cmd);
    batch->record_download(cmd, trace_stage());  // its barrier covers the counters too
    VkBufferCopy region{0, 0, 8};
    c.vk.vkCmdCopyBuffer(cmd, counters_dev.handle(), counters_host.handle(), 1, &region);
    uint32_t t4 = timer.mark(cmd);
    cb.submit_and_wait();
    probe_stats.upload_ms = timer.ms(t0, t1);
    probe_stats.probe_ms = timer.ms(t2, t3);
    probe_stats.download_ms = timer.ms(t3, t4);
    batch->read_results(out);
  }
  counters_host.invalidate();
  uint32_t counts[2];
  std::memcpy(counts, counters_host.mapped(), sizeof counts);
  probe_stats.rays = q.count + counts[0];
  fallbacks = counts[1];
}

// The counters (extra rays, fallbacks) add up over the chunks. On the one compute queue a barrier
// orders every command submitted before it: the first chunk's orders its fill of the counters
// before all rays, the last chunk's their copy out after them; between, rays only add atomically.
void CgrxIndexImpl::probe_pipelined(const QueryBatch& q, CgrxProbeParams& p, RxLookup* out) {
  VkContext& c = *ctx;
  const VkPipelineStageFlags stage = trace_stage();
  uint64_t launched = 0;
  probe_stats = batch->run_pipelined(
      q, stage,
      [&](VkCommandBuffer cmd, VkDeviceAddress queries, VkDeviceAddress results, uint64_t count) {
        if (launched == 0) {
          c.vk.vkCmdFillBuffer(cmd, counters_dev.handle(), 0, 8, 0);
          memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, stage,
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
        }
        p.queries = queries;
        p.results = results;
        record_trace(cmd, p, count);
        launched += count;
        if (launched < q.count) return;
        memory_barrier(cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_TRANSFER_READ_BIT, c);
        VkBufferCopy region{0, 0, 8};
        c.vk.vkCmdCopyBuffer(cmd, counters_dev.handle(), counters_host.handle(), 1, &region);
        memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
      },
      out);
}

CgrxProbeParams CgrxIndexImpl::probe_params(bool ranges) const {
  CgrxProbeParams p{};
  p.records = records.address();
  p.buckets = prim_buckets.address();
  p.counters = counters_dev.address();
  p.flags = (width == KeyWidth::bits64 ? CGRX_FLAG_KEY64 : 0u) | (ranges ? CGRX_FLAG_RANGES : 0u);
  p.bucket_shift = bucket_shift;
  p.num_records = static_cast<uint32_t>(n);
  p.num_buckets = static_cast<uint32_t>(num_buckets);
  p.ray_window = build_stats.ray_window;
  if (diagnostic == RxDiagnostic::no_trace) p.flags |= CGRX_FLAG_DIAG_NO_TRACE;
  if (diagnostic == RxDiagnostic::trace_only) p.flags |= CGRX_FLAG_DIAG_TRACE_ONLY;
  return p;
}

void CgrxIndexImpl::record_trace(VkCommandBuffer cmd, CgrxProbeParams p, uint64_t count) {
  const bool pipeline = mode == TraversalMode::pipeline;
  record_in_slices(p, count, pipeline ? rt->max_width() : query_kernel->max_items(),
                   [&](CgrxProbeParams& s) {
                     if (pipeline)
                       rt->trace(cmd, &s, s.num_queries, binding->set());
                     else
                       query_kernel->dispatch(cmd, &s, s.num_queries, binding->set());
                   });
}

CgrxIndexImpl& cgrx_impl(CgrxIndex& index) {
  return *index.impl_;
}

Status cgrx_lookup_runs(CgrxIndex& index, KeySpan points, std::span<RxLookup> out) {
  if (CgrxIndexImpl& i = cgrx_impl(index); i.optix) return cgrx_lookup_runs(*i.optix, points, out);
  return lookup_run_starts(cgrx_impl(index), points, out);
}

uint64_t cgrx_records_address(CgrxIndex& index) {
  const CgrxIndexImpl& impl = cgrx_impl(index);
  return impl.n > 0 ? impl.records.address() : 0;
}

}  // namespace detail

using detail::CgrxIndexImpl;
using detail::DeviceIndexAccess;
using detail::guarded;
using detail::QueryBatch;

CgrxIndex::CgrxIndex(std::unique_ptr<CgrxIndexImpl> impl) : impl_(std::move(impl)) {}
CgrxIndex::CgrxIndex(CgrxIndex&&) noexcept = default;
CgrxIndex& CgrxIndex::operator=(CgrxIndex&&) noexcept = default;
CgrxIndex::~CgrxIndex() = default;

Result<CgrxIndex> CgrxIndex::build(const Context& ctx, KeySpan keys,
                                   std::span<const uint32_t> values,
                                   const CgrxBuildOptions& options) {
  return guarded(ctx.vk(), [&]() -> CgrxIndex {
    // Before the Vulkan build, so that a missing OptiX costs no build.
    if (options.api == RayTracingApi::optix) detail::optix::require(ctx.vk());
    auto impl = std::make_unique<CgrxIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    impl->build(keys, values);
    CgrxIndex index(std::move(impl));
    if (options.api == RayTracingApi::optix)  // the twin copies what it reads from the index
      index.impl_->optix = std::make_unique<CgrxOptixIndex>(CgrxOptixIndex::build(index).value());
    return index;
  });
}

Status CgrxIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  if (impl_->optix) return guarded(*impl_->ctx, [&] { impl_->optix->lookup(points, out).value(); });
  return detail::lookup_into(*impl_, QueryBatch::points(points), out);
}

Result<std::vector<RxLookup>> CgrxIndex::lookup(KeySpan points) {
  return guarded(*impl_->ctx, [&] {
    std::vector<RxLookup> out(points.size);
    lookup(points, out).value();
    return out;
  });
}

Status CgrxIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  if (impl_->optix)
    return guarded(*impl_->ctx, [&] { impl_->optix->lookup_ranges(ranges, out).value(); });
  return detail::lookup_into(*impl_, QueryBatch::of(ranges), out);
}

Result<std::vector<RxLookup>> CgrxIndex::lookup_ranges(RangeSpan ranges) {
  return guarded(*impl_->ctx, [&] {
    std::vector<RxLookup> out(ranges.size);
    lookup_ranges(ranges, out).value();
    return out;
  });
}

uint64_t CgrxIndex::size() const {
  return impl_->n;
}
KeyWidth CgrxIndex::key_width() const {
  return impl_->width;
}
TraversalMode CgrxIndex::traversal() const {
  return impl_->mode;
}
void CgrxIndex::set_diagnostic(RxDiagnostic diagnostic) {
  impl_->diagnostic = diagnostic;
  if (impl_->optix) impl_->optix->set_diagnostic(diagnostic);
}
uint32_t CgrxIndex::bucket_size() const {
  return impl_->options.bucket_size;
}
const CgrxBuildOptions& CgrxIndex::options() const {
  return impl_->options;
}
const CgrxBuildStats& CgrxIndex::build_stats() const {
  return impl_->optix ? impl_->optix->build_stats() : impl_->build_stats;
}
const RxProbeStats& CgrxIndex::last_stats() const {
  return impl_->optix ? impl_->optix->last_stats() : impl_->probe_stats;
}
uint64_t CgrxIndex::last_fallbacks() const {
  return impl_->optix ? impl_->optix->last_fallbacks() : impl_->fallbacks;
}

// Device-resident data (raydb/device_indexes.hpp).

namespace {

void record_cgrx_lookups(CgrxIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                         const DeviceSpan& results, bool ranges) {
  detail::VkContext& c = *impl.ctx;
  detail::check_lookup_spans(impl.width, queries, results, ranges);
  impl.probe_stats = {};
  impl.probe_stats.rays = queries.count;
  impl.fallbacks = 0;
  impl.ensure_probe_kernels();
  detail::CgrxProbeParams p = impl.probe_params(ranges);
  p.queries = detail::address_of(c, queries);
  p.results = detail::address_of(c, results);
  // The counters (extra rays, fallbacks) are raydb's and only written here, so their reset is
  // ordered by the barrier in front of the rays; nothing reads them back on this path.
  c.vk.vkCmdFillBuffer(cmd, impl.counters_dev.handle(), 0, 8, 0);
  detail::record_between_barriers(c, cmd, impl.trace_stage(),
                                  [&] { impl.record_trace(cmd, p, queries.count); });
}

Status record(CgrxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
              const DeviceSpan& results, bool ranges, const char* fn) {
  CgrxIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, fn);
    record_cgrx_lookups(impl, cmd, queries, results, ranges);
  });
}

Status submit(CgrxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
              const DeviceSync& sync, bool ranges, const char* fn) {
  CgrxIndexImpl& impl = DeviceIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, fn,
        [&](VkCommandBuffer cmd) { record_cgrx_lookups(impl, cmd, queries, results, ranges); });
  });
}

}  // namespace

Result<CgrxIndex> cgrx_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                             const DeviceSpan& values, const CgrxBuildOptions& options,
                             const DeviceSync& sync) {
  return guarded(ctx.vk(), [&]() -> CgrxIndex {
    detail::DeviceColumnSource source = detail::build_source(ctx.vk(), width, keys, values, sync);
    if (options.api != RayTracingApi::vulkan)
      throw Error(Errc::unsupported,
                  "CgrxBuildOptions::api = optix is not available for a build from device buffers "
                  "(its lookups are recorded into the host's Vulkan command buffers)");
    auto impl = std::make_unique<CgrxIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    KeySpan sizes;  // no host data: the size and width only
    sizes.size = keys.count;
    sizes.width = width;
    impl->build(sizes, {}, &source);
    // Made now (the SBT upload is a submission), so that recording a lookup submits nothing.
    impl->ensure_probe_kernels();
    return DeviceIndexAccess::make<CgrxIndex>(std::move(impl));
  });
}

Status cgrx_record_lookup(CgrxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                          const DeviceSpan& results) {
  return record(index, cmd, queries, results, false, "cgrx_record_lookup");
}

Status cgrx_submit_lookup(CgrxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                          const DeviceSync& sync) {
  return submit(index, queries, results, sync, false, "cgrx_submit_lookup");
}

Status cgrx_record_lookup_ranges(CgrxIndex& index, VkCommandBuffer cmd, const DeviceSpan& ranges,
                                 const DeviceSpan& results) {
  return record(index, cmd, ranges, results, true, "cgrx_record_lookup_ranges");
}

Status cgrx_submit_lookup_ranges(CgrxIndex& index, const DeviceSpan& ranges,
                                 const DeviceSpan& results, const DeviceSync& sync) {
  return submit(index, ranges, results, sync, true, "cgrx_submit_lookup_ranges");
}

}  // namespace raydb

namespace raydb::detail {

// The OptiX twin's view (cgrx_view.hpp). Read-only: the const_cast only reaches the impl.
CgrxIndexView cgrx_view(const CgrxIndex& index) {
  const CgrxIndexImpl& impl = cgrx_impl(const_cast<CgrxIndex&>(index));
  CgrxIndexView v;
  v.ctx = impl.ctx;
  v.records = &impl.records;
  v.keys = impl.n;
  v.buckets = impl.num_buckets;
  v.bucket_shift = impl.bucket_shift;
  v.width = impl.width;
  v.options = &impl.options;
  v.build_stats = &impl.build_stats;
  return v;
}

std::vector<uint64_t> cgrx_representatives(const CgrxIndex& index) {
  CgrxIndexImpl& impl = cgrx_impl(const_cast<CgrxIndex&>(index));
  if (impl.n == 0) return {};
  return impl.read_representatives();
}

}  // namespace raydb::detail
