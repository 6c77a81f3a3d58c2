// RtScanTable over device-resident columns (raydb/device_rtscan.hpp): the build copies the
// columns from the host's buffers instead of uploading them (rtscan_table.cpp), and a selection's
// bitmap is copied into the host's buffer under its timeline points.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "backend/vk/call_lock.hpp"
#include "ops/common/device_io.hpp"
#include "ops/rtscan/rtscan_impl.hpp"
#include "raydb/device_rtscan.hpp"

namespace raydb {

using detail::DeviceIndexAccess;
using detail::guarded;
using detail::RtScanImpl;

namespace {
// The host's bitmap buffer: 4-byte words, room for one bit per row, a copy destination.
void check_bitmap_span(const RtScanImpl& impl, const DeviceSpan& bitmap) {
  detail::check_span(bitmap, "bitmap", 4, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     Errc::output_too_small);
  if (bitmap.count < impl.words())
    throw Error(Errc::output_too_small,
                fmt::format("{} rows need {} bitmap words but the bitmap span holds {}", impl.n,
                            impl.words(), bitmap.count));
}
}  // namespace

Result<RtScanTable> rtscan_build(const Context& ctx, std::span<const DeviceSpan> columns,
                                 const RtScanOptions& options, const DeviceSync& sync) {
  return guarded(ctx.vk(), [&]() -> RtScanTable {
    if (columns.empty())
      throw Error(Errc::invalid_argument, "rtscan_build needs at least one column span");
    if (options.api != RayTracingApi::vulkan)
      throw Error(Errc::unsupported,
                  "RtScanOptions::api = optix is not available for a build from device buffers "
                  "(its selections are recorded into the host's Vulkan command buffers)");
    detail::RtScanDeviceColumns device;
    device.rows = columns[0].count;
    for (size_t k = 0; k < columns.size(); ++k) {
      const std::string what = fmt::format("column {}", k);
      detail::check_span(columns[k], what.c_str(), 4, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
      if (columns[k].count != device.rows)
        throw Error(Errc::invalid_argument, fmt::format("column {} has {} rows but column 0 has {}",
                                                        k, columns[k].count, device.rows));
      device.buffers.push_back(columns[k].buffer);
      device.offsets.push_back(columns[k].offset);
    }
    detail::check_timeline(ctx.vk(), sync);
    for (const TimelinePoint& t : sync.wait) device.wait.emplace_back(t.semaphore, t.value);
    for (const TimelinePoint& t : sync.signal) device.signal.emplace_back(t.semaphore, t.value);
    auto impl = std::make_unique<RtScanImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->mode = impl->ctx->resolve(options.traversal);
    auto t0 = std::chrono::steady_clock::now();
    impl->build({}, &device);
    const double wall =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    impl->build_stats.wall_ms = std::max(0.0, wall - impl->build_stats.counter_keys_ms);
    return DeviceIndexAccess::make<RtScanTable>(std::move(impl));
  });
}

Status rtscan_submit_select(RtScanTable& table, std::span<const Predicate> predicates,
                            const DeviceSpan& bitmap, const DeviceSync& sync) {
  RtScanImpl& impl = DeviceIndexAccess::impl(table);
  return guarded(*impl.ctx, [&] {
    detail::VkContext& c = *impl.ctx;
    check_bitmap_span(impl, bitmap);
    detail::check_timeline(c, sync);
    if (sync.signal.empty())  // checked before the selection runs, not after
      throw Error(Errc::invalid_argument,
                  "rtscan_submit_select needs at least one DeviceSync::signal point (how the "
                  "host learns that the bitmap is written)");
    impl.pending_submission.reset();  // the previous copy is done with its bitmap
    impl.pending_bitmap.reset();
    if (impl.n > 0 && impl.recordable(predicates.size())) {
      // The whole selection in one submission under the host's points: nothing waited for or
      // read back (rtscan_record_select's recording).
      impl.pending_submission = detail::submit_device_work(
          impl.ctx, sync, "rtscan_submit_select", [&](VkCommandBuffer cmd) {
            impl.record_select(cmd, predicates, bitmap.buffer, bitmap.offset);
          });
      return;
    }
    std::shared_ptr<detail::BitmapImpl> words = impl.select(predicates);
    impl.pending_submission = detail::submit_device_work(
        impl.ctx, sync, "rtscan_submit_select", [&](VkCommandBuffer cmd) {
          // The host's earlier accesses to its buffer (ordered by `sync.wait` or submission
          // order) come before the copy; the selection's writes were waited for by select().
          detail::memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, c);
          VkBufferCopy region{0, bitmap.offset, impl.words() * 4};
          c.vk.vkCmdCopyBuffer(cmd, words->words.handle(), bitmap.buffer, 1, &region);
          detail::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                 VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                 VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT, c);
        });
    impl.pending_bitmap = std::move(words);
  });
}

Status rtscan_record_select(RtScanTable& table, VkCommandBuffer cmd,
                            std::span<const Predicate> predicates, const DeviceSpan& bitmap) {
  RtScanImpl& impl = DeviceIndexAccess::impl(table);
  return guarded(*impl.ctx, [&] {
    detail::check_command_buffer(cmd, "rtscan_record_select");
    check_bitmap_span(impl, bitmap);
    if (impl.n == 0) {  // nothing to select: no rows, no words
      impl.query_stats = {};
      return;
    }
    impl.record_select(cmd, predicates, bitmap.buffer, bitmap.offset);
  });
}

}  // namespace raydb
