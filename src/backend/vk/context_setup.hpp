// Internal to backend/vk: the steps of creating a context, in their own files so context.cpp
// holds only the Context API. device_probe.cpp: what a physical device offers and which one to
// pick; instance.cpp: the loader, the instance and the validation messenger.
#pragma once

#include <string>
#include <vector>

#include "backend/vk/context_impl.hpp"

namespace raydb::detail {

// Everything raydb wants to know of one physical device, queried only through structures its
// extensions allow.
struct Probe {
  DeviceInfo info;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceAccelerationStructurePropertiesKHR as{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rt{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
  VkPhysicalDeviceRayTracingInvocationReorderPropertiesNV reorder{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_PROPERTIES_NV};
};

std::string lower(std::string s);
Probe probe_device(VkPhysicalDevice pd, uint32_t index);
std::vector<VkPhysicalDevice> physical_devices(VkInstance instance);
// Picks the device named by `want` (index or name substring), or the best usable one.
uint32_t choose_device(const std::vector<Probe>& probes, const std::string& want);

// Loads the Vulkan loader once (or the host's vkGetInstanceProcAddr when given).
void init_loader(void* get_instance_proc_addr);
// Creates an instance with the validation layer and debug utils when asked and present.
void create_instance(VkContext& c, bool validation);
void load_instance_functions(VkContext& c);

}  // namespace raydb::detail
