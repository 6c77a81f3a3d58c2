// The RX index over device-resident data (raydb/device_buffers.hpp): builds from the host's
// VkBuffers and lookups from and into them, recorded into the host's command buffer or submitted
// on the context's queue under the host's timeline semaphores. The build and the probe kernels
// are the host-vector API's (rx_build.cpp, rx_index.cpp); only where the data comes from and
// goes to differs.
#include <fmt/format.h>

#include "backend/vk/call_lock.hpp"
#include "ops/rx/rx_impl.hpp"
#include "raydb/device_buffers.hpp"

namespace raydb::detail {

struct RxIndexAccess {
  static RxIndexImpl& impl(RxIndex& index) { return *index.impl_; }
  static RxIndex make(std::unique_ptr<RxIndexImpl> impl) { return RxIndex(std::move(impl)); }
};

namespace {

const char* usage_name(VkBufferUsageFlags flag) {
  return flag == VK_BUFFER_USAGE_TRANSFER_SRC_BIT ? "VK_BUFFER_USAGE_TRANSFER_SRC_BIT"
                                                  : "VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT";
}

// The checks every span gets before anything is recorded: a buffer, elements, the usage the
// access needs, an aligned offset, and the span inside the buffer.
void check_span(const DeviceSpan& s, const char* what, uint64_t element_bytes, uint64_t alignment,
                VkBufferUsageFlags needed, Errc too_small = Errc::invalid_argument) {
  if (!s.buffer)
    throw Error(Errc::invalid_argument, fmt::format("the {} span has no VkBuffer", what));
  if (s.count == 0)
    throw Error(Errc::invalid_argument, fmt::format("the {} span has count 0", what));
  if ((s.usage & needed) != needed)
    throw Error(Errc::invalid_argument,
                fmt::format("the {} buffer lacks {} (its usage flags are {:#x})", what,
                            usage_name(needed), s.usage));
  if (s.offset % alignment != 0)
    throw Error(Errc::invalid_argument,
                fmt::format("the {} span's offset {} is not a multiple of {} bytes", what, s.offset,
                            alignment));
  if (s.offset > s.buffer_size || s.count > (s.buffer_size - s.offset) / element_bytes)
    throw Error(too_small,
                fmt::format("the {} span needs {} elements of {} bytes from offset {} but the "
                            "buffer holds {} bytes",
                            what, s.count, element_bytes, s.offset, s.buffer_size));
}

VkDeviceAddress address_of(const VkContext& c, const DeviceSpan& s) {
  VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  info.buffer = s.buffer;
  return c.vk.vkGetBufferDeviceAddress(c.device, &info) + s.offset;
}

void check_timeline(const VkContext& c, const DeviceSync& sync) {
  if ((!sync.wait.empty() || !sync.signal.empty()) && !c.timeline_semaphore)
    throw Error(Errc::unsupported,
                "DeviceSync needs the timelineSemaphore feature, which this context's device does "
                "not have enabled");
  for (const auto* points : {&sync.wait, &sync.signal})
    for (const TimelinePoint& t : *points)
      if (!t.semaphore)
        throw Error(Errc::invalid_argument, "a DeviceSync point has no VkSemaphore");
}

VkPipelineStageFlags trace_stage(const RxIndexImpl& impl) {
  return impl.mode == TraversalMode::pipeline ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                              : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
}

// Checks the spans and records the lookups, between the two global barriers the header promises.
void record_lookups(RxIndexImpl& impl, VkCommandBuffer cmd, const DeviceSpan& queries,
                    const DeviceSpan& results) {
  VkContext& c = *impl.ctx;
  const uint64_t key_bytes = impl.width == KeyWidth::bits64 ? 8 : 4;
  check_span(queries, "queries", key_bytes, key_bytes, VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  check_span(results, "results", sizeof(RxLookup), sizeof(RxLookup),
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, Errc::output_too_small);
  if (results.count < queries.count)
    throw Error(Errc::output_too_small, fmt::format("{} lookups but the results span holds {}",
                                                    queries.count, results.count));
  if (queries.count > 0xFFFFFFFFull)
    throw Error(Errc::limit_exceeded, "at most 2^32 - 1 lookups per call");
  impl.probe_stats = {};
  impl.probe_stats.rays = queries.count;
  impl.ensure_probe_kernels();
  RxProbeParams p{};
  p.queries = address_of(c, queries);
  p.results = address_of(c, results);
  impl.fill_index_params(p, false, false);
  const VkPipelineStageFlags stage = trace_stage(impl);
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, stage,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  impl.record_trace(cmd, p, queries.count);
  memory_barrier(cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, c);
}

// rx_submit_lookup's submission: waited for (and its command buffer freed) under the context's
// call lock, since the command pool is the context's; the index may go on any thread.
struct PendingSubmission {
  std::shared_ptr<VkContext> ctx;
  std::unique_ptr<CommandBatch> batch;
  ~PendingSubmission() {
    std::lock_guard lock(ctx->call_mutex);
    batch.reset();
  }
};

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
    const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
    detail::check_span(keys, "keys", key_bytes, key_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    if (keys.count > detail::kMaxIndexedKeys)
      throw Error(Errc::limit_exceeded,
                  fmt::format("{} keys given; an index holds at most {} (row ids are 32-bit)",
                              keys.count, detail::kMaxIndexedKeys));
    const bool has_values = values.buffer || values.count;
    if (has_values) {
      detail::check_span(values, "values", 4, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
      if (values.count != keys.count)
        throw Error(Errc::invalid_argument,
                    fmt::format("the values span has {} entries but there are {} keys",
                                values.count, keys.count));
    }
    if (options.allow_update)
      throw Error(Errc::invalid_argument,
                  "RxBuildOptions::allow_update is not available for a build from device "
                  "buffers (update() takes host vectors); build again instead");
    auto impl = std::make_unique<RxIndexImpl>();
    impl->ctx = ctx.shared();
    detail::check_timeline(*impl->ctx, sync);
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    impl->method = detail::resolve_method(options);
    detail::validate_layout_options(options, impl->method);
    detail::DeviceColumnSource source;
    source.keys = keys.buffer;
    source.keys_offset = keys.offset;
    if (has_values) {
      source.values = values.buffer;
      source.values_offset = values.offset;
    }
    for (const TimelinePoint& t : sync.wait) source.wait.emplace_back(t.semaphore, t.value);
    for (const TimelinePoint& t : sync.signal) source.signal.emplace_back(t.semaphore, t.value);
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
    if (!cmd) throw Error(Errc::invalid_argument, "rx_record_lookup needs a VkCommandBuffer");
    detail::record_lookups(impl, cmd, queries, results);
  });
}

Status rx_submit_lookup(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                        const DeviceSync& sync) {
  RxIndexImpl& impl = RxIndexAccess::impl(index);
  return guarded(*impl.ctx, [&] {
    detail::check_timeline(*impl.ctx, sync);
    if (sync.signal.empty())
      throw Error(Errc::invalid_argument,
                  "rx_submit_lookup needs at least one DeviceSync::signal point (how the host "
                  "learns that the results are written)");
    impl.pending_submission.reset();  // the previous one is done with its command buffer
    auto pending = std::make_shared<detail::PendingSubmission>();
    pending->ctx = impl.ctx;
    pending->batch = std::make_unique<detail::CommandBatch>(*impl.ctx);
    detail::record_lookups(impl, pending->batch->cmd(), queries, results);
    for (const TimelinePoint& t : sync.wait) pending->batch->wait_for(t.semaphore, t.value);
    for (const TimelinePoint& t : sync.signal) pending->batch->signal(t.semaphore, t.value);
    pending->batch->submit();
    impl.pending_submission = std::move(pending);
  });
}

}  // namespace raydb
