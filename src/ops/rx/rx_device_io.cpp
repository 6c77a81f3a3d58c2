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

// Checks the spans and records the lookups, between the two global barriers the header promises.
void record_lookups(RxIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                    const DeviceSpan& results) {
  VkContext& c = *impl.ctx;
  check_lookup_spans(impl.width, queries, results);
  impl.probe_stats = {};
  impl.probe_stats.rays = queries.count;
  impl.ensure_probe_kernels();
  RxProbeParams p{};
  p.queries = address_of(c, queries);
  p.results = address_of(c, results);
  impl.fill_index_params(p, false, false);
  record_between_barriers(c, cmd, trace_stage(impl),
                          [&] { impl.record_trace(cmd, p, queries.count); });
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
    // Made now (the SBT upload is a submission), so that recording a lookup submits nothing.
    impl->ensure_probe_kernels();
    return RxIndexAccess::make(std::move(impl));
  });
}

Status rx_record_lookup(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                        const DeviceSpan& results) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, "rx_record_lookup");
    detail::record_lookups(impl, cmd, queries, results);
  });
}

Status rx_submit_lookup(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                        const DeviceSync& sync) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, "rx_submit_lookup",
        [&](VkCommandBuffer cmd) { detail::record_lookups(impl, cmd, queries, results); });
  });
}

}  // namespace raydb
