// Matrix RT Refine written once for every API: the ray of one lattice point of a refine box, and
// the exact re-check an intersection makes of one row. Geometry only chooses which rows are looked
// at; a row's bit becomes exactly whether its integer keys satisfy every predicate of the group.
// Compiled as GLSL (rtscan_common.glsl), as CUDA (the OptiX programs, rtscan_programs.cu) and as
// host C++ (tests/test_rtscan.cpp).
//
// The includer defines first, for the current launch:
//   bool rtscan_has_axis(RDB_U32 d)               whether the group has a column on axis d
//   RDB_U32 rtscan_key(RDB_U32 d, RDB_U32 row)    that column's key (code or value) of `row`
//   RDB_U32 rtscan_lo(RDB_U32 d), rtscan_hi(d)    the accepted keys on axis d: lo <= key <= hi
//   void rtscan_bits_or(RDB_U32 word, RDB_U32 bits), rtscan_bits_and(word, bits)
//                                                 atomic OR / AND into the group's bitmap
//   void rtscan_count_call()                      counts one re-check (may do nothing)
#ifndef RAYDB_RTSCAN_REFINE_H
#define RAYDB_RTSCAN_REFINE_H

#include "common/shared_types.h"

#if defined(__CUDACC__)
#define RTSCAN_FN __device__ __forceinline__
#elif defined(__cplusplus)
#define RTSCAN_FN inline  // host C++ (tests)
#else
#define RTSCAN_FN
#endif

// What the lattice adds to the first ray's origin on axis c: along the rays (axis) the segment's
// offset, across them (cross0, cross1) the lattice point's. axis, cross0 and cross1 are 0, 1 and 2
// in some order, so every coordinate gets exactly one addition.
RTSCAN_FN float rtscan_lattice_offset(RDB_U32 c, RDB_U32 axis, RDB_U32 cross0, float along,
                                      float across0, float across1) {
  return c == axis ? along : c == cross0 ? across0 : across1;
}

// Ray `id` of a refine box's lattice: segment k = id % n_segments of lattice point
// (i, j) = (rest % n_cross0, rest / n_cross0), rest = id / n_segments. `first` is the origin of
// ray 0 (the box's low corner plus half a pitch, before the box along the ray axis); the lattice
// pitch across the rays is `interval`, the step from one segment's start to the next `stride`.
RTSCAN_FN RDB_VEC3 rtscan_lattice_origin(RDB_U32 id, RDB_VEC3 first, RDB_U32 n_segments,
                                         RDB_U32 n_cross0, RDB_U32 axis, RDB_U32 cross0,
                                         float interval, float stride) {
  RDB_U32 k = id % n_segments;
  RDB_U32 rest = id / n_segments;
  RDB_U32 i = rest % n_cross0;
  RDB_U32 j = rest / n_cross0;
  float along = float(k) * stride;
  float across0 = float(i) * interval;
  float across1 = float(j) * interval;
  return RDB_MAKE_VEC3(first.x + rtscan_lattice_offset(0u, axis, cross0, along, across0, across1),
                       first.y + rtscan_lattice_offset(1u, axis, cross0, along, across0, across1),
                       first.z + rtscan_lattice_offset(2u, axis, cross0, along, across0, across1));
}

// The direction of every ray of a lattice: +1 along `axis`.
RTSCAN_FN RDB_VEC3 rtscan_lattice_dir(RDB_U32 axis) {
  return RDB_MAKE_VEC3(axis == 0u ? 1.0f : 0.0f, axis == 1u ? 1.0f : 0.0f,
                       axis == 2u ? 1.0f : 0.0f);
}

// The exact re-check of row `row` (one intersection call): its bit becomes whether every key of
// the group lies in its accepted range. Idempotent, so rows met by several rays or boxes are
// harmless.
RTSCAN_FN void rtscan_refine_row(RDB_U32 row) {
  bool ok = true;
  for (RDB_U32 d = 0u; d < 3u; ++d) {
    if (!rtscan_has_axis(d)) continue;
    RDB_U32 v = rtscan_key(d, row);
    ok = ok && v >= rtscan_lo(d) && v <= rtscan_hi(d);
  }
  RDB_U32 bit = 1u << (row & 31u);
  if (ok)
    rtscan_bits_or(row >> 5u, bit);
  else
    rtscan_bits_and(row >> 5u, ~bit);
  rtscan_count_call();
}

#endif
