#version 460
#extension GL_EXT_ray_query : require
#include "rtscan/rtscan_refine_plan.glsl"

// rtscan_refine_query.comp over a device plan: each invocation traces every width-th ray of the
// group with a ray query, checks every candidate and commits none.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;

void main() {
  uint first = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
               gl_LocalInvocationID.x;
  uint rays = RtScanGroupPlan(pc.plan).rays;
  for (uint64_t id = first; id < uint64_t(rays); id += pc.width) {
    vec3 origin, dir;
    rtscan_plan_ray(uint(id), origin, dir);
    rayQueryEXT rq;
    rayQueryInitializeEXT(rq, tlas, gl_RayFlagsNoneEXT, 0xFF, origin, 0.0, dir, pc.segment);
    while (rayQueryProceedEXT(rq)) rtscan_refine_row(rayQueryGetIntersectionPrimitiveIndexEXT(rq, false));
  }
}
