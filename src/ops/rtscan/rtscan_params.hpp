// Push constants of the RTScan kernels (shaders/rtscan), in the shaders' scalar layout.
#pragma once

#include <cstdint>

namespace raydb::detail {

struct RtScanCubeParams {
  uint64_t keys[3];
  uint64_t boxes;
  uint32_t rows;
  float half_width;
};
static_assert(sizeof(RtScanCubeParams) == 40);

struct RtScanVectorParams {
  uint64_t keys, borders, vectors, items;
  uint32_t words, rows;
};
static_assert(sizeof(RtScanVectorParams) == 40);

struct RtScanSieveParams {
  uint64_t upper[3];
  uint64_t lower[3];
  uint64_t bitmap;
  uint32_t words, rows, columns, empty;
};
static_assert(sizeof(RtScanSieveParams) == 72);

struct RtScanRefineParams {
  uint64_t keys[3];
  uint64_t bitmap;
  uint64_t counter;
  uint32_t lo[3];
  uint32_t hi[3];
  float origin[3];
  uint32_t n_cross0, n_cross1, n_segments;
  uint32_t axis, cross0, cross1;
  float interval, segment, stride;
  uint32_t ray_offset, num_rays;
};
static_assert(sizeof(RtScanRefineParams) == 120);

}  // namespace raydb::detail
