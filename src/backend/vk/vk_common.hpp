// Include this, never <vulkan/vulkan.h>: volk supplies the function pointers (no prototypes), and
// VMA is told to fetch its own through vkGetInstanceProcAddr / vkGetDeviceProcAddr.
#pragma once

#include <volk.h>

#define VMA_STATIC_VULKAN_FUNCTIONS 0
#define VMA_DYNAMIC_VULKAN_FUNCTIONS 1
#include <vk_mem_alloc.h>

#include <string>

#include "raydb/error.hpp"

namespace raydb::detail {

const char* vk_result_name(VkResult r);
Errc errc_of(VkResult r);

// Throws raydb::Error naming the failed call and the VkResult; maps OOM and device loss to their
// own codes so callers can tell them apart.
[[noreturn]] void vk_fail(VkResult r, const char* what);
inline void vk_check(VkResult r, const char* what) {
  if (r < 0) vk_fail(r, what);
}

}  // namespace raydb::detail
