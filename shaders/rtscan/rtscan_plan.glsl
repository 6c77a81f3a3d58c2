// The device plan of an RTScan selection (rtscan_plan.comp writes it; the sieve and the refine
// kernels read it): per column group, the sieve's vectors and the refine boxes' lattices, as
// refine_plan.hpp computes them on the host. Mirrors RtScanGroupPlan in rtscan_params.hpp.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#define RTSCAN_PLAN_BOXES 6  // refine_boxes gives at most two per column of a group

struct RtScanPlanBox {
  vec3 origin;      // the lattice's first ray origin
  uint n_cross0;    // lattice points along cross0
  uint n_segments;  // segments along the ray axis
  uint axis;        // the axis rays run along
  uint cross0;
  uint first;       // the group's index of this box's first ray
};

layout(buffer_reference, scalar, buffer_reference_align = 8) buffer RtScanGroupPlan {
  uint64_t upper[3];  // the sieve's vectors per group column (0: all rows)
  uint64_t lower[3];  // (0: no row)
  uint empty;         // bit d: column d's approximation selects no row
  uint lo[3];         // the exact accepted codes per column of the group
  uint hi[3];
  uint boxes;         // refine boxes
  uint rays;          // rays of all boxes
  uint pad;
  RtScanPlanBox box[RTSCAN_PLAN_BOXES];
};
