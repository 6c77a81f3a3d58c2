// What it costs to let the copy engines read and write a caller's ordinary host memory in place
// (VK_EXT_external_memory_host), against copying it through pinned slots (docs/e2e.md, issue 21).
// Standalone, no raydb; libstdc++ static so that it runs on the GPU machine's distribution:
//   g++ -O2 -std=c++20 -static-libstdc++ -static-libgcc -pthread bench/gpu/host_import_probe.cpp
//       -lvulkan -o host_import_probe
//   ./host_import_probe [--runs N] [--sizes 64,256,512,2048] [--chunk 64] [--threads 1,4,8,16]
//   (sizes in MiB)
//   (--inject no-extension|mismatch: the failure paths, on a device where they do not occur)
// On the GPU machine: bench/gpu/host_import.sh ./host_import_probe (see bench/gpu/README.md).
//
// Per size, on std::vector memory freshly touched in every run (resident, never imported), it
// imports the page-aligned range covering the vector (vkGetMemoryHostPointerPropertiesEXT,
// vkCreateBuffer, vkAllocateMemory with VkImportMemoryHostPointerInfoEXT, vkBindBufferMemory),
// copies it to a device-local buffer and back into a second imported vector (vkCmdCopyBuffer on a
// transfer-only queue if there is one, GPU timestamps and wall clock), checks the bytes whole,
// frees both, imports the same pages again after the free and while another import of them is
// alive (a `#` line says so where the driver refuses that), and does the same copies from a
// HOST_VISIBLE|HOST_COHERENT allocation. Sizes of two chunks or more are also imported chunk by
// chunk, each chunk's copy submitted before the next chunk is imported, so that imports overlap the
// copies; and imported and freed in chunks on several threads at once (--threads).
//
// Output: `name size_mib ms gbps` lines (medians over the runs; gbps = bytes / ms / 1e6, the
// vector's bytes, or the chunk's for *_chunk lines); `#` lines describe the device. A missing
// extension, memory type or queue ends it with exit status 2 and a message naming what is missing;
// a copy whose bytes differ prints MISMATCH and exits 1.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <thread>
#include <vector>

namespace {

[[noreturn]] void fail(const char* fmt, ...) {
  std::va_list args;
  va_start(args, fmt);
  std::fprintf(stderr, "host_import_probe: ");
  std::vfprintf(stderr, fmt, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  std::exit(2);
}

void check(VkResult r, const char* what) {
  if (r != VK_SUCCESS) fail("%s failed: VkResult %d", what, static_cast<int>(r));
}

// A Vulkan structure with its type and chain set, the rest zero.
template <class T>
T make(VkStructureType type, void* next = nullptr) {
  T x{};
  x.sType = type;
  x.pNext = next;
  return x;
}

// For %llu, whatever uint64_t is.
unsigned long long ull(uint64_t x) {
  return x;
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMaxRegion = uint64_t{1} << 30;

// --inject FAULT, to see the probe's own checks fire: `no-extension` treats the extension as
// absent, `mismatch` changes one downloaded byte before the comparison.
std::string g_inject;
// --threads: the thread counts of parallel_imports.
std::vector<uint64_t> g_threads = {1, 4, 8, 16};

struct Vk {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties mem{};
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  bool transfer_only = false;
  bool timestamps = false;  // the queue writes timestamps and their query pool can be reset
  bool host_reset = false;  // vkResetQueryPool (a transfer-only queue cannot reset in a command)
  uint64_t timestamp_mask = 0;
  uint64_t align = 0;  // minImportedHostPointerAlignment
  uint64_t max_alloc = 0;
  PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_props = nullptr;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
};

bool has_extension(VkPhysicalDevice p, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(p, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateDeviceExtensionProperties(p, nullptr, &n, ext.data());
  for (const auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

std::string memory_flags(VkMemoryPropertyFlags f) {
  std::string s;
  if (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) s += "DEVICE_LOCAL|";
  if (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) s += "HOST_VISIBLE|";
  if (f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) s += "HOST_COHERENT|";
  if (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) s += "HOST_CACHED|";
  return s.empty() ? "none" : s.substr(0, s.size() - 1);
}

Vk open_device() {
  Vk vk;
  auto app = make<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "host_import_probe";
  app.apiVersion = VK_API_VERSION_1_2;
  auto ici = make<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ici.pApplicationInfo = &app;
  check(vkCreateInstance(&ici, nullptr, &vk.instance), "vkCreateInstance (no Vulkan driver?)");
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(vk.instance, &n, nullptr);
  if (n == 0) fail("no Vulkan physical device");
  std::vector<VkPhysicalDevice> devs(n);
  vkEnumeratePhysicalDevices(vk.instance, &n, devs.data());
  vk.phys = devs[0];
  for (VkPhysicalDevice d : devs) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) {
      vk.phys = d;
      break;
    }
  }
  vkGetPhysicalDeviceProperties(vk.phys, &vk.props);
  vkGetPhysicalDeviceMemoryProperties(vk.phys, &vk.mem);
  const char* name = vk.props.deviceName;
  if (vk.props.apiVersion < VK_API_VERSION_1_1)
    fail("device %s supports Vulkan 1.0 only; the probe needs 1.1 (external memory)", name);
  if (!has_extension(vk.phys, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) ||
      g_inject == "no-extension")
    fail("device %s lacks %s: it cannot import host pointers", name,
         VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);

  auto host = make<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
  auto m3 = make<VkPhysicalDeviceMaintenance3Properties>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES, &host);
  auto p2 = make<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &m3);
  vkGetPhysicalDeviceProperties2(vk.phys, &p2);
  vk.align = host.minImportedHostPointerAlignment;
  vk.max_alloc = m3.maxMemoryAllocationSize;
  if (vk.align == 0 || (vk.align & (vk.align - 1)))
    fail("device %s reports minImportedHostPointerAlignment %llu, not a power of two", name,
         ull(vk.align));

  // A transfer-only family (the copy engines) if there is one, else the first that copies.
  vkGetPhysicalDeviceQueueFamilyProperties(vk.phys, &n, nullptr);
  std::vector<VkQueueFamilyProperties> fam(n);
  vkGetPhysicalDeviceQueueFamilyProperties(vk.phys, &n, fam.data());
  const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  int pick = -1;
  for (uint32_t i = 0; i < n && pick < 0; ++i)
    if ((fam[i].queueFlags & VK_QUEUE_TRANSFER_BIT) && !(fam[i].queueFlags & gc)) pick = int(i);
  for (uint32_t i = 0; i < n && pick < 0; ++i)
    if (fam[i].queueFlags & (gc | VK_QUEUE_TRANSFER_BIT)) pick = int(i);
  if (pick < 0) fail("device %s has no queue family that can copy", name);
  vk.family = uint32_t(pick);
  vk.transfer_only = !(fam[vk.family].queueFlags & gc);
  const uint32_t bits = fam[vk.family].timestampValidBits;
  vk.timestamp_mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;

  auto f12 =
      make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f2 = make<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f12);
  const bool v12 = vk.props.apiVersion >= VK_API_VERSION_1_2;
  if (v12) vkGetPhysicalDeviceFeatures2(vk.phys, &f2);
  vk.host_reset = v12 && f12.hostQueryReset;
  vk.timestamps = bits > 0 && (vk.host_reset || !vk.transfer_only);
  auto want12 =
      make<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  want12.hostQueryReset = vk.host_reset;

  const float priority = 1;
  auto qci = make<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = vk.family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  const char* ext[] = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
  auto dci =
      make<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, v12 ? &want12 : nullptr);
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = 1;
  dci.ppEnabledExtensionNames = ext;
  check(vkCreateDevice(vk.phys, &dci, nullptr, &vk.device), "vkCreateDevice");
  vkGetDeviceQueue(vk.device, vk.family, 0, &vk.queue);
  vk.host_pointer_props = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
      vkGetDeviceProcAddr(vk.device, "vkGetMemoryHostPointerPropertiesEXT"));
  if (!vk.host_pointer_props) fail("device %s: no vkGetMemoryHostPointerPropertiesEXT", name);

  auto pci = make<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = vk.family;
  check(vkCreateCommandPool(vk.device, &pci, nullptr, &vk.pool), "vkCreateCommandPool");
  if (vk.timestamps) {
    auto qp = make<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    qp.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qp.queryCount = 2;
    check(vkCreateQueryPool(vk.device, &qp, nullptr, &vk.queries), "vkCreateQueryPool");
  }
  return vk;
}

// A buffer over memory of its own: device-local, or the pinned HOST_VISIBLE|HOST_COHERENT kind.
struct Owned {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;
  uint32_t type = 0;
};

Owned make_owned(Vk& vk, uint64_t bytes, VkMemoryPropertyFlags need, VkMemoryPropertyFlags avoid,
                 const char* what) {
  Owned o;
  auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bci.size = bytes;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  check(vkCreateBuffer(vk.device, &bci, nullptr, &o.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk.device, o.buffer, &req);
  int type = -1;
  for (int pass = 0; pass < 2 && type < 0; ++pass)
    for (uint32_t i = 0; i < vk.mem.memoryTypeCount && type < 0; ++i) {
      const VkMemoryPropertyFlags f = vk.mem.memoryTypes[i].propertyFlags;
      if ((req.memoryTypeBits >> i & 1) && (f & need) == need && (pass == 1 || !(f & avoid)))
        type = int(i);
    }
  if (type < 0) fail("no %s memory type (%s) for a buffer", what, memory_flags(need).c_str());
  auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = o.type = uint32_t(type);
  check(vkAllocateMemory(vk.device, &mai, nullptr, &o.memory), what);
  check(vkBindBufferMemory(vk.device, o.buffer, o.memory, 0), "vkBindBufferMemory");
  if (need & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
    check(vkMapMemory(vk.device, o.memory, 0, VK_WHOLE_SIZE, 0, &o.mapped), "vkMapMemory");
  return o;
}

void destroy(Vk& vk, Owned& o) {
  vkDestroyBuffer(vk.device, o.buffer, nullptr);
  vkFreeMemory(vk.device, o.memory, nullptr);
  o = {};
}

// The pages covering [p, p + bytes), imported: the copy engines reach p at `offset` in `buffer`.
struct Imported {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t offset = 0;
  VkResult result = VK_SUCCESS;
  uint32_t type = 0;
  double ms = 0;        // the whole import
  double alloc_ms = 0;  // vkAllocateMemory alone (where a driver pins the pages)
};

// Which memory type an import of the page-aligned `base` may use: a HOST_COHERENT one, so that
// the vector's own pointer sees the copies' writes without a map and an invalidate.
uint32_t import_type(Vk& vk, void* base, uint32_t buffer_bits) {
  auto hp =
      make<VkMemoryHostPointerPropertiesEXT>(VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
  check(vk.host_pointer_props(vk.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                              base, &hp),
        "vkGetMemoryHostPointerPropertiesEXT");
  const uint32_t bits = hp.memoryTypeBits & buffer_bits;
  for (uint32_t i = 0; i < vk.mem.memoryTypeCount; ++i)
    if ((bits >> i & 1) &&
        (vk.mem.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
      return i;
  fail(
      "no HOST_COHERENT memory type accepts an imported host pointer (host pointer types 0x%x, "
      "buffer types 0x%x)",
      hp.memoryTypeBits, buffer_bits);
}

// `may_fail`: a driver that refuses the import (a second one of live pages) returns its VkResult.
Imported import_range(Vk& vk, const void* p, uint64_t bytes, bool may_fail = false) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  const uintptr_t base = at & ~uintptr_t(vk.align - 1);
  const uint64_t cover = (at + bytes - base + vk.align - 1) & ~(vk.align - 1);
  if (cover > vk.max_alloc)
    fail(
        "importing %llu bytes exceeds maxMemoryAllocationSize %llu (use smaller --sizes or "
        "--chunk)",
        ull(cover), ull(vk.max_alloc));
  Imported m;
  m.offset = at - base;
  const double t0 = now_ms();
  auto ext =
      make<VkExternalMemoryBufferCreateInfo>(VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
  ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  auto bci = make<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, &ext);
  bci.size = cover;
  bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  check(vkCreateBuffer(vk.device, &bci, nullptr, &m.buffer), "vkCreateBuffer (external host)");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(vk.device, m.buffer, &req);
  if (req.size > cover)
    fail("an imported buffer of %llu bytes needs %llu bytes of memory", ull(cover), ull(req.size));
  auto import =
      make<VkImportMemoryHostPointerInfoEXT>(VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = reinterpret_cast<void*>(base);
  auto mai = make<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import);
  mai.allocationSize = cover;
  mai.memoryTypeIndex = m.type = import_type(vk, import.pHostPointer, req.memoryTypeBits);
  const double t1 = now_ms();
  m.result = vkAllocateMemory(vk.device, &mai, nullptr, &m.memory);
  if (m.result != VK_SUCCESS && may_fail) {
    vkDestroyBuffer(vk.device, m.buffer, nullptr);
    m.buffer = VK_NULL_HANDLE;
    m.memory = VK_NULL_HANDLE;
    return m;
  }
  check(m.result, "vkAllocateMemory (host pointer)");
  m.alloc_ms = now_ms() - t1;
  check(vkBindBufferMemory(vk.device, m.buffer, m.memory, 0), "vkBindBufferMemory (host pointer)");
  m.ms = now_ms() - t0;
  return m;
}

double release(Vk& vk, Imported& m) {
  const double t0 = now_ms();
  vkDestroyBuffer(vk.device, m.buffer, nullptr);
  vkFreeMemory(vk.device, m.memory, nullptr);
  m = {};
  return now_ms() - t0;
}

VkCommandBuffer new_commands(Vk& vk) {
  auto ai = make<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  ai.commandPool = vk.pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb;
  check(vkAllocateCommandBuffers(vk.device, &ai, &cb), "vkAllocateCommandBuffers");
  return cb;
}

VkFence new_fence(Vk& vk) {
  auto fci = make<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkFence f;
  check(vkCreateFence(vk.device, &fci, nullptr, &f), "vkCreateFence");
  return f;
}

// Records one copy; `timed` brackets it with timestamps. The barrier makes its writes visible to
// the host (a fence alone does not).
void record_copy(Vk& vk, VkCommandBuffer cb, VkBuffer src, uint64_t src_offset, VkBuffer dst,
                 uint64_t dst_offset, uint64_t bytes, bool timed) {
  auto bi = make<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
  if (timed && !vk.host_reset) vkCmdResetQueryPool(cb, vk.queries, 0, 2);
  if (timed) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, vk.queries, 0);
  // Regions of 1 GiB at most: lavapipe (Mesa 25.0.7) miscopies one region of 2^31 bytes.
  std::vector<VkBufferCopy> regions;
  for (uint64_t at = 0; at < bytes; at += kMaxRegion)
    regions.push_back({src_offset + at, dst_offset + at, std::min(kMaxRegion, bytes - at)});
  vkCmdCopyBuffer(cb, src, dst, uint32_t(regions.size()), regions.data());
  if (timed) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, vk.queries, 1);
  auto mb = make<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  check(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
}

void submit(Vk& vk, VkCommandBuffer cb, VkFence fence) {
  auto si = make<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  check(vkQueueSubmit(vk.queue, 1, &si, fence), "vkQueueSubmit");
}

struct CopyTime {
  double gpu_ms = -1;  // timestamps; -1 where the queue has none
  double wall_ms = 0;  // submit to fence
};

CopyTime timed_copy(Vk& vk, VkBuffer src, uint64_t src_offset, VkBuffer dst, uint64_t dst_offset,
                    uint64_t bytes) {
  VkCommandBuffer cb = new_commands(vk);
  VkFence fence = new_fence(vk);
  if (vk.timestamps && vk.host_reset) vkResetQueryPool(vk.device, vk.queries, 0, 2);
  record_copy(vk, cb, src, src_offset, dst, dst_offset, bytes, vk.timestamps);
  CopyTime t;
  const double t0 = now_ms();
  submit(vk, cb, fence);
  check(vkWaitForFences(vk.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  t.wall_ms = now_ms() - t0;
  if (vk.timestamps) {
    uint64_t ts[2];
    check(vkGetQueryPoolResults(vk.device, vk.queries, 0, 2, sizeof ts, ts, sizeof ts[0],
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    t.gpu_ms = double((ts[1] - ts[0]) & vk.timestamp_mask) * vk.props.limits.timestampPeriod / 1e6;
  }
  vkDestroyFence(vk.device, fence, nullptr);
  vkFreeCommandBuffers(vk.device, vk.pool, 1, &cb);
  return t;
}

// Touches every page with bytes that depend on `seed`, so that a copy that moved the wrong bytes
// or none differs.
void fill(std::vector<uint8_t>& v, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  size_t i = 0;
  for (; i + 8 <= v.size(); i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(v.data() + i, &x, 8);
  }
  for (; i < v.size(); ++i) v[i] = uint8_t(i * 131 + seed);
}

void expect_equal(const uint8_t* got, const uint8_t* want, uint64_t bytes, const char* what,
                  uint64_t mib) {
  if (std::memcmp(got, want, bytes) == 0) return;
  uint64_t i = 0;
  while (got[i] == want[i]) ++i;
  std::printf("MISMATCH %s %llu MiB: first differing byte %llu (got %u, want %u)\n", what, ull(mib),
              ull(i), got[i], want[i]);
  std::exit(1);
}

// Rows in the order first seen; a deque, so that a row's reference survives new rows.
struct Samples {
  std::deque<std::pair<std::string, std::vector<double>>> rows;
  std::vector<double>& operator[](const std::string& name) {
    for (auto& r : rows)
      if (r.first == name) return r.second;
    rows.push_back({name, {}});
    return rows.back().second;
  }
};

void print(const Samples& s, uint64_t mib, uint64_t chunk_mib) {
  for (const auto& [name, v] : s.rows) {
    if (v.empty() || v[0] < 0) continue;
    const double ms = median(v);
    const bool per_chunk = name.size() > 6 && name.compare(name.size() - 6, 6, "_chunk") == 0;
    const double bytes = double((per_chunk ? chunk_mib : mib) * kMiB);
    std::printf("%s %llu %.3f %.2f\n", name.c_str(), ull(mib), ms, ms > 0 ? bytes / ms / 1e6 : 0.0);
  }
  std::fflush(stdout);
}

// Imports the vector's pages chunk by chunk, submitting each chunk's copy (to or from `dev`)
// before importing the next, so that imports overlap the copies. Returns the wall clock.
double chunked(Vk& vk, std::vector<uint8_t>& v, VkBuffer dev, uint64_t chunk, bool upload,
               Samples& s) {
  const auto at = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t base = at & ~uintptr_t(vk.align - 1);
  const uintptr_t end = at + v.size();
  std::vector<Imported> parts;
  std::vector<VkCommandBuffer> cbs;
  std::vector<VkFence> fences;
  const double t0 = now_ms();
  for (uintptr_t lo = base; lo < end; lo += chunk) {
    // The chunk's part of the vector; the import covers its pages.
    const uintptr_t first = std::max(lo, at), last = std::min<uintptr_t>(lo + chunk, end);
    parts.push_back(import_range(vk, reinterpret_cast<void*>(first), last - first));
    s["import_chunk"].push_back(parts.back().ms);
    cbs.push_back(new_commands(vk));
    fences.push_back(new_fence(vk));
    const Imported& m = parts.back();
    if (upload)
      record_copy(vk, cbs.back(), m.buffer, m.offset, dev, first - at, last - first, false);
    else
      record_copy(vk, cbs.back(), dev, first - at, m.buffer, m.offset, last - first, false);
    submit(vk, cbs.back(), fences.back());
  }
  check(vkWaitForFences(vk.device, uint32_t(fences.size()), fences.data(), VK_TRUE, UINT64_MAX),
        "vkWaitForFences");
  const double wall = now_ms() - t0;
  for (auto& m : parts) s["free_chunk"].push_back(release(vk, m));
  for (VkFence f : fences) vkDestroyFence(vk.device, f, nullptr);
  vkFreeCommandBuffers(vk.device, vk.pool, uint32_t(cbs.size()), cbs.data());
  return wall;
}

// Imports the vector's pages in chunks on `threads` threads at once (each thread every
// threads-th chunk), then frees them the same way: whether a caller's memory could be imported
// as fast as a pipelined call needs it (2.5 GB a call) where one thread cannot. Wall clocks.
void parallel_imports(Vk& vk, std::vector<uint8_t>& v, uint64_t chunk, uint64_t threads,
                      Samples& s) {
  const auto at = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t base = at & ~uintptr_t(vk.align - 1);
  const uintptr_t end = at + v.size();
  std::vector<uintptr_t> starts;
  for (uintptr_t lo = base; lo < end; lo += chunk) starts.push_back(lo);
  std::vector<Imported> parts(starts.size());
  auto on_threads = [&](auto&& work) {
    std::vector<std::thread> pool;
    for (uint64_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (size_t k = t; k < starts.size(); k += threads) work(k);
      });
    for (auto& th : pool) th.join();
  };
  const double t0 = now_ms();
  on_threads([&](size_t k) {
    const uintptr_t first = std::max(starts[k], at);
    const uintptr_t last = std::min<uintptr_t>(starts[k] + chunk, end);
    parts[k] = import_range(vk, reinterpret_cast<void*>(first), last - first);
  });
  const double t1 = now_ms();
  on_threads([&](size_t k) { release(vk, parts[k]); });
  const double t2 = now_ms();
  s["import_threads" + std::to_string(threads)].push_back(t1 - t0);
  s["free_threads" + std::to_string(threads)].push_back(t2 - t1);
}

void probe_size(Vk& vk, uint64_t mib, int runs, uint64_t chunk_mib) {
  const uint64_t bytes = mib * kMiB;
  Owned dev = make_owned(vk, bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "device-local");
  Owned pinned = make_owned(
      vk, bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "pinned");
  // Whole-vector imports where the covering pages fit one allocation (lavapipe: 2 GiB at most).
  const uint64_t worst_cover = (bytes + 2 * vk.align - 1) & ~(vk.align - 1);
  const bool whole = worst_cover <= vk.max_alloc;
  if (!whole)
    std::printf(
        "# %llu MiB: up to %llu bytes of covering pages exceed maxMemoryAllocationSize: "
        "chunked imports only\n",
        ull(mib), ull(worst_cover));
  Samples s;
  for (int r = 0; r < runs; ++r) {
    // Fresh vectors each run: resident pages, none imported before.
    std::vector<uint8_t> src(bytes);
    fill(src, 2 * r + 1);
    if (r == 0)
      std::printf("# %llu MiB: the vectors start %llu bytes into a page of %llu\n", ull(mib),
                  ull(reinterpret_cast<uintptr_t>(src.data()) % vk.align), ull(vk.align));
    if (whole) {
      std::vector<uint8_t> dst(bytes);
      fill(dst, 2 * r + 2);
      Imported in = import_range(vk, src.data(), bytes);
      Imported out = import_range(vk, dst.data(), bytes);
      if (r == 0)
        std::printf("# %llu MiB: memory types: imported %u, pinned %u, device-local %u\n", ull(mib),
                    in.type, pinned.type, dev.type);
      s["import"].push_back(in.ms);
      s["import"].push_back(out.ms);
      s["import_alloc"].push_back(in.alloc_ms);
      s["import_alloc"].push_back(out.alloc_ms);
      const CopyTime up = timed_copy(vk, in.buffer, in.offset, dev.buffer, 0, bytes);
      const CopyTime down = timed_copy(vk, dev.buffer, 0, out.buffer, out.offset, bytes);
      s["upload_imported"].push_back(up.gpu_ms);
      s["upload_imported_wall"].push_back(up.wall_ms);
      s["download_imported"].push_back(down.gpu_ms);
      s["download_imported_wall"].push_back(down.wall_ms);
      if (g_inject == "mismatch") dst[bytes / 3] ^= 1;
      expect_equal(dst.data(), src.data(), bytes, "imported upload then imported download", mib);
      s["free"].push_back(release(vk, in));
      s["free"].push_back(release(vk, out));

      // The same pages again: after their import was freed, then while another import is alive.
      Imported again = import_range(vk, src.data(), bytes);
      s["import_after_free"].push_back(again.ms);
      Imported twice = import_range(vk, src.data(), bytes, /*may_fail=*/true);
      if (twice.memory) {
        s["import_while_alive"].push_back(twice.ms);
        s["free_while_alive"].push_back(release(vk, twice));
      } else if (r == 0) {
        std::printf("# %llu MiB: a second import of live pages fails (VkResult %d)\n", ull(mib),
                    int(twice.result));
      }
      s["free_after_free"].push_back(release(vk, again));
    }

    std::memcpy(pinned.mapped, src.data(), bytes);
    const CopyTime pup = timed_copy(vk, pinned.buffer, 0, dev.buffer, 0, bytes);
    std::memset(pinned.mapped, 0, bytes);
    const CopyTime pdown = timed_copy(vk, dev.buffer, 0, pinned.buffer, 0, bytes);
    s["upload_pinned"].push_back(pup.gpu_ms);
    s["upload_pinned_wall"].push_back(pup.wall_ms);
    s["download_pinned"].push_back(pdown.gpu_ms);
    s["download_pinned_wall"].push_back(pdown.wall_ms);
    expect_equal(static_cast<const uint8_t*>(pinned.mapped), src.data(), bytes,
                 "pinned upload then pinned download", mib);

    if (mib >= 2 * chunk_mib) {
      // src's pages were imported above: fresh ones again.
      std::vector<uint8_t>().swap(src);
      std::vector<uint8_t> in(bytes), out(bytes);
      fill(in, 2 * r + 101);
      fill(out, 2 * r + 102);
      const double up = chunked(vk, in, dev.buffer, chunk_mib * kMiB, true, s);
      const double down = chunked(vk, out, dev.buffer, chunk_mib * kMiB, false, s);
      s["upload_chunked_overlap_wall"].push_back(up);
      s["download_chunked_overlap_wall"].push_back(down);
      expect_equal(out.data(), in.data(), bytes, "chunked imported upload and download", mib);
      for (uint64_t t : g_threads) {
        std::vector<uint8_t> fresh(bytes);
        fill(fresh, 2 * r + 200 + t);
        parallel_imports(vk, fresh, chunk_mib * kMiB, t, s);
      }
    }
  }
  print(s, mib, chunk_mib);
  destroy(vk, dev);
  destroy(vk, pinned);
}

// `option`'s value: positive counts separated by commas (`what` names them in errors).
std::vector<uint64_t> parse_counts(const char* option, const char* what, const char* arg) {
  std::vector<uint64_t> v;
  for (const char* p = arg; *p;) {
    char* end;
    const unsigned long long x = std::strtoull(p, &end, 10);
    if (end == p || x == 0)
      fail("%s: expected %s separated by commas, got '%s'", option, what, arg);
    v.push_back(x);
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') fail("%s: unexpected '%c' in '%s'", option, *end, arg);
  }
  return v;
}

}  // namespace

constexpr const char* kUsage =
    "[--runs N] [--sizes MiB,...] [--chunk MiB] [--threads N,...] "
    "[--inject no-extension|mismatch]";

int main(int argc, char** argv) {
  int runs = 5;
  uint64_t chunk_mib = 64;
  std::vector<uint64_t> sizes = {64, 256, 512, 2048};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) fail("%s needs a value (usage: %s)", a.c_str(), kUsage);
    if (a == "--runs")
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--sizes")
      sizes = parse_counts("--sizes", "MiB counts", argv[++i]);
    else if (a == "--threads")
      g_threads = parse_counts("--threads", "thread counts", argv[++i]);
    else if (a == "--inject") {
      g_inject = argv[++i];
      if (g_inject != "no-extension" && g_inject != "mismatch")
        fail("--inject: unknown fault '%s' (no-extension or mismatch)", g_inject.c_str());
    } else if (a == "--chunk")
      chunk_mib = std::max(1ull, std::strtoull(argv[++i], nullptr, 10));
    else
      fail("unknown option %s (usage: %s)", a.c_str(), kUsage);
  }
  Vk vk = open_device();
  std::printf("# device %s (type %d), driver version 0x%x, Vulkan %u.%u\n", vk.props.deviceName,
              int(vk.props.deviceType), vk.props.driverVersion,
              VK_API_VERSION_MAJOR(vk.props.apiVersion), VK_API_VERSION_MINOR(vk.props.apiVersion));
  if (vk.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
    std::printf("# a CPU device: every time below is the host's, no PCIe is involved\n");
  std::printf("# minImportedHostPointerAlignment %llu, maxMemoryAllocationSize %llu\n",
              ull(vk.align), ull(vk.max_alloc));
  std::printf("# queue family %u (%s), GPU timestamps %s\n", vk.family,
              vk.transfer_only ? "transfer-only" : "no transfer-only family on this device",
              vk.timestamps ? "yes" : "no (only the _wall lines)");
  for (uint32_t i = 0; i < vk.mem.memoryTypeCount; ++i)
    std::printf("# memory type %u: %s\n", i,
                memory_flags(vk.mem.memoryTypes[i].propertyFlags).c_str());
  std::printf("# runs %d, chunk %llu MiB; medians; name size_mib ms gbps\n", runs, ull(chunk_mib));
  for (uint64_t mib : sizes) probe_size(vk, mib, runs, chunk_mib);
  vkDestroyQueryPool(vk.device, vk.queries, nullptr);
  vkDestroyCommandPool(vk.device, vk.pool, nullptr);
  vkDestroyDevice(vk.device, nullptr);
  vkDestroyInstance(vk.instance, nullptr);
}
