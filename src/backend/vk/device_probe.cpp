// What a physical device offers (extensions, features, limits) and which one raydb picks.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "backend/vk/context_setup.hpp"

namespace raydb::detail {

namespace {

std::string version_string(uint32_t v) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                     VK_API_VERSION_PATCH(v));
}

std::set<std::string> device_extensions(VkPhysicalDevice pd) {
  uint32_t n = 0;
  vk_check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr),
           "vkEnumerateDeviceExtensionProperties");
  std::vector<VkExtensionProperties> props(n);
  vk_check(vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, props.data()),
           "vkEnumerateDeviceExtensionProperties");
  std::set<std::string> out;
  for (auto& p : props) out.insert(p.extensionName);
  return out;
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "CPU";
    default:
      return "other";
  }
}

int type_rank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Probe probe_device(VkPhysicalDevice pd, uint32_t index) {
  Probe p;
  auto exts = device_extensions(pd);
  bool has_as = exts.count(VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME) &&
                exts.count(VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME);
  bool has_rt = exts.count(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME) > 0;
  bool has_rq = exts.count(VK_KHR_RAY_QUERY_EXTENSION_NAME) > 0;
  bool has_reorder = exts.count(VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME) > 0;
  p.info.external_memory_fd = exts.count(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) > 0;
  p.info.external_semaphore_fd = exts.count(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) > 0;

  vkGetPhysicalDeviceProperties(pd, &p.props);
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 props2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  bool v12 = p.props.apiVersion >= VK_API_VERSION_1_2;
  void** tail = &props2.pNext;
  auto chain = [&tail](auto& s) {
    *tail = &s;
    tail = &s.pNext;
  };
  if (v12) {
    chain(driver);
    chain(id);
  }
  if (has_as) chain(p.as);
  if (has_rt) chain(p.rt);
  if (has_reorder) chain(p.reorder);
  vkGetPhysicalDeviceProperties2(pd, &props2);

  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceAccelerationStructureFeaturesKHR fas{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
  VkPhysicalDeviceRayTracingPipelineFeaturesKHR frt{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
  VkPhysicalDeviceRayQueryFeaturesKHR frq{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  tail = &f2.pNext;
  if (v12) chain(f12);
  if (has_as) chain(fas);
  if (has_rt) chain(frt);
  if (has_rq) chain(frq);
  vkGetPhysicalDeviceFeatures2(pd, &f2);

  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);

  DeviceInfo& i = p.info;
  i.index = index;
  i.name = p.props.deviceName;
  i.type = type_name(p.props.deviceType);
  i.vendor_id = p.props.vendorID;
  i.device_id = p.props.deviceID;
  i.api_version = version_string(p.props.apiVersion);
  if (v12) {
    i.driver_name = driver.driverName;
    i.driver_info = driver.driverInfo;
    char buf[40];
    const uint8_t* u = id.deviceUUID;
    std::snprintf(buf, sizeof buf,
                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                  u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
                  u[14], u[15]);
    i.uuid = buf;
  }
  uint32_t dv = p.props.driverVersion;
  if (p.props.vendorID == 0x10DE)
    i.driver_version = fmt::format("{}.{}.{}", dv >> 22, (dv >> 14) & 0xff, (dv >> 6) & 0xff);
  else
    i.driver_version = version_string(dv);
  i.acceleration_structure = has_as && fas.accelerationStructure;
  i.ray_tracing_pipeline = has_rt && frt.rayTracingPipeline;
  i.primitive_culling = i.ray_tracing_pipeline && frt.rayTraversalPrimitiveCulling;
  i.ray_query = has_rq && frq.rayQuery;
  i.invocation_reorder = !has_reorder ? "absent"
                         : p.reorder.rayTracingInvocationReorderReorderingHint ==
                                 VK_RAY_TRACING_INVOCATION_REORDER_MODE_REORDER_NV
                             ? "reorders"
                             : "no reordering";
  i.buffer_device_address = v12 && f12.bufferDeviceAddress;
  i.scalar_block_layout = v12 && f12.scalarBlockLayout;
  i.timeline_semaphore = v12 && f12.timelineSemaphore;
  i.shader_int64 = f2.features.shaderInt64;
  i.buffer_int64_atomics = v12 && f12.shaderBufferInt64Atomics;
  if (has_as) {
    i.max_primitive_count = p.as.maxPrimitiveCount;
    i.max_instance_count = p.as.maxInstanceCount;
    i.max_geometry_count = p.as.maxGeometryCount;
  }
  if (has_rt) {
    i.max_ray_recursion_depth = p.rt.maxRayRecursionDepth;
    i.shader_group_handle_size = p.rt.shaderGroupHandleSize;
    i.max_ray_dispatch_invocation_count = p.rt.maxRayDispatchInvocationCount;
  }
  i.timestamp_period_ns = p.props.limits.timestampPeriod;
  i.timestamps = p.props.limits.timestampComputeAndGraphics;
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      i.device_local_bytes = std::max<uint64_t>(i.device_local_bytes, mem.memoryHeaps[h].size);
  return p;
}

std::vector<VkPhysicalDevice> physical_devices(VkInstance instance) {
  uint32_t n = 0;
  vk_check(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> out(n);
  vk_check(vkEnumeratePhysicalDevices(instance, &n, out.data()), "vkEnumeratePhysicalDevices");
  return out;
}

uint32_t choose_device(const std::vector<Probe>& probes, const std::string& want) {
  if (probes.empty()) throw Error(Errc::unsupported, "the Vulkan loader found no physical device");
  auto describe = [&] {
    std::string s;
    for (auto& p : probes)
      s += fmt::format("\n  [{}] {} ({}){}", p.info.index, p.info.name, p.info.type,
                       p.info.usable() ? "" : ": lacks " + p.info.missing());
    return s;
  };
  if (!want.empty()) {
    bool numeric = std::all_of(want.begin(), want.end(),
                               [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    for (auto& p : probes) {
      bool match = numeric ? std::to_string(p.info.index) == want
                           : lower(p.info.name).find(lower(want)) != std::string::npos;
      if (!match) continue;
      if (!p.info.usable())
        throw Error(Errc::unsupported, fmt::format("device '{}' cannot run raydb: it lacks {}",
                                                   p.info.name, p.info.missing()));
      return p.info.index;
    }
    throw Error(Errc::invalid_argument,
                fmt::format("no Vulkan device matches '{}'; devices:{}", want, describe()));
  }
  int best = -1;
  for (size_t k = 0; k < probes.size(); ++k) {
    if (!probes[k].info.usable()) continue;
    if (best < 0) {
      best = static_cast<int>(k);
      continue;
    }
    auto& a = probes[k];
    auto& b = probes[best];
    int ra = type_rank(a.props.deviceType), rb = type_rank(b.props.deviceType);
    if (ra > rb || (ra == rb && a.info.device_local_bytes > b.info.device_local_bytes))
      best = static_cast<int>(k);
  }
  if (best < 0)
    throw Error(
        Errc::unsupported,
        "no Vulkan device supports ray tracing (acceleration structures with ray queries or a "
        "ray-tracing pipeline); devices:" +
            describe() +
            "\n(on a machine without a GPU, install Mesa >= 25 lavapipe: tools/setup.sh)");
  return probes[best].info.index;
}

}  // namespace raydb::detail
