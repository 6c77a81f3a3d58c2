// The launch parameters of the OptiX RTScan programs (rtscan_programs.cu), shared by the host
// (rtscan_optix.cpp) and the device code. The OptiX twin of raydb::detail::RtScanRefineParams: the
// same lattice and accepted ranges, CUDA pointers in place of Vulkan addresses, and the group's
// traversable handle in place of the descriptor set.
#pragma once

#include <optix_types.h>

#include <cstdint>

namespace raydb::detail::optix {

struct RtScanLaunchParams {
  OptixTraversableHandle handle;  // the group's GAS
  uint64_t keys[3];  // the group's key columns (codes or values); 0 past the group's columns
  uint64_t bitmap;   // the group's result words
  uint64_t counter;  // intersection-program calls, when not 0
  uint32_t lo[3];    // the exact accepted keys per axis, lo <= key <= hi
  uint32_t hi[3];
  float origin[3];  // the lattice's first ray origin
  uint32_t n_cross0, n_cross1, n_segments;
  uint32_t axis, cross0, cross1;
  float interval, segment, stride;  // I; each ray's length L; L + S
  uint32_t ray_offset;              // index of this launch's first ray in the box
  uint32_t num_rays;                // rays in this launch
};

}  // namespace raydb::detail::optix
