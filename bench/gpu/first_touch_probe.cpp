// What the host's first write into freshly allocated, mapped Vulkan memory costs (docs/e2e.md,
// issue 21): a first pipelined lookup call from std::vectors spent 40% longer in its host copies
// than the calls after it, and the lookup slots' pinned memory is written by the host for the first
// time in that call. Standalone, no raydb; libstdc++ static so that it runs on the GPU machine:
//   g++ -O2 -std=c++20 -static-libstdc++ -static-libgcc -pthread bench/gpu/first_touch_probe.cpp
//       -lvulkan -o first_touch_probe
// For each host-visible memory type (HOST_CACHED first), --runs times (default 3): allocate 256
// MiB, map it, copy 256 MiB of ordinary memory into it on T threads (1 and 16), then again; and the
// same after touching one byte per 4 KiB page first. Output: `type threads first_ms second_ms
// prefault_ms touched_first_ms` lines, medians. Exit 2: no device or memory type.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "probe_util.hpp"

namespace {

using probe::median;
using probe::now_ms;

[[noreturn]] void fail(const std::string& what) {
  probe::fail("first_touch_probe", what);
}
void vk(VkResult r, const char* what) {
  if (r != VK_SUCCESS) fail(std::string(what) + ": VkResult " + std::to_string(int(r)));
}

constexpr size_t kBytes = size_t{256} << 20;

// Copies src into dst on `threads` threads, one contiguous share each; wall ms.
double copy_ms(uint8_t* dst, const uint8_t* src, int threads) {
  double t = now_ms();
  std::vector<std::thread> pool;
  const size_t per = kBytes / threads;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([=] { std::memcpy(dst + i * per, src + i * per, per); });
  for (auto& th : pool) th.join();
  return now_ms() - t;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  VkInstance inst{};
  vk(vkCreateInstance(&ici, nullptr, &inst), "vkCreateInstance");
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(inst, &n, nullptr);
  std::vector<VkPhysicalDevice> devs(n);
  vkEnumeratePhysicalDevices(inst, &n, devs.data());
  VkPhysicalDevice phys{};
  for (auto d : devs) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) phys = d;
  }
  if (!phys) fail("no discrete Vulkan device");
  float prio = 1;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueCount = 1;
  qi.pQueuePriorities = &prio;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  VkDevice dev{};
  vk(vkCreateDevice(phys, &di, nullptr, &dev), "vkCreateDevice");
  VkPhysicalDeviceMemoryProperties m;
  vkGetPhysicalDeviceMemoryProperties(phys, &m);

  std::vector<uint8_t> src(kBytes, 3);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  std::vector<std::pair<uint32_t, std::string>> types;
  for (uint32_t i = 0; i < m.memoryTypeCount; ++i) {
    const auto f = m.memoryTypes[i].propertyFlags;
    if ((f & host) != host) continue;
    std::string name = (f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) ? "device_local" : "system";
    name += (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ? "_cached" : "_uncached";
    types.emplace_back(i, name + std::to_string(i));
  }
  if (types.empty()) fail("no host-visible memory type");
  for (auto& [type, name] : types) {
    for (int threads : {1, 16}) {
      std::vector<double> first, second, prefault, touched;
      bool ok = true;
      for (int r = 0; r < runs && ok; ++r) {
        for (bool touch : {false, true}) {
          VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
          ai.allocationSize = kBytes;
          ai.memoryTypeIndex = type;
          VkDeviceMemory mem{};
          if (vkAllocateMemory(dev, &ai, nullptr, &mem) != VK_SUCCESS) {
            ok = false;
            break;
          }
          void* p = nullptr;
          vk(vkMapMemory(dev, mem, 0, kBytes, 0, &p), "vkMapMemory");
          auto* dst = static_cast<uint8_t*>(p);
          if (touch) {
            double t = now_ms();
            std::vector<std::thread> pool;
            const size_t per = kBytes / threads;
            for (int i = 0; i < threads; ++i)
              pool.emplace_back([=] {
                for (size_t at = i * per; at < (i + 1) * per; at += 4096)
                  reinterpret_cast<volatile uint8_t*>(dst)[at] = 0;
              });
            for (auto& th : pool) th.join();
            prefault.push_back(now_ms() - t);
            touched.push_back(copy_ms(dst, src.data(), threads));
          } else {
            first.push_back(copy_ms(dst, src.data(), threads));
            second.push_back(copy_ms(dst, src.data(), threads));
          }
          if (std::memcmp(dst, src.data(), kBytes) != 0) {
            std::printf("MISMATCH in %s\n", name.c_str());
            return 1;
          }
          vkUnmapMemory(dev, mem);
          vkFreeMemory(dev, mem, nullptr);
        }
      }
      if (!ok) {
        std::printf("%s: 256 MiB not allocatable\n", name.c_str());
        break;
      }
      std::printf(
          "%-20s threads %2d first_ms %7.2f second_ms %7.2f prefault_ms %7.2f "
          "touched_first_ms %7.2f\n",
          name.c_str(), threads, median(first), median(second), median(prefault), median(touched));
      std::fflush(stdout);
    }
  }
  vkDestroyDevice(dev, nullptr);
  vkDestroyInstance(inst, nullptr);
  return 0;
}
