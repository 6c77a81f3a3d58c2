// Launchers of the Crystal-style SSB CUDA kernels (ssb_crystal.cu), on raw device pointers. Each
// returns the launch's error; ssb_cuda.cpp checks and names them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/ssb/ssb_params.hpp"

namespace raydb::detail::cuda::kernels {

// ssb_crystal.cu: fills one dimension's slots of `tables` (already all 0xFF) from its rows.
cudaError_t ssb_dim_build(const uint32_t* dim_data, const uint32_t* masks, uint32_t* tables,
                          const ssb::detail::SsbCrystalDim& d, cudaStream_t s);
// The fused probe: every lineorder row's filters, joins and group, summed into sums / counts
// (q.slots entries each, zeroed).
cudaError_t ssb_probe(const uint32_t* columns, const uint32_t* tables, unsigned long long* sums,
                      uint32_t* counts, const ssb::detail::SsbCrystalQuery& q, cudaStream_t s);

}  // namespace raydb::detail::cuda::kernels
