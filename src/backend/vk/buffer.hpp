// Buffers allocated through VMA, with device addresses, tracked in the context's byte counters.
#pragma once

#include <cstring>
#include <memory>
#include <string>

#include "backend/vk/context_impl.hpp"

namespace raydb::detail {

enum class MemoryUse {
  device,    // device-local; reached by device address from shaders
  upload,    // host-visible, written sequentially by the host (staging to the device)
  readback,  // host-visible and cached, read by the host
};

// Every VMA buffer starts at a multiple of this (exportable ones get whole dedicated allocations),
// so a shader may read one as uvec4 from its start.
inline constexpr VkDeviceSize kMinAlignment = 16;

class Buffer {
 public:
  Buffer() = default;
  // size 0 is rounded up to a small allocation so every buffer has an address.
  // copy_queues: also used on the context's copy queues (shared concurrently with their family,
  // so no ownership transfers are needed).
  Buffer(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use,
         const std::string& name, bool copy_queues = false);
  // A device-local buffer in a dedicated VkDeviceMemory that can be exported as an opaque POSIX
  // fd (VK_KHR_external_memory_fd) for CUDA to map (external_memory.cpp). Outside VMA: its pools
  // would all need the export info. Errc::unsupported where the device cannot export it.
  static Buffer exportable(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                           const std::string& name);
  // A buffer over memory another API allocated and exported as an opaque POSIX fd of
  // `allocation_size` bytes (backend/cuda: memory CUDA made, which its kernels read faster than
  // memory Vulkan exports). Takes the fd on success and closes it on failure. `owner` keeps the
  // exporter's allocation (and its device pointer) alive; it is kept as cuda_mapping().
  static Buffer import_fd(VkContext& ctx, int fd, VkDeviceSize size, VkDeviceSize allocation_size,
                          VkBufferUsageFlags usage, const std::string& name,
                          std::shared_ptr<void> owner);
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }
  void reset();
  // Make host writes visible to the device / device writes visible to the host (no-ops on
  // coherent memory).
  void flush() const;
  void invalidate() const;

  explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }
  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  VkDeviceAddress address() const { return address_; }
  void* mapped() const { return mapped_; }
  // Exportable or imported: memory CUDA can reach (backend/cuda maps it or owns it).
  bool is_exportable() const { return memory_ != VK_NULL_HANDLE; }
  VkDeviceSize allocation_size() const { return allocated_; }
  // The memory type's property flags (HOST_CACHED, DEVICE_LOCAL, ...).
  VkMemoryPropertyFlags memory_properties() const;
  // A new fd for an exportable buffer's memory, owned by the caller (CUDA's import takes it).
  int export_fd() const;
  // Where backend/cuda keeps this buffer's CUDA mapping, made on first use; released before the
  // memory is freed.
  std::shared_ptr<void>& cuda_mapping() const { return cuda_mapping_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(mapped_);
  }

 private:
  friend class ReleaseQueue;
  friend class SpareBuffers;
  // Leaves the context's byte counters now; reset() then frees without counting (ReleaseQueue).
  void untrack();

  static Buffer external(VkContext& ctx, VkDeviceSize size, VkDeviceSize allocation_size,
                         VkBufferUsageFlags usage, const std::string& name, void* chain,
                         VkBaseOutStructure* chain_tail, bool dedicated);

  VkContext* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VmaAllocation allocation_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceSize allocated_ = 0;
  VkDeviceAddress address_ = 0;
  void* mapped_ = nullptr;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;  // exportable and imported buffers (no VMA allocation)
  bool tracked_ = true;                     // counted in the context's allocated_bytes
  mutable std::shared_ptr<void> cuda_mapping_;
};

// Throws Errc::out_of_memory, naming the allocation, its size and the budget, when `bytes` more
// would take the context past its memory budget (ContextOptions::memory_budget_bytes).
void check_budget(const VkContext& ctx, VkDeviceSize bytes, const std::string& name);

// Usage every raydb device buffer gets: storage, transfers both ways, device address.
inline constexpr VkBufferUsageFlags kStorageUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

}  // namespace raydb::detail
