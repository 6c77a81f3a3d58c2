// Does a GPU sort run beside an upload? (docs/e2e.md, issue 21.) A build from host memory uploads
// its keys and values, then sorts them in CUDA (CUB); a build that sorted the keys while the
// values went up through a Vulkan copy queue saw the sort take twice its time alone. This probe
// times CUB's SortPairs of 2^26 uint32 pairs alone and beside four things, each started just before
// the sort:
//   cuda_h2d      cudaMemcpyAsync of 256 MiB from pinned memory on another stream (one context)
//   vk_h2d        vkCmdCopyBuffer of 256 MiB from host-visible memory on a transfer-only queue
//                 (another context: the Vulkan device)
//   vk_idle       nothing, with the Vulkan device open (does its presence cost anything?)
//   host_copy     16 host threads copying 512 MiB of ordinary memory into pinned memory (the
//                 host's side of a staged upload, no DMA)
// Standalone, no raydb; libstdc++ static so that it runs on the GPU machine's distribution:
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static bench/gpu/overlap_probe.cu -lvulkan
//       -Xcompiler -static-libstdc++,-static-libgcc -o overlap_probe
// Output: `case sort_ms other_ms` lines, medians of --runs (default 5) after one warm-up; the
// sorted keys are checked in every run (MISMATCH and exit 1 otherwise). Exit 2: no device.
#include <vulkan/vulkan.h>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "probe_util.hpp"

namespace {

using probe::median;
using probe::now_ms;

[[noreturn]] void fail(const std::string& what) {
  probe::fail("overlap_probe", what);
}
void cu(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(std::string(what) + ": " + cudaGetErrorString(e));
}
void vk(VkResult r, const char* what) {
  if (r != VK_SUCCESS) fail(std::string(what) + ": VkResult " + std::to_string(int(r)));
}

constexpr size_t kPairs = size_t{1} << 26;
constexpr size_t kCopyBytes = size_t{256} << 20;

struct Sort {
  uint32_t *keys_in, *vals_in, *keys_out, *vals_out;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  std::vector<uint32_t> host_keys;
  cudaStream_t s;
  cudaEvent_t e0, e1;
  Sort() {
    for (uint32_t** p : {&keys_in, &vals_in, &keys_out, &vals_out})
      cu(cudaMalloc(p, kPairs * 4), "cudaMalloc");
    host_keys.resize(kPairs);
    std::mt19937 rng(7);
    for (auto& k : host_keys) k = rng();
    cu(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
    cu(cudaEventCreate(&e0), "event");
    cu(cudaEventCreate(&e1), "event");
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                    int(kPairs), 0, 32, s);
    cu(cudaMalloc(&temp, temp_bytes), "cudaMalloc temp");
  }
  // Resets the input, starts `beside` (what runs beside the sort), then enqueues the sort between
  // two events.
  void enqueue(const std::function<void()>& beside = {}) {
    cu(cudaMemcpy(keys_in, host_keys.data(), kPairs * 4, cudaMemcpyHostToDevice), "reset");
    if (beside) beside();
    cu(cudaEventRecord(e0, s), "record");
    cu(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out,
                                       int(kPairs), 0, 32, s),
       "SortPairs");
    cu(cudaEventRecord(e1, s), "record");
  }
  double finish() {
    cu(cudaStreamSynchronize(s), "sync");
    float ms = 0;
    cu(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
    return ms;
  }
  void check() {
    std::vector<uint32_t> got(kPairs);
    cu(cudaMemcpy(got.data(), keys_out, kPairs * 4, cudaMemcpyDeviceToHost), "check copy");
    for (size_t i = 1; i < kPairs; ++i)
      if (got[i - 1] > got[i]) {
        std::printf("MISMATCH: keys out of order at %zu\n", i);
        std::exit(1);
      }
  }
};

struct VkCopy {
  VkInstance inst{};
  VkPhysicalDevice phys{};
  VkDevice dev{};
  VkQueue queue{};
  VkCommandPool pool{};
  VkCommandBuffer cmd{};
  VkFence fence{};
  VkBuffer src{}, dst{};
  VkDeviceMemory src_mem{}, dst_mem{};

  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(phys, &m);
    for (uint32_t i = 0; i < m.memoryTypeCount; ++i)
      if ((bits >> i & 1) && (m.memoryTypes[i].propertyFlags & want) == want &&
          !(m.memoryTypes[i].propertyFlags & avoid))
        return i;
    fail("no memory type");
  }
  void make_buffer(VkBuffer& b, VkDeviceMemory& mem, VkBufferUsageFlags usage,
                   VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) {
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.size = kCopyBytes;
    bi.usage = usage;
    vk(vkCreateBuffer(dev, &bi, nullptr, &b), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memory_type(req.memoryTypeBits, want, avoid);
    vk(vkAllocateMemory(dev, &ai, nullptr, &mem), "vkAllocateMemory");
    vk(vkBindBufferMemory(dev, b, mem, 0), "vkBindBufferMemory");
  }
  VkCopy() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    vk(vkCreateInstance(&ici, nullptr, &inst), "vkCreateInstance");
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, nullptr);
    std::vector<VkPhysicalDevice> devs(n);
    vkEnumeratePhysicalDevices(inst, &n, devs.data());
    for (auto d : devs) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(d, &p);
      if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) phys = d;
    }
    if (!phys) fail("no discrete Vulkan device");
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, nullptr);
    std::vector<VkQueueFamilyProperties> fam(n);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, fam.data());
    int family = -1;
    for (uint32_t i = 0; i < n && family < 0; ++i)
      if ((fam[i].queueFlags & VK_QUEUE_TRANSFER_BIT) &&
          !(fam[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
        family = int(i);
    if (family < 0) fail("no transfer-only queue family");
    float prio = 1;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = uint32_t(family);
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    vk(vkCreateDevice(phys, &di, nullptr, &dev), "vkCreateDevice");
    vkGetDeviceQueue(dev, uint32_t(family), 0, &queue);
    make_buffer(src, src_mem, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    make_buffer(dst, dst_mem, VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    void* p = nullptr;
    vk(vkMapMemory(dev, src_mem, 0, kCopyBytes, 0, &p), "vkMapMemory");
    std::memset(p, 1, kCopyBytes);
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = uint32_t(family);
    vk(vkCreateCommandPool(dev, &pi, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ci{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ci.commandPool = pool;
    ci.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ci.commandBufferCount = 1;
    vk(vkAllocateCommandBuffers(dev, &ci, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    VkBufferCopy region{0, 0, kCopyBytes};
    vkCmdCopyBuffer(cmd, src, dst, 1, &region);
    vk(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vk(vkCreateFence(dev, &fi, nullptr, &fence), "vkCreateFence");
  }
  double t_submit = 0;
  void submit() {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    t_submit = now_ms();
    vk(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
  }
  double wait() {
    vk(vkWaitForFences(dev, 1, &fence, VK_TRUE, ~uint64_t{0}), "vkWaitForFences");
    double ms = now_ms() - t_submit;
    vk(vkResetFences(dev, 1, &fence), "vkResetFences");
    return ms;
  }
};

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) fail("no CUDA device");
  Sort sort;
  uint8_t* pinned = nullptr;
  uint8_t* dev_dst = nullptr;
  cu(cudaHostAlloc(&pinned, kCopyBytes, cudaHostAllocDefault), "cudaHostAlloc");
  std::memset(pinned, 1, kCopyBytes);
  cu(cudaMalloc(&dev_dst, kCopyBytes), "cudaMalloc dst");
  cudaStream_t copy_stream;
  cu(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t c0, c1;
  cu(cudaEventCreate(&c0), "event");
  cu(cudaEventCreate(&c1), "event");

  auto report = [&](const char* name, auto&& one_run) {
    std::vector<double> s, o;
    for (int r = 0; r <= runs; ++r) {
      auto [sort_ms, other_ms] = one_run();
      sort.check();
      if (r > 0) s.push_back(sort_ms), o.push_back(other_ms);
    }
    std::printf("%-10s sort_ms %.3f other_ms %.3f\n", name, median(s), median(o));
    std::fflush(stdout);
  };
  auto cuda_copy_alone = [&] {
    cu(cudaEventRecord(c0, copy_stream), "record");
    cu(cudaMemcpyAsync(dev_dst, pinned, kCopyBytes, cudaMemcpyHostToDevice, copy_stream), "copy");
    cu(cudaEventRecord(c1, copy_stream), "record");
    cu(cudaStreamSynchronize(copy_stream), "sync");
    float ms = 0;
    cu(cudaEventElapsedTime(&ms, c0, c1), "elapsed");
    return double(ms);
  };

  report("alone", [&] {
    sort.enqueue();
    return std::pair{sort.finish(), 0.0};
  });
  report("cuda_h2d", [&] {
    sort.enqueue([&] {
      cu(cudaEventRecord(c0, copy_stream), "record");
      cu(cudaMemcpyAsync(dev_dst, pinned, kCopyBytes, cudaMemcpyHostToDevice, copy_stream), "copy");
      cu(cudaEventRecord(c1, copy_stream), "record");
    });
    double s = sort.finish();
    cu(cudaStreamSynchronize(copy_stream), "sync");
    float ms = 0;
    cu(cudaEventElapsedTime(&ms, c0, c1), "elapsed");
    return std::pair{s, double(ms)};
  });
  report("cuda_copy", [&] { return std::pair{0.0, cuda_copy_alone()}; });

  std::vector<uint8_t> pageable(size_t{512} << 20, 2);
  uint8_t* pinned512 = nullptr;
  cu(cudaHostAlloc(&pinned512, pageable.size(), cudaHostAllocDefault), "cudaHostAlloc 512");
  std::memset(pinned512, 0, pageable.size());
  report("host_copy", [&] {
    sort.enqueue();
    double t = now_ms();
    std::vector<std::thread> threads;
    const size_t per = pageable.size() / 16;
    for (int i = 0; i < 16; ++i)
      threads.emplace_back(
          [&, i] { std::memcpy(pinned512 + i * per, pageable.data() + i * per, per); });
    for (auto& th : threads) th.join();
    double host = now_ms() - t;
    return std::pair{sort.finish(), host};
  });

  VkCopy v;
  report("vk_idle", [&] {
    sort.enqueue();
    return std::pair{sort.finish(), 0.0};
  });
  report("vk_copy", [&] {
    v.submit();
    return std::pair{0.0, v.wait()};
  });
  report("vk_h2d", [&] {
    sort.enqueue([&] { v.submit(); });
    double s = sort.finish();
    return std::pair{s, v.wait()};
  });
  report("vk_h2d_late", [&] {
    // The sort first, the copy 1 ms into it.
    sort.enqueue();
    double t = now_ms();
    while (now_ms() - t < 1.0) {
    }
    v.submit();
    double s = sort.finish();
    return std::pair{s, v.wait()};
  });
  return 0;
}
