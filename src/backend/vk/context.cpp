// Creating, adopting and describing Vulkan devices for raydb.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/context_setup.hpp"
#include "common/capture.hpp"

namespace raydb {

const char* to_string(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
      return "invalid argument";
    case Errc::unsupported:
      return "unsupported";
    case Errc::out_of_memory:
      return "out of memory";
    case Errc::device_lost:
      return "device lost";
    case Errc::limit_exceeded:
      return "limit exceeded";
    case Errc::output_too_small:
      return "output too small";
    case Errc::io:
      return "I/O error";
    case Errc::vulkan:
      return "Vulkan error";
    case Errc::cuda:
      return "CUDA error";
    case Errc::internal:
      return "internal error";
  }
  return "unknown error";
}

const char* to_string(TraversalMode mode) {
  switch (mode) {
    case TraversalMode::automatic:
      return "automatic";
    case TraversalMode::pipeline:
      return "pipeline";
    case TraversalMode::ray_query:
      return "ray_query";
  }
  return "?";
}

Result<TraversalMode> parse_traversal_mode(std::string_view text) {
  if (text == "auto" || text == "automatic") return TraversalMode::automatic;
  if (text == "pipeline") return TraversalMode::pipeline;
  if (text == "ray_query" || text == "query" || text == "rayquery") return TraversalMode::ray_query;
  return Error(
      Errc::invalid_argument,
      fmt::format("unknown traversal mode '{}' (expected auto, pipeline or ray_query)", text));
}

bool DeviceInfo::usable() const {
  return missing().empty();
}

std::string DeviceInfo::missing() const {
  std::vector<std::string> what;
  if (!acceleration_structure) what.push_back("VK_KHR_acceleration_structure");
  if (!ray_tracing_pipeline && !ray_query)
    what.push_back("VK_KHR_ray_tracing_pipeline or VK_KHR_ray_query");
  if (!buffer_device_address) what.push_back("bufferDeviceAddress");
  if (!shader_int64) what.push_back("shaderInt64");
  if (!scalar_block_layout) what.push_back("scalarBlockLayout");
  std::string out;
  for (auto& w : what) out += (out.empty() ? "" : ", ") + w;
  return out;
}

namespace detail {

namespace {

// RAYDB_VALIDATION=1 (or true, on): one of the four variables the library reads.
bool validation_env() {
  const char* v = std::getenv("RAYDB_VALIDATION");
  return v && (std::strcmp(v, "1") == 0 || lower(v) == "true" || lower(v) == "on");
}

void create_allocator(VkContext& c) {
  VmaVulkanFunctions fns{};
  fns.vkGetInstanceProcAddr = vkGetInstanceProcAddr;
  fns.vkGetDeviceProcAddr = vkGetDeviceProcAddr;
  VmaAllocatorCreateInfo ci{};
  ci.flags = VMA_ALLOCATOR_CREATE_BUFFER_DEVICE_ADDRESS_BIT;
  ci.physicalDevice = c.physical_device;
  ci.device = c.device;
  ci.instance = c.instance;
  ci.vulkanApiVersion = VK_API_VERSION_1_2;
  ci.pVulkanFunctions = &fns;
  vk_check(vmaCreateAllocator(&ci, &c.allocator), "vmaCreateAllocator");
}

void create_command_pool(VkContext& c) {
  VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  ci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  ci.queueFamilyIndex = c.queue_family;
  vk_check(c.vk.vkCreateCommandPool(c.device, &ci, nullptr, &c.command_pool),
           "vkCreateCommandPool");
  if (!c.has_copy_queues()) return;
  ci.queueFamilyIndex = c.copy_family;
  vk_check(c.vk.vkCreateCommandPool(c.device, &ci, nullptr, &c.copy_pool),
           "vkCreateCommandPool (copy queues)");
}

void fill_probe(VkContext& c) {
  auto devices = physical_devices(c.instance);
  for (uint32_t k = 0; k < devices.size(); ++k) {
    if (devices[k] != c.physical_device) continue;
    Probe p = probe_device(devices[k], k);
    c.info = p.info;
    c.properties = p.props;
    c.as_properties = p.as;
    c.rt_properties = p.rt;
    return;
  }
  Probe p = probe_device(c.physical_device, 0);
  c.info = p.info;
  c.properties = p.props;
  c.as_properties = p.as;
  c.rt_properties = p.rt;
}

void read_queue_family(VkContext& c) {
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical_device, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical_device, &nq, qf.data());
  if (c.queue_family >= nq)
    throw Error(Errc::invalid_argument,
                fmt::format("queue family {} does not exist on '{}'", c.queue_family, c.info.name));
  if (!(qf[c.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT))
    throw Error(Errc::invalid_argument,
                fmt::format("queue family {} has no compute support", c.queue_family));
  c.timestamp_valid_bits = qf[c.queue_family].timestampValidBits;
}

Backend pick_backend(Backend asked) {
  if (asked == Backend::automatic)
    if (const char* env = std::getenv("RAYDB_BACKEND"); env && *env)
      return parse_backend(env).value();
  return asked;
}

TraversalMode pick_mode(const VkContext& c, TraversalMode asked) {
  if (asked == TraversalMode::automatic) {
    if (const char* env = std::getenv("RAYDB_TRAVERSAL"); env && *env)
      asked = parse_traversal_mode(env).value();
  }
  return c.resolve(asked);
}

}  // namespace

void VkContext::track_allocation(int64_t delta) {
  uint64_t now =
      allocated_bytes.fetch_add(static_cast<uint64_t>(delta)) + static_cast<uint64_t>(delta);
  uint64_t peak = peak_bytes.load();
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
  }
}

void VkContext::set_name(VkObjectType type, uint64_t handle, const std::string& name) const {
  if (!debug_utils || !set_object_name) return;
  VkDebugUtilsObjectNameInfoEXT ni{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
  ni.objectType = type;
  ni.objectHandle = handle;
  ni.pObjectName = name.c_str();
  set_object_name(device, &ni);
}

bool VkContext::supports(TraversalMode mode) const {
  switch (mode) {
    case TraversalMode::pipeline:
      return info.ray_tracing_pipeline;
    case TraversalMode::ray_query:
      return info.ray_query;
    case TraversalMode::automatic:
      return info.ray_tracing_pipeline || info.ray_query;
  }
  return false;
}

TraversalMode VkContext::resolve(TraversalMode mode) const {
  if (mode == TraversalMode::automatic) return traversal;
  if (!supports(mode))
    throw Error(
        Errc::unsupported,
        fmt::format(
            "device '{}' has no {} (it offers: {}{})", info.name,
            mode == TraversalMode::pipeline ? "VK_KHR_ray_tracing_pipeline" : "VK_KHR_ray_query",
            info.ray_tracing_pipeline ? "pipeline " : "", info.ray_query ? "ray_query" : ""));
  return mode;
}

VkContext::~VkContext() {
  if (device) vk.vkDeviceWaitIdle(device);
  release_queue.reset();  // frees what is queued, while CUDA and the allocator are still there
  spares.reset();
  lookup_slots.reset();
  upload_ring.reset();
  optix.reset();
  cuda.reset();
  kernel_cache.clear();
  tlas_pipeline_cache.clear();
  for (auto [cmd, fence] : spare_batches) {
    vk.vkDestroyFence(device, fence, nullptr);
    vk.vkFreeCommandBuffers(device, command_pool, 1, &cmd);
  }
  spare_batches.clear();
  if (command_pool) vk.vkDestroyCommandPool(device, command_pool, nullptr);
  if (copy_pool) vk.vkDestroyCommandPool(device, copy_pool, nullptr);
  if (allocator) vmaDestroyAllocator(allocator);
  if (!owns_device) return;
  if (device) vk.vkDestroyDevice(device, nullptr);
  if (messenger) destroy_messenger(instance, messenger, nullptr);
  if (instance) destroy_instance(instance, nullptr);
}

static void create_device(VkContext& c) {
  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical_device, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> qf(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical_device, &nq, qf.data());
  bool found = false;
  for (uint32_t k = 0; k < nq && !found; ++k)
    if (qf[k].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      c.queue_family = k;
      found = true;
    }
  if (!found)
    throw Error(Errc::unsupported, fmt::format("device '{}' has no compute queue", c.info.name));
  // A transfer-only family is the copy engines: copies there run beside the kernels.
  constexpr VkQueueFlags kNotCopyOnly = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (uint32_t k = 0; k < nq && c.copy_family == ~0u; ++k)
    if ((qf[k].queueFlags & VK_QUEUE_TRANSFER_BIT) && !(qf[k].queueFlags & kNotCopyOnly) &&
        qf[k].timestampValidBits > 0)
      c.copy_family = k;

  std::vector<const char*> exts = {VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME,
                                   VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME};
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
  frt.rayTraversalPrimitiveCulling = c.info.primitive_culling ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceRayQueryFeaturesKHR frq{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
  frq.rayQuery = VK_TRUE;
  f2.pNext = &f12;
  f12.pNext = &fas;
  void** tail = &fas.pNext;
  // Both traversal modes are enabled when present, so one context can run either.
  if (c.info.ray_tracing_pipeline) {
    exts.push_back(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
    *tail = &frt;
    tail = &frt.pNext;
  }
  if (c.info.ray_query) {
    exts.push_back(VK_KHR_RAY_QUERY_EXTENSION_NAME);
    *tail = &frq;
    tail = &frq.pNext;
  }
  // Optional: sharing with CUDA. Their dependencies (external memory / semaphore) are core in 1.1.
  c.external_memory_fd = c.info.external_memory_fd;
  c.external_semaphore_fd = c.info.external_semaphore_fd;
  c.timeline_semaphore = c.info.timeline_semaphore;
  c.primitive_culling = c.info.primitive_culling;
  if (c.external_memory_fd) exts.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  if (c.external_semaphore_fd) exts.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
  f12.timelineSemaphore = c.timeline_semaphore ? VK_TRUE : VK_FALSE;
  f12.shaderBufferInt64Atomics = c.info.buffer_int64_atomics ? VK_TRUE : VK_FALSE;
  {
    VkPhysicalDeviceVulkan12Features have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 all{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    all.pNext = &have;
    vkGetPhysicalDeviceFeatures2(c.physical_device, &all);
    c.host_query_reset = have.hostQueryReset == VK_TRUE;
    f12.hostQueryReset = have.hostQueryReset;
  }
  const float priorities[2] = {1.0f, 1.0f};
  VkDeviceQueueCreateInfo qi[2] = {{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO},
                                   {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}};
  qi[0].queueFamilyIndex = c.queue_family;
  qi[0].queueCount = 1;
  qi[0].pQueuePriorities = priorities;
  const uint32_t copy_count =
      c.copy_family == ~0u ? 0 : std::min<uint32_t>(2, qf[c.copy_family].queueCount);
  qi[1].queueFamilyIndex = c.copy_family;
  qi[1].queueCount = copy_count;
  qi[1].pQueuePriorities = priorities;
  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &f2;
  ci.queueCreateInfoCount = copy_count > 0 ? 2 : 1;
  ci.pQueueCreateInfos = qi;
  ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  ci.ppEnabledExtensionNames = exts.data();
  vk_check(vkCreateDevice(c.physical_device, &ci, nullptr, &c.device), "vkCreateDevice");
  volkLoadDeviceTable(&c.vk, c.device);
  c.vk.vkGetDeviceQueue(c.device, c.queue_family, 0, &c.queue);
  for (uint32_t k = 0; k < 2 && copy_count > 0; ++k)
    c.vk.vkGetDeviceQueue(c.device, c.copy_family, std::min(k, copy_count - 1), &c.copy_queues[k]);
  if (copy_count > 0) c.copy_timestamp_bits = qf[c.copy_family].timestampValidBits;
  read_queue_family(c);
}

static TraversalMode default_mode(const DeviceInfo& info) {
  return info.ray_tracing_pipeline ? TraversalMode::pipeline : TraversalMode::ray_query;
}

}  // namespace detail

using namespace detail;

Result<Context> Context::create(const ContextOptions& options) {
  return capture([&]() -> Context {
    init_loader(nullptr);
    auto c = std::make_shared<VkContext>();
    c->on_validation_message = options.on_validation_message;
    c->backend = pick_backend(options.backend);
    create_instance(*c, options.validation || validation_env());
    auto devices = physical_devices(c->instance);
    std::vector<Probe> probes;
    for (uint32_t k = 0; k < devices.size(); ++k) probes.push_back(probe_device(devices[k], k));
    std::string want = options.device;
    if (want.empty())
      if (const char* env = std::getenv("RAYDB_DEVICE")) want = env;
    uint32_t chosen = choose_device(probes, want);
    c->physical_device = devices[chosen];
    c->info = probes[chosen].info;
    c->properties = probes[chosen].props;
    c->as_properties = probes[chosen].as;
    c->rt_properties = probes[chosen].rt;
    c->traversal = default_mode(c->info);
    c->traversal = pick_mode(*c, options.traversal);
    create_device(*c);
    create_allocator(*c);
    create_command_pool(*c);
    c->memory_budget = options.memory_budget_bytes;
    c->diagnostics = options.diagnostics;
    return Context(std::move(c));
  });
}

Result<Context> Context::adopt(const HostVulkan& host, const ContextOptions& options) {
  return capture([&]() -> Context {
    if (!host.instance || !host.physical_device || !host.device || !host.queue)
      throw Error(Errc::invalid_argument,
                  "HostVulkan needs instance, physical_device, device and queue");
    if (host.api_version < VK_API_VERSION_1_2)
      throw Error(Errc::unsupported, "the host's instance must be created with apiVersion >= 1.2");
    init_loader(host.get_instance_proc_addr);
    auto c = std::make_shared<VkContext>();
    c->owns_device = false;
    c->instance = host.instance;
    volkLoadInstanceOnly(c->instance);
    load_instance_functions(*c);
    c->physical_device = host.physical_device;
    c->device = host.device;
    c->queue = host.queue;
    c->queue_family = host.queue_family_index;
    c->on_validation_message = options.on_validation_message;
    c->backend = pick_backend(options.backend);
    fill_probe(*c);
    if (!c->info.usable())
      throw Error(Errc::unsupported, fmt::format("device '{}' cannot run raydb: it lacks {}",
                                                 c->info.name, c->info.missing()));
    c->traversal = default_mode(c->info);
    c->traversal = pick_mode(*c, options.traversal);
    auto enabled = [&host](const char* name) {
      return std::find(host.enabled_optional_extensions.begin(),
                       host.enabled_optional_extensions.end(),
                       name) != host.enabled_optional_extensions.end();
    };
    c->external_memory_fd =
        c->info.external_memory_fd && enabled(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    c->external_semaphore_fd =
        c->info.external_semaphore_fd && enabled(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    c->timeline_semaphore = c->info.timeline_semaphore && host.timeline_semaphore;
    c->primitive_culling = c->info.primitive_culling && host.primitive_culling;
    read_queue_family(*c);
    volkLoadDeviceTable(&c->vk, c->device);
    create_allocator(*c);
    create_command_pool(*c);
    c->memory_budget = options.memory_budget_bytes;
    c->diagnostics = options.diagnostics;
    return Context(std::move(c));
  });
}

Result<std::vector<DeviceInfo>> Context::list_devices() {
  return capture([&]() -> std::vector<DeviceInfo> {
    init_loader(nullptr);
    VkContext tmp;
    create_instance(tmp, false);
    std::vector<DeviceInfo> out;
    auto devices = physical_devices(tmp.instance);
    for (uint32_t k = 0; k < devices.size(); ++k) out.push_back(probe_device(devices[k], k).info);
    return out;
  });
}

const DeviceInfo& Context::device() const {
  return impl_->info;
}
TraversalMode Context::traversal() const {
  return impl_->traversal;
}
uint64_t Context::validation_messages() const {
  return impl_->validation_messages.load();
}
uint64_t Context::allocated_bytes() const {
  return impl_->allocated_bytes.load();
}

}  // namespace raydb
