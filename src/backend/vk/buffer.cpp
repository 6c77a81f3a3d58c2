#include "backend/vk/buffer.hpp"
#include "common/host_time.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace raydb::detail {

Buffer::Buffer(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use,
               const std::string& name, bool copy_queues)
    : ctx_(&ctx), size_(size) {
  HostPhaseScope timed(HostPhase::allocate);
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = std::max<VkDeviceSize>(size, 256);
  bi.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const uint32_t families[2] = {ctx.queue_family, ctx.copy_family};
  if (copy_queues && ctx.has_copy_queues() && ctx.copy_family != ctx.queue_family) {
    bi.sharingMode = VK_SHARING_MODE_CONCURRENT;
    bi.queueFamilyIndexCount = 2;
    bi.pQueueFamilyIndices = families;
  }
  VmaAllocationCreateInfo ai{};
  ai.usage = VMA_MEMORY_USAGE_AUTO;
  if (use == MemoryUse::device) ai.usage = VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE;
  if (use == MemoryUse::upload)
    ai.flags =
        VMA_ALLOCATION_CREATE_HOST_ACCESS_SEQUENTIAL_WRITE_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT;
  if (use == MemoryUse::readback)
    ai.flags = VMA_ALLOCATION_CREATE_HOST_ACCESS_RANDOM_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT;
  check_budget(ctx, bi.size, name);
  VmaAllocationInfo info{};
  // At least 16-byte aligned, so shaders may read any buffer as uvec4 from its start (the full
  // scan does; kMinAlignment in buffer.hpp).
  VkResult r = vmaCreateBufferWithAlignment(ctx.allocator, &bi, &ai, kMinAlignment, &buffer_,
                                            &allocation_, &info);
  // Memory handed to the release queue may not be free yet.
  if ((r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY) &&
      ctx.drain_releases())
    r = vmaCreateBufferWithAlignment(ctx.allocator, &bi, &ai, kMinAlignment, &buffer_, &allocation_,
                                     &info);
  if (r != VK_SUCCESS) {
    buffer_ = VK_NULL_HANDLE;
    std::string what = fmt::format("allocating {} ({} bytes)", name, size);
    vk_fail(r, what.c_str());
  }
  allocated_ = info.size;
  mapped_ = info.pMappedData;
  ctx.track_allocation(static_cast<int64_t>(allocated_));
  VkBufferDeviceAddressInfo ainfo{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  ainfo.buffer = buffer_;
  address_ = ctx.vk.vkGetBufferDeviceAddress(ctx.device, &ainfo);
  ctx.set_name(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(buffer_), "raydb " + name);
}

void check_budget(const VkContext& ctx, VkDeviceSize bytes, const std::string& name) {
  const uint64_t held = ctx.allocated_bytes.load(), budget = ctx.memory_budget;
  if (budget == 0 || (held <= budget && bytes <= budget - held)) return;
  throw Error(Errc::out_of_memory,
              fmt::format("allocating {} ({} bytes) would exceed the device memory budget: {} "
                          "bytes held of {} (ContextOptions::memory_budget_bytes; the CLI's "
                          "--memory-budget or RAYDB_MEMORY_BUDGET)",
                          name, bytes, held, budget));
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this == &o) return *this;
  reset();
  ctx_ = o.ctx_;
  buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
  allocation_ = std::exchange(o.allocation_, VK_NULL_HANDLE);
  size_ = std::exchange(o.size_, 0);
  allocated_ = std::exchange(o.allocated_, 0);
  address_ = std::exchange(o.address_, 0);
  mapped_ = std::exchange(o.mapped_, nullptr);
  memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
  tracked_ = std::exchange(o.tracked_, true);
  cuda_mapping_ = std::move(o.cuda_mapping_);
  return *this;
}

VkMemoryPropertyFlags Buffer::memory_properties() const {
  VkMemoryPropertyFlags flags = 0;
  if (allocation_) vmaGetAllocationMemoryProperties(ctx_->allocator, allocation_, &flags);
  return flags;
}

void Buffer::flush() const {
  if (allocation_)
    vk_check(vmaFlushAllocation(ctx_->allocator, allocation_, 0, VK_WHOLE_SIZE),
             "vmaFlushAllocation");
}

void Buffer::invalidate() const {
  if (allocation_)
    vk_check(vmaInvalidateAllocation(ctx_->allocator, allocation_, 0, VK_WHOLE_SIZE),
             "vmaInvalidateAllocation");
}

void Buffer::untrack() {
  if (!buffer_ || !tracked_) return;
  ctx_->track_allocation(-static_cast<int64_t>(allocated_));
  tracked_ = false;
}

void Buffer::reset() {
  if (!buffer_) return;
  HostPhaseScope timed(HostPhase::release);
  cuda_mapping_.reset();
  if (memory_) {
    ctx_->vk.vkDestroyBuffer(ctx_->device, buffer_, nullptr);
    ctx_->vk.vkFreeMemory(ctx_->device, memory_, nullptr);
    memory_ = VK_NULL_HANDLE;
  } else {
    vmaDestroyBuffer(ctx_->allocator, buffer_, allocation_);
  }
  if (tracked_) ctx_->track_allocation(-static_cast<int64_t>(allocated_));
  tracked_ = true;
  buffer_ = VK_NULL_HANDLE;
  allocation_ = VK_NULL_HANDLE;
  size_ = allocated_ = address_ = 0;
  mapped_ = nullptr;
}

}  // namespace raydb::detail
