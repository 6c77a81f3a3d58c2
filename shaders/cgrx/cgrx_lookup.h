// The cgRX lookup, written once for every API: the rays that find a bucket (cgrx_geometry.h), the
// exact re-check of the bucket the rays named, the search inside the bucket and the scan.
// Geometry only narrows the search: a bucket is used only once the exact keys confirm it, and a
// row counts only when its exact key lies in [lo, hi]. Compiled as GLSL (cgrx_common.glsl) and as
// CUDA (the OptiX programs, src/backend/optix/cgrx_programs.cu).
//
// The includer defines first, for the current launch:
//   bool cgrx_flag(RDB_U32 f)          whether CGRX_FLAG_* bit f is set
//   KeyRecord cgrx_record(RDB_U32 i)   record i in key order: .key (64-bit), .row, .value
//   RDB_U32 cgrx_trace(RDB_VEC3 origin, RDB_VEC3 dir, float tmax)
//                                      the primitive of the closest opaque hit of one ray, or
//                                      CGRX_NO_BUCKET on a miss (one GAS / BLAS: the primitive id)
//   RDB_U32 cgrx_primitive_bucket(RDB_U32 p)  the bucket primitive p names
//   RDB_U32 cgrx_num_records(), cgrx_num_buckets(), cgrx_bucket_shift(), cgrx_ray_window()
//   void cgrx_count_rays(RDB_U32 extra)  rays beyond a lookup's first (atomic add)
//   void cgrx_count_fallback()           a lookup whose rays named a wrong bucket (atomic add)
#ifndef RAYDB_CGRX_LOOKUP_H
#define RAYDB_CGRX_LOOKUP_H

#include "cgrx/cgrx_geometry.h"

#if defined(__CUDACC__)
#define CGRX_LOOKUP_FN __device__ __forceinline__
#else
#define CGRX_LOOKUP_FN
#endif

// One lookup's answer, laid out as raydb::RxLookup (and the GLSL result arrays).
struct CgrxResult {
  RDB_U32 first_row;
  RDB_U32 count;
  RDB_U64 sum;
};

CGRX_LOOKUP_FN RDB_U64 cgrx_key(RDB_U32 i) {
  return cgrx_record(i).key;
}

// One past the last record of bucket b. In 64 bits: near 2^32 keys, (b + 1) * size may not fit.
CGRX_LOOKUP_FN RDB_U32 cgrx_bucket_end(RDB_U32 b) {
  RDB_U64 end = RDB_U64(b + 1u) << cgrx_bucket_shift();
  RDB_U64 n = RDB_U64(cgrx_num_records());
  return RDB_U32(end < n ? end : n);
}

// The representative (largest key) of bucket b: its last record.
CGRX_LOOKUP_FN RDB_U64 cgrx_rep(RDB_U32 b) {
  return cgrx_key(cgrx_bucket_end(b) - 1u);
}

// The bucket the rays name for q: the bucket of the smallest representative >= q, or
// CGRX_NO_BUCKET when no representative is >= q. `rays` is set to the rays cast.
CGRX_LOOKUP_FN RDB_U32 cgrx_ray_bucket(RDB_U64 q, RDB_INOUT(RDB_U32) rays) {
  RDB_U32 x = rx_part_x(q), y = rx_part_y(q), z = rx_part_z(q);
  rays = 1u;
  // A closest-hit ray to the line's end spans the whole line (up to 2^23) however near its hit;
  // the window keeps the first ray as short as the gaps between representatives.
  RDB_U32 reach = RX_LINE_LENGTH - x;
  RDB_U32 window = cgrx_ray_window();
  RDB_U32 first = (window == 0u || reach < window) ? reach : window;
  RDB_U32 p = cgrx_trace(RDB_MAKE_VEC3(float(x) - 0.5f, float(y), float(z)),
                         RDB_MAKE_VEC3(1.0f, 0.0f, 0.0f), float(first));
  if (p == CGRX_NO_BUCKET && first < reach) {
    rays += 1u;  // the rest of the line: x + first - 1/2 is a half-integer below 2^23, exact
    p = cgrx_trace(RDB_MAKE_VEC3(float(x + first) - 0.5f, float(y), float(z)),
                   RDB_MAKE_VEC3(1.0f, 0.0f, 0.0f), float(reach - first));
  }
  if (p == CGRX_NO_BUCKET && y + 1u < RX_LINE_LENGTH) {
    rays += 1u;
    p = cgrx_trace(RDB_MAKE_VEC3(CGRX_MARKER_COORD, float(y) + 0.5f, float(z)),
                   RDB_MAKE_VEC3(0.0f, 1.0f, 0.0f), float(RX_LINE_LENGTH - 1u - y));
  }
  if (p == CGRX_NO_BUCKET && cgrx_flag(CGRX_FLAG_KEY64) && z + 1u < CGRX_Z_LIMIT) {
    rays += 1u;
    p = cgrx_trace(RDB_MAKE_VEC3(CGRX_MARKER_COORD, CGRX_MARKER_COORD, float(z) + 0.5f),
                   RDB_MAKE_VEC3(0.0f, 0.0f, 1.0f), float(CGRX_Z_LIMIT - 1u - z));
  }
  return p == CGRX_NO_BUCKET ? CGRX_NO_BUCKET : cgrx_primitive_bucket(p);
}

// Whether b is exactly the first bucket whose representative is >= q (CGRX_NO_BUCKET: none is).
CGRX_LOOKUP_FN bool cgrx_bucket_exact(RDB_U64 q, RDB_U32 b) {
  if (b == CGRX_NO_BUCKET) return cgrx_rep(cgrx_num_buckets() - 1u) < q;
  if (b >= cgrx_num_buckets() || cgrx_rep(b) < q) return false;
  return b == 0u || cgrx_rep(b - 1u) < q;
}

// Exact fallback, used only if the rays ever named a wrong bucket: binary search over buckets.
CGRX_LOOKUP_FN RDB_U32 cgrx_search_buckets(RDB_U64 q) {
  RDB_U32 lo = 0u, hi = cgrx_num_buckets();  // first bucket with rep >= q lies in [lo, hi]
  while (lo < hi) {
    RDB_U32 mid = lo + (hi - lo) / 2u;
    if (cgrx_rep(mid) < q)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo == cgrx_num_buckets() ? CGRX_NO_BUCKET : lo;
}

// The position of the first key >= q (cgrx_num_records() when none). Buckets before b hold only
// keys < q (their representatives are < q), and b's representative is >= q, so the answer lies
// in b: a binary search over its at most bucket-size records.
CGRX_LOOKUP_FN RDB_U32 cgrx_lower_bound(RDB_U64 q) {
  RDB_U32 rays = 0u;
  bool no_trace = cgrx_flag(CGRX_FLAG_DIAG_NO_TRACE);
  RDB_U32 b = no_trace ? cgrx_search_buckets(q) : cgrx_ray_bucket(q, rays);
  if (rays > 1u) cgrx_count_rays(rays - 1u);
  if (!no_trace && !cgrx_bucket_exact(q, b)) {
    cgrx_count_fallback();
    b = cgrx_search_buckets(q);
  }
  if (b == CGRX_NO_BUCKET) return cgrx_num_records();
  RDB_U32 lo = b << cgrx_bucket_shift(), hi = cgrx_bucket_end(b) - 1u;
  while (lo < hi) {  // the last record of the bucket is >= q
    RDB_U32 mid = lo + (hi - lo) / 2u;
    if (cgrx_key(mid) < q)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

// One lookup [lo, hi] (lo == hi for points): the first key >= lo, then forward while key <= hi,
// across bucket boundaries (equal keys may fill several buckets). Under CGRX_FLAG_DIAG_TRACE_ONLY
// the answer is the bucket the rays name (first_row) and the rays cast (count) instead.
CGRX_LOOKUP_FN CgrxResult cgrx_find(RDB_U64 lo, RDB_U64 hi) {
  CgrxResult res;
  res.first_row = RX_MISS_ROW;
  res.count = 0u;
  res.sum = RDB_U64(0);
  if (cgrx_flag(CGRX_FLAG_DIAG_TRACE_ONLY)) {
    RDB_U32 rays = 0u;
    res.first_row = cgrx_ray_bucket(lo, rays);
    res.count = rays;
    return res;
  }
  RDB_U32 start = cgrx_lower_bound(lo);
  for (RDB_U32 i = start; i < cgrx_num_records(); ++i) {
    KeyRecord rec = cgrx_record(i);
    if (rec.key > hi) break;
    res.count += 1u;
    res.first_row = rec.row < res.first_row ? rec.row : res.first_row;
    res.sum += RDB_U64(rec.value);
  }
  if (cgrx_flag(CGRX_FLAG_RUN_START) && res.count != 0u) res.first_row = start;
  return res;
}

#endif
