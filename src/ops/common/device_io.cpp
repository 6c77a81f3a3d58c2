#include "ops/common/device_io.hpp"

#include <fmt/format.h>

#include <mutex>

namespace raydb::detail {

namespace {

const char* usage_name(VkBufferUsageFlags flag) {
  switch (flag) {
    case VK_BUFFER_USAGE_TRANSFER_SRC_BIT:
      return "VK_BUFFER_USAGE_TRANSFER_SRC_BIT";
    case VK_BUFFER_USAGE_TRANSFER_DST_BIT:
      return "VK_BUFFER_USAGE_TRANSFER_DST_BIT";
    default:
      return "VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT";
  }
}

// Waited for (and its command buffer freed) under the context's call lock, since the command
// pool is the context's; the index that holds it may go on any thread.
struct PendingSubmission {
  std::shared_ptr<VkContext> ctx;
  std::unique_ptr<CommandBatch> batch;
  ~PendingSubmission() {
    std::lock_guard lock(ctx->call_mutex);
    batch.reset();
  }
};

}  // namespace

void check_span(const DeviceSpan& s, const char* what, uint64_t element_bytes, uint64_t alignment,
                VkBufferUsageFlags needed, Errc too_small) {
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

DeviceColumnSource build_source(const VkContext& c, KeyWidth width, const DeviceSpan& keys,
                                const DeviceSpan& values, const DeviceSync& sync) {
  const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
  check_span(keys, "keys", key_bytes, key_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  if (keys.count > kMaxIndexedKeys)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} keys given; an index holds at most {} (row ids are 32-bit)",
                            keys.count, kMaxIndexedKeys));
  const bool has_values = values.buffer || values.count;
  if (has_values) {
    check_span(values, "values", 4, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    if (values.count != keys.count)
      throw Error(Errc::invalid_argument,
                  fmt::format("the values span has {} entries but there are {} keys", values.count,
                              keys.count));
  }
  check_timeline(c, sync);
  DeviceColumnSource source;
  source.keys = keys.buffer;
  source.keys_offset = keys.offset;
  if (has_values) {
    source.values = values.buffer;
    source.values_offset = values.offset;
  }
  for (const TimelinePoint& t : sync.wait) source.wait.emplace_back(t.semaphore, t.value);
  for (const TimelinePoint& t : sync.signal) source.signal.emplace_back(t.semaphore, t.value);
  return source;
}

void check_lookup_spans(KeyWidth width, const DeviceSpan& queries, const DeviceSpan& results,
                        bool ranges) {
  const uint64_t key_bytes = width == KeyWidth::bits64 ? 8 : 4;
  check_span(queries, ranges ? "ranges" : "queries", key_bytes * (ranges ? 2 : 1), key_bytes,
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT);
  check_span(results, "results", sizeof(RxLookup), sizeof(RxLookup),
             VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, Errc::output_too_small);
  if (results.count < queries.count)
    throw Error(Errc::output_too_small, fmt::format("{} lookups but the results span holds {}",
                                                    queries.count, results.count));
  if (queries.count > 0xFFFFFFFFull)
    throw Error(Errc::limit_exceeded, "at most 2^32 - 1 lookups per call");
}

void record_between_barriers(VkContext& c, VkCommandBuffer cmd, VkPipelineStageFlags stage,
                             const std::function<void()>& work) {
  memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, stage,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  work();
  memory_barrier(cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, c);
}

void check_command_buffer(VkCommandBuffer cmd, const char* fn) {
  if (!cmd) throw Error(Errc::invalid_argument, fmt::format("{} needs a VkCommandBuffer", fn));
}

std::shared_ptr<void> submit_device_work(const std::shared_ptr<VkContext>& ctx,
                                         const DeviceSync& sync, const char* fn,
                                         const std::function<void(VkCommandBuffer)>& record) {
  VkContext& c = *ctx;
  check_timeline(c, sync);
  if (sync.signal.empty())
    throw Error(Errc::invalid_argument,
                fmt::format("{} needs at least one DeviceSync::signal point (how the host learns "
                            "that the results are written)",
                            fn));
  auto pending = std::make_shared<PendingSubmission>();
  pending->ctx = ctx;
  pending->batch = std::make_unique<CommandBatch>(c);
  record(pending->batch->cmd());
  for (const TimelinePoint& t : sync.wait) pending->batch->wait_for(t.semaphore, t.value);
  for (const TimelinePoint& t : sync.signal) pending->batch->signal(t.semaphore, t.value);
  pending->batch->submit();
  return pending;
}

}  // namespace raydb::detail
