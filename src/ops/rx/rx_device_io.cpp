// The RX index over device-resident data (raydb/device_buffers.hpp): builds from the host's
// VkBuffers and lookups from and into them, recorded into the host's command buffer or submitted
// on the context's queue under the host's timeline semaphores. The build and the probe kernels
// are the host-vector API's (rx_build.cpp, rx_index.cpp); only where the data comes from and
// goes to differs. The span checks and the submission are every operator's
// (ops/common/device_io.hpp).
#include <fmt/format.h>

#include "backend/vk/call_lock.hpp"
#include "ops/common/device_io.hpp"
#include "ops/rx/rx_impl.hpp"
#include "raydb/device_buffers.hpp"

static_assert(raydb::kRxRangeOverBound == RX_RANGE_OVER_BOUND);

namespace raydb::detail {

struct RxIndexAccess {
  static RxIndexImpl& impl(RxIndex& index) { return *index.impl_; }
  static RxIndex make(std::unique_ptr<RxIndexImpl> impl) { return RxIndex(std::move(impl)); }
};

namespace {

VkPipelineStageFlags trace_stage(const RxIndexImpl& impl) {
  return impl.mode == TraversalMode::pipeline ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                              : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
}

// Checks the spans and records the lookups (points, or (lo, hi) ranges), between the two global
// barriers the header promises.
void record_lookups(RxIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                    const DeviceSpan& results, bool ranges) {
  VkContext& c = *impl.ctx;
  check_lookup_spans(impl.width, queries, results, ranges);
  impl.probe_stats = {};
  // A range's rays depend on its bounds, which stay on the device: no count for ranges.
  impl.probe_stats.rays = ranges ? 0 : queries.count;
  impl.ensure_probe_kernels();
  RxProbeParams p{};
  p.queries = address_of(c, queries);
  p.results = address_of(c, results);
  impl.fill_index_params(p, ranges, false);
  record_between_barriers(c, cmd, trace_stage(impl),
                          [&] { impl.record_trace(cmd, p, queries.count); });
}

// Checks the spans and records collect_rows of point lookups: the host's `total` is zeroed (a
// transfer, after a barrier for earlier accesses of it; the global barrier in front of the rays
// orders the fill before them), then every match is counted there and the first matches.count
// written, as the host-vector API's collect_rows.
void record_collect(RxIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                    const DeviceSpan& matches, const DeviceSpan& total) {
  VkContext& c = *impl.ctx;
  const uint64_t key_bytes = impl.width == KeyWidth::bits64 ? 8 : 4;
  check_span(queries, "queries", key_bytes, key_bytes, VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  if (queries.count > 0xFFFFFFFFull)
    throw Error(Errc::limit_exceeded, "at most 2^32 - 1 lookups per call");
  check_span(matches, "matches", sizeof(RxRowMatch), sizeof(RxRowMatch),
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, Errc::output_too_small);
  check_span(total, "total", 4, 4, VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  check_span(total, "total", 4, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  if (impl.diagnostic != RxDiagnostic::none)
    throw Error(Errc::invalid_argument,
                "RX diagnostics (RxIndex::set_diagnostic) write lookup results, which "
                "collect_rows on device buffers has none of; set RxDiagnostic::none");
  impl.probe_stats = {};
  impl.probe_stats.rays = queries.count;
  impl.ensure_probe_kernels();
  RxProbeParams p{};
  p.queries = address_of(c, queries);
  p.results = 0;  // the shaders store no per-lookup result
  p.matches = address_of(c, matches);
  p.match_count = address_of(c, total);
  p.match_capacity = static_cast<uint32_t>(std::min<uint64_t>(matches.count, 0xFFFFFFFFu));
  impl.fill_index_params(p, false, true);
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, c);
  c.vk.vkCmdFillBuffer(cmd, total.buffer, total.offset, 4, 0);
  record_between_barriers(c, cmd, trace_stage(impl),
                          [&] { impl.record_trace(cmd, p, queries.count); });
}

Status record(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
              const DeviceSpan& results, bool ranges, const char* fn) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    check_command_buffer(cmd, fn);
    record_lookups(impl, cmd, queries, results, ranges);
  });
}

Status submit(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
              const DeviceSync& sync, bool ranges, const char* fn) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = submit_device_work(impl.ctx, sync, fn, [&](VkCommandBuffer cmd) {
      record_lookups(impl, cmd, queries, results, ranges);
    });
  });
}

}  // namespace
}  // namespace raydb::detail

namespace raydb {

using detail::guarded;
using detail::RxIndexAccess;
using detail::RxIndexImpl;

Result<RxIndex> rx_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                         const DeviceSpan& values, const RxBuildOptions& options,
                         const DeviceSync& sync) {
  return guarded(ctx.vk(), [&]() -> RxIndex {
    detail::DeviceColumnSource source = detail::build_source(ctx.vk(), width, keys, values, sync);
    if (options.allow_update)
      throw Error(Errc::invalid_argument,
                  "RxBuildOptions::allow_update is not available for a build from device "
                  "buffers (update() takes host vectors); build again instead");
    if (options.api != RayTracingApi::vulkan)
      throw Error(Errc::unsupported,
                  "RxBuildOptions::api = optix is not available for a build from device buffers "
                  "(its lookups are recorded into the host's Vulkan command buffers)");
    auto impl = std::make_unique<RxIndexImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    impl->method = detail::resolve_method(options);
    detail::validate_layout_options(options, impl->method);
    KeySpan sizes;  // no host data: the size and width only
    sizes.size = keys.count;
    sizes.width = width;
    impl->build(sizes, {}, &source);
    impl->reserve_chunk_sorts();
    // Made now (the SBT upload is a submission), so that recording a lookup submits nothing.
    impl->ensure_probe_kernels();
    return RxIndexAccess::make(std::move(impl));
  });
}

Status rx_record_lookup(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                        const DeviceSpan& results) {
  return detail::record(index, cmd, queries, results, false, "rx_record_lookup");
}

Status rx_submit_lookup(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                        const DeviceSync& sync) {
  return detail::submit(index, queries, results, sync, false, "rx_submit_lookup");
}

Status rx_record_lookup_ranges(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& ranges,
                               const DeviceSpan& results) {
  return detail::record(index, cmd, ranges, results, true, "rx_record_lookup_ranges");
}

Status rx_submit_lookup_ranges(RxIndex& index, const DeviceSpan& ranges, const DeviceSpan& results,
                               const DeviceSync& sync) {
  return detail::submit(index, ranges, results, sync, true, "rx_submit_lookup_ranges");
}

Status rx_record_collect_rows(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                              const DeviceSpan& matches, const DeviceSpan& total) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, "rx_record_collect_rows");
    detail::record_collect(impl, cmd, queries, matches, total);
  });
}

Status rx_submit_collect_rows(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& matches,
                              const DeviceSpan& total, const DeviceSync& sync) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, "rx_submit_collect_rows",
        [&](VkCommandBuffer cmd) { detail::record_collect(impl, cmd, queries, matches, total); });
  });
}

}  // namespace raydb
