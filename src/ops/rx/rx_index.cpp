// RxIndex: host side of the RX mapping. Runs batches of lookups through the ray-tracing pipeline
// or ray queries, and the public API; the layout and BVH builds are in rx_build.cpp.
#include "raydb/rx_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "backend/optix/optix.hpp"
#include "backend/vk/accel.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "ops/common/query_slices.hpp"
#include "ops/rx/rx_impl.hpp"
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

RxCollectResult RxIndexImpl::probe(const QueryBatch& q, RxLookup* out, bool collect,
                                   RxRowMatch* matches, uint64_t capacity) {
  VkContext& c = *ctx;
  probe_stats = {};
  validate_queries(q, width);
  probe_stats.rays = rx_ray_count(q, options.max_rays_per_range);
  RxCollectResult collected;
  if (q.count == 0) return collected;
  ensure_probe_kernels();
  if (!batch) batch = std::make_unique<LookupBatch>(c, kResultPath);
  bool sorting = options.sort_probes && q.count > 1;
  batch->set_result_path(sorting ? ResultPath::carried : kResultPath);
  VkPipelineStageFlags trace_stage = mode == TraversalMode::pipeline
                                         ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                         : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  RxProbeParams p{};
  fill_index_params(p, q.ranges, collect);
  p.match_capacity = static_cast<uint32_t>(std::min<uint64_t>(capacity, 0xFFFFFFFFu));
  if (!collect && lookup_chunk() > 0) {
    // Sorted probes: each chunk sorts its own lookups (the Vulkan radix sort, recorded into the
    // chunk's command buffer; a CUDA sort would split every chunk's submission), and the trace
    // writes each result back at its place in the chunk through the order.
    if (sorting && !probe_sort) probe_sort = std::make_unique<RadixSort>(c);
    const VkPipelineStageFlags stage =
        sorting ? trace_stage | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT : trace_stage;
    RxProbeStats s = batch->run_pipelined_in_slots(
        q, stage,
        [&](VkCommandBuffer cmd, unsigned slot, VkDeviceAddress queries, VkDeviceAddress results,
            uint64_t count) {
          const ChunkCarry& carry = batch->carry();
          if (sorting)
            record_chunk_sort(cmd, slot, queries, count, q.ranges, trace_stage, carry.count > 0);
          p.carry_from = carry.from;
          p.carry_to = carry.to;
          p.carry_count = static_cast<uint32_t>(carry.count);
          p.carry_stride = static_cast<uint32_t>(count);
          p.order = sorting ? chunk_sorts[slot].order.address() : 0;
          p.queries = queries;
          read_sorted_points(p, q.ranges, sorting ? chunk_sorts[slot].keys.address() : 0);
          p.results = results;
          record_trace(cmd, p, count);
        },
        out);
    probe_stats.probe_ms = s.probe_ms;
    probe_stats.sort_ms = s.sort_ms;
    probe_stats.upload_ms = s.upload_ms;
    probe_stats.download_ms = s.download_ms;
    probe_stats.results_direct = s.results_direct;
    return collected;
  }
  batch->prepare(q);
  if (collect) {
    if (!counter_dev)
      counter_dev = Buffer(c, 4, kStorageUsage, MemoryUse::device, "rx match counter");
    uint64_t mbytes = std::max<uint64_t>(capacity, 1) * sizeof(RxRowMatch);
    if (!matches_dev || matches_dev.size() < mbytes)
      matches_dev = Buffer(c, mbytes, kStorageUsage, MemoryUse::device, "rx matches");
  }

  p.queries = batch->queries();
  p.results = batch->results();
  p.matches = collect ? matches_dev.address() : 0;
  p.match_count = collect ? counter_dev.address() : 0;
  uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
  // With CUDA, CUB sorts the probe keys in memory shared with the Vulkan passes around it, as for
  // the index builds (KeyRecordBuilder); the Vulkan radix sort otherwise.
  const bool cuda_sort = sorting && cuda::use_cuda(c, options.backend);
  if (sorting) {
    if (!cuda_sort && !probe_sort) probe_sort = std::make_unique<RadixSort>(c);
    if (!order_dev || order_dev.size() < q.count * 4 || order_dev.is_exportable() != cuda_sort)
      order_dev = cuda::kernel_buffer(c, cuda_sort, q.count * 4, "rx probe order");
    if (!sort_keys_dev || sort_keys_dev.size() < q.count * key_bytes ||
        sort_keys_dev.is_exportable() != cuda_sort)
      sort_keys_dev = cuda::kernel_buffer(c, cuda_sort, q.count * key_bytes, "rx probe sort keys");
    p.order = order_dev.address();
  }

  CommandBatch cb(c);
  VkCommandBuffer cmd = cb.cmd();
  GpuTimer timer(c, 8);
  timer.reset(cmd);
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
      probe_sort_temps.rewind();  // the previous call has run
      probe_sort->record(cmd, sort_keys_dev, order_dev, q.count, width == KeyWidth::bits64,
                         probe_sort_temps);
    }
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   trace_stage, VK_ACCESS_SHADER_READ_BIT, c);
  }
  read_sorted_points(p, q.ranges, sorting ? sort_keys_dev.address() : 0);
  uint32_t t2 = timer.mark(cmd);
  record_trace(cmd, p, q.count);
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

void RxIndexImpl::reserve_chunk_sorts() {
  if (!options.sort_probes || lookup_chunk() == 0 || n == 0) return;
  const uint64_t chunk = std::min(lookup_chunk(), n);
  VkContext& c = *ctx;
  if (!probe_sort) probe_sort = std::make_unique<RadixSort>(c);
  kernel(c, ShaderId::rx_sort_keys, sizeof(RxSortKeysParams));  // compiled now, not by a lookup
  const bool key64 = width == KeyWidth::bits64;
  for (ChunkSort& cs : chunk_sorts) {
    ensure_buffer(c, cs.keys, chunk * (key64 ? 8 : 4), kStorageUsage, MemoryUse::device,
                  "rx chunk sort keys");
    ensure_buffer(c, cs.order, chunk * 4, kStorageUsage, MemoryUse::device, "rx chunk order");
    probe_sort->reserve(cs.temps, chunk, key64);
  }
}

void RxIndexImpl::record_chunk_sort(VkCommandBuffer cmd, unsigned slot, VkDeviceAddress queries,
                                    uint64_t count, bool ranges, VkPipelineStageFlags trace_stage,
                                    bool carrying) {
  VkContext& c = *ctx;
  const bool key64 = width == KeyWidth::bits64;
  ChunkSort& cs = chunk_sorts[slot];
  // The slot's previous chunk has run (its fence was waited for): its buffers are free.
  ensure_buffer(c, cs.keys, count * (key64 ? 8 : 4), kStorageUsage, MemoryUse::device,
                "rx chunk sort keys");
  ensure_buffer(c, cs.order, count * 4, kStorageUsage, MemoryUse::device, "rx chunk order");
  probe_sort->reserve(cs.temps, count, key64);
  if (ranges) {
    RxSortKeysParams sk{queries, cs.keys.address(), static_cast<uint32_t>(count),
                        2u,      key64 ? 1u : 0u,   0};
    kernel(c, ShaderId::rx_sort_keys, sizeof(sk)).dispatch(cmd, &sk, count);
    compute_barrier(c, cmd);
    // Locality is all the trace needs from the order: the key's top 16 bits (two passes of the
    // sort instead of four or eight) put neighbouring keys together as well, for half the time.
    probe_sort->record(cmd, cs.keys, cs.order, count, key64, cs.temps, key64 ? 48 : 16);
  } else {
    // A point's sort key is the point itself, so one pass reads the queries where they were
    // uploaded, by their top 8 bits. On the H100 the chunks' sorts of a call of 2^27 points took
    // 4.0 ms instead of 9.0 (the copy and a second pass over 16 bits), its traces 1.3 ms more,
    // and the call 3-4 ms less (docs/e2e.md).
    probe_sort->record_digit(cmd, queries, cs.keys, cs.order, count, key64, cs.temps,
                             key64 ? 56 : 24);
  }
  batch->mark_sorted(cmd);
  // Carrying: the previous chunk's trace (an earlier submission) wrote the results this trace
  // writes out. Only then does this trace wait for that one.
  const VkPipelineStageFlags writers =
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | (carrying ? trace_stage : 0);
  memory_barrier(cmd, writers, VK_ACCESS_SHADER_WRITE_BIT, trace_stage, VK_ACCESS_SHADER_READ_BIT,
                 c);
}

void RxIndexImpl::read_sorted_points(RxProbeParams& p, bool ranges, VkDeviceAddress sorted_keys) {
  // A point's sort key is the point: the sorted copy is the queries in launch order. (A range's
  // is its lo only.)
  p.flags &= ~RX_FLAG_SORTED_QUERIES;
  if (ranges || sorted_keys == 0) return;
  p.queries = sorted_keys;
  p.flags |= RX_FLAG_SORTED_QUERIES;
}

void RxIndexImpl::fill_index_params(RxProbeParams& p, bool ranges, bool collect) const {
  p.records = records.address();
  p.instance_first = instance_first ? instance_first.address() : 0;
  p.primitive_records = primitive_records ? primitive_records.address() : 0;
  p.chunk_size = static_cast<uint32_t>(uniform_piece);
  p.flags = rx_probe_flags(width, ranges, unique, collect, method, opaque_hits()) |
            diagnostic_flags(ranges);
  p.num_primitives = static_cast<uint32_t>(n);
  // The host-vector API has refused wider ranges already (rx_ray_count); the device path relies
  // on the shaders' check alone.
  p.max_range_lines = ranges ? options.max_rays_per_range : 0;
}

void RxIndexImpl::record_trace(VkCommandBuffer cmd, RxProbeParams& p, uint64_t count) {
  const bool pipeline = mode == TraversalMode::pipeline;
  record_in_slices(p, count, pipeline ? rt->max_width() : query_kernel->max_items(),
                   [&](RxProbeParams& s) {
                     if (pipeline)
                       rt->trace(cmd, &s, s.num_queries, binding->set());
                     else
                       query_kernel->dispatch(cmd, &s, s.num_queries, binding->set());
                   });
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

using detail::guarded;
using detail::QueryBatch;

namespace detail {
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
  if (!(o.compact_min_saving >= 0 && o.compact_min_saving <= 1))  // NaN too
    throw Error(
        Errc::invalid_argument,
        fmt::format("RxBuildOptions::compact_min_saving must be a fraction in [0, 1], not {}",
                    o.compact_min_saving));
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

void RxIndexImpl::attach_optix(const RxIndex& index) {
  if (options.api == RayTracingApi::optix)
    optix = std::make_unique<RxOptixIndex>(RxOptixIndex::build(index, options.optix).value());
}

RxOptixIndex& RxIndexImpl::traced_optix() {
  if (!optix)  // never silently Vulkan: only a rebuild() that failed leaves no twin
    throw Error(Errc::unsupported, "this api = optix index has no OptiX twin: its rebuild failed");
  if (options.sort_probes)
    throw Error(Errc::unsupported,
                "RxBuildOptions::sort_probes is not available with api = optix (the OptiX path "
                "traces lookups unsorted)");
  if (diagnostic != RxDiagnostic::none)
    throw Error(
        Errc::unsupported,
        "RX diagnostics (set_diagnostic) run on the Vulkan path only, not with api = optix");
  return *optix;
}
}  // namespace detail
using detail::resolve_method;
using detail::RxIndexImpl;
using detail::validate_layout_options;

RxIndex::RxIndex(std::unique_ptr<RxIndexImpl> impl) : impl_(std::move(impl)) {}
RxIndex::RxIndex(RxIndex&&) noexcept = default;
RxIndex& RxIndex::operator=(RxIndex&&) noexcept = default;
RxIndex::~RxIndex() = default;

Result<RxIndex> RxIndex::build(const Context& ctx, KeySpan keys, std::span<const uint32_t> values,
                               const RxBuildOptions& options) {
  return guarded(ctx.vk(), [&]() -> RxIndex {
    // Before the Vulkan build, so that a missing OptiX costs no build.
    if (options.api == RayTracingApi::optix) detail::optix::require(ctx.vk());
    auto impl = std::make_unique<RxIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    impl->method = resolve_method(options);
    validate_layout_options(options, impl->method);
    impl->build(keys, values);
    impl->reserve_chunk_sorts();
    RxIndex index(std::move(impl));
    index.impl_->attach_optix(index);
    return index;
  });
}

Status RxIndex::lookup(KeySpan points, std::span<RxLookup> out) {
  if (impl_->options.api == RayTracingApi::optix)
    return guarded(*impl_->ctx, [&] { impl_->traced_optix().lookup(points, out).value(); });
  return detail::lookup_into(*impl_, QueryBatch::points(points), out);
}

Result<std::vector<RxLookup>> RxIndex::lookup(KeySpan points) {
  if (impl_->options.api == RayTracingApi::optix)
    return guarded(*impl_->ctx, [&] {
      std::vector<RxLookup> out(points.size);
      impl_->traced_optix().lookup(points, out).value();
      return out;
    });
  return detail::lookup_vector(*impl_, QueryBatch::points(points));
}

Status RxIndex::lookup_ranges(RangeSpan ranges, std::span<RxLookup> out) {
  if (impl_->options.api == RayTracingApi::optix)
    return guarded(*impl_->ctx, [&] { impl_->traced_optix().lookup_ranges(ranges, out).value(); });
  return detail::lookup_into(*impl_, QueryBatch::of(ranges), out);
}

Result<std::vector<RxLookup>> RxIndex::lookup_ranges(RangeSpan ranges) {
  if (impl_->options.api == RayTracingApi::optix)
    return guarded(*impl_->ctx, [&] {
      std::vector<RxLookup> out(ranges.size);
      impl_->traced_optix().lookup_ranges(ranges, out).value();
      return out;
    });
  return detail::lookup_vector(*impl_, QueryBatch::of(ranges));
}

Result<RxCollectResult> RxIndex::collect_rows(KeySpan points, std::span<RxRowMatch> out) {
  return guarded(*impl_->ctx, [&] {
    if (impl_->options.api == RayTracingApi::optix)
      return impl_->traced_optix().collect_rows(points, out).value();
    return impl_->probe(QueryBatch::points(points), nullptr, true, out.data(), out.size());
  });
}

Result<RxCollectResult> RxIndex::collect_rows(RangeSpan ranges, std::span<RxRowMatch> out) {
  return guarded(*impl_->ctx, [&] {
    if (impl_->options.api == RayTracingApi::optix)
      return impl_->traced_optix().collect_rows(ranges, out).value();
    return impl_->probe(QueryBatch::of(ranges), nullptr, true, out.data(), out.size());
  });
}

Status RxIndex::update(KeySpan keys, std::span<const uint32_t> values) {
  return guarded(*impl_->ctx, [&] { impl_->update(keys, values); });
}

Status RxIndex::rebuild(KeySpan keys, std::span<const uint32_t> values) {
  return guarded(*impl_->ctx, [&] {
    impl_->optix.reset();  // it borrows the records the build replaces
    impl_->build(keys, values);
    impl_->reserve_chunk_sorts();
    impl_->attach_optix(*this);
  });
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
  // The chunk sorts' buffers now, as a build with sort_probes makes them, so that the next call
  // allocates nothing (its wall clock is the user's). Should that fail, the next call makes them
  // and reports why.
  if (sort) (void)guarded(*impl_->ctx, [&] { impl_->reserve_chunk_sorts(); });
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
  return impl_->optix ? impl_->optix->build_stats() : impl_->build_stats;
}
const RxProbeStats& RxIndex::last_stats() const {
  return impl_->optix ? impl_->optix->last_stats() : impl_->probe_stats;
}

}  // namespace raydb
