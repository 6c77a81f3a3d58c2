// Keys to OptiX build input on the GPU, from the same records and the same mapping
// (common/rx_mapping.h) as the Vulkan build kernel, so both APIs build over identical coordinates.
#include "backend/cuda/grid.cuh"
#include "common/rx_mapping.h"
#include "ops/rx/optix/rx_primitives.hpp"

namespace raydb::detail::optix {

namespace {

__global__ void rx_primitives(const uint4* records, float* out, uint64_t count, bool key64,
                              bool boxes) {
  uint64_t i = cuda::kernels::thread_index();
  if (i >= count) return;
  uint4 r = records[i];  // shaders/common/records.glsl
  uint64_t k = key64 ? uint64_t(r.x) | (uint64_t(r.y) << 32) : uint64_t(r.x);
  if (boxes) {
    RxBox b = rx_key_box(k);
    float* o = out + i * 6;
    o[0] = b.lo.x, o[1] = b.lo.y, o[2] = b.lo.z, o[3] = b.hi.x, o[4] = b.hi.y, o[5] = b.hi.z;
  } else {
    RxTriangle t = rx_key_triangle(k);
    float* o = out + i * 9;
    o[0] = t.a.x, o[1] = t.a.y, o[2] = t.a.z, o[3] = t.b.x, o[4] = t.b.y, o[5] = t.b.z;
    o[6] = t.c.x, o[7] = t.c.y, o[8] = t.c.z;
  }
}

}  // namespace

void launch_rx_primitives(const void* records, void* primitives, uint64_t count, bool key64,
                          bool boxes, cudaStream_t stream) {
  if (count == 0) return;
  using cuda::kernels::blocks_for;
  using cuda::kernels::kBlock;
  rx_primitives<<<blocks_for(count), kBlock, 0, stream>>>(
      static_cast<const uint4*>(records), static_cast<float*>(primitives), count, key64, boxes);
}

}  // namespace raydb::detail::optix
