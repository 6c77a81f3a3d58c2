// RTScan's Matrix RT Refine as OptiX programs: the twin of shaders/rtscan/rtscan_refine.{rgen,rint,
// rahit,rmiss}. The lattice of rays and the exact re-check come from rtscan/rtscan_refine.h, which
// the GLSL shaders include; only the API calls differ here. Compiled by nvcc to OptiX-IR at build
// time and embedded in the library (src/CMakeLists.txt).
#include <optix.h>

#include "ops/rtscan/optix/rtscan_launch.h"

using raydb::detail::optix::RtScanLaunchParams;

extern "C" {
__constant__ RtScanLaunchParams params;
}

// ---- The hooks rtscan_refine.h needs (the GLSL side defines them in rtscan_common.glsl). ----

__device__ __forceinline__ bool rtscan_has_axis(uint32_t d) {
  return params.keys[d] != 0u;
}
__device__ __forceinline__ uint32_t rtscan_key(uint32_t d, uint32_t row) {
  return reinterpret_cast<const uint32_t*>(params.keys[d])[row];
}
__device__ __forceinline__ uint32_t rtscan_lo(uint32_t d) {
  return params.lo[d];
}
__device__ __forceinline__ uint32_t rtscan_hi(uint32_t d) {
  return params.hi[d];
}
__device__ __forceinline__ void rtscan_bits_or(uint32_t word, uint32_t bits) {
  atomicOr(reinterpret_cast<uint32_t*>(params.bitmap) + word, bits);
}
__device__ __forceinline__ void rtscan_bits_and(uint32_t word, uint32_t bits) {
  atomicAnd(reinterpret_cast<uint32_t*>(params.bitmap) + word, bits);
}
__device__ __forceinline__ void rtscan_count_call() {
  if (params.counter != 0u) atomicAdd(reinterpret_cast<uint32_t*>(params.counter), 1u);
}

#include "rtscan/rtscan_refine.h"

// One ray segment of a refine box's lattice per launch index, as rtscan_refine.rgen. The
// intersection program does all the work and never reports a hit, so traversal visits every cube
// the segment crosses.
extern "C" __global__ void __raygen__rtscan() {
  uint32_t id = optixGetLaunchIndex().x;
  if (id >= params.num_rays) return;
  float3 first = make_float3(params.origin[0], params.origin[1], params.origin[2]);
  float3 origin =
      rtscan_lattice_origin(id + params.ray_offset, first, params.n_segments, params.n_cross0,
                            params.axis, params.cross0, params.interval, params.stride);
  float3 dir = rtscan_lattice_dir(params.axis);
  optixTrace(params.handle, origin, dir, 0.0f, params.segment, 0.0f, OptixVisibilityMask(0xFF),
             OPTIX_RAY_FLAG_NONE, 0, 1, 0);
}

// A cube (row) the segment crosses: re-check the row exactly and fix its bit; report nothing.
extern "C" __global__ void __intersection__rtscan() {
  rtscan_refine_row(optixGetPrimitiveIndex());
}

// rtindex: a key's triangle the ray crosses: re-check the row exactly, fix its bit, and let the
// ray go on (rtscan_refine.rahit's twin).
extern "C" __global__ void __anyhit__rtscan() {
  rtscan_refine_row(optixGetPrimitiveIndex());
  optixIgnoreIntersection();
}

// Nothing to do on a miss: the intersection program already wrote every bit.
extern "C" __global__ void __miss__rtscan() {}
