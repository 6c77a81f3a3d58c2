#include "backend/vk/commands.hpp"
#include "common/host_time.hpp"

#include <cstring>
#include <tuple>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/host_buffers.hpp"
#include "common/host_copy.hpp"

namespace raydb::detail {

CommandBatch::CommandBatch(VkContext& ctx) : ctx_(ctx) {
  if (!CallLock::held(ctx)) lock_ = std::unique_lock(ctx.call_mutex);
  check_not_lost(ctx);
  if (!ctx.spare_batches.empty()) {
    // Begin resets it (the pool has RESET_COMMAND_BUFFER); its fence was reset when it came back.
    std::tie(cmd_, fence_) = ctx.spare_batches.back();
    ctx.spare_batches.pop_back();
  } else {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx.command_pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    vk_check(ctx.vk.vkAllocateCommandBuffers(ctx.device, &ai, &cmd_), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (VkResult r = ctx.vk.vkCreateFence(ctx.device, &fi, nullptr, &fence_); r != VK_SUCCESS) {
      ctx.vk.vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &cmd_);
      vk_fail(r, "vkCreateFence");
    }
  }
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (VkResult r = ctx.vk.vkBeginCommandBuffer(cmd_, &bi); r != VK_SUCCESS) {
    release();
    vk_fail(r, "vkBeginCommandBuffer");
  }
}

CommandBatch::~CommandBatch() {
  // The command buffer must not be freed while the GPU may still run it; errors cannot leave a
  // destructor, and device loss has been reported by whoever submitted.
  HostPhaseScope timed(HostPhase::wait);
  VkResult r = VK_SUCCESS;
  if (pending_) r = ctx_.vk.vkWaitForFences(ctx_.device, 1, &fence_, VK_TRUE, UINT64_MAX);
  // A submitted batch goes back to the context for the next one: making and freeing a command
  // buffer and fence took 0.4-4 ms each on an H100 (driver 580), several times per build.
  if (submitted_ && r == VK_SUCCESS && !ctx_.device_lost &&
      ctx_.spare_batches.size() < kSpareBatches &&
      ctx_.vk.vkResetFences(ctx_.device, 1, &fence_) == VK_SUCCESS) {
    ctx_.spare_batches.emplace_back(cmd_, fence_);
    return;
  }
  release();
}

void CommandBatch::release() {
  if (fence_) ctx_.vk.vkDestroyFence(ctx_.device, fence_, nullptr);
  if (cmd_) ctx_.vk.vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &cmd_);
  fence_ = VK_NULL_HANDLE;
  cmd_ = VK_NULL_HANDLE;
}

void CommandBatch::wait_for(VkSemaphore timeline, uint64_t value, VkPipelineStageFlags stage) {
  wait_sems_.push_back(timeline);
  wait_values_.push_back(value);
  wait_stages_.push_back(stage);
}

void CommandBatch::signal(VkSemaphore timeline, uint64_t value) {
  signal_sems_.push_back(timeline);
  signal_values_.push_back(value);
}

void CommandBatch::submit() {
  vk_check(ctx_.vk.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd_;
  VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  if (!wait_sems_.empty() || !signal_sems_.empty()) {
    ti.waitSemaphoreValueCount = static_cast<uint32_t>(wait_values_.size());
    ti.pWaitSemaphoreValues = wait_values_.data();
    ti.signalSemaphoreValueCount = static_cast<uint32_t>(signal_values_.size());
    ti.pSignalSemaphoreValues = signal_values_.data();
    si.pNext = &ti;
    si.waitSemaphoreCount = static_cast<uint32_t>(wait_sems_.size());
    si.pWaitSemaphores = wait_sems_.data();
    si.pWaitDstStageMask = wait_stages_.data();
    si.signalSemaphoreCount = static_cast<uint32_t>(signal_sems_.size());
    si.pSignalSemaphores = signal_sems_.data();
  }
  fail_if_loss_injected(ctx_);
  VkResult r = ctx_.vk.vkQueueSubmit(ctx_.queue, 1, &si, fence_);
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
  vk_check(r, "vkQueueSubmit");
  pending_ = submitted_ = true;
}

void CommandBatch::wait() {
  if (!pending_) return;
  pending_ = false;
  HostPhaseScope timed(HostPhase::wait);
  VkResult r = ctx_.vk.vkWaitForFences(ctx_.device, 1, &fence_, VK_TRUE, UINT64_MAX);
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
  vk_check(r, "vkWaitForFences");
}

void CommandBatch::submit_and_wait() {
  submit();
  wait();
}

GpuTimer::GpuTimer(VkContext& ctx, uint32_t capacity, uint32_t valid_bits)
    : ctx_(ctx), capacity_(capacity), ticks_(capacity) {
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = capacity;
  vk_check(ctx.vk.vkCreateQueryPool(ctx.device, &qi, nullptr, &pool_), "vkCreateQueryPool");
  uint32_t bits = valid_bits ? valid_bits : ctx.timestamp_valid_bits;
  if (bits == 0)
    throw Error(Errc::unsupported, "the queue has no timestamp support (timestampValidBits = 0)");
  mask_ = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

GpuTimer::~GpuTimer() {
  if (pool_) ctx_.vk.vkDestroyQueryPool(ctx_.device, pool_, nullptr);
}

void GpuTimer::reset(VkCommandBuffer cmd) {
  ctx_.vk.vkCmdResetQueryPool(cmd, pool_, 0, capacity_);
  used_ = 0;
  fetched_ = false;
}

void GpuTimer::reset_on_host() {
  if (!ctx_.host_query_reset)
    throw Error(Errc::internal, "GpuTimer::reset_on_host without hostQueryReset");
  ctx_.vk.vkResetQueryPool(ctx_.device, pool_, 0, capacity_);
  used_ = 0;
  fetched_ = false;
}

VkCommandBuffer allocate_command_buffer(VkContext& ctx, VkCommandPool pool) {
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vk_check(ctx.vk.vkAllocateCommandBuffers(ctx.device, &ai, &cmd), "vkAllocateCommandBuffers");
  return cmd;
}

void begin_one_time(VkContext& ctx, VkCommandBuffer cmd) {
  vk_check(ctx.vk.vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vk_check(ctx.vk.vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
}

uint32_t GpuTimer::mark(VkCommandBuffer cmd) {
  if (used_ >= capacity_) throw Error(Errc::internal, "GpuTimer: out of timestamp slots");
  ctx_.vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, used_);
  return used_++;
}

void GpuTimer::fetch() {
  if (!fetched_ && used_ > 0) {
    HostPhaseScope timed(HostPhase::wait);
    vk_check(ctx_.vk.vkGetQueryPoolResults(ctx_.device, pool_, 0, used_, used_ * sizeof(uint64_t),
                                           ticks_.data(), sizeof(uint64_t),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    fetched_ = true;
  }
}

double GpuTimer::ms(uint32_t from, uint32_t to) {
  fetch();
  uint64_t d = (ticks_[to] - ticks_[from]) & mask_;
  return static_cast<double>(d) * ctx_.properties.limits.timestampPeriod * 1e-6;
}

double GpuTimer::at_ms(uint32_t i) {
  fetch();
  return static_cast<double>(ticks_[i] & mask_) * ctx_.properties.limits.timestampPeriod * 1e-6;
}

void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access,
                    const VkContext& ctx) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  ctx.vk.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void record_upload(VkContext& ctx, VkCommandBuffer cmd, Buffer& staging, const Buffer& dst,
                   const void* src, size_t bytes, VkDeviceSize dst_offset) {
  if (bytes == 0) return;
  // Bytes in a HostBuffer are copied from where they are: no staging, no host copy.
  if (const HostRange pinned = find_host_buffer(ctx, src, bytes)) {
    pinned.buffer->flush();
    VkBufferCopy region{pinned.offset, dst_offset, bytes};
    ctx.vk.vkCmdCopyBuffer(cmd, pinned.buffer->handle(), dst.handle(), 1, &region);
    return;
  }
  staging =
      Buffer(ctx, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::upload, "staging upload");
  // On several threads with streaming stores: staging may be write-combined, and one thread
  // copies 256 MiB of keys in about 25 ms on the H100's host.
  host_copies({{staging.mapped(), src, bytes}});
  staging.flush();
  VkBufferCopy region{0, dst_offset, bytes};
  ctx.vk.vkCmdCopyBuffer(cmd, staging.handle(), dst.handle(), 1, &region);
}

}  // namespace raydb::detail
