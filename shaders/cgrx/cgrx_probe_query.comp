#version 460
#extension GL_EXT_ray_query : require
#include "cgrx/cgrx_common.glsl"

// The same lookups as cgrx_probe.rgen, traversed with ray queries from a compute shader, for
// devices with VK_KHR_ray_query. One invocation per lookup; 2D grid for large batches.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;

uint cgrx_trace(vec3 origin, vec3 dir, float tmax) {
  rayQueryEXT rq;
  rayQueryInitializeEXT(rq, tlas, gl_RayFlagsOpaqueEXT, 0xFF, origin, 0.0, dir, tmax);
  while (rayQueryProceedEXT(rq)) {
  }
  if (rayQueryGetIntersectionTypeEXT(rq, true) == gl_RayQueryCommittedIntersectionNoneEXT)
    return CGRX_NO_BUCKET;
  return rayQueryGetIntersectionPrimitiveIndexEXT(rq, true);
}

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
               gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
  cgrx_lookup(q, q);
}
