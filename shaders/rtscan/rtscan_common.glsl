// Everything the RTScan refine kernels share, whichever way they traverse (ray-tracing pipeline or
// ray query): the push constants and the hooks through which the API-neutral lattice and exact
// re-check (rtscan/rtscan_refine.h, which the OptiX programs include too) reach this API's buffers.
// Geometry only chooses which rows are looked at; a row's bit is set exactly when its integer keys
// satisfy every predicate of the group.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer RtKeys { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RtWords { uint w[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer RtCounter { uint n; };

// Mirrors raydb::detail::RtScanRefineParams (static_asserts on the C++ side keep them equal).
layout(push_constant, scalar) uniform RtScanRefineParams {
  uint64_t keys[3];  // the group's key columns (codes or values); 0 past the group's columns
  uint64_t bitmap;   // the group's result bitmap
  uint64_t counter;  // intersection-shader calls, when not 0
  uint lo[3];        // the exact accepted keys per axis, lo <= key <= hi
  uint hi[3];
  vec3 origin;       // the lattice's first ray origin (box low corner + half a pitch; before the
                     // box along the ray axis)
  uint n_cross0;     // lattice points along axis cross0
  uint n_cross1;     // along cross1
  uint n_segments;   // segments along the ray axis
  uint axis;         // the axis rays run along
  uint cross0;
  uint cross1;
  float interval;    // I, the lattice pitch
  float segment;     // L, each ray's length
  float stride;      // L + S, from one segment's start to the next
  uint ray_offset;   // index of this launch's first ray in the box
  uint num_rays;     // rays in this launch
}
pc;

// ---- The hooks rtscan_refine.h needs (rtscan_programs.cu defines the OptiX ones). ----
bool rtscan_has_axis(uint d) { return pc.keys[d] != 0ul; }
uint rtscan_key(uint d, uint row) { return RtKeys(pc.keys[d]).v[row]; }
uint rtscan_lo(uint d) { return pc.lo[d]; }
uint rtscan_hi(uint d) { return pc.hi[d]; }
void rtscan_bits_or(uint word, uint bits) { atomicOr(RtWords(pc.bitmap).w[word], bits); }
void rtscan_bits_and(uint word, uint bits) { atomicAnd(RtWords(pc.bitmap).w[word], bits); }
void rtscan_count_call() {
  if (pc.counter != 0ul) atomicAdd(RtCounter(pc.counter).n, 1u);
}

#include "rtscan/rtscan_refine.h"

// Ray `id` of this launch's refine box (rtscan_refine.h's lattice over the push constants).
void rtscan_ray(uint id, out vec3 origin, out vec3 dir) {
  origin = rtscan_lattice_origin(id, pc.origin, pc.n_segments, pc.n_cross0, pc.axis, pc.cross0,
                                 pc.interval, pc.stride);
  dir = rtscan_lattice_dir(pc.axis);
}
