// One thread per item in blocks of 256; grids stay below the x limit (2^31 - 1 blocks) for any
// uint32 item count.
#pragma once

#include <cstdint>

namespace raydb::detail::cuda::kernels {

constexpr uint32_t kBlock = 256;

inline unsigned blocks_for(uint64_t items) {
  return static_cast<unsigned>((items + kBlock - 1) / kBlock);
}

__device__ inline uint64_t thread_index() {
  return uint64_t{blockIdx.x} * blockDim.x + threadIdx.x;
}

}  // namespace raydb::detail::cuda::kernels
