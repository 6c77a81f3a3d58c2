// RX key mapping (RTIndeX, 3D mode): a key k of up to 64 bits becomes the point
//   x = k[22:0], y = k[45:23], z = k[63:46]
// Every part is below 2^23, so the part and the part +- 0.5 are exact float32 values; a key is
// never converted to float whole. 32-bit keys simply have z = 0 and y < 2^9.
// Included by GLSL shaders, by the C++ host code and by CUDA (the OptiX programs), so the
// primitives and rays below are the same in every backend (DESIGN.md).
#ifndef RAYDB_RX_MAPPING_H
#define RAYDB_RX_MAPPING_H

#include "shared_types.h"

#define RX_X_BITS 23u
#define RX_Y_BITS 23u
#define RX_LINE_LENGTH 8388608u  // 2^23 keys share one x line (same y and z)
#define RX_PART_MASK 0x7FFFFFu

RDB_FN RDB_U32 rx_part_x(RDB_U64 k) {
  return RDB_U32(k & RDB_U64(RX_PART_MASK));
}
RDB_FN RDB_U32 rx_part_y(RDB_U64 k) {
  return RDB_U32((k >> RX_X_BITS) & RDB_U64(RX_PART_MASK));
}
RDB_FN RDB_U32 rx_part_z(RDB_U64 k) {
  return RDB_U32(k >> (RX_X_BITS + RX_Y_BITS));
}

// The x line a key lies on: its 41 high bits. A range [lo, hi] needs one ray per line from
// rx_line(lo) to rx_line(hi).
RDB_FN RDB_U64 rx_line(RDB_U64 k) {
  return k >> RX_X_BITS;
}
RDB_FN RDB_U32 rx_line_y(RDB_U64 line) {
  return RDB_U32(line & RDB_U64(RX_PART_MASK));
}
RDB_FN RDB_U32 rx_line_z(RDB_U64 line) {
  return RDB_U32(line >> RX_Y_BITS);
}

// ---- Geometry: the primitives a key becomes, and the rays of a lookup. ----

// The key point of key k, where the rays of its own lookups cross its primitive.
RDB_FN RDB_VEC3 rx_key_point(RDB_U64 k) {
  return RDB_MAKE_VEC3(float(rx_part_x(k)), float(rx_part_y(k)), float(rx_part_z(k)));
}

// Key k's triangle: (x-1/2, y+1/2, z-1/2), (x-1/2, y-1/2, z-1/2), (x+1/2, y, z+1/2). It contains
// the key point in its interior and reaches +-1/2 on every axis, so a +z point ray and a +x range
// ray both cross it at the key point, away from any edge.
struct RxTriangle {
  RDB_VEC3 a;
  RDB_VEC3 b;
  RDB_VEC3 c;
};
RDB_FN RxTriangle rx_key_triangle(RDB_U64 k) {
  RDB_VEC3 p = rx_key_point(k);
  RxTriangle t;
  t.a = RDB_MAKE_VEC3(p.x - 0.5f, p.y + 0.5f, p.z - 0.5f);
  t.b = RDB_MAKE_VEC3(p.x - 0.5f, p.y - 0.5f, p.z - 0.5f);
  t.c = RDB_MAKE_VEC3(p.x + 0.5f, p.y, p.z + 0.5f);
  return t;
}

// Key k's box: the key point +- 1/2 on every axis (the layout of VkAabbPositionsKHR and OptixAabb:
// min x, y, z, then max x, y, z).
struct RxBox {
  RDB_VEC3 lo;
  RDB_VEC3 hi;
};
RDB_FN RxBox rx_key_box(RDB_U64 k) {
  RDB_VEC3 p = rx_key_point(k);
  RxBox b;
  b.lo = RDB_MAKE_VEC3(p.x - 0.5f, p.y - 0.5f, p.z - 0.5f);
  b.hi = RDB_MAKE_VEC3(p.x + 0.5f, p.y + 0.5f, p.z + 0.5f);
  return b;
}

// A ray from origin along dir (a unit axis), over t in [0, tmax].
struct RxRay {
  RDB_VEC3 origin;
  RDB_VEC3 dir;
  float tmax;
};

// Point lookup: a ray along +z through the key's (x, y), crossing its triangle at z = z_k, t = 0.5.
// Its ends lie halfway to the neighbouring z planes, so no other key's triangle is in reach.
RDB_FN RxRay rx_point_ray(RDB_U64 k) {
  RxRay r;
  r.origin = RDB_MAKE_VEC3(float(rx_part_x(k)), float(rx_part_y(k)), float(rx_part_z(k)) - 0.5f);
  r.dir = RDB_MAKE_VEC3(0.0f, 0.0f, 1.0f);
  r.tmax = 1.0f;
  return r;
}

// Range lookup, one ray per x line: along +x at the line's (y, z), from x_lo - 0.5 on the first
// line (else -0.5) to x_hi + 0.5 on the last (else 2^23 - 0.5). All values are exact floats.
RDB_FN RxRay rx_range_ray(RDB_U64 lo, RDB_U64 hi, RDB_U64 line) {
  float x_begin = line == rx_line(lo) ? float(rx_part_x(lo)) - 0.5f : -0.5f;
  float x_end = line == rx_line(hi) ? float(rx_part_x(hi)) + 0.5f : float(RX_LINE_LENGTH) - 0.5f;
  RxRay r;
  r.origin = RDB_MAKE_VEC3(x_begin, float(rx_line_y(line)), float(rx_line_z(line)));
  r.dir = RDB_MAKE_VEC3(1.0f, 0.0f, 0.0f);
  r.tmax = x_end - x_begin;
  return r;
}

// Box candidates of range rays only: whether a key lies on the line of the range ray starting at
// `origin` (a range ray's y and z name its line). Box tests may be conservative, so a ray can
// reach boxes of neighbouring lines, and a key of a multi-line range must not be counted by two
// rays. Point lookups need no such check: their exact key test already pins the key.
RDB_FN bool rx_key_on_line(RDB_U64 key, RDB_VEC3 origin) {
  return rx_line(key) == (RDB_U64(origin.y) | (RDB_U64(origin.z) << RX_Y_BITS));
}

// The ray parameter at which a ray (origin, dir along one axis) meets key k's point: what an
// intersection program reports for a box. Every term is an exact float.
RDB_FN float rx_key_t(RDB_U64 k, RDB_VEC3 origin, RDB_VEC3 dir) {
  RDB_VEC3 p = rx_key_point(k);
  return (p.x - origin.x) * dir.x + (p.y - origin.y) * dir.y + (p.z - origin.z) * dir.z;
}

// Flags shared by the build and probe kernels (RxProbeParams.flags / RxBuildParams.flags).
#define RX_FLAG_KEY64 1u           // keys (and query bounds) are 64-bit
#define RX_FLAG_RANGES 2u          // queries are [lo, hi] pairs, otherwise points
#define RX_FLAG_FIRST_HIT_ONLY 4u  // index keys are unique: a point lookup may stop at its hit
#define RX_FLAG_WRITE_MATCHES 8u   // append every (query, row) pair to the match list
#define RX_FLAG_AABBS 16u          // primitives are boxes (build kernel)
#define RX_FLAG_SCAN 32u  // hit-and-scan: a ray finds one match, the sorted records the rest
// Hit-and-scan over triangles: rays are opaque, so traversal commits the first triangle crossed
// without any-hit calls and a closest-hit shader reports it as the entry.
#define RX_FLAG_OPAQUE 64u
// Diagnostics (RxIndex::set_diagnostic, point lookups over opaque triangles only): where probe time
// goes. NO_TRACE loads each query and stores a result without tracing; TRACE_ONLY traces and
// stores the committed primitive without the exact re-check. Neither result is a lookup's.
#define RX_FLAG_DIAG_NO_TRACE 128u
#define RX_FLAG_DIAG_TRACE_ONLY 256u
// Sorted point lookups (order != 0): `queries` holds the points already in launch (key) order, so
// a ray reads its key without first reading the order; the order places its result.
#define RX_FLAG_SORTED_QUERIES 512u

#define RX_NO_ENTRY 0xFFFFFFFFu  // hit-and-scan: no matching primitive found yet

#define RX_MISS_ROW 0xFFFFFFFFu  // first_row of a query with no match
// count of a range over more lines than the probe's bound, with first_row RX_MISS_ROW (no real
// result has both): the device path's marker (raydb::kRxRangeOverBound, device_buffers.hpp).
#define RX_RANGE_OVER_BOUND 0xFFFFFFFFu

#endif
