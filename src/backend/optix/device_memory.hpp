// Device memory of the OptiX backend (OptiX builds only): cudaMalloc'd blocks counted in a tally,
// so a build can report its peak.
#pragma once

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix_types.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "backend/cuda/runtime.hpp"
#include "raydb/diagnostics.hpp"

namespace raydb::detail::optix {

// Device bytes an OptiX object holds now and at most since the last reset (build_peak_bytes).
struct MemoryTally {
  uint64_t now = 0, peak = 0;
  void add(int64_t delta) {
    now = static_cast<uint64_t>(static_cast<int64_t>(now) + delta);
    peak = std::max(peak, now);
  }
};

// One cudaMalloc, freed with its owner, counted in a MemoryTally.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(MemoryTally& tally, uint64_t bytes, const char* what) : tally_(&tally) {
    bytes_ = bytes;
    cuda::check(cudaMalloc(&ptr_, std::max<uint64_t>(bytes, 16)),
                fmt::format("cudaMalloc of {} bytes ({})", bytes, what).c_str());
    tally_->add(static_cast<int64_t>(bytes_));
  }
  DeviceMemory(DeviceMemory&& o) noexcept { *this = std::move(o); }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept {
    if (this != &o) {
      reset();
      std::swap(ptr_, o.ptr_);
      std::swap(bytes_, o.bytes_);
      std::swap(tally_, o.tally_);
    }
    return *this;
  }
  ~DeviceMemory() { reset(); }
  void reset() {
    if (ptr_) {
      cudaFree(ptr_);  // nothing to do about a failing free; the result is not affected
      tally_->add(-static_cast<int64_t>(bytes_));
    }
    ptr_ = nullptr;
    bytes_ = 0;
  }
  CUdeviceptr address() const { return reinterpret_cast<CUdeviceptr>(ptr_); }
  void* get() const { return ptr_; }
  uint64_t bytes() const { return bytes_; }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
  MemoryTally* tally_ = nullptr;
};

// Whether the OptiX programs read a cudaMalloc'd copy of the shared buffer `b` or `b` itself.
// Itself where CUDA allocated it (backend/cuda/shared_memory.cpp: CUDA reads its own memory at
// full speed) or where Diagnostics::cuda_own_memory is off (to measure imported Vulkan memory
// again); a copy otherwise: CUDA's reads of imported Vulkan memory were slow on the H100 (RTScan's
// refine at selectivity 0.9 took 14.1 ms over imported keys and 0.71 ms over copies,
// docs/optix.md).
inline bool use_own_memory(const Buffer& b, const Diagnostics& diagnostics) {
  if (cuda::allocated_by_cuda(b)) return false;
  return diagnostics.cuda_own_memory != CudaOwnMemory::off;
}

// A cudaMalloc'd copy of `bytes` of device memory at `src` (an imported Vulkan buffer).
inline DeviceMemory own_copy(MemoryTally& tally, const void* src, uint64_t bytes,
                             const char* what) {
  DeviceMemory copy(tally, bytes, what);
  cuda::check(cudaMemcpy(copy.get(), src, bytes, cudaMemcpyDeviceToDevice),
              fmt::format("cudaMemcpy ({} into CUDA's own memory)", what).c_str());
  return copy;
}

}  // namespace raydb::detail::optix
