// The state behind raydb::Context: instance, device, queue, loader tables, allocator.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "backend/vk/vk_common.hpp"
#include "raydb/context.hpp"

namespace raydb::detail {

class Buffer;
class ReleaseQueue;
class SpareBuffers;

namespace cuda {
struct Runtime;  // backend/cuda: the CUDA device, stream and shared timeline of one context
}

struct VkContext {
  bool owns_device = true;  // false when adopted: the host destroys its objects
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  uint32_t api_version = VK_API_VERSION_1_2;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  bool debug_utils = false;

  VolkDeviceTable vk{};  // device-level functions of this device only
  // The few instance-level functions used after creation, loaded for this instance: volk's
  // globals may meanwhile point at a host application's instance.
  PFN_vkDestroyInstance destroy_instance = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger = nullptr;
  PFN_vkSetDebugUtilsObjectNameEXT set_object_name = nullptr;
  uint32_t timestamp_valid_bits = 0;  // of the queue's family
  VmaAllocator allocator = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;
  // CommandBatch's command buffers (from command_pool) and fences, done and kept for the next
  // batch; under call_mutex. Freed before the pool.
  std::vector<std::pair<VkCommandBuffer, VkFence>> spare_batches;
  // Queues of a transfer-only family (the copy engines), which pipelined lookups copy on so that
  // PCIe traffic overlaps the kernels: [0] uploads, [1] downloads (the same queue where the family
  // has one). Null where the device has no such family or the application made the device
  // (HostVulkan): pipelined copies then go to `queue`. Used under call_mutex, as `queue`.
  uint32_t copy_family = ~0u;
  VkQueue copy_queues[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  VkCommandPool copy_pool = VK_NULL_HANDLE;
  uint32_t copy_timestamp_bits = 0;
  bool host_query_reset = false;  // enabled (Vulkan 1.2's hostQueryReset): GpuTimer::reset_on_host
  bool has_copy_queues() const { return copy_queues[0] != VK_NULL_HANDLE; }

  DeviceInfo info;
  TraversalMode traversal = TraversalMode::pipeline;
  VkPhysicalDeviceProperties properties{};
  VkPhysicalDeviceAccelerationStructurePropertiesKHR as_properties{};
  VkPhysicalDeviceRayTracingPipelinePropertiesKHR rt_properties{};

  // Compute pipelines shared by every operator of this context (pipelines.hpp: kernel()); cleared
  // before the device goes.
  std::map<int, std::shared_ptr<void>> kernel_cache;
  // Pipelines that read a TLAS (pipelines.hpp: tlas_kernel, rt_kernel), by shaders and layout.
  std::map<std::string, std::shared_ptr<void>> tlas_pipeline_cache;

  // Enabled on this device (optional extensions and feature): what CUDA interop needs.
  bool external_memory_fd = false, external_semaphore_fd = false, timeline_semaphore = false;
  // Enabled on this device: rayTraversalPrimitiveCulling (RtPipeline skips the kind it never
  // traces).
  bool primitive_culling = false;
  // Probed on first use (Context::cuda); the runtime exists only where CUDA is available. It is
  // released first on destruction: its imports refer to this device's memory and semaphores.
  std::optional<CudaSupport> cuda_support;
  Backend backend = Backend::automatic;  // ContextOptions::backend or RAYDB_BACKEND
  std::shared_ptr<cuda::Runtime> cuda;
  // Buffers shared with CUDA are CUDA's allocations imported here (cuda::shared_buffer) until
  // that fails as unsupported once; then Vulkan's, exported to CUDA.
  bool cuda_allocates_shared = true;
  // backend/optix: OptiX support and device context, probed on first use; released before `cuda`.
  std::shared_ptr<void> optix;
  // ops/common's ring of pipelined-lookup slots (LookupBatch), shared by every index of this
  // context and released before the command pools; empty until an index reserves it.
  std::shared_ptr<void> lookup_slots;
  // backend/vk/staged_upload.cpp's staging chunks for uploads from host memory; empty until the
  // first such upload, released before the command pools.
  std::shared_ptr<void> upload_ring;

  std::atomic<uint64_t> validation_messages{0};
  std::function<void(std::string_view)> on_validation_message;

  // Device bytes allocated through this context, now and at the peak since reset_peak(). Atomic:
  // buffers may be freed outside any call lock (an index destroyed on another thread).
  std::atomic<uint64_t> allocated_bytes{0};
  std::atomic<uint64_t> peak_bytes{0};
  void track_allocation(int64_t delta_bytes);
  void reset_peak() { peak_bytes = allocated_bytes.load(); }
  // Frees `buffer` on a worker thread (release_queue.hpp); it leaves allocated_bytes now. For
  // temporaries whose GPU work is done, so that the host goes on to its next submission.
  void release_later(Buffer&& buffer);
  // Waits until every buffer given to release_later is freed, and frees the kept spare buffers
  // (spare_buffers.hpp) and what trim_caches frees; whether anything was freed. An allocation
  // that fails for lack of memory calls it and tries again.
  bool drain_releases();
  // Set by a backend that keeps device memory of its own between calls (CUDA's stream-ordered
  // pool, backend/cuda/runtime.cpp): frees it; whether it held any.
  std::function<bool()> trim_caches;
  std::mutex release_mutex;
  std::shared_ptr<ReleaseQueue> release_queue;  // made on first use, under release_mutex
  std::shared_ptr<SpareBuffers> spares;         // spare_buffers.hpp; under release_mutex
  // ContextOptions::memory_budget_bytes; 0: none. Buffer creation checks it (buffer.cpp) and
  // fails with Errc::out_of_memory naming the allocation.
  uint64_t memory_budget = 0;
  Diagnostics diagnostics;  // ContextOptions::diagnostics

  // Thread-safety (raydb/context.hpp): every public call that reaches this context runs under
  // call_mutex (CallLock, call_lock.hpp), so one thread at a time uses the queue, the command
  // pool, kernel_cache, the lazily made CUDA and OptiX state, and each operator's per-call
  // buffers and pipelines. Recursive: a join calls its index's public methods under the lock.
  std::recursive_mutex call_mutex;
  std::atomic<std::thread::id> call_owner{};  // the thread holding call_mutex, if any
  uint32_t call_depth = 0;                    // its recursion depth; changed under call_mutex
  // Set once a submit or wait returned VK_ERROR_DEVICE_LOST: every later call fails with
  // Errc::device_lost (CallLock) instead of touching the lost device.
  std::atomic<bool> device_lost{false};
  // detail::inject_device_loss (a test hook): submits to let through before one fails as if the
  // device were lost; -1: none.
  std::atomic<int64_t> submits_before_loss{-1};

  // HostBuffers (raydb/host_buffer.hpp) made on this context, by first byte, which the pipelined
  // lookups copy from and into directly (backend/vk/host_buffers.hpp). Under host_buffers_mutex,
  // not the call lock: a HostBuffer may be made or destroyed on any thread.
  std::mutex host_buffers_mutex;
  std::map<uintptr_t, const Buffer*> host_buffers;

  // VK_EXT_debug_utils object name, when the extension is there.
  void set_name(VkObjectType type, uint64_t handle, const std::string& name) const;

  bool supports(TraversalMode mode) const;
  // Resolves automatic to this context's mode; fails when the device cannot do the mode asked.
  TraversalMode resolve(TraversalMode mode) const;

  VkContext() = default;
  VkContext(const VkContext&) = delete;
  VkContext& operator=(const VkContext&) = delete;
  ~VkContext();
};

}  // namespace raydb::detail
