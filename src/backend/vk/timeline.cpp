#include "backend/vk/timeline.hpp"

#include <fmt/format.h>

namespace raydb::detail {

namespace {
constexpr auto kHandleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
}

Timeline::Timeline(VkContext& ctx, bool exportable) : ctx_(ctx) {
  if (!ctx.timeline_semaphore)
    throw Error(Errc::unsupported,
                fmt::format("device '{}' has no timeline semaphores", ctx.info.name));
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  VkExportSemaphoreCreateInfo exp{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  exp.handleTypes = kHandleType;
  if (exportable) {
    if (!ctx.external_semaphore_fd)
      throw Error(Errc::unsupported,
                  fmt::format("device '{}' has no VK_KHR_external_semaphore_fd: its semaphores "
                              "cannot be shared with CUDA",
                              ctx.info.name));
    VkPhysicalDeviceExternalSemaphoreInfo qi{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    qi.pNext = &type;
    qi.handleType = kHandleType;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(ctx.physical_device, &qi, &props);
    if (!(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
      throw Error(Errc::unsupported,
                  fmt::format("device '{}' cannot export timeline semaphores as opaque fds",
                              ctx.info.name));
    type.pNext = &exp;
  }
  VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  ci.pNext = &type;
  vk_check(ctx.vk.vkCreateSemaphore(ctx.device, &ci, nullptr, &semaphore_),
           "vkCreateSemaphore (timeline)");
}

Timeline::~Timeline() {
  if (semaphore_) ctx_.vk.vkDestroySemaphore(ctx_.device, semaphore_, nullptr);
}

int Timeline::export_fd() const {
  VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  gi.semaphore = semaphore_;
  gi.handleType = kHandleType;
  int fd = -1;
  vk_check(ctx_.vk.vkGetSemaphoreFdKHR(ctx_.device, &gi, &fd), "vkGetSemaphoreFdKHR");
  return fd;
}

uint64_t Timeline::counter() const {
  uint64_t v = 0;
  vk_check(ctx_.vk.vkGetSemaphoreCounterValue(ctx_.device, semaphore_, &v),
           "vkGetSemaphoreCounterValue");
  return v;
}

void Timeline::host_wait(uint64_t value) const {
  VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wi.semaphoreCount = 1;
  wi.pSemaphores = &semaphore_;
  wi.pValues = &value;
  vk_check(ctx_.vk.vkWaitSemaphores(ctx_.device, &wi, UINT64_MAX), "vkWaitSemaphores");
}

}  // namespace raydb::detail
