// Timeline semaphores, optionally exportable as opaque fds so that CUDA can wait on and signal
// them: the way Vulkan and CUDA work is ordered without the host waiting in between.
#pragma once

#include <cstdint>

#include "backend/vk/context_impl.hpp"

namespace raydb::detail {

class Timeline {
 public:
  // exportable: VkExportSemaphoreCreateInfo(OPAQUE_FD); needs VK_KHR_external_semaphore_fd.
  // Errc::unsupported where the device lacks timeline semaphores or the export.
  Timeline(VkContext& ctx, bool exportable);
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;
  ~Timeline();

  VkSemaphore handle() const { return semaphore_; }
  // A new fd for the semaphore, owned by the caller (CUDA's import takes it).
  int export_fd() const;
  // The semaphore's current value (vkGetSemaphoreCounterValue).
  uint64_t counter() const;
  // Blocks the host until the semaphore reaches `value`.
  void host_wait(uint64_t value) const;
  // The next value to signal: values only ever grow, so each signal takes a fresh one.
  uint64_t next() { return ++last_; }
  uint64_t last() const { return last_; }

 private:
  VkContext& ctx_;
  VkSemaphore semaphore_ = VK_NULL_HANDLE;
  uint64_t last_ = 0;
};

}  // namespace raydb::detail
