// Up-front checks of a request against the device, made before any work: a build the device
// cannot hold fails at once with an error naming the limit and the count, rather than midway at
// some allocation (or, on a real device, inside the driver).
#pragma once

#include <cstdint>
#include <string_view>

namespace raydb::detail {

struct VkContext;

// Errc::out_of_memory when `bytes` - a lower bound of what `what` holds on the device at once -
// exceeds the device's largest device-local heap, or the context's memory budget
// (ContextOptions::memory_budget_bytes) less what the context already holds. Thread-safety: reads
// the context's atomic byte count; call under the context's lock like any device call.
void require_device_memory(const VkContext& c, std::string_view what, uint64_t bytes);

// Whether compute shaders have every subgroup operation in `operations` (VkSubgroupFeatureFlags)
// with subgroups of min_lanes to max_lanes invocations.
bool has_subgroup_operations(const VkContext& c, uint32_t operations, uint32_t min_lanes = 1,
                             uint32_t max_lanes = UINT32_MAX);

}  // namespace raydb::detail
