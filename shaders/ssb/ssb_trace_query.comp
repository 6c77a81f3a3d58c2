#version 460
#extension GL_EXT_ray_query : require
#include "ssb/ssb_common.glsl"

// The same rays as ssb_trace.rgen, with ray queries from a compute shader: every candidate
// triangle is counted and none is committed, so traversal visits the whole interval.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
               gl_LocalInvocationID.x;
  if (local >= pc.num_rays) return;
  vec3 origin;
  float tmax;
  ssb_ray(local + pc.ray_offset, origin, tmax);
  rayQueryEXT rq;
  rayQueryInitializeEXT(rq, tlas, gl_RayFlagsNoneEXT, 0xFF, origin, 0.0, vec3(0.0, 0.0, 1.0),
                        tmax);
  SsbRun run = ssb_run_start();
  while (rayQueryProceedEXT(rq))
    ssb_count_row(rayQueryGetIntersectionPrimitiveIndexEXT(rq, false), run);
  ssb_run_flush(run);
}
