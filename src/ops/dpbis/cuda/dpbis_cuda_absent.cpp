// The CUDA DP-BIS and sieving kernels of a build without nvcc: they fail like require() would
// (backend/cuda/absent.cpp).
#include "ops/dpbis/cuda/dpbis_cuda.hpp"

namespace raydb::detail::cuda {

void sieve_vectors(VkContext&, const Buffer&, const Buffer&, uint64_t, uint32_t) {
  unavailable();
}
void sieve_select(VkContext&, const Buffer&, const Buffer&, uint64_t, int32_t, int32_t, uint32_t) {
  unavailable();
}
void codes_select(VkContext&, const Buffer&, const Buffer&, uint64_t, int32_t, int32_t) {
  unavailable();
}
void codes_select_exact(VkContext&, const Buffer&, const Buffer&, const Buffer&, const Buffer&,
                        uint64_t, int32_t, int32_t, uint32_t, uint32_t, uint32_t) {
  unavailable();
}
void sieve_select_exact(VkContext&, const Buffer&, const Buffer&, const Buffer&, const Buffer&,
                        uint64_t, int32_t, int32_t, uint32_t, uint32_t, uint32_t) {
  unavailable();
}
void refine_candidates(VkContext&, const Buffer&, const Buffer&, const Buffer&, uint32_t, uint32_t,
                       uint32_t, uint32_t, uint32_t, uint32_t) {
  unavailable();
}
}  // namespace raydb::detail::cuda
