// A host application that owns its Vulkan instance and device hands them to raydb.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "backend/vk/vk_common.hpp"
#include "raydb/context.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/vulkan_device.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

// The host side, written as an application would: its own instance and device with the
// extensions and features raydb asks for (Context::requirements).
struct HostApp {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;

  HostApp() {
    REQUIRE(volkInitialize() == VK_SUCCESS);
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
    volkLoadInstanceOnly(instance);
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(instance, &n, devices.data());
    // The same device the test context chose.
    for (auto d : devices) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      if (test::context().device().name == p.deviceName) physical = d;
    }
    REQUIRE(physical != VK_NULL_HANDLE);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, qf.data());
    while (family < nq && !(qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    REQUIRE(family < nq);

    TraversalMode mode = test::context().traversal();
    auto req = Context::requirements(mode);
    std::vector<const char*> exts;
    for (auto& e : req.extensions) exts.push_back(e.c_str());
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.features.shaderInt64 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.bufferDeviceAddress = VK_TRUE;
    f12.scalarBlockLayout = VK_TRUE;
    VkPhysicalDeviceAccelerationStructureFeaturesKHR fas{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    fas.accelerationStructure = VK_TRUE;
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR frt{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    frt.rayTracingPipeline = VK_TRUE;
    VkPhysicalDeviceRayQueryFeaturesKHR frq{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
    frq.rayQuery = VK_TRUE;
    f2.pNext = &f12;
    f12.pNext = &fas;
    fas.pNext =
        mode == TraversalMode::pipeline ? static_cast<void*>(&frt) : static_cast<void*>(&frq);
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &f2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    dci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
    dci.ppEnabledExtensionNames = exts.data();
    REQUIRE(vkCreateDevice(physical, &dci, nullptr, &device) == VK_SUCCESS);
    auto get_queue =
        reinterpret_cast<PFN_vkGetDeviceQueue>(vkGetDeviceProcAddr(device, "vkGetDeviceQueue"));
    get_queue(device, family, 0, &queue);
  }
  ~HostApp() {
    if (device)
      reinterpret_cast<PFN_vkDestroyDevice>(vkGetDeviceProcAddr(device, "vkDestroyDevice"))(
          device, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }
};

}  // namespace

TEST_CASE("context: adopting a host application's device gives exact lookups") {
  HostApp host;
  {
    HostVulkan h;
    h.instance = host.instance;
    h.physical_device = host.physical;
    h.device = host.device;
    h.queue = host.queue;
    h.queue_family_index = host.family;
    h.api_version = VK_API_VERSION_1_2;
    ContextOptions o;
    o.traversal = test::context().traversal();
    auto ctx = Context::adopt(h, o);
    REQUIRE_MESSAGE(ctx.ok(), (ctx.ok() ? "" : ctx.error().what()));
    CHECK(ctx->device().name == test::context().device().name);
    std::vector<uint64_t> keys = {5, 1ull << 40, 7, 7, ~0ull};
    std::vector<uint32_t> values = {1, 2, 3, 4, 5};
    auto index = RxIndex::build(*ctx, keys, values).value();
    std::vector<uint64_t> probes = {7, 5, 6, ~0ull, 1ull << 40};
    RxReference ref(keys, values);
    test::check_lookups(index.lookup(probes).value(), ref.lookup(probes), "adopted device");
  }  // raydb's objects go first; the host still owns and destroys its device

  HostVulkan bad;
  auto refused = Context::adopt(bad);
  REQUIRE(!refused.ok());
  CHECK(refused.error().code() == Errc::invalid_argument);
}

// The typed helper: a host that chains structures of its own (here a
// VkPhysicalDeviceVulkan12Features with a feature raydb does not need) gets raydb's features merged
// into them, not duplicated.
TEST_CASE("context: DeviceFeatureChain enables what adopt needs, merged into the host's chain") {
  REQUIRE(volkInitialize() == VK_SUCCESS);
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
  volkLoadInstanceOnly(instance);
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  for (auto d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (test::context().device().name == p.deviceName) physical = d;
  }
  REQUIRE(physical != VK_NULL_HANDLE);

  auto chain = DeviceFeatureChain::query(instance, physical, vkGetInstanceProcAddr,
                                         test::context().traversal());
  REQUIRE_MESSAGE(chain.ok(), (chain.ok() ? "" : chain.error().what()));
  CHECK(chain->traversal == test::context().traversal());

  uint32_t nq = 0, family = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, qf.data());
  while (family < nq && !(qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  REQUIRE(family < nq);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features host12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  host12.hostQueryReset = VK_TRUE;  // the host's own wish
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.pNext = &host12;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qi;
  std::vector<const char*> extensions;
  chain->fill(dci, extensions);
  // One Vulkan12Features in the chain: the host's, with raydb's features OR-ed in.
  int count12 = 0;
  for (auto* s = static_cast<const VkBaseInStructure*>(dci.pNext); s; s = s->pNext)
    count12 += s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  CHECK(count12 == 1);
  CHECK(host12.hostQueryReset == VK_TRUE);
  CHECK(host12.bufferDeviceAddress == VK_TRUE);
  CHECK(host12.scalarBlockLayout == VK_TRUE);

  VkDevice device = VK_NULL_HANDLE;
  REQUIRE(vkCreateDevice(physical, &dci, nullptr, &device) == VK_SUCCESS);
  auto get_queue =
      reinterpret_cast<PFN_vkGetDeviceQueue>(vkGetDeviceProcAddr(device, "vkGetDeviceQueue"));
  VkQueue queue = VK_NULL_HANDLE;
  get_queue(device, family, 0, &queue);
  {
    ContextOptions o;
    o.traversal = chain->traversal;
    auto ctx = Context::adopt(chain->host(instance, physical, device, queue, family, app.apiVersion,
                                          vkGetInstanceProcAddr),
                              o);
    REQUIRE_MESSAGE(ctx.ok(), (ctx.ok() ? "" : ctx.error().what()));
    std::vector<uint32_t> keys = {9, 3, 3, 0xFFFFFFFFu, 1u << 24, (1u << 24) + 1};
    std::vector<uint32_t> values = {1, 2, 3, 4, 5, 6};
    auto index = RxIndex::build(*ctx, keys, values).value();
    std::vector<uint32_t> probes = {3, 9, 4, 0xFFFFFFFFu, (1u << 24) + 1, 1u << 24, 0};
    RxReference ref(keys, values);
    test::check_lookups(index.lookup(probes).value(), ref.lookup(probes), "DeviceFeatureChain");
  }
  reinterpret_cast<PFN_vkDestroyDevice>(vkGetDeviceProcAddr(device, "vkDestroyDevice"))(device,
                                                                                        nullptr);
  vkDestroyInstance(instance, nullptr);
}
