// Push constants of the SSB trace kernels; must match shaders/ssb/ssb_common.glsl (scalar).
#pragma once

#include <cstddef>
#include <cstdint>

namespace raydb::ssb::detail {

struct SsbTraceParams {
  uint64_t vertices, rays, row_flags, sums, counts, multipliers, side_values;
  float ray_x, ray_y;
  uint32_t ray_offset, num_rays;
};
static_assert(sizeof(SsbTraceParams) == 72 && offsetof(SsbTraceParams, ray_x) == 56);

}  // namespace raydb::ssb::detail
