// One-shot command recording and GPU timestamps.
#pragma once

#include <mutex>
#include <vector>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

// A primary command buffer, recorded once, submitted, waited for on a fence. It comes from the
// context's one command pool, which Vulkan requires to be used by one thread at a time: a batch
// made outside the context's call lock (a path no public call guards) takes that lock for its
// lifetime. Refuses with Errc::device_lost once the context's device is lost.
class CommandBatch {
 public:
  explicit CommandBatch(VkContext& ctx);
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;
  ~CommandBatch();
  VkCommandBuffer cmd() const { return cmd_; }
  // Timeline semaphore operations of the submission: the batch's commands wait until `timeline`
  // reaches `value` (signalled by CUDA, say), and the batch sets it to `value` when done.
  void wait_for(VkSemaphore timeline, uint64_t value,
                VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  void signal(VkSemaphore timeline, uint64_t value);
  // Ends recording, submits, and blocks until the GPU is done. Device loss becomes
  // Errc::device_lost.
  void submit_and_wait();
  // Ends recording and submits without blocking, so that other work (CUDA) can be ordered after
  // it by semaphore; wait() or the destructor blocks until it is done.
  void submit();
  void wait();

 private:
  VkContext& ctx_;
  std::unique_lock<std::recursive_mutex> lock_;  // engaged only when made outside the call lock
  void release();  // frees the command buffer and fence instead of keeping them

  // Command buffers and fences a context keeps for reuse, at most.
  static constexpr size_t kSpareBatches = 16;

  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  bool pending_ = false;
  bool submitted_ = false;  // once submitted, it may be reused (VkContext::spare_batches)
  std::vector<VkSemaphore> wait_sems_, signal_sems_;
  std::vector<uint64_t> wait_values_, signal_values_;
  std::vector<VkPipelineStageFlags> wait_stages_;
};

// GPU timestamps around regions of one or more command batches. mark() records a timestamp after
// all earlier work has finished; ms(a, b) reads the time between two marks once the work is done.
class GpuTimer {
 public:
  // valid_bits: the timestampValidBits of the queue family the marks are written on (0: the
  // context's queue's).
  GpuTimer(VkContext& ctx, uint32_t capacity = 64, uint32_t valid_bits = 0);
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  ~GpuTimer();
  void reset(VkCommandBuffer cmd);  // must be recorded before the first mark of a round
  // The same from the host (VkContext::host_query_reset), for marks on a queue that cannot reset
  // queries itself: a transfer-only queue. The pool must not be in use on the device.
  void reset_on_host();
  uint32_t mark(VkCommandBuffer cmd);
  double ms(uint32_t from, uint32_t to);  // fetches results on first use after a round
  // Mark i on the device's clock, in ms: comparable across timers of one device (queues share
  // the clock) where the marks' valid bits do not wrap between them.
  double at_ms(uint32_t i);

 private:
  VkContext& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t capacity_, used_ = 0;
  bool fetched_ = false;
  std::vector<uint64_t> ticks_;
  void fetch();
  uint64_t mask_ = ~0ull;
};

// A primary command buffer from `pool`, kept by its owner for many submissions (the pipelined
// lookups' slots, the staged uploads' ring), and its reset and begin for one submission.
VkCommandBuffer allocate_command_buffer(VkContext& ctx, VkCommandPool pool);
void begin_one_time(VkContext& ctx, VkCommandBuffer cmd);

// A full memory barrier between two stages; raydb's kernels are few and large, so finer barriers
// would buy nothing.
void memory_barrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access, const VkContext& ctx);

// Copies host bytes into a device buffer through a staging buffer, or straight from a HostBuffer
// that holds them (raydb/host_buffer.hpp; `staging` then stays empty). The copy is recorded into
// `cmd`; `staging` (and the HostBuffer) must stay alive until the batch has been waited for.
void record_upload(VkContext& ctx, VkCommandBuffer cmd, Buffer& staging, const Buffer& dst,
                   const void* src, size_t bytes, VkDeviceSize dst_offset = 0);

}  // namespace raydb::detail
