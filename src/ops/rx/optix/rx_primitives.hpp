// CUDA kernels of the OptiX backend (rx_primitives.cu), callable from host C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace raydb::detail::optix {

// The twin of shaders/rx/rx_build_primitives.comp: record i's key becomes its triangle (9 floats)
// or box (6 floats, OptixAabb's layout) at primitives + i, from common/rx_mapping.h.
void launch_rx_primitives(const void* records, void* primitives, uint64_t count, bool key64,
                          bool boxes, cudaStream_t stream);

}  // namespace raydb::detail::optix
