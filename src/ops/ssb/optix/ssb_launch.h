// The launch parameters of the OptiX SSB programs (ssb_programs.cu), shared by the host
// (ssb_optix.cpp) and the device code. The OptiX twin of raydb::ssb::detail::SsbTraceParams: the
// same arrays (in CUDA memory), with the GAS's traversable handle in place of the descriptor set.
#pragma once

#include <optix_types.h>

#include <cstdint>

namespace raydb::detail::optix {

struct SsbLaunchParams {
  OptixTraversableHandle handle;  // the query's GAS
  uint64_t vertices;              // 9 floats per triangle, right-angle vertex first; or 0
  uint64_t rays;                  // (z_lo, z_hi) inclusive per ray
  uint64_t row_flags;             // one bit per triangle, cleared before the launch
  uint64_t sums;                  // one 64-bit sum per group (two's complement)
  uint64_t counts;                // one 32-bit count per group
  uint64_t multipliers;           // per triangle, multiplies the value; or 0
  uint64_t side_values;           // per triangle, the value when X cannot hold it; or 0
  uint64_t row_groups;            // per triangle, the group code when Y does not hold it; or 0
  float ray_x, ray_y;             // the lattice point inside every triangle
  uint32_t num_rays;              // rays in this launch
  uint32_t ray_offset;            // first ray of this launch
  uint32_t per_row_atomics;       // 1: atomics per row, no runs
  uint32_t pointer_payload;  // diagnostic: the run in the raygen's memory, a pointer as payload
};

}  // namespace raydb::detail::optix
