// A Vulkan application that owns its instance, device and queue (plain Vulkan, the system
// loader) and hands them to raydb: raydb::DeviceFeatureChain enables what raydb needs in a few
// lines, Context::adopt uses the device without creating or destroying anything of the host's.
// The validation layer is on when present; any warning or error it reports fails the run.
#include <vulkan/vulkan.h>
#include <raydb/context.hpp>
#include <raydb/rx_index.hpp>
#include <raydb/vulkan_device.hpp>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

uint32_t validation_messages = 0;

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                          VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
  if (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT) {
    ++validation_messages;
    std::fprintf(stderr, "validation: %s\n", data->pMessage);
  }
  return VK_FALSE;
}

bool has_layer(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

#define CHECK_VK(call)                                                 \
  do {                                                                 \
    VkResult r_ = (call);                                              \
    if (r_ != VK_SUCCESS) {                                            \
      std::fprintf(stderr, "vulkan_app: %s failed (%d)\n", #call, r_); \
      return 1;                                                        \
    }                                                                  \
  } while (0)

}  // namespace

int main() {
  // The application's instance: Vulkan 1.2, with the validation layer where installed.
  const bool validate = has_layer("VK_LAYER_KHRONOS_validation");
  const char* layer = "VK_LAYER_KHRONOS_validation";
  const char* debug_ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkDebugUtilsMessengerCreateInfoEXT messenger_info{
      VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = on_message;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (validate) {
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &layer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &debug_ext;
    ici.pNext = &messenger_info;  // also watches instance creation and destruction
  }
  VkInstance instance;
  CHECK_VK(vkCreateInstance(&ici, nullptr, &instance));
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  if (validate) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    CHECK_VK(create(instance, &messenger_info, nullptr, &messenger));
  }

  // The first device raydb can run on, and a compute queue on it.
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  raydb::DeviceFeatureChain chain;
  for (VkPhysicalDevice d : devices) {
    auto c = raydb::DeviceFeatureChain::query(instance, d, vkGetInstanceProcAddr);
    if (c.ok()) {
      physical = d;
      chain = c.value();
      break;
    }
    std::fprintf(stderr, "vulkan_app: skipping a device: %s\n", c.error().what());
  }
  if (!physical) {
    std::fprintf(stderr, "vulkan_app: no device with ray tracing\n");
    return 1;
  }
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> families(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, families.data());
  uint32_t family = 0;
  while (family < nq && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
  if (family == nq) {
    std::fprintf(stderr, "vulkan_app: no compute queue\n");
    return 1;
  }

  // The application's device: its own queue, plus what raydb needs, merged in by the chain.
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qi;
  std::vector<const char*> extensions;  // the application's own would go here
  chain.fill(dci, extensions);
  VkDevice device;
  CHECK_VK(vkCreateDevice(physical, &dci, nullptr, &device));
  VkQueue queue;
  vkGetDeviceQueue(device, family, 0, &queue);

  int wrong = 0;
  {
    // raydb on the application's device: its objects go before the device does.
    raydb::Context ctx = raydb::Context::adopt(chain.host(instance, physical, device, queue, family,
                                                          app.apiVersion, vkGetInstanceProcAddr))
                             .value();
    std::printf("raydb adopted %s (%s traversal)\n", ctx.device().name.c_str(),
                raydb::to_string(ctx.traversal()));
    std::vector<uint32_t> keys;
    for (uint32_t i = 0; i < 4096; ++i) keys.push_back(i * 7919u % 10007u);
    raydb::RxIndex index = raydb::RxIndex::build(ctx, keys).value();
    std::vector<uint32_t> queries = {0, 7919, 5, 10006, 123456};
    std::vector<raydb::RxLookup> found = index.lookup(queries).value();
    for (size_t q = 0; q < queries.size(); ++q) {
      raydb::RxLookup expect;
      for (uint32_t row = 0; row < keys.size(); ++row)
        if (keys[row] == queries[q]) {
          if (!expect.hit()) expect.first_row = row;
          ++expect.count;
        }
      std::printf("key %u: %u rows\n", queries[q], found[q].count);
      wrong += found[q] != expect;
    }
  }
  vkDeviceWaitIdle(device);
  vkDestroyDevice(device, nullptr);
  if (messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy(instance, messenger, nullptr);
  }
  vkDestroyInstance(instance, nullptr);
  if (wrong) std::fprintf(stderr, "vulkan_app: %d lookups differ from the loop\n", wrong);
  if (validation_messages)
    std::fprintf(stderr, "vulkan_app: %u validation messages\n", validation_messages);
  if (!validate) std::printf("(the validation layer is not installed: not checked)\n");
  return wrong || validation_messages ? 1 : 0;
}
