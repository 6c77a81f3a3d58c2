// raydb::DeviceFeatureChain: what a host application enables on its own VkDevice so that
// Context::adopt can use it, as typed Vulkan structures instead of names. This is the one raydb
// header that includes Vulkan's (<vulkan/vulkan_core.h>; a host embedding raydb has them), and it
// is header-only: it calls Vulkan only through the vkGetInstanceProcAddr the host passes, so it
// works the same with the system loader, volk or another loader.
//
//   auto chain =
//       raydb::DeviceFeatureChain::query(instance, physical, vkGetInstanceProcAddr).value();
//   VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
//   std::vector<const char*> extensions = {/* the host's own */};
//   /* the host's queues, its own pNext structures ... */
//   chain.fill(info, extensions);          // raydb's features merged in, its extensions added
//   vkCreateDevice(physical, &info, nullptr, &device);
//   auto ctx = raydb::Context::adopt(chain.host(instance, physical, device, queue, family,
//                                               VK_API_VERSION_1_2, vkGetInstanceProcAddr));
//
// Ownership and lifetime: fill() links pointers to the chain's members into `info`, so the chain
// must stay where it is (not moved or copied) until vkCreateDevice has returned. Thread-safety:
// none needed; nothing is shared.
#pragma once

#include <vulkan/vulkan_core.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"

namespace raydb {

namespace detail {
// A Vulkan structure with every member zero but its sType (without -Wmissing-field-initializers
// noise in the host's build).
template <class T>
T vk_struct(VkStructureType type) {
  T s{};
  s.sType = type;
  return s;
}
}  // namespace detail

/// The features and extensions raydb needs (and the optional ones it uses when present) for one
/// physical device, ready to be merged into a VkDeviceCreateInfo.
struct DeviceFeatureChain {
  /// Features raydb enables. The host may set more fields on them before fill() (for example
  /// vulkan12.descriptorIndexing) instead of chaining second copies of these structures.
  VkPhysicalDeviceFeatures2 features2 =
      detail::vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  VkPhysicalDeviceVulkan12Features vulkan12 = detail::vk_struct<VkPhysicalDeviceVulkan12Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  VkPhysicalDeviceAccelerationStructureFeaturesKHR acceleration_structure =
      detail::vk_struct<VkPhysicalDeviceAccelerationStructureFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR);
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR ray_tracing_pipeline =
      detail::vk_struct<VkPhysicalDeviceRayTracingPipelineFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR);
  VkPhysicalDeviceRayQueryFeaturesKHR ray_query =
      detail::vk_struct<VkPhysicalDeviceRayQueryFeaturesKHR>(
          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR);
  /// The traversal the chain enables (never automatic).
  TraversalMode traversal = TraversalMode::pipeline;
  /// Required extensions, then the optional ones this device has (CUDA interop).
  std::vector<const char*> extensions;
  /// The optional extensions among `extensions`, for HostVulkan::enabled_optional_extensions.
  std::vector<std::string> optional_extensions;

  /// Reads what `physical` supports and chooses what to enable: `mode`, or for automatic the
  /// ray-tracing pipeline where the device has it, else ray queries. Errc::unsupported names what
  /// the device lacks (acceleration structures, the requested traversal, bufferDeviceAddress,
  /// scalarBlockLayout, shaderInt64).
  static Result<DeviceFeatureChain> query(VkInstance instance, VkPhysicalDevice physical,
                                          PFN_vkGetInstanceProcAddr get_instance_proc_addr,
                                          TraversalMode mode = TraversalMode::automatic);

  /// Adds raydb's extensions to `extensions` (skipping those already there) and points `info`
  /// at them, and merges raydb's features into `info.pNext`: a structure of the same type that
  /// the host already chained gets raydb's VK_TRUE fields OR-ed in; the others are linked in
  /// front. `info.pEnabledFeatures`, if set, is moved into features2 (Vulkan forbids both).
  /// `extensions` must outlive the vkCreateDevice call.
  void fill(VkDeviceCreateInfo& info, std::vector<const char*>& extensions);

  /// The HostVulkan for Context::adopt of a device created with fill(): the optional features
  /// that were enabled are reported from the chain. `api_version` is the instance's
  /// VkApplicationInfo::apiVersion.
  HostVulkan host(VkInstance instance, VkPhysicalDevice physical, VkDevice device, VkQueue queue,
                  uint32_t queue_family_index, uint32_t api_version,
                  PFN_vkGetInstanceProcAddr get_instance_proc_addr) const;
};

// ---- implementation (header-only: no Vulkan symbol is linked from libraydb) ----

namespace detail {
// OR the VkBool32 fields after sType/pNext of `from` into `into` (feature structures are
// exactly that).
template <class T>
void or_features(T& into, const T& from) {
  constexpr size_t first = offsetof(T, pNext) + sizeof(void*);
  static_assert((sizeof(T) - first) % sizeof(VkBool32) == 0);
  auto* dst = reinterpret_cast<unsigned char*>(&into) + first;
  auto* src = reinterpret_cast<const unsigned char*>(&from) + first;
  for (size_t i = 0; i + sizeof(VkBool32) <= sizeof(T) - first; i += sizeof(VkBool32)) {
    VkBool32 a, b;
    std::memcpy(&a, dst + i, sizeof a);
    std::memcpy(&b, src + i, sizeof b);
    a = a || b ? VK_TRUE : VK_FALSE;
    std::memcpy(dst + i, &a, sizeof a);
  }
}
}  // namespace detail

inline Result<DeviceFeatureChain> DeviceFeatureChain::query(
    VkInstance instance, VkPhysicalDevice physical,
    PFN_vkGetInstanceProcAddr get_instance_proc_addr, TraversalMode mode) {
  if (!instance || !physical || !get_instance_proc_addr)
    return Error(Errc::invalid_argument,
                 "DeviceFeatureChain::query needs an instance, a physical device and "
                 "vkGetInstanceProcAddr");
  auto features2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(
      get_instance_proc_addr(instance, "vkGetPhysicalDeviceFeatures2"));
  auto enumerate = reinterpret_cast<PFN_vkEnumerateDeviceExtensionProperties>(
      get_instance_proc_addr(instance, "vkEnumerateDeviceExtensionProperties"));
  if (!features2 || !enumerate)
    return Error(Errc::unsupported,
                 "vkGetPhysicalDeviceFeatures2 is not available (raydb needs Vulkan 1.2)");
  uint32_t n = 0;
  enumerate(physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> props(n);
  enumerate(physical, nullptr, &n, props.data());
  auto has = [&](const char* name) {
    for (const auto& p : props)
      if (std::strcmp(p.extensionName, name) == 0) return true;
    return false;
  };

  // What the device has.
  DeviceFeatureChain have;
  have.features2.pNext = &have.vulkan12;
  have.vulkan12.pNext = &have.acceleration_structure;
  void** tail = &have.acceleration_structure.pNext;
  if (has(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME)) {
    *tail = &have.ray_tracing_pipeline;
    tail = &have.ray_tracing_pipeline.pNext;
  }
  if (has(VK_KHR_RAY_QUERY_EXTENSION_NAME)) *tail = &have.ray_query;
  features2(physical, &have.features2);

  std::string missing;
  auto need = [&](bool ok, const char* what) {
    if (!ok) missing += (missing.empty() ? "" : ", ") + std::string(what);
  };
  need(has(VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME) &&
           has(VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME) &&
           have.acceleration_structure.accelerationStructure,
       "VK_KHR_acceleration_structure");
  need(have.vulkan12.bufferDeviceAddress, "bufferDeviceAddress");
  need(have.vulkan12.scalarBlockLayout, "scalarBlockLayout");
  need(have.features2.features.shaderInt64, "shaderInt64");
  const bool pipeline = has(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME) &&
                        have.ray_tracing_pipeline.rayTracingPipeline;
  const bool query = has(VK_KHR_RAY_QUERY_EXTENSION_NAME) && have.ray_query.rayQuery;
  DeviceFeatureChain c;
  if (mode == TraversalMode::automatic)
    c.traversal = pipeline ? TraversalMode::pipeline : TraversalMode::ray_query;
  else
    c.traversal = mode;
  if (c.traversal == TraversalMode::pipeline) need(pipeline, "VK_KHR_ray_tracing_pipeline");
  if (c.traversal == TraversalMode::ray_query) need(query, "VK_KHR_ray_query");
  if (!missing.empty())
    return Error(Errc::unsupported, "the device cannot run raydb: it lacks " + missing);

  c.features2.features.shaderInt64 = VK_TRUE;
  c.vulkan12.bufferDeviceAddress = VK_TRUE;
  c.vulkan12.scalarBlockLayout = VK_TRUE;
  c.acceleration_structure.accelerationStructure = VK_TRUE;
  c.extensions = {VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
                  VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME};
  if (c.traversal == TraversalMode::pipeline) {
    c.ray_tracing_pipeline.rayTracingPipeline = VK_TRUE;
    // Optional: pipelines then skip the primitives they never trace.
    c.ray_tracing_pipeline.rayTraversalPrimitiveCulling =
        have.ray_tracing_pipeline.rayTraversalPrimitiveCulling;
    c.extensions.push_back(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
  } else {
    c.ray_query.rayQuery = VK_TRUE;
    c.extensions.push_back(VK_KHR_RAY_QUERY_EXTENSION_NAME);
  }
  // Optional: sharing memory and ordering work with CUDA.
  c.vulkan12.timelineSemaphore = have.vulkan12.timelineSemaphore;
  for (const char* ext :
       {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME})
    if (has(ext)) {
      c.extensions.push_back(ext);
      c.optional_extensions.emplace_back(ext);
    }
  return c;
}

inline void DeviceFeatureChain::fill(VkDeviceCreateInfo& info,
                                     std::vector<const char*>& host_extensions) {
  for (const char* ext : extensions) {
    bool present = false;
    for (const char* e : host_extensions) present = present || std::strcmp(e, ext) == 0;
    if (!present) host_extensions.push_back(ext);
  }
  info.enabledExtensionCount = static_cast<uint32_t>(host_extensions.size());
  info.ppEnabledExtensionNames = host_extensions.data();
  if (info.pEnabledFeatures) {
    VkPhysicalDeviceFeatures2 theirs =
        detail::vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
    theirs.features = *info.pEnabledFeatures;
    detail::or_features(features2, theirs);
    info.pEnabledFeatures = nullptr;
  }
  // Each of raydb's structures: merged into the host's one of the same type, else linked in.
  auto merge = [&info](auto& ours) -> bool {
    using T = std::remove_reference_t<decltype(ours)>;
    for (auto* s = static_cast<VkBaseOutStructure*>(const_cast<void*>(info.pNext)); s; s = s->pNext)
      if (s->sType == ours.sType) {
        detail::or_features(*reinterpret_cast<T*>(s), ours);
        return true;
      }
    return false;
  };
  auto link = [&info, &merge](auto& ours) {
    if (merge(ours)) return;
    ours.pNext = const_cast<void*>(info.pNext);
    info.pNext = &ours;
  };
  if (traversal == TraversalMode::pipeline)
    link(ray_tracing_pipeline);
  else
    link(ray_query);
  link(acceleration_structure);
  link(vulkan12);
  link(features2);
}

inline HostVulkan DeviceFeatureChain::host(VkInstance instance, VkPhysicalDevice physical,
                                           VkDevice device, VkQueue queue,
                                           uint32_t queue_family_index, uint32_t api_version,
                                           PFN_vkGetInstanceProcAddr get_instance_proc_addr) const {
  HostVulkan h;
  h.instance = instance;
  h.physical_device = physical;
  h.device = device;
  h.queue = queue;
  h.queue_family_index = queue_family_index;
  h.api_version = api_version;
  h.get_instance_proc_addr = reinterpret_cast<void*>(get_instance_proc_addr);
  h.enabled_optional_extensions = optional_extensions;
  h.timeline_semaphore = vulkan12.timelineSemaphore == VK_TRUE;
  h.primitive_culling = traversal == TraversalMode::pipeline &&
                        ray_tracing_pipeline.rayTraversalPrimitiveCulling == VK_TRUE;
  return h;
}

}  // namespace raydb
