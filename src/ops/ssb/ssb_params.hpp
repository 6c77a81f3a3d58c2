// Push constants of the SSB trace kernels; must match shaders/ssb/ssb_common.glsl (scalar).
#pragma once

#include <cstddef>
#include <cstdint>

namespace raydb::ssb::detail {

struct SsbTraceParams {
  uint64_t vertices, rays, row_flags, sums, counts, multipliers, side_values;
  float ray_x, ray_y;
  uint32_t ray_offset, num_rays;
  uint32_t per_row_atomics, unused;
};
static_assert(sizeof(SsbTraceParams) == 80 && offsetof(SsbTraceParams, ray_x) == 56);

// shaders/ssb/ssb_star_join.comp
struct SsbStarJoinParams {
  uint64_t columns, dims, sums, counts;
  uint32_t n, aggregate;
  uint32_t dim_offset[4], dim_min[4], dim_len[4];
  uint32_t disc_lo, disc_hi, qty_lo, qty_hi;
};
static_assert(sizeof(SsbStarJoinParams) == 104);

}  // namespace raydb::ssb::detail
