// A Vulkan application that owns its instance, device and queue (plain Vulkan, the system
// loader) and hands them to raydb: raydb::DeviceFeatureChain enables what raydb needs in a few
// lines, Context::adopt uses the device without creating or destroying anything of the host's.
// Its data never leaves the GPU (raydb/device_buffers.hpp): its own compute shader (app.comp,
// compiled by glslc at build time) writes the keys, values and queries into its own buffers;
// raydb builds an RxIndex from them, ordered by the application's timeline semaphore, and records
// the lookups into the application's command buffer, writing its result buffer; the same shader
// then sums the results on the GPU, and only that 16-byte summary is copied to the host and
// checked against what the keys imply. The validation layer is on when present; any warning or
// error it reports fails the run.
#include <vulkan/vulkan.h>
#include <raydb/context.hpp>
#include <raydb/device_buffers.hpp>
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

// The application's compute shader (app.comp), compiled by glslc when the example is built.
const uint32_t kAppShader[] =
#include "app.spv.h"
    ;

constexpr uint32_t kKeys = 16384;     // rows 0 .. n-1; keys i * 7919 % 10007
constexpr uint32_t kQueries = 12000;  // keys 0 .. m-1: 10007 hit, the rest miss

struct AppBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  VkBufferUsageFlags usage = 0;
  void* mapped = nullptr;
  // The raydb view of `count` elements from the start.
  raydb::DeviceSpan span(uint64_t count) const { return {buffer, size, usage, 0, count}; }
};

// What the application does with its device: its buffers, its shader, and raydb in between.
struct App {
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t family;
  std::vector<AppBuffer> owned;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkSemaphore timeline = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;

  struct Push {
    VkDeviceAddress keys, values, queries, results, summary;
    uint32_t n, m, mode;
  };

  ~App() {
    vkDestroyFence(device, fence, nullptr);
    vkDestroySemaphore(device, timeline, nullptr);
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyShaderModule(device, module, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    for (AppBuffer& b : owned) {
      vkDestroyBuffer(device, b.buffer, nullptr);
      vkFreeMemory(device, b.memory, nullptr);
    }
  }

  AppBuffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
    AppBuffer b;
    b.size = size;
    b.usage = usage;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = size;
    bi.usage = usage;
    vkCreateBuffer(device, &bi, nullptr, &b.buffer);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(physical, &props);
    VkMemoryPropertyFlags want =
        host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                     : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = 0;
    while (type < props.memoryTypeCount &&
           !(((req.memoryTypeBits >> type) & 1) &&
             (props.memoryTypes[type].propertyFlags & want) == want))
      ++type;
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &flags;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    vkAllocateMemory(device, &ai, nullptr, &b.memory);
    vkBindBufferMemory(device, b.buffer, b.memory, 0);
    if (host_visible) vkMapMemory(device, b.memory, 0, size, 0, &b.mapped);
    owned.push_back(b);
    return b;
  }

  VkDeviceAddress address(const AppBuffer& b) const {
    VkBufferDeviceAddressInfo info{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    info.buffer = b.buffer;
    return vkGetBufferDeviceAddress(device, &info);
  }

  VkCommandBuffer begin() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    vkAllocateCommandBuffers(device, &ai, &cmd);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cmd, &bi);
    return cmd;
  }

  void dispatch(VkCommandBuffer cmd, const Push& push, uint32_t items) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatch(cmd, (items + 63) / 64, 1, 1);
  }

  int run(const raydb::Context& ctx) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = family;
    CHECK_VK(vkCreateCommandPool(device, &pi, nullptr, &pool));
    VkShaderModuleCreateInfo si{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    si.codeSize = sizeof kAppShader;
    si.pCode = kAppShader;
    CHECK_VK(vkCreateShaderModule(device, &si, nullptr, &module));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
    VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.pushConstantRangeCount = 1;
    li.pPushConstantRanges = &range;
    CHECK_VK(vkCreatePipelineLayout(device, &li, nullptr, &layout));
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = "main";
    ci.layout = layout;
    CHECK_VK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline));
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    sci.pNext = &type;
    CHECK_VK(vkCreateSemaphore(device, &sci, nullptr, &timeline));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    CHECK_VK(vkCreateFence(device, &fi, nullptr, &fence));

    // Keys and values go to raydb's build by copy; queries and results by device address.
    const VkBufferUsageFlags by_address = VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    const VkBufferUsageFlags build_input = by_address | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    AppBuffer keys = make_buffer(kKeys * 4, build_input, false);
    AppBuffer values = make_buffer(kKeys * 4, build_input, false);
    AppBuffer queries = make_buffer(kQueries * 4, by_address, false);
    AppBuffer results = make_buffer(kQueries * sizeof(raydb::RxLookup), by_address, false);
    AppBuffer summary = make_buffer(
        16, by_address | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        false);
    AppBuffer readback = make_buffer(16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    Push push{address(keys),    address(values), address(queries), address(results),
              address(summary), kKeys,           kQueries,         0};

    // 1. The application fills keys, values and queries with its shader and signals 1.
    VkCommandBuffer fill = begin();
    dispatch(fill, push, kKeys > kQueries ? kKeys : kQueries);
    vkCmdFillBuffer(fill, summary.buffer, 0, 16, 0);
    // Everything later on this queue (raydb's build, this app's summing shader) sees the writes.
    VkMemoryBarrier written{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    written.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    written.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    vkCmdPipelineBarrier(
        fill, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &written, 0, nullptr, 0, nullptr);
    CHECK_VK(vkEndCommandBuffer(fill));
    uint64_t one = 1;
    VkTimelineSemaphoreSubmitInfo ti{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ti.signalSemaphoreValueCount = 1;
    ti.pSignalSemaphoreValues = &one;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.pNext = &ti;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &fill;
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline;
    CHECK_VK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));

    // 2. raydb builds its index from those buffers once the fill has signalled 1.
    raydb::DeviceSync after_fill{{{timeline, 1}}, {}};
    auto index = raydb::rx_build(ctx, raydb::KeyWidth::bits32, keys.span(kKeys), values.span(kKeys),
                                 {}, after_fill);
    if (!index.ok()) {
      std::fprintf(stderr, "vulkan_app: rx_build: %s\n", index.error().what());
      return 1;
    }

    // 3. One command buffer of the application's: raydb's lookups, then its own shader reading
    // the results (raydb's recorded barriers order the two), then the 16-byte summary copied out.
    VkCommandBuffer work = begin();
    raydb::Status recorded =
        raydb::rx_record_lookup(*index, work, queries.span(kQueries), results.span(kQueries));
    if (!recorded.ok()) {
      std::fprintf(stderr, "vulkan_app: rx_record_lookup: %s\n", recorded.error().what());
      return 1;
    }
    push.mode = 1;
    dispatch(work, push, kQueries);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(work, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
    VkBufferCopy region{0, 0, 16};
    vkCmdCopyBuffer(work, summary.buffer, readback.buffer, 1, &region);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(work, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &barrier, 0, nullptr, 0, nullptr);
    CHECK_VK(vkEndCommandBuffer(work));
    VkSubmitInfo submit2{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit2.commandBufferCount = 1;
    submit2.pCommandBuffers = &work;
    CHECK_VK(vkQueueSubmit(queue, 1, &submit2, fence));
    CHECK_VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));

    // What the keys imply: key k < 10007 sits at rows i with i * 7919 % 10007 == k, i < n.
    uint32_t got[4];
    std::memcpy(got, readback.mapped, sizeof got);
    std::vector<uint32_t> count(10007), first(10007, 0xFFFFFFFFu), sum(10007);
    for (uint32_t i = 0; i < kKeys; ++i) {
      uint32_t k = i * 7919u % 10007u;
      ++count[k];
      if (first[k] == 0xFFFFFFFFu) first[k] = i;
      sum[k] += i;
    }
    uint32_t want[4] = {0, 0, 0, 0};
    for (uint32_t q = 0; q < kQueries && q < 10007; ++q) {
      if (!count[q]) continue;
      want[0] += 1;
      want[1] += count[q];
      want[2] += first[q];
      want[3] += sum[q];
    }
    std::printf("summary: %u of %u queries hit, %u rows, first rows sum %u, value sums %u\n",
                got[0], kQueries, got[1], got[2], got[3]);
    return std::memcmp(got, want, sizeof got) != 0;
  }
};

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

  if (!chain.vulkan12.timelineSemaphore) {
    std::fprintf(stderr, "vulkan_app: the device has no timeline semaphores\n");
    return 1;
  }

  int wrong = 0;
  {
    // raydb on the application's device: its objects go before the device does.
    raydb::Context ctx = raydb::Context::adopt(chain.host(instance, physical, device, queue, family,
                                                          app.apiVersion, vkGetInstanceProcAddr))
                             .value();
    std::printf("raydb adopted %s (%s traversal)\n", ctx.device().name.c_str(),
                raydb::to_string(ctx.traversal()));
    App a{physical, device, queue, family};
    wrong = a.run(ctx);
  }
  vkDeviceWaitIdle(device);
  vkDestroyDevice(device, nullptr);
  if (messenger) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    destroy(instance, messenger, nullptr);
  }
  vkDestroyInstance(instance, nullptr);
  if (wrong) std::fprintf(stderr, "vulkan_app: the summary differs from what the keys imply\n");
  if (validation_messages)
    std::fprintf(stderr, "vulkan_app: %u validation messages\n", validation_messages);
  if (!validate) std::printf("(the validation layer is not installed: not checked)\n");
  return wrong || validation_messages ? 1 : 0;
}
