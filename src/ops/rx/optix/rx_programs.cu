// The RX lookup as OptiX programs: the twin of shaders/rx/rx_probe.{rgen,rahit,rchit,rint,rmiss}.
// Rays, primitives (common/rx_mapping.h) and the lookup itself (rx/rx_lookup.h: exact re-check,
// hit-and-scan) come from the headers the GLSL shaders include; only the API calls differ here.
// Compiled by nvcc to OptiX-IR at build time and embedded in the library (src/CMakeLists.txt).
#include <optix.h>

#include "backend/optix/key_record.cuh"
#include "common/rx_mapping.h"
#include "ops/rx/optix/rx_launch.h"

using raydb::detail::optix::RxLaunchParams;

extern "C" {
__constant__ RxLaunchParams params;
}

// ---- The hooks rx_lookup.h needs (the GLSL side defines them in rx_common.glsl). ----

__device__ __forceinline__ bool rx_flag(uint32_t f) {
  return (params.flags & f) != 0u;
}

__device__ __forceinline__ KeyRecord rx_record(uint32_t i) {
  return load_key_record(params.records, i, rx_flag(RX_FLAG_KEY64));
}

__device__ __forceinline__ uint32_t rx_num_primitives() {
  return params.num_primitives;
}

__device__ __forceinline__ void rx_write_match(uint32_t query, uint32_t row) {
  uint32_t slot = atomicAdd(reinterpret_cast<uint32_t*>(params.match_count), 1u);
  if (slot < params.match_capacity)
    reinterpret_cast<uint2*>(params.matches)[slot] = make_uint2(query, row);
}

#include "rx/rx_lookup.h"

// ---- Launch-side helpers, as in rx_common.glsl. ----

// The lookup of this thread within its launch: row-major over a 1D or 2D launch.
__device__ __forceinline__ uint32_t rx_launch_local() {
  uint3 i = optixGetLaunchIndex();
  return i.y * optixGetLaunchDimensions().x + i.x;
}

struct RxPayload {
  RxHitState s;
  uint32_t query;
};

__device__ __forceinline__ void rx_load_query(uint32_t q, uint64_t& lo, uint64_t& hi) {
  load_key_query(params.queries, q, rx_flag(RX_FLAG_RANGES), rx_flag(RX_FLAG_KEY64), lo, hi);
}

// The payload of the any-hit rays: a pointer to the raygen's RxPayload in two registers (the
// GLSL pipeline passes the struct itself; docs/optix.md lists this among the differences).
__device__ __forceinline__ RxPayload* rx_payload() {
  uint64_t p = (uint64_t(optixGetPayload_1()) << 32) | optixGetPayload_0();
  return reinterpret_cast<RxPayload*>(p);
}

// The record a ray hit: one GAS, so the primitive index is the record index.
__device__ __forceinline__ uint32_t rx_hit_primitive() {
  return optixGetPrimitiveIndex();
}

__device__ void rx_trace(RxPayload& pl, const RxRay& r) {
  if (rx_flag(RX_FLAG_OPAQUE)) {
    // As in rx_probe.rgen: the first triangle crossed is the entry, reported by the closest-hit
    // program in payload 0; should its exact re-check fail, trace again the any-hit way.
    uint32_t entry = RX_NO_ENTRY, unused = 0;
    optixTrace(params.handle, r.origin, r.dir, 0.0f, r.tmax, 0.0f, OptixVisibilityMask(0xFF),
               OPTIX_RAY_FLAG_DISABLE_ANYHIT | OPTIX_RAY_FLAG_TERMINATE_ON_FIRST_HIT, 0, 1, 0,
               entry, unused);
    if (entry == RX_NO_ENTRY || rx_candidate(pl.s, pl.query, entry)) return;
  }
  uint64_t p = reinterpret_cast<uint64_t>(&pl);
  uint32_t p0 = uint32_t(p), p1 = uint32_t(p >> 32);
  unsigned flags = OPTIX_RAY_FLAG_DISABLE_CLOSESTHIT |
                   (rx_terminate_on_first_hit() ? OPTIX_RAY_FLAG_TERMINATE_ON_FIRST_HIT : 0u);
  optixTrace(params.handle, r.origin, r.dir, 0.0f, r.tmax, 0.0f, OptixVisibilityMask(0xFF), flags,
             0, 1, 0, p0, p1);
}

extern "C" __global__ void __raygen__rx() {
  uint32_t local = rx_launch_local();
  if (local >= params.num_queries) return;
  uint32_t q = local + params.query_offset;
  uint64_t lo, hi;
  rx_load_query(q, lo, hi);
  RxPayload pl;
  pl.s = rx_begin(lo, hi);
  pl.query = q;
  if (params.handle != 0) {
    if (!rx_flag(RX_FLAG_RANGES)) {
      rx_trace(pl, rx_point_ray(lo));
    } else {
      for (uint64_t line = rx_line(lo); line <= rx_line(hi) && !rx_done(pl.s); ++line)
        rx_trace(pl, rx_range_ray(lo, hi, line));
    }
  }
  rx_finish(pl.s, q);
  struct Result {
    uint32_t first_row, count;
    uint64_t sum;
  };
  reinterpret_cast<Result*>(params.results)[q] = Result{pl.s.first_row, pl.s.count, pl.s.sum};
}

// Any-hit for both hit groups: the exact re-check. A match ends the ray under hit-and-scan or for
// unique point lookups; otherwise every candidate is ignored so traversal goes on to every match.
extern "C" __global__ void __anyhit__rx() {
  RxPayload* pl = rx_payload();
  if (!rx_candidate(pl->s, pl->query, rx_hit_primitive())) optixIgnoreIntersection();
}

// Closest-hit of the opaque triangle rays: report the committed primitive in payload 0.
extern "C" __global__ void __closesthit__rx() {
  optixSetPayload_0(rx_hit_primitive());
}

// Intersection for boxes: report keys in the query that lie on this ray's own line, at the key
// point's ray parameter. The query comes from the launch index, as in rx_probe.rint.
extern "C" __global__ void __intersection__rx_box() {
  uint32_t q = rx_launch_local() + params.query_offset;
  uint64_t lo, hi;
  rx_load_query(q, lo, hi);
  uint64_t key = rx_record(rx_hit_primitive()).key;
  float3 origin = optixGetObjectRayOrigin();
  if (key < lo || key > hi || !rx_box_on_ray(key, origin)) return;
  optixReportIntersection(rx_key_t(key, origin, optixGetObjectRayDirection()), 0u);
}

// Nothing to do on a miss: the payload already holds the lookup's result.
extern "C" __global__ void __miss__rx() {}
