// The Crystal-style SSB baseline of the CUDA fast path (ssb_crystal.cu): no CUDA types here, so
// callers compile the same with or without the CUDA backend (ssb_cuda_absent.cpp answers
// 'unavailable' then). Buffers, ordering and thread-safety as in backend/cuda/cuda.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cuda/cuda.hpp"
#include "ops/ssb/ssb_params.hpp"

namespace raydb::detail::cuda {

// The SSB baseline in Crystal's style (ssb_crystal.cu) over star_columns() in `columns` and the
// dimension keys and codes in `dim_data` (both exportable, as SsbCrystalQuery's offsets say):
// builds the hash tables from `masks` (q.mask_words words) with one kernel per joined dimension,
// then runs the fused probe kernel, and returns the q.slots sums and counts. Blocks. Times in
// ms, CUDA events: the builds (build_ms) and the probe alone (probe_ms).
struct SsbCrystalResult {
  std::vector<int64_t> sums;
  std::vector<uint32_t> counts;
  double build_ms = 0, probe_ms = 0;
};
SsbCrystalResult ssb_crystal(VkContext& ctx, const Buffer& columns, const Buffer& dim_data,
                             const std::vector<uint32_t>& masks,
                             const ssb::detail::SsbCrystalQuery& q);

}  // namespace raydb::detail::cuda
