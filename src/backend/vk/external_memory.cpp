// Buffers over memory shared with CUDA through opaque POSIX fds: exported by Vulkan for CUDA to
// map, or exported by CUDA and imported here.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>

#include "backend/vk/buffer.hpp"
#include "common/host_time.hpp"

namespace raydb::detail {

namespace {

constexpr auto kHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

// What the device can do with opaque-fd memory behind a buffer of this usage; throws
// Errc::unsupported unless it can `need` (export or import it).
VkExternalMemoryFeatureFlags external_features(const VkContext& ctx, VkBufferUsageFlags usage,
                                               VkExternalMemoryFeatureFlags need,
                                               const char* verb) {
  if (!ctx.external_memory_fd)
    throw Error(Errc::unsupported,
                fmt::format("device '{}' has no VK_KHR_external_memory_fd: its memory cannot be "
                            "shared with CUDA",
                            ctx.info.name));
  VkPhysicalDeviceExternalBufferInfo bi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  bi.usage = usage;
  bi.handleType = kHandleType;
  VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(ctx.physical_device, &bi, &props);
  VkExternalMemoryFeatureFlags f = props.externalMemoryProperties.externalMemoryFeatures;
  if (!(f & need))
    throw Error(
        Errc::unsupported,
        fmt::format("device '{}' cannot {} storage buffers as opaque fds", ctx.info.name, verb));
  return f;
}

uint32_t device_local_type(const VkContext& ctx, uint32_t allowed) {
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(ctx.physical_device, &mem);
  for (uint32_t t = 0; t < mem.memoryTypeCount; ++t)
    if ((allowed & (1u << t)) &&
        (mem.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
      return t;
  for (uint32_t t = 0; t < mem.memoryTypeCount; ++t)
    if (allowed & (1u << t)) return t;
  throw Error(Errc::unsupported, "no memory type can hold an exportable buffer");
}

}  // namespace

// The external-memory flavour of Buffer's constructor: a buffer of `usage` bound to its own
// VkDeviceMemory, allocated with `chain` (export or import info) at the head of the pNext chain.
// `allocation_size` 0 takes the buffer's requirement. Throws after releasing what it made.
Buffer Buffer::external(VkContext& ctx, VkDeviceSize size, VkDeviceSize allocation_size,
                        VkBufferUsageFlags usage, const std::string& name, void* chain,
                        VkBaseOutStructure* chain_tail, bool dedicated) {
  HostPhaseScope timed(HostPhase::allocate);
  Buffer b;
  b.ctx_ = &ctx;
  b.size_ = size;
  VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  ext.handleTypes = kHandleType;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.pNext = &ext;
  bi.size = std::max<VkDeviceSize>(size, 256);
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(ctx.vk.vkCreateBuffer(ctx.device, &bi, nullptr, &b.buffer_),
           "vkCreateBuffer (external memory)");
  VkMemoryRequirements req{};
  ctx.vk.vkGetBufferMemoryRequirements(ctx.device, b.buffer_, &req);
  if (allocation_size != 0 && req.size > allocation_size)
    throw Error(Errc::internal,
                fmt::format("{}: the buffer needs {} bytes but the imported memory holds {}", name,
                            req.size, allocation_size));

  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryDedicatedAllocateInfo dedicated_info{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated_info.pNext = &flags;
  dedicated_info.buffer = b.buffer_;
  chain_tail->pNext = dedicated ? reinterpret_cast<VkBaseOutStructure*>(&dedicated_info)
                                : reinterpret_cast<VkBaseOutStructure*>(&flags);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.pNext = chain;
  ai.allocationSize = allocation_size != 0 ? allocation_size : req.size;
  ai.memoryTypeIndex = device_local_type(ctx, req.memoryTypeBits);
  VkResult r = ctx.vk.vkAllocateMemory(ctx.device, &ai, nullptr, &b.memory_);
  // Memory handed to the release queue may not be free yet.
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY && ctx.drain_releases())
    r = ctx.vk.vkAllocateMemory(ctx.device, &ai, nullptr, &b.memory_);
  if (r != VK_SUCCESS) {
    ctx.vk.vkDestroyBuffer(ctx.device, b.buffer_, nullptr);
    b.buffer_ = VK_NULL_HANDLE;
    b.memory_ = VK_NULL_HANDLE;
    std::string what = fmt::format("vkAllocateMemory for {} ({} bytes)", name, ai.allocationSize);
    vk_fail(r, what.c_str());
  }
  b.allocated_ = ai.allocationSize;
  ctx.track_allocation(static_cast<int64_t>(b.allocated_));
  // From here on b owns both: a throw below frees them in its destructor.
  vk_check(ctx.vk.vkBindBufferMemory(ctx.device, b.buffer_, b.memory_, 0),
           "vkBindBufferMemory (external memory)");
  VkBufferDeviceAddressInfo ainfo{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  ainfo.buffer = b.buffer_;
  b.address_ = ctx.vk.vkGetBufferDeviceAddress(ctx.device, &ainfo);
  ctx.set_name(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(b.buffer_),
               "raydb shared " + name);
  return b;
}

Buffer Buffer::exportable(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                          const std::string& name) {
  usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  external_features(ctx, usage, VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT, "export");
  check_budget(ctx, std::max<VkDeviceSize>(size, 256), name);
  VkExportMemoryAllocateInfo exp{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  exp.handleTypes = kHandleType;
  // Always dedicated: whether the device insists on it or not, CUDA imports whole allocations.
  return external(ctx, size, 0, usage, name, &exp, reinterpret_cast<VkBaseOutStructure*>(&exp),
                  true);
}

Buffer Buffer::import_fd(VkContext& ctx, int fd, VkDeviceSize size, VkDeviceSize allocation_size,
                         VkBufferUsageFlags usage, const std::string& name,
                         std::shared_ptr<void> owner) {
  // Vulkan owns the fd only once vkAllocateMemory succeeds.
  struct FdGuard {
    int fd;
    ~FdGuard() {
      if (fd >= 0) close(fd);
    }
  } guard{fd};
  usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  VkExternalMemoryFeatureFlags features =
      external_features(ctx, usage, VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT, "import");
  check_budget(ctx, allocation_size, name);
  VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
  import.handleType = kHandleType;
  import.fd = fd;
  Buffer b = external(ctx, size, allocation_size, usage, name, &import,
                      reinterpret_cast<VkBaseOutStructure*>(&import),
                      features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT);
  guard.fd = -1;
  b.cuda_mapping_ = std::move(owner);
  return b;
}

int Buffer::export_fd() const {
  if (!memory_) throw Error(Errc::internal, "export_fd on a buffer that is not exportable");
  VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  gi.memory = memory_;
  gi.handleType = kHandleType;
  int fd = -1;
  vk_check(ctx_->vk.vkGetMemoryFdKHR(ctx_->device, &gi, &fd), "vkGetMemoryFdKHR");
  return fd;
}

}  // namespace raydb::detail
