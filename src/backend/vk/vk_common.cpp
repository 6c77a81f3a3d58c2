#define VMA_IMPLEMENTATION
#include "backend/vk/vk_common.hpp"

#include <fmt/format.h>

namespace raydb::detail {

const char* vk_result_name(VkResult r) {
  switch (r) {
#define RDB_CASE(x) \
  case x:           \
    return #x;
    RDB_CASE(VK_SUCCESS)
    RDB_CASE(VK_NOT_READY)
    RDB_CASE(VK_TIMEOUT)
    RDB_CASE(VK_INCOMPLETE)
    RDB_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    RDB_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    RDB_CASE(VK_ERROR_INITIALIZATION_FAILED)
    RDB_CASE(VK_ERROR_DEVICE_LOST)
    RDB_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    RDB_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    RDB_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    RDB_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    RDB_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    RDB_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    RDB_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    RDB_CASE(VK_ERROR_FRAGMENTED_POOL)
    RDB_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    RDB_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    RDB_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    RDB_CASE(VK_ERROR_UNKNOWN)
#undef RDB_CASE
    default:
      return "VkResult(other)";
  }
}

Errc errc_of(VkResult r) {
  switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return Errc::out_of_memory;
    case VK_ERROR_DEVICE_LOST:
      return Errc::device_lost;
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
    case VK_ERROR_LAYER_NOT_PRESENT:
      return Errc::unsupported;
    default:
      return Errc::vulkan;
  }
}

void vk_fail(VkResult r, const char* what) {
  std::string hint;
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
    hint = " (the device ran out of memory: try fewer keys or lookups per batch)";
  else if (r == VK_ERROR_DEVICE_LOST)
    hint = " (the device was lost: a driver reset or a hang; the context can no longer be used)";
  throw Error(errc_of(r), fmt::format("{} failed: {}{}", what, vk_result_name(r), hint));
}

}  // namespace raydb::detail
