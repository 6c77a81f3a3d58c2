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

// A bare instance of the host's own (Vulkan 1.2, no layer) and the physical device the tests'
// shared Context runs on (the same device the test context chose).
struct HostInstance {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  static constexpr uint32_t api_version = VK_API_VERSION_1_2;

  HostInstance() {
    REQUIRE(volkInitialize() == VK_SUCCESS);
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = api_version;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    REQUIRE(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
    volkLoadInstanceOnly(instance);
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(instance, &n, devices.data());
    for (auto d : devices) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      if (test::context().device().name == p.deviceName) physical = d;
    }
    REQUIRE(physical != VK_NULL_HANDLE);
  }
  ~HostInstance() {
    if (instance) vkDestroyInstance(instance, nullptr);
  }
  HostInstance(const HostInstance&) = delete;
  HostInstance& operator=(const HostInstance&) = delete;
};

// The host side, written as an application would: its own instance and device with the
// extensions and features raydb asks for (DeviceFeatureChain).
struct HostApp : HostInstance {
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;

  HostApp() {
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, qf.data());
    while (family < nq && !(qf[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
    REQUIRE(family < nq);

    // The typed chain: raydb's extensions and feature structures for the test context's traversal.
    auto chain = DeviceFeatureChain::query(instance, physical, vkGetInstanceProcAddr,
                                           test::context().traversal());
    REQUIRE_MESSAGE(chain.ok(), std::string(chain.ok() ? "" : chain.error().what()));
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    std::vector<const char*> exts;
    chain->fill(dci, exts);
    REQUIRE(vkCreateDevice(physical, &dci, nullptr, &device) == VK_SUCCESS);
    auto get_queue =
        reinterpret_cast<PFN_vkGetDeviceQueue>(vkGetDeviceProcAddr(device, "vkGetDeviceQueue"));
    get_queue(device, family, 0, &queue);
  }
  ~HostApp() {  // the device before the instance (~HostInstance)
    if (device)
      reinterpret_cast<PFN_vkDestroyDevice>(vkGetDeviceProcAddr(device, "vkDestroyDevice"))(
          device, nullptr);
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
    REQUIRE_MESSAGE(ctx.ok(), std::string(ctx.ok() ? "" : ctx.error().what()));
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
  HostInstance host;
  const VkInstance instance = host.instance;
  const VkPhysicalDevice physical = host.physical;

  auto chain = DeviceFeatureChain::query(instance, physical, vkGetInstanceProcAddr,
                                         test::context().traversal());
  REQUIRE_MESSAGE(chain.ok(), std::string(chain.ok() ? "" : chain.error().what()));
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
    auto ctx = Context::adopt(chain->host(instance, physical, device, queue, family,
                                          host.api_version, vkGetInstanceProcAddr),
                              o);
    REQUIRE_MESSAGE(ctx.ok(), std::string(ctx.ok() ? "" : ctx.error().what()));
    std::vector<uint32_t> keys = {9, 3, 3, 0xFFFFFFFFu, 1u << 24, (1u << 24) + 1};
    std::vector<uint32_t> values = {1, 2, 3, 4, 5, 6};
    auto index = RxIndex::build(*ctx, keys, values).value();
    std::vector<uint32_t> probes = {3, 9, 4, 0xFFFFFFFFu, (1u << 24) + 1, 1u << 24, 0};
    RxReference ref(keys, values);
    test::check_lookups(index.lookup(probes).value(), ref.lookup(probes), "DeviceFeatureChain");
  }
  reinterpret_cast<PFN_vkDestroyDevice>(vkGetDeviceProcAddr(device, "vkDestroyDevice"))(device,
                                                                                        nullptr);
}

// What the chain asks for, by traversal: the traversal's own extension and feature and not the
// other's, and the CUDA interop extensions only as optional ones (never required).
TEST_CASE("context: DeviceFeatureChain asks for the traversal's extension, interop optional") {
  HostInstance host;
  const VkInstance instance = host.instance;
  const VkPhysicalDevice physical = host.physical;
  auto has = [](const std::vector<const char*>& v, const char* name) {
    for (const char* e : v)
      if (std::strcmp(e, name) == 0) return true;
    return false;
  };
  const DeviceInfo& info = test::context().device();
  for (TraversalMode mode : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    CAPTURE(to_string(mode));
    auto chain = DeviceFeatureChain::query(instance, physical, vkGetInstanceProcAddr, mode);
    const bool supported =
        mode == TraversalMode::pipeline ? info.ray_tracing_pipeline : info.ray_query;
    if (!supported) {
      REQUIRE(!chain.ok());
      CHECK(chain.error().code() == Errc::unsupported);
      continue;
    }
    REQUIRE_MESSAGE(chain.ok(), std::string(chain.ok() ? "" : chain.error().what()));
    const bool pipeline = mode == TraversalMode::pipeline;
    CHECK(chain->traversal == mode);
    CHECK(has(chain->extensions, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME));
    CHECK(has(chain->extensions, VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME));
    CHECK(has(chain->extensions, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME) == pipeline);
    CHECK(has(chain->extensions, VK_KHR_RAY_QUERY_EXTENSION_NAME) == !pipeline);
    CHECK((chain->ray_tracing_pipeline.rayTracingPipeline == VK_TRUE) == pipeline);
    CHECK((chain->ray_query.rayQuery == VK_TRUE) == !pipeline);
    CHECK(chain->features2.features.shaderInt64 == VK_TRUE);
    CHECK(chain->vulkan12.bufferDeviceAddress == VK_TRUE);
    CHECK(chain->vulkan12.scalarBlockLayout == VK_TRUE);
    CHECK(chain->acceleration_structure.accelerationStructure == VK_TRUE);
    // Primitive culling only ever with pipelines, and only where the device has it.
    if (!pipeline) CHECK(chain->ray_tracing_pipeline.rayTraversalPrimitiveCulling == VK_FALSE);
    if (pipeline)
      CHECK((chain->ray_tracing_pipeline.rayTraversalPrimitiveCulling == VK_TRUE) ==
            info.primitive_culling);
    // The interop extensions: in the chain exactly when the device has them, always optional.
    for (const char* ext :
         {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME}) {
      CAPTURE(ext);
      const bool device_has = std::strcmp(ext, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) == 0
                                  ? info.external_memory_fd
                                  : info.external_semaphore_fd;
      CHECK(has(chain->extensions, ext) == device_has);
      bool optional = false;
      for (const auto& o : chain->optional_extensions) optional = optional || o == ext;
      CHECK(optional == device_has);
    }
    CHECK(chain->extensions.size() == 3 + chain->optional_extensions.size());
  }
}
