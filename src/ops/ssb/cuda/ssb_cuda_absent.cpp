// The CUDA Crystal-style SSB baseline of a build without nvcc: they fail like require() would
// (backend/cuda/absent.cpp).
#include "ops/ssb/cuda/ssb_cuda.hpp"

namespace raydb::detail::cuda {

SsbCrystalResult ssb_crystal(VkContext&, const Buffer&, const Buffer&, const std::vector<uint32_t>&,
                             const ssb::detail::SsbCrystalQuery&) {
  unavailable();
}
}  // namespace raydb::detail::cuda
