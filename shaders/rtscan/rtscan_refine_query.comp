#version 460
#extension GL_EXT_ray_query : require
#include "rtscan/rtscan_common.glsl"

// The same refinement as rtscan_refine.rgen, traversed with ray queries from a compute shader: every
// box candidate gets the exact re-check and none is committed. 2D grid for large launches.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;

void main() {
  uint id = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (id >= pc.num_rays) return;
  vec3 origin, dir;
  rtscan_ray(id + pc.ray_offset, origin, dir);
  rayQueryEXT rq;
  rayQueryInitializeEXT(rq, tlas, gl_RayFlagsNoneEXT, 0xFF, origin, 0.0, dir, pc.segment);
  while (rayQueryProceedEXT(rq)) {
    // Boxes (cubes) and triangles (rtindex mode) alike: check, never commit.
    rtscan_refine_row(rayQueryGetIntersectionPrimitiveIndexEXT(rq, false));
  }
}
