// The kernel that holds the stream before a Timer starts (set_timer_hold, runtime.cpp).
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

__global__ void hold_kernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

cudaError_t hold_stream(uint64_t ns, cudaStream_t s) {
  if (ns == 0) return cudaSuccess;
  hold_kernel<<<1, 1, 0, s>>>(ns);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
