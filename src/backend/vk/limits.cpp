// Up-front device-memory check (limits.hpp).
#include "backend/vk/limits.hpp"

#include <fmt/format.h>

#include "backend/vk/context_impl.hpp"
#include "raydb/error.hpp"

namespace raydb::detail {

bool has_subgroup_operations(const VkContext& c, uint32_t operations, uint32_t min_lanes,
                             uint32_t max_lanes) {
  VkPhysicalDeviceSubgroupProperties sub{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sub};
  vkGetPhysicalDeviceProperties2(c.physical_device, &props);
  return (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
         (sub.supportedOperations & operations) == operations && sub.subgroupSize >= min_lanes &&
         sub.subgroupSize <= max_lanes;
}

void require_device_memory(const VkContext& c, std::string_view what, uint64_t bytes) {
  const uint64_t heap = c.info.device_local_bytes;
  if (heap != 0 && bytes > heap)
    throw Error(Errc::out_of_memory,
                fmt::format("{} needs at least {} bytes of device memory, more than the device's "
                            "largest device-local heap ({} bytes); nothing was allocated",
                            what, bytes, heap));
  const uint64_t budget = c.memory_budget, held = c.allocated_bytes.load();
  if (budget != 0 && (held > budget || bytes > budget - held))
    throw Error(Errc::out_of_memory,
                fmt::format("{} needs at least {} bytes of device memory, more than the memory "
                            "budget leaves: {} bytes held of {} (ContextOptions::"
                            "memory_budget_bytes or RAYDB_MEMORY_BUDGET); nothing was allocated",
                            what, bytes, held, budget));
}

}  // namespace raydb::detail
