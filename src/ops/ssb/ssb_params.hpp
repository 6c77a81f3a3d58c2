// Push constants of the SSB trace kernels; must match shaders/ssb/ssb_common.glsl (scalar).
#pragma once

#include <cstddef>
#include <cstdint>

namespace raydb::ssb::detail {

struct SsbTraceParams {
  uint64_t vertices, rays, row_flags, sums, counts, multipliers, side_values, row_groups;
  float ray_x, ray_y;
  uint32_t ray_offset, num_rays;
  uint32_t per_row_atomics, unused;
};
static_assert(sizeof(SsbTraceParams) == 88 && offsetof(SsbTraceParams, ray_x) == 64);

// shaders/ssb/ssb_star_join.comp
struct SsbStarJoinParams {
  uint64_t columns, dims, sums, counts;
  uint32_t n, aggregate;
  uint32_t dim_offset[4], dim_min[4], dim_len[4];
  uint32_t disc_lo, disc_hi, qty_lo, qty_hi;
};
static_assert(sizeof(SsbStarJoinParams) == 104);

}  // namespace raydb::ssb::detail

namespace raydb::ssb::detail {

// src/backend/cuda/ssb_crystal.cu: one dimension's perfect-hash build (one thread per dimension
// row; offsets in 32-bit words). The row's slot key - key_min gets kStarNone when a filter's mask
// bit of the row's code is clear, else the sum of its group codes times their strides.
struct SsbCrystalDim {
  uint32_t rows = 0, key_min = 0, key_len = 0;  // key_len 0: the query does not join it
  uint32_t keys = 0;                            // the keys' offset in the dimension data
  uint32_t table = 0;                           // the table's offset in the hash-table words
  uint32_t filters = 0, groups = 0;
  uint32_t filter_codes[4] = {}, filter_mask[4] = {};  // codes: dimension data; mask: mask words
  uint32_t group_codes[4] = {}, group_stride[4] = {};
};

// The fused probe kernel's query: dimensions in the order date, customer, supplier, part (the
// lineorder key columns 0..3 of star_columns()).
struct SsbCrystalQuery {
  SsbCrystalDim dim[4];
  uint32_t n = 0, aggregate = 0;  // StarPlan::aggregate
  uint32_t disc_lo = 0, disc_hi = 0, qty_lo = 0, qty_hi = 0;
  uint32_t table_words = 0, mask_words = 0;
  uint32_t slots = 0;  // group slots: sums and counts entries
};

}  // namespace raydb::ssb::detail
