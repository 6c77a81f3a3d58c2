// A host application that owns its Vulkan instance and device hands them to raydb.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "backend/vk/vk_common.hpp"
#include "raydb/context.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
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
