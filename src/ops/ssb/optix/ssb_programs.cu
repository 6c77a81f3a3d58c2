// The SSB engine's rays as OptiX programs: the twin of shaders/ssb/ssb_trace.{rgen,rahit,rmiss}.
// The ray of a Z interval and the per-row count come from ssb/ssb_trace.h, which the GLSL shaders
// include; only the API calls differ here. Compiled by nvcc to OptiX-IR at build time and embedded
// in the library (src/CMakeLists.txt).
#include <optix.h>

#include "ops/ssb/optix/ssb_launch.h"

using raydb::detail::optix::SsbLaunchParams;

extern "C" {
__constant__ SsbLaunchParams params;
}

// ---- The hooks ssb_trace.h needs (the GLSL side defines them in ssb_common.glsl). ----

__device__ __forceinline__ bool ssb_claim_row(uint32_t row) {
  uint32_t bit = 1u << (row & 31u);
  return (atomicOr(reinterpret_cast<uint32_t*>(params.row_flags) + (row >> 5), bit) & bit) == 0u;
}
__device__ __forceinline__ int64_t ssb_row_value(uint32_t row) {
  const float* v = reinterpret_cast<const float*>(params.vertices);
  int64_t value = params.side_values != 0u
                      ? reinterpret_cast<const int64_t*>(params.side_values)[row]
                      : static_cast<int64_t>(v[9u * row]);
  if (params.multipliers != 0u)
    value *= static_cast<int64_t>(reinterpret_cast<const uint32_t*>(params.multipliers)[row]);
  return value;
}
__device__ __forceinline__ uint32_t ssb_row_group(uint32_t row) {
  if (params.row_groups != 0u) return reinterpret_cast<const uint32_t*>(params.row_groups)[row];
  if (params.vertices == 0u) return 0u;  // filter_only with one group
  return static_cast<uint32_t>(reinterpret_cast<const float*>(params.vertices)[9u * row + 1u]);
}
__device__ __forceinline__ void ssb_group_add(uint32_t group, int64_t sum, uint32_t count) {
  atomicAdd(reinterpret_cast<unsigned long long*>(params.sums) + group,
            static_cast<unsigned long long>(sum));
  atomicAdd(reinterpret_cast<uint32_t*>(params.counts) + group, count);
}
__device__ __forceinline__ bool ssb_per_row_atomics() {
  return params.per_row_atomics != 0u;
}

#include "ssb/ssb_trace.h"

// The run travels in four payload registers (group, count, sum low and high words), as the
// GLSL pipeline passes the SsbRun struct itself as its payload.
__device__ __forceinline__ SsbRun ssb_payload_run() {
  SsbRun run;
  run.group = optixGetPayload_0();
  run.count = optixGetPayload_1();
  run.sum = static_cast<int64_t>((uint64_t(optixGetPayload_3()) << 32) | optixGetPayload_2());
  return run;
}
__device__ __forceinline__ void ssb_set_payload_run(const SsbRun& run) {
  optixSetPayload_0(run.group);
  optixSetPayload_1(run.count);
  optixSetPayload_2(static_cast<uint32_t>(static_cast<uint64_t>(run.sum)));
  optixSetPayload_3(static_cast<uint32_t>(static_cast<uint64_t>(run.sum) >> 32));
}

// One ray per launch index, as ssb_trace.rgen; the any-hit program counts rows into the run and
// the last run is added here.
extern "C" __global__ void __raygen__ssb() {
  uint32_t id = optixGetLaunchIndex().x;
  if (id >= params.num_rays) return;
  uint2 z = reinterpret_cast<const uint2*>(params.rays)[id + params.ray_offset];
  float3 origin = make_float3(params.ray_x, params.ray_y, ssb_ray_start(z.x));
  SsbRun run = ssb_run_start();
  uint32_t p0 = run.group, p1 = run.count, p2 = 0, p3 = 0;
  if (params.pointer_payload) {
    uint64_t p = reinterpret_cast<uint64_t>(&run);
    p0 = uint32_t(p);
    p1 = uint32_t(p >> 32);
  }
  optixTrace(params.handle, origin, make_float3(0.0f, 0.0f, 1.0f), 0.0f, ssb_ray_length(z.x, z.y),
             0.0f, OptixVisibilityMask(0xFF), OPTIX_RAY_FLAG_DISABLE_CLOSESTHIT, 0, 1, 0, p0, p1,
             p2, p3);
  if (!params.pointer_payload) {
    run.group = p0;
    run.count = p1;
    run.sum = static_cast<int64_t>((uint64_t(p3) << 32) | p2);
  }
  ssb_run_flush(run);
}

// Counts the row into the ray's run and lets the ray go on to every other row of its interval.
extern "C" __global__ void __anyhit__ssb() {
  if (params.pointer_payload) {
    uint64_t p = (uint64_t(optixGetPayload_1()) << 32) | optixGetPayload_0();
    ssb_count_row(optixGetPrimitiveIndex(), *reinterpret_cast<SsbRun*>(p));
  } else {
    SsbRun run = ssb_payload_run();
    ssb_count_row(optixGetPrimitiveIndex(), run);
    ssb_set_payload_run(run);
  }
  optixIgnoreIntersection();
}

extern "C" __global__ void __miss__ssb() {}
