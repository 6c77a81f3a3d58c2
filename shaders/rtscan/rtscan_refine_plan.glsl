// The refine kernels over a device plan (rtscan_plan.comp): the twin of rtscan_common.glsl whose
// accepted codes and ray lattices come from the group's RtScanGroupPlan instead of the push
// constants. The host does not know how many rays the plan holds, so a launch of `width`
// invocations strides over them; rays are numbered box after box (RtScanPlanBox::first).
#include "rtscan/rtscan_plan.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer RtKeys { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RtWords { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RtCounter { uint n; };

// Mirrors raydb::detail::RtScanPlanRefineParams (static_asserts on the C++ side keep them equal).
layout(push_constant, scalar) uniform RtScanPlanRefineParams {
  uint64_t keys[3];  // the group's key columns (codes); 0 past the group's columns
  uint64_t bitmap;   // the group's result bitmap
  uint64_t counter;  // intersection-shader calls, when not 0
  uint64_t plan;     // the group's RtScanGroupPlan
  float interval;    // I, the lattice pitch
  float segment;     // L, each ray's length
  float stride;      // L + S
  uint width;        // invocations in the launch
}
pc;

bool rtscan_has_axis(uint d) { return pc.keys[d] != 0ul; }
uint rtscan_key(uint d, uint row) { return RtKeys(pc.keys[d]).v[row]; }
uint rtscan_lo(uint d) { return RtScanGroupPlan(pc.plan).lo[d]; }
uint rtscan_hi(uint d) { return RtScanGroupPlan(pc.plan).hi[d]; }
void rtscan_bits_or(uint word, uint bits) { atomicOr(RtWords(pc.bitmap).w[word], bits); }
void rtscan_bits_and(uint word, uint bits) { atomicAnd(RtWords(pc.bitmap).w[word], bits); }
void rtscan_count_call() {
  if (pc.counter != 0ul) atomicAdd(RtCounter(pc.counter).n, 1u);
}

#include "rtscan/rtscan_refine.h"

// The group's ray `id` (< its plan's rays): the box holding it, then that box's lattice.
void rtscan_plan_ray(uint id, out vec3 origin, out vec3 dir) {
  RtScanGroupPlan plan = RtScanGroupPlan(pc.plan);
  uint b = 0u;
  while (b + 1u < plan.boxes && plan.box[b + 1u].first <= id) ++b;
  RtScanPlanBox box = plan.box[b];
  origin = rtscan_lattice_origin(id - box.first, box.origin, box.n_segments, box.n_cross0,
                                 box.axis, box.cross0, pc.interval, pc.stride);
  dir = rtscan_lattice_dir(box.axis);
}
