// The cgRX lookup as OptiX programs: the twin of shaders/cgrx/cgrx_probe.{rgen,rchit,rmiss}. The
// rays, the bucket check and the search (cgrx/cgrx_lookup.h) come from the header the GLSL
// shaders include; only the API calls differ here. Compiled by nvcc to OptiX-IR at build time and
// embedded in the library (src/CMakeLists.txt).
#include <optix.h>

#include "backend/optix/key_record.cuh"
#include "cgrx/cgrx_geometry.h"
#include "ops/cgrx/optix/cgrx_launch.h"

using raydb::detail::optix::CgrxLaunchParams;

extern "C" {
__constant__ CgrxLaunchParams params;
}

// ---- The hooks cgrx_lookup.h needs (the GLSL side defines them in cgrx_common.glsl). ----

__device__ __forceinline__ bool cgrx_flag(uint32_t f) {
  return (params.flags & f) != 0u;
}

__device__ __forceinline__ KeyRecord cgrx_record(uint32_t i) {
  return load_key_record(params.records, i, cgrx_flag(CGRX_FLAG_KEY64));
}

// As cgrx_probe.rgen: an opaque ray to its closest hit, whose primitive the closest-hit program
// reports in payload 0 (the geometry is opaque too: any-hit never runs).
__device__ __forceinline__ uint32_t cgrx_trace(float3 origin, float3 dir, float tmax) {
  uint32_t primitive = CGRX_NO_BUCKET;
  optixTrace(params.handle, origin, dir, 0.0f, tmax, 0.0f, OptixVisibilityMask(0xFF),
             OPTIX_RAY_FLAG_DISABLE_ANYHIT, 0, 1, 0, primitive);
  return primitive;
}

__device__ __forceinline__ uint32_t cgrx_primitive_bucket(uint32_t p) {
  return reinterpret_cast<const uint32_t*>(params.buckets)[p];
}
__device__ __forceinline__ uint32_t cgrx_num_records() {
  return params.num_records;
}
__device__ __forceinline__ uint32_t cgrx_num_buckets() {
  return params.num_buckets;
}
__device__ __forceinline__ uint32_t cgrx_bucket_shift() {
  return params.bucket_shift;
}
__device__ __forceinline__ uint32_t cgrx_ray_window() {
  return params.ray_window;
}
__device__ __forceinline__ void cgrx_count_rays(uint32_t extra) {
  atomicAdd(reinterpret_cast<uint32_t*>(params.counters), extra);
}
__device__ __forceinline__ void cgrx_count_fallback() {
  atomicAdd(reinterpret_cast<uint32_t*>(params.counters) + 1, 1u);
}

#include "cgrx/cgrx_lookup.h"

extern "C" __global__ void __raygen__cgrx() {
  uint32_t local = optixGetLaunchIndex().x;
  if (local >= params.num_queries) return;
  uint32_t q = local + params.query_offset;
  uint64_t lo, hi;
  load_key_query(params.queries, q, cgrx_flag(CGRX_FLAG_RANGES), cgrx_flag(CGRX_FLAG_KEY64), lo,
                 hi);
  reinterpret_cast<CgrxResult*>(params.results)[q] = cgrx_find(lo, hi);
}

// The closest representative or marker ahead of the ray: one GAS, so the primitive index is the
// index into the per-primitive bucket array.
extern "C" __global__ void __closesthit__cgrx() {
  optixSetPayload_0(optixGetPrimitiveIndex());
}

// Nothing to do on a miss: payload 0 still says CGRX_NO_BUCKET.
extern "C" __global__ void __miss__cgrx() {}
