// SsbEngine: each query's triangles to the device, its BVH (one BLAS under one TLAS), the ray
// launch over its Z intervals (ray-tracing pipeline or ray query), and the per-group sums back.
#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "backend/vk/accel.hpp"
#include "backend/vk/blas.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "ops/ssb/ssb_encoding.hpp"
#include "ops/ssb/ssb_optix_tracer.hpp"
#include "ops/ssb/ssb_params.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb {

using namespace raydb::detail;
using detail::EncodedQuery;
using detail::FlatTable;
using detail::QueryPlan;

namespace {

// Device bytes one query needs per row, at most: the triangle (36), the side arrays (16), the
// row flag, and the BVH with its build scratch (measured about 2 x 64 on lavapipe and NVIDIA;
// 160 leaves room).
constexpr uint64_t kDeviceBytesPerRow = 36 + 16 + 1 + 160;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void require_fits(const DeviceInfo& info, uint64_t rows) {
  if (rows > info.max_primitive_count)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} lineorder rows exceed the device's {} primitives per BLAS", rows,
                            info.max_primitive_count));
  if (rows * 9 >= (uint64_t{1} << 32))
    throw Error(Errc::limit_exceeded,
                fmt::format("{} lineorder rows exceed the engine's 2^32 / 9 triangles", rows));
  uint64_t need = rows * kDeviceBytesPerRow;
  if (info.device_local_bytes && need > info.device_local_bytes / 10 * 9)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} lineorder rows need about {:.1f} GiB of device memory for one "
                            "query's triangles and BVH; the device has {:.1f} GiB (90% usable)",
                            rows, need / 1073741824.0, info.device_local_bytes / 1073741824.0));
}

}  // namespace

struct SsbEngine::Impl {
  std::shared_ptr<VkContext> ctx;
  SsbEngineOptions options;
  TraversalMode mode = TraversalMode::pipeline;
  const SsbTables* tables = nullptr;
  FlatTable flat;
  SsbQueryStats stats;

  // The last query's plan, encoding (host side, for decoding) and device state.
  QueryPlan plan;
  EncodedQuery enc;
  Buffer vertices, multipliers, side_values, row_groups, rays, flags, sums, counts, readback;
  AccelStruct blas, tlas;
  uint64_t ray_count = 0;
  uint32_t groups = 0;

  std::unique_ptr<TlasBinding> binding;
  std::unique_ptr<RtPipeline> rt;
  std::unique_ptr<ComputePipeline> query_kernel;
  std::unique_ptr<detail::SsbOptixTracer> optix;  // SsbEngineOptions::api == optix

  bool built() const { return optix ? optix->built() : tlas.handle() != 0; }

  void ensure_kernels() {
    VkContext& c = *ctx;
    if (optix) return;
    if (!binding)
      binding = std::make_unique<TlasBinding>(
          c, VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_COMPUTE_BIT);
    if (mode == TraversalMode::pipeline && !rt)
      rt = std::make_unique<RtPipeline>(
          c,
          RtShaders{ShaderId::ssb_trace_rgen, ShaderId::ssb_trace_rmiss, ShaderId::ssb_trace_rahit,
                    ShaderId::ssb_trace_rchit, ShaderId::ssb_trace_rint, RtPrimitives::triangles,
                    /*uses_any_hit=*/true, /*uses_closest_hit=*/false},
          sizeof(detail::SsbTraceParams), binding->layout());
    if (mode == TraversalMode::ray_query && !query_kernel)
      query_kernel = std::make_unique<ComputePipeline>(
          c, ShaderId::ssb_trace_query, sizeof(detail::SsbTraceParams), binding->layout());
  }

  template <class T, class Alloc>
  Buffer upload(const std::vector<T, Alloc>& host, VkBufferUsageFlags extra, const char* name,
                CommandBatch& batch, std::vector<Buffer>& staging) {
    Buffer b(*ctx, std::max<uint64_t>(host.size() * sizeof(T), 16), kStorageUsage | extra,
             MemoryUse::device, name);
    if (!host.empty()) {
      staging.emplace_back();
      record_upload(*ctx, batch.cmd(), staging.back(), b, host.data(), host.size() * sizeof(T));
    }
    return b;
  }

  // Uploads the encoding and builds the BVH; the GPU times go to stats.
  void build() {
    VkContext& c = *ctx;
    if (optix) {
      std::vector<uint32_t> ray_words;
      auto ray_list = detail::split_rays(enc.intervals, options.target_rays);
      ray_count = ray_list.size();
      for (auto [a, b] : ray_list) ray_words.insert(ray_words.end(), {a, b});
      groups = static_cast<uint32_t>(enc.group_tuples.size());
      optix->build(enc, ray_words, groups, stats);
      stats.triangle_bytes = enc.vertices.size() * sizeof(float);
      stats.side_bytes =
          (enc.multipliers.size() * 4) + (enc.side_values.size() * 8) + (enc.row_groups.size() * 4);
      return;
    }
    blas.reset();
    tlas.reset();
    const VkBufferUsageFlags kBuildInput =
        VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;
    auto n = static_cast<uint32_t>(flat.n);
    std::vector<Buffer> staging;
    {
      CommandBatch batch(c);
      GpuTimer timer(c, 2);
      timer.reset(batch.cmd());
      uint32_t t0 = timer.mark(batch.cmd());
      vertices = upload(enc.vertices, kBuildInput, "ssb triangles", batch, staging);
      multipliers = upload(enc.multipliers, 0, "ssb multipliers", batch, staging);
      side_values = upload(enc.side_values, 0, "ssb side values", batch, staging);
      row_groups = upload(enc.row_groups, 0, "ssb row groups", batch, staging);
      std::vector<uint32_t> ray_words;
      auto ray_list = detail::split_rays(enc.intervals, options.target_rays);
      ray_count = ray_list.size();
      for (auto [a, b] : ray_list) ray_words.insert(ray_words.end(), {a, b});
      rays = upload(ray_words, 0, "ssb rays", batch, staging);
      uint32_t t1 = timer.mark(batch.cmd());
      memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR |
                         VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR |
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT, c);
      batch.submit_and_wait();
      stats.upload_ms = timer.ms(t0, t1);
    }
    staging.clear();
    stats.triangle_bytes = vertices.size();
    stats.side_bytes =
        (enc.multipliers.size() * 4) + (enc.side_values.size() * 8) + (enc.row_groups.size() * 4);

    BuildRequest req;
    req.primitive_count = n;
    req.flags = VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR;
    if (options.preference == BuildPreference::fast_trace)
      req.flags |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
    if (options.preference == BuildPreference::fast_build)
      req.flags |= VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_BUILD_BIT_KHR;
    // Not opaque: every triangle crossed must reach the any-hit shader (or the ray query loop).
    req.geometry = triangle_geometry(vertices.address(), n,
                                     VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR);
    BlasTimes times;
    blas = build_blas(c, BlasBuild{req, "ssb BLAS", {}}, times);
    double build_ms = times.build_ms + times.compact_ms;
    if (!enc.hits_read_vertices) vertices.reset();  // the BVH holds all the geometry now

    // Hit group 0: triangles (RtPipeline).
    VkAccelerationStructureInstanceKHR inst = identity_instance(blas, 0);
    double tlas_ms = 0;
    tlas = build_tlas(c, {&inst, 1}, "ssb TLAS", tlas_ms);
    build_ms += tlas_ms;
    binding->bind(tlas.handle());
    stats.bvh_build_ms = build_ms;
    stats.bvh_bytes = blas.bytes() + tlas.bytes();

    groups = static_cast<uint32_t>(enc.group_tuples.size());
    flags = Buffer(c, std::max<uint64_t>((flat.n + 31) / 32 * 4, 16), kStorageUsage,
                   MemoryUse::device, "ssb row flags");
    sums = Buffer(c, uint64_t{groups} * 8, kStorageUsage, MemoryUse::device, "ssb group sums");
    counts = Buffer(c, uint64_t{groups} * 4, kStorageUsage, MemoryUse::device, "ssb group counts");
    readback = Buffer(c, uint64_t{groups} * 12, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      MemoryUse::readback, "ssb group readback");
  }

  // Clears flags and group arrays, traces every ray, and reads the groups back.
  ResultTable trace() {
    if (optix) {
      std::vector<int64_t> sum;
      std::vector<uint32_t> count;
      optix->trace(options.per_row_atomics, sum, count, stats);
      return finish(sum, count);
    }
    VkContext& c = *ctx;
    detail::SsbTraceParams p{};
    p.vertices = vertices.address();  // 0 once dropped (filter_only)
    p.rays = rays.address();
    p.row_flags = flags.address();
    p.sums = sums.address();
    p.counts = counts.address();
    p.multipliers = enc.multipliers.empty() ? 0 : multipliers.address();
    p.side_values = enc.side_values.empty() ? 0 : side_values.address();
    p.row_groups = enc.row_groups.empty() ? 0 : row_groups.address();
    p.ray_x = enc.ray_x;
    p.ray_y = enc.ray_y;
    p.per_row_atomics = options.per_row_atomics ? 1 : 0;
    CommandBatch batch(c);
    VkCommandBuffer cmd = batch.cmd();
    GpuTimer timer(c, 3);
    timer.reset(cmd);
    VkPipelineStageFlags stage = mode == TraversalMode::pipeline
                                     ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                     : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    uint32_t t0 = timer.mark(cmd);
    c.vk.vkCmdFillBuffer(cmd, flags.handle(), 0, VK_WHOLE_SIZE, 0);
    c.vk.vkCmdFillBuffer(cmd, sums.handle(), 0, VK_WHOLE_SIZE, 0);
    c.vk.vkCmdFillBuffer(cmd, counts.handle(), 0, VK_WHOLE_SIZE, 0);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, stage,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
    uint32_t t_cleared = timer.mark(cmd);
    uint64_t slice = mode == TraversalMode::pipeline ? rt->max_width() : query_kernel->max_items();
    for (uint64_t first = 0; first < ray_count; first += slice) {
      p.ray_offset = static_cast<uint32_t>(first);
      p.num_rays = static_cast<uint32_t>(std::min(slice, ray_count - first));
      if (mode == TraversalMode::pipeline)
        rt->trace(cmd, &p, p.num_rays, binding->set());
      else
        query_kernel->dispatch(cmd, &p, p.num_rays, binding->set());
    }
    uint32_t t1 = timer.mark(cmd);
    memory_barrier(cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy s{0, 0, uint64_t{groups} * 8}, k{0, uint64_t{groups} * 8, uint64_t{groups} * 4};
    c.vk.vkCmdCopyBuffer(cmd, sums.handle(), readback.handle(), 1, &s);
    c.vk.vkCmdCopyBuffer(cmd, counts.handle(), readback.handle(), 1, &k);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    batch.submit_and_wait();
    stats.trace_ms = timer.ms(t0, t1);
    stats.clear_ms = timer.ms(t0, t_cleared);
    readback.invalidate();
    std::vector<int64_t> sum(groups);
    std::vector<uint32_t> count(groups);
    std::memcpy(sum.data(), readback.mapped(), uint64_t{groups} * 8);
    std::memcpy(count.data(), readback.as<char>() + uint64_t{groups} * 8, uint64_t{groups} * 4);
    return finish(sum, count);
  }

  // The result table from the groups the launch summed (host side).
  ResultTable finish(const std::vector<int64_t>& sum, const std::vector<uint32_t>& count) {
    auto t_post = std::chrono::steady_clock::now();
    stats.rows_hit = 0;
    for (uint32_t k : count) stats.rows_hit += k;
    ResultTable r = detail::finish_query(plan, flat, enc, sum, count);
    stats.post_ms = ms_since(t_post);
    return r;
  }

  ResultTable run(std::string_view query) {
    std::string name = canonical_query_name(query).value();
    stats = {};
    auto t0 = std::chrono::steady_clock::now();
    plan = detail::plan_query(name, flat);
    enc = detail::encode_query(plan, flat, options.force_side_values, options.max_lanes,
                               options.geometry);
    stats.encode_ms = ms_since(t0);
    ensure_kernels();
    build();
    stats.rows = flat.n;
    stats.intervals = enc.intervals.size();
    stats.rays = ray_count;
    stats.groups = groups;
    stats.z_codes = enc.z_codes;
    stats.lanes = enc.lanes;
    stats.side_values = !enc.side_values.empty();
    return trace();
  }
};

SsbEngine::SsbEngine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SsbEngine::SsbEngine(SsbEngine&&) noexcept = default;
SsbEngine& SsbEngine::operator=(SsbEngine&&) noexcept = default;
SsbEngine::~SsbEngine() = default;

Result<SsbEngine> SsbEngine::create(const Context& ctx, const SsbTables& tables,
                                    const SsbEngineOptions& options) {
  return guarded(ctx.vk(), [&] {
    auto impl = std::make_unique<Impl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    if (options.api == RayTracingApi::optix) {
      impl->optix = detail::SsbOptixTracer::create(*impl->ctx, options.preference);
      impl->mode = TraversalMode::pipeline;  // OptiX's own: raygen, any-hit, miss
    } else {
      impl->mode = impl->ctx->resolve(options.traversal);
    }
    if (!impl->optix && !impl->ctx->info.buffer_int64_atomics)
      throw Error(Errc::unsupported,
                  fmt::format("device '{}' lacks shaderBufferInt64Atomics, which the SSB "
                              "engine's 64-bit group sums need",
                              impl->ctx->info.name));
    if (tables.lineorder.size() == 0)
      throw Error(Errc::invalid_argument, "the SSB lineorder table has no rows");
    impl->tables = &tables;
    impl->flat = detail::make_flat(tables);
    require_fits(impl->ctx->info, impl->flat.n);
    return SsbEngine(std::move(impl));
  });
}

Status SsbEngine::check_fits(const Context& ctx, uint64_t lineorder_rows) {
  return capture([&] { require_fits(ctx.shared()->info, lineorder_rows); });
}

Result<ResultTable> SsbEngine::run(std::string_view query) {
  return guarded(*impl_->ctx, [&] { return impl_->run(query); });
}
Result<ResultTable> SsbEngine::rerun() {
  return guarded(*impl_->ctx, [&] {
    if (!impl_->built()) throw Error(Errc::invalid_argument, "rerun() needs a query run first");
    return impl_->trace();
  });
}
const SsbQueryStats& SsbEngine::last_stats() const {
  return impl_->stats;
}
TraversalMode SsbEngine::traversal() const {
  return impl_->mode;
}
uint64_t SsbEngine::rows() const {
  return impl_->flat.n;
}

}  // namespace raydb::ssb
