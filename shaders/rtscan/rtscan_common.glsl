// Everything the RTScan refine kernels share, whichever way they traverse (ray-tracing pipeline or
// ray query): the push constants, the ray lattice of one refine box, and the exact re-check that
// decides a row's bit. Geometry only chooses which rows are looked at; a row's bit is set exactly
// when its integer keys satisfy every predicate of the group.
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

void rtscan_ray(uint id, out vec3 origin, out vec3 dir) {
  uint k = id % pc.n_segments;
  uint rest = id / pc.n_segments;
  uint i = rest % pc.n_cross0;
  uint j = rest / pc.n_cross0;
  origin = pc.origin;
  origin[pc.cross0] += float(i) * pc.interval;
  origin[pc.cross1] += float(j) * pc.interval;
  origin[pc.axis] += float(k) * pc.stride;
  dir = vec3(0.0);
  dir[pc.axis] = 1.0;
}

// The exact re-check of row `row` (an intersection-shader call): its bit becomes whether every
// key of the group lies in its accepted range. Idempotent, so rows met by several rays or boxes
// are harmless.
void rtscan_refine_row(uint row) {
  bool ok = true;
  for (uint d = 0u; d < 3u; ++d) {
    if (pc.keys[d] == 0ul) continue;
    uint v = RtKeys(pc.keys[d]).v[row];
    ok = ok && v >= pc.lo[d] && v <= pc.hi[d];
  }
  uint bit = 1u << (row & 31u);
  if (ok)
    atomicOr(RtWords(pc.bitmap).w[row >> 5], bit);
  else
    atomicAnd(RtWords(pc.bitmap).w[row >> 5], ~bit);
  if (pc.counter != 0ul) atomicAdd(RtCounter(pc.counter).n, 1u);
}
