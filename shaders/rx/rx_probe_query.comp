#version 460
#extension GL_EXT_ray_query : require
#include "rx/rx_common.glsl"

// The same lookups as rx_probe.rgen, traversed with ray queries from a compute shader, for
// devices with VK_KHR_ray_query. One invocation per lookup; 2D grid for large batches.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;

void trace(inout RxHitState s, uint q, uint flags, vec3 origin, vec3 dir, float tmax) {
  if (rx_flag(RX_FLAG_OPAQUE)) {  // as in rx_probe.rgen: the first triangle crossed is the entry
    rayQueryEXT opaque;
    rayQueryInitializeEXT(opaque, tlas, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT,
                          0xFF, origin, 0.0, dir, tmax);
    while (rayQueryProceedEXT(opaque)) {
    }
    if (rayQueryGetIntersectionTypeEXT(opaque, true) == gl_RayQueryCommittedIntersectionNoneEXT)
      return;
    uint prim = rx_primitive(rayQueryGetIntersectionInstanceIdEXT(opaque, true),
                             rayQueryGetIntersectionPrimitiveIndexEXT(opaque, true));
    if (rx_candidate(s, q, prim)) return;
  }
  rayQueryEXT rq;
  rayQueryInitializeEXT(rq, tlas, flags, 0xFF, origin, 0.0, dir, tmax);
  while (rayQueryProceedEXT(rq)) {
    uint prim = rx_primitive(rayQueryGetIntersectionInstanceIdEXT(rq, false),
                             rayQueryGetIntersectionPrimitiveIndexEXT(rq, false));
    bool box = rayQueryGetIntersectionTypeEXT(rq, false) == gl_RayQueryCandidateIntersectionAABBEXT;
    if (box && !rx_box_on_ray(rx_record(prim).key, origin)) continue;
    if (rx_candidate(s, q, prim)) {
      if (rayQueryGetIntersectionTypeEXT(rq, false) == gl_RayQueryCandidateIntersectionTriangleEXT)
        rayQueryConfirmIntersectionEXT(rq);
      else
        rayQueryGenerateIntersectionEXT(rq, 0.5);
    }
  }
}

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
               gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  const uint slot = local + pc.query_offset;
  rx_carry_results(slot);
  const uint q = rx_query_id(slot);
  uint64_t lo, hi;
  rx_load_launch_query(slot, q, lo, hi);
  if (rx_range_over_bound(q, lo, hi)) return;
  RxHitState s = rx_begin(lo, hi);

  uint flags = rx_ray_flags();
  if (!rx_flag(RX_FLAG_RANGES)) {
    RxRay r = rx_point_ray(lo);
    trace(s, q, flags, r.origin, r.dir, r.tmax);
  } else {
    for (uint64_t line = rx_line(lo); line <= rx_line(hi) && !rx_done(s); ++line) {
      RxRay r = rx_range_ray(lo, hi, line);
      trace(s, q, flags, r.origin, r.dir, r.tmax);
    }
  }
  rx_finish(s, q);
  rx_store_result(q, s);
}
