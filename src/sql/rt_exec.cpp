// The SQL engine's ray-tracing operator (see rt_exec.hpp); the Vulkan steps follow SsbEngine's.
#include "sql/rt_exec.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "backend/vk/accel.hpp"
#include "backend/vk/blas.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "common/parallel.hpp"

namespace raydb::sql::detail {

using namespace raydb::detail;

std::vector<std::pair<uint32_t, uint32_t>> split_rays(
    const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t target) {
  uint64_t total = 0;
  for (auto [a, b] : intervals) total += uint64_t{b} - a + 1;
  uint64_t len = std::max<uint64_t>(1, (total + target - 1) / std::max<uint32_t>(target, 1));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (auto [a, b] : intervals)
    for (uint64_t lo = a; lo <= b; lo += len)
      out.push_back(
          {static_cast<uint32_t>(lo), static_cast<uint32_t>(std::min<uint64_t>(b, lo + len - 1))});
  return out;
}

struct RtExecutor::Impl {
  std::shared_ptr<VkContext> ctx;
  TraversalMode mode;
  std::unique_ptr<TlasBinding> binding;
  std::map<uint64_t, std::unique_ptr<RtPipeline>> rt;
  std::map<uint64_t, std::unique_ptr<ComputePipeline>> rq;
  RtPipeline* cur_rt = nullptr;
  ComputePipeline* cur_rq = nullptr;
  // What the last run() left on the device, for retrace(): the BVH, the arrays its shaders read,
  // the per-group outputs, and the pipeline it was traced with.
  struct Kept {
    AccelStruct blas, tlas;
    Buffer vertices, rays, flags, table, readback;
    std::vector<Buffer> arrays;  // fact columns, side codes and masks, row groups
    Buffer counts;
    std::vector<Buffer> aggs;
    std::vector<bool> agg_is_min;  // MIN starts from all ones, the rest from 0
    uint64_t ray_count = 0;
    uint32_t groups = 0;
    SqlTraceParams pc{};
    RtPipeline* rt = nullptr;
    ComputePipeline* rq = nullptr;
    SqlStats build_stats;  // the run's upload and BVH figures, repeated by retrace()
  };
  std::unique_ptr<Kept> last;

  GroupResults trace(Kept& k, SqlStats& stats);
};

RtExecutor::RtExecutor(std::shared_ptr<VkContext> ctx, TraversalMode mode)
    : impl_(std::make_unique<Impl>()) {
  impl_->ctx = std::move(ctx);
  impl_->mode = impl_->ctx->resolve(mode);
  if (!impl_->ctx->info.buffer_int64_atomics)
    throw Error(Errc::unsupported,
                fmt::format("device '{}' lacks shaderBufferInt64Atomics, which the SQL engine's "
                            "64-bit aggregates need",
                            impl_->ctx->info.name));
  impl_->binding = std::make_unique<TlasBinding>(
      *impl_->ctx, VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_COMPUTE_BIT);
}
RtExecutor::~RtExecutor() = default;
RtExecutor::RtExecutor(RtExecutor&&) noexcept = default;
RtExecutor& RtExecutor::operator=(RtExecutor&&) noexcept = default;
TraversalMode RtExecutor::mode() const {
  return impl_->mode;
}

void RtExecutor::prepare(const GeneratedShaders& g, ShaderCompiler& compiler, SqlStats& stats,
                         uint64_t& hash) {
  Impl& m = *impl_;
  hash = source_hash(g.any_hit);
  bool all_cached = true, cached = false;
  if (m.mode == TraversalMode::pipeline) {
    auto& slot = m.rt[hash];
    if (!slot) {
      RtShaders s{ShaderId::ssb_trace_rgen,  ShaderId::ssb_trace_rmiss, ShaderId::ssb_trace_rahit,
                  ShaderId::ssb_trace_rchit, ShaderId::ssb_trace_rint,  RtPrimitives::triangles,
                  /*uses_any_hit=*/true,     /*uses_closest_hit=*/false};
      s.raygen_code = compiler.compile(g.raygen, Stage::raygen, cached, stats.compile_ms);
      all_cached = all_cached && cached;
      s.miss_code = compiler.compile(g.miss, Stage::miss, cached, stats.compile_ms);
      all_cached = all_cached && cached;
      s.any_hit_code = compiler.compile(g.any_hit, Stage::any_hit, cached, stats.compile_ms);
      all_cached = all_cached && cached;
      s.closest_hit_code =
          compiler.compile(g.closest_hit, Stage::closest_hit, cached, stats.compile_ms);
      s.intersection_code =
          compiler.compile(g.intersection, Stage::intersection, cached, stats.compile_ms);
      slot = std::make_unique<RtPipeline>(*m.ctx, s, sizeof(SqlTraceParams), m.binding->layout());
    }
    m.cur_rt = slot.get();
  } else {
    auto& slot = m.rq[hash];
    if (!slot) {
      auto code = compiler.compile(g.ray_query, Stage::compute, cached, stats.compile_ms);
      all_cached = cached;
      slot = std::make_unique<ComputePipeline>(*m.ctx, code, sizeof(SqlTraceParams),
                                               m.binding->layout());
    }
    m.cur_rq = slot.get();
  }
  stats.shader_cached = all_cached;
}

uint64_t RtExecutor::device_bytes(uint64_t rows, size_t columns) const {
  if (rows == 0 || rows > impl_->ctx->info.max_primitive_count) return rows * 36;
  BuildRequest req;
  req.primitive_count = static_cast<uint32_t>(rows);
  req.geometry = triangle_geometry(0, req.primitive_count,
                                   VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR);
  auto sizes = build_sizes(*impl_->ctx, req);
  return rows * 36 + sizes.accelerationStructureSize + sizes.buildScratchSize + rows / 8 +
         rows * 8 * columns;
}

GroupResults RtExecutor::run(const BoundQuery& q, const RtPlan& p, const Table& fact,
                             uint32_t target_rays, SqlStats& stats) {
  Impl& m = *impl_;
  VkContext& c = *m.ctx;
  m.last.reset();  // the previous query's BVH and arrays, before this one allocates its own
  auto groups = static_cast<uint32_t>(p.group_tuples.size());
  if (p.empty) {
    GroupResults res;
    res.counts.assign(groups, 0);
    res.aggs.assign(q.aggs.size(), std::vector<uint64_t>(groups, 0));
    for (size_t i = 0; i < q.aggs.size(); ++i)
      if (q.aggs[i].func == AggFunc::min)
        std::fill(res.aggs[i].begin(), res.aggs[i].end(), ~uint64_t{0});
    return res;
  }
  if (p.rows > c.info.max_primitive_count)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} fact rows exceed the device's {} primitives per BLAS", p.rows,
                            c.info.max_primitive_count));
  auto rays = split_rays(p.intervals, target_rays);
  stats.rays = rays.size();
  stats.intervals = p.intervals.size();
  stats.groups = groups;
  stats.rows = p.rows;

  auto kept = std::make_unique<Impl::Kept>();
  Impl::Kept& k = *kept;
  k.ray_count = rays.size();
  k.groups = groups;
  for (const Aggregate& a : q.aggs) k.agg_is_min.push_back(a.func == AggFunc::min);
  const VkBufferUsageFlags kBuildInput =
      VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;
  std::vector<Buffer> staging;
  TableLayout tl = table_layout(q, p);
  std::vector<uint64_t> table(tl.size, 0);
  {
    auto host0 = std::chrono::steady_clock::now();
    CommandBatch batch(c);
    GpuTimer timer(c, 2);
    timer.reset(batch.cmd());
    uint32_t t0 = timer.mark(batch.cmd());
    auto up = [&](const void* data, uint64_t bytes, VkBufferUsageFlags extra, const char* name) {
      Buffer b(c, std::max<uint64_t>(bytes, 16), kStorageUsage | extra, MemoryUse::device, name);
      if (bytes && data) {
        staging.emplace_back();
        record_upload(c, batch.cmd(), staging.back(), b, data, bytes);
      }
      return b;
    };
    // Per-row arrays: `fill(dst, begin, end)` writes rows [begin, end) of the staging buffer, in
    // parallel parts (one memcpy of the triangles alone is 36 bytes a row on one core).
    auto up_rows = [&](uint64_t bytes_per_row, VkBufferUsageFlags extra, const char* name,
                       auto&& fill) {
      uint64_t bytes = p.rows * bytes_per_row;
      Buffer b(c, std::max<uint64_t>(bytes, 16), kStorageUsage | extra, MemoryUse::device, name);
      if (bytes) {
        staging.emplace_back(c, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::upload,
                             "staging upload");
        auto* dst = static_cast<char*>(staging.back().mapped());
        parallel_slices(p.rows, p.rows < 65536 ? 1u : host_threads(),
                        [&](size_t first, size_t end, unsigned) { fill(dst, first, end); });
        staging.back().flush();
        VkBufferCopy region{0, 0, bytes};
        c.vk.vkCmdCopyBuffer(batch.cmd(), staging.back().handle(), b.handle(), 1, &region);
      }
      return b;
    };
    auto copy_rows = [&](const void* src, uint64_t bytes_per_row) {
      return [src, bytes_per_row](char* dst, uint64_t first, uint64_t end) {
        std::memcpy(dst + first * bytes_per_row,
                    static_cast<const char*>(src) + first * bytes_per_row,
                    (end - first) * bytes_per_row);
      };
    };
    k.vertices = up_rows(36, kBuildInput, "sql triangles", copy_rows(p.vertices.data(), 36));
    std::vector<uint32_t> words;
    for (auto [a, b] : rays) words.insert(words.end(), {a, b});
    k.rays = up(words.data(), words.size() * 4, 0, "sql rays");
    // The shaders index fact columns by primitive (Z order, RtPlan::order).
    for (size_t i = 0; i < p.fact_columns.size(); ++i) {
      const int64_t* src = fact.columns[size_t(p.fact_columns[i])].ints.data();
      k.arrays.push_back(
          up_rows(8, 0, "sql fact column", [&](char* dst, uint64_t first, uint64_t end) {
            auto* col = reinterpret_cast<int64_t*>(dst);
            for (uint64_t r = first; r < end; ++r) col[r] = src[p.order[r]];
          }));
      table[tl.columns + i] = k.arrays.back().address();
    }
    for (size_t i = 0; i < p.side.size(); ++i) {
      k.arrays.push_back(up_rows(4, 0, "sql side codes", copy_rows(p.side[i].codes.data(), 4)));
      table[tl.side + 2 * i] = k.arrays.back().address();
      k.arrays.push_back(up(p.side[i].mask.data(), p.side[i].mask.size() * 4, 0, "sql side mask"));
      table[tl.side + 2 * i + 1] = k.arrays.back().address();
    }
    if (!p.row_groups.empty()) {
      k.arrays.push_back(up_rows(4, 0, "sql row groups", copy_rows(p.row_groups.data(), 4)));
      table[tl.groups] = k.arrays.back().address();
    }
    // Outputs and row flags are cleared by every trace (below), not uploaded.
    k.counts =
        up(nullptr, uint64_t{groups} * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "sql group counts");
    table[tl.counts] = k.counts.address();
    for (size_t i = 0; i < q.aggs.size(); ++i) {
      k.aggs.push_back(
          up(nullptr, uint64_t{groups} * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "sql aggregates"));
      table[tl.aggs + i] = k.aggs.back().address();
    }
    k.table = up(table.data(), table.size() * 8, 0, "sql address table");
    k.flags =
        up(nullptr, (p.rows + 31) / 32 * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, "sql row flags");
    uint32_t t1 = timer.mark(batch.cmd());
    memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR |
                       VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR |
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT, c);
    stats.stage_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host0).count();
    batch.submit_and_wait();
    stats.upload_ms = timer.ms(t0, t1);
  }
  staging.clear();

  auto n = static_cast<uint32_t>(p.rows);
  BuildRequest req;
  req.primitive_count = n;
  req.flags = VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR |
              VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR;
  // Not opaque: every triangle crossed must reach the any-hit shader (or the ray query loop).
  req.geometry = triangle_geometry(k.vertices.address(), n,
                                   VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR);
  BlasTimes times;
  k.blas = build_blas(c, BlasBuild{req, "sql BLAS", {}}, times);
  double build_ms = times.build_ms + times.compact_ms;
  if (p.geometry == StarGeometry::filter_only) k.vertices.reset();  // the shaders never read them
  VkAccelerationStructureInstanceKHR inst = identity_instance(k.blas, 0);
  double tlas_ms = 0;
  k.tlas = build_tlas(c, {&inst, 1}, "sql TLAS", tlas_ms);
  build_ms += tlas_ms;
  stats.bvh_build_ms = build_ms;
  stats.bvh_bytes = k.blas.bytes() + k.tlas.bytes();

  k.pc.vertices = k.vertices.address();
  k.pc.rays = k.rays.address();
  k.pc.flags = k.flags.address();
  k.pc.table = k.table.address();
  k.pc.ray_x = p.ray_x;
  k.pc.ray_y = p.ray_y;
  k.rt = m.cur_rt;
  k.rq = m.cur_rq;
  uint64_t out_bytes = uint64_t{groups} * 4 + q.aggs.size() * uint64_t{groups} * 8;
  k.readback = Buffer(c, std::max<uint64_t>(out_bytes, 16), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      MemoryUse::readback, "sql readback");
  k.build_stats = stats;
  m.last = std::move(kept);
  return m.trace(*m.last, stats);
}

GroupResults RtExecutor::retrace(SqlStats& stats) {
  Impl& m = *impl_;
  if (!m.last)
    throw Error(Errc::invalid_argument,
                "rerun: no ray-traced query has run on this engine since its tables were loaded");
  stats = m.last->build_stats;
  return m.trace(*m.last, stats);
}

void RtExecutor::forget() {
  impl_->last.reset();
}

// Clears the row flags and the groups, traces every ray, and reads the groups back; the timed
// span (trace_ms) holds the clears, as SsbEngine's does.
GroupResults RtExecutor::Impl::trace(Kept& k, SqlStats& stats) {
  VkContext& c = *ctx;
  binding->bind(k.tlas.handle());
  GroupResults res;
  {
    CommandBatch batch(c);
    VkCommandBuffer cmd = batch.cmd();
    GpuTimer timer(c, 2);
    timer.reset(cmd);
    bool pipe = mode == TraversalMode::pipeline;
    VkPipelineStageFlags stage =
        pipe ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    uint32_t t0 = timer.mark(cmd);
    c.vk.vkCmdFillBuffer(cmd, k.flags.handle(), 0, VK_WHOLE_SIZE, 0);
    c.vk.vkCmdFillBuffer(cmd, k.counts.handle(), 0, VK_WHOLE_SIZE, 0);
    for (size_t i = 0; i < k.aggs.size(); ++i)
      c.vk.vkCmdFillBuffer(cmd, k.aggs[i].handle(), 0, VK_WHOLE_SIZE,
                           k.agg_is_min[i] ? 0xFFFFFFFFu : 0u);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, stage,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
    uint64_t slice = pipe ? k.rt->max_width() : k.rq->max_items();
    SqlTraceParams pc = k.pc;
    for (uint64_t first = 0; first < k.ray_count; first += slice) {
      pc.ray_offset = static_cast<uint32_t>(first);
      pc.num_rays = static_cast<uint32_t>(std::min<uint64_t>(slice, k.ray_count - first));
      if (pipe)
        k.rt->trace(cmd, &pc, pc.num_rays, binding->set());
      else
        k.rq->dispatch(cmd, &pc, pc.num_rays, binding->set());
    }
    uint32_t t1 = timer.mark(cmd);
    memory_barrier(cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy cp{0, 0, uint64_t{k.groups} * 4};
    c.vk.vkCmdCopyBuffer(cmd, k.counts.handle(), k.readback.handle(), 1, &cp);
    for (const Buffer& a : k.aggs) {
      cp.dstOffset += cp.size;
      cp.size = uint64_t{k.groups} * 8;
      c.vk.vkCmdCopyBuffer(cmd, a.handle(), k.readback.handle(), 1, &cp);
    }
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    batch.submit_and_wait();
    stats.trace_ms = timer.ms(t0, t1);
  }
  k.readback.invalidate();
  const char* src = k.readback.as<char>();
  res.counts.resize(k.groups);
  std::memcpy(res.counts.data(), src, uint64_t{k.groups} * 4);
  uint64_t at = uint64_t{k.groups} * 4;
  for (size_t i = 0; i < k.aggs.size(); ++i) {
    res.aggs.emplace_back(k.groups);
    std::memcpy(res.aggs.back().data(), src + at, uint64_t{k.groups} * 8);
    at += uint64_t{k.groups} * 8;
  }
  stats.rows_hit = 0;
  for (uint32_t n : res.counts) stats.rows_hit += n;
  return res;
}

}  // namespace raydb::sql::detail
