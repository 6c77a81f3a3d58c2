// Exportable buffers: Vulkan memory that CUDA maps through an opaque POSIX fd.
#include <fmt/format.h>

#include <algorithm>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

namespace {

constexpr auto kHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

// Whether the device can export a buffer of this usage as an opaque fd, and whether it insists on
// a dedicated allocation (we always make one, so only exportability matters).
void check_exportable(const VkContext& ctx, VkBufferUsageFlags usage) {
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
  if (!(props.externalMemoryProperties.externalMemoryFeatures &
        VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
    throw Error(
        Errc::unsupported,
        fmt::format("device '{}' cannot export storage buffers as opaque fds", ctx.info.name));
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

Buffer Buffer::exportable(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                          const std::string& name) {
  usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
  check_exportable(ctx, usage);
  Buffer b;
  b.ctx_ = &ctx;
  b.size_ = size;
  check_budget(ctx, std::max<VkDeviceSize>(size, 256), name);
  VkExternalMemoryBufferCreateInfo ext{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  ext.handleTypes = kHandleType;
  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.pNext = &ext;
  bi.size = std::max<VkDeviceSize>(size, 256);
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(ctx.vk.vkCreateBuffer(ctx.device, &bi, nullptr, &b.buffer_),
           "vkCreateBuffer (exportable)");
  VkMemoryRequirements req{};
  ctx.vk.vkGetBufferMemoryRequirements(ctx.device, b.buffer_, &req);

  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.pNext = &flags;
  dedicated.buffer = b.buffer_;
  VkExportMemoryAllocateInfo exp{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
  exp.pNext = &dedicated;
  exp.handleTypes = kHandleType;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.pNext = &exp;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = device_local_type(ctx, req.memoryTypeBits);
  VkResult r = ctx.vk.vkAllocateMemory(ctx.device, &ai, nullptr, &b.memory_);
  if (r != VK_SUCCESS) {
    ctx.vk.vkDestroyBuffer(ctx.device, b.buffer_, nullptr);
    b.buffer_ = VK_NULL_HANDLE;
    b.memory_ = VK_NULL_HANDLE;
    std::string what = fmt::format("vkAllocateMemory for exportable {} ({} bytes)", name, size);
    vk_fail(r, what.c_str());
  }
  b.allocated_ = req.size;
  ctx.track_allocation(static_cast<int64_t>(b.allocated_));
  // From here on b owns both: a throw below frees them in its destructor.
  vk_check(ctx.vk.vkBindBufferMemory(ctx.device, b.buffer_, b.memory_, 0),
           "vkBindBufferMemory (exportable)");
  VkBufferDeviceAddressInfo ainfo{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
  ainfo.buffer = b.buffer_;
  b.address_ = ctx.vk.vkGetBufferDeviceAddress(ctx.device, &ainfo);
  ctx.set_name(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(b.buffer_),
               "raydb shared " + name);
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
