// Inside the CUDA backend (CUDA builds only): the per-context runtime and the error check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/timeline.hpp"

namespace raydb::detail::cuda {

// Throws raydb::Error naming the call and CUDA's own name and text for the error.
void check(cudaError_t e, const char* what);

struct Runtime {
  int device = -1;
  uint64_t l2_bytes = 0;  // the device's L2 cache
  cudaStream_t stream = nullptr;
  // Where the kernels' temporaries come from (cudaMallocFromPoolAsync). Without a memory budget it
  // keeps what it has between calls: with CUDA's default, every synchronisation gave a build's
  // sort scratch back to the driver (~1-2 ms on an H100 for 512 MiB) and the next sort mapped it
  // again (docs/e2e.md). VkContext::drain_releases trims it.
  cudaMemPool_t pool = nullptr;
  std::unique_ptr<Timeline> timeline;  // exported to CUDA; both APIs signal and wait on it
  cudaExternalSemaphore_t semaphore = nullptr;
  uint64_t timer_hold_ns = 0;    // set_timer_hold: the GPU is held this long before a Timer starts
  void* flush_buffer = nullptr;  // set_timer_flush: zeros read before a Timer starts (cudaMalloc)
  uint64_t flush_bytes = 0;

  Runtime() = default;
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  ~Runtime();
};

// What Buffer::cuda_mapping() holds: the buffer's CUDA device pointer, and whatever keeps it
// valid (an import of Vulkan memory, or CUDA's own allocation that Vulkan imported).
struct DeviceView {
  int device = -1;
  void* ptr = nullptr;
  bool allocated_by_cuda = false;  // shared_buffer's memory: CUDA reads it at full speed
  virtual ~DeviceView() = default;
};

// The context's runtime; throws like require() where there is none.
Runtime& runtime(VkContext& ctx);

// The CUDA device pointer of an exportable buffer, imported on first use and kept in
// Buffer::cuda_mapping() until the buffer is reset.
void* device_ptr(VkContext& ctx, const Buffer& buffer);

// Whether the buffer's memory is CUDA's own (shared_buffer), so that CUDA code needs no copy of
// it to read at full speed.
inline bool allocated_by_cuda(const Buffer& buffer) {
  auto& m = buffer.cuda_mapping();
  return m && static_cast<const DeviceView*>(m.get())->allocated_by_cuda;
}

template <class T>
T* ptr(VkContext& ctx, const Buffer& buffer) {
  return static_cast<T*>(device_ptr(ctx, buffer));
}

// 32-bit words of a bitmap of `rows` rows.
inline uint32_t words_of(uint64_t rows) {
  return static_cast<uint32_t>((rows + 31) / 32);
}

// Throws Errc::internal naming `what` unless the buffer holds at least `bytes` bytes.
void need(const Buffer& b, uint64_t bytes, const char* what);

}  // namespace raydb::detail::cuda
