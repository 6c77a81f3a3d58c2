// The RX lookup itself, written once for every API: the state a lookup carries along its rays,
// the exact re-check that turns a geometric hit into a result, and hit-and-scan's walk over the
// key-sorted records. Geometry only narrows the search; a row counts only when its exact key lies
// in the query's [lo, hi]. Compiled as GLSL (rx_common.glsl) and as CUDA (the OptiX programs).
//
// The includer defines first, for the current launch:
//   bool rx_flag(RDB_U32 f)                  whether RX_FLAG_* bit f is set
//   KeyRecord rx_record(RDB_U32 p)           record p: .key (64-bit), .row, .value
//   RDB_U32 rx_num_primitives()              records in the index
//   void rx_write_match(RDB_U32 q, RDB_U32 row)  RX_FLAG_WRITE_MATCHES: append one (query, row)
#ifndef RAYDB_RX_LOOKUP_H
#define RAYDB_RX_LOOKUP_H

#include "common/rx_mapping.h"

#if defined(__CUDACC__)
#define RX_LOOKUP_FN __device__ __forceinline__
#else
#define RX_LOOKUP_FN
#endif

struct RxHitState {
  RDB_U64 lo;
  RDB_U64 hi;
  RDB_U64 sum;
  RDB_U32 count;
  RDB_U32 first_row;
  RDB_U32 entry;  // hit-and-scan: the matching primitive the ray found, or RX_NO_ENTRY
};

RX_LOOKUP_FN RxHitState rx_begin(RDB_U64 lo, RDB_U64 hi) {
  RxHitState s;
  s.lo = lo;
  s.hi = hi;
  s.sum = RDB_U64(0);
  s.count = 0u;
  s.first_row = RX_MISS_ROW;
  s.entry = RX_NO_ENTRY;
  return s;
}

RX_LOOKUP_FN void rx_add(RDB_INOUT(RxHitState) s, RDB_U32 query, KeyRecord rec) {
  s.count += 1u;
  s.first_row = rec.row < s.first_row ? rec.row : s.first_row;
  s.sum += RDB_U64(rec.value);
  if (rx_flag(RX_FLAG_WRITE_MATCHES)) rx_write_match(query, rec.row);
}

// One candidate primitive reached by a ray: the exact re-check, then either accumulation
// (any-hit method) or, for hit-and-scan, remembering it as the entry into the sorted run.
// Returns true when the ray may stop. Under hit-and-scan, calling it twice for one primitive
// changes nothing, which keeps results exact on drivers that repeat any-hit calls.
RX_LOOKUP_FN bool rx_candidate(RDB_INOUT(RxHitState) s, RDB_U32 query, RDB_U32 prim) {
  KeyRecord rec = rx_record(prim);
  if (rec.key < s.lo || rec.key > s.hi) return false;
  if (rx_flag(RX_FLAG_SCAN)) {
    s.entry = prim;
    return true;
  }
  rx_add(s, query, rec);
  return rx_flag(RX_FLAG_FIRST_HIT_ONLY);
}

// Whether the any-hit rays of this launch end at their first accepted hit (each API sets its own
// terminate-on-first-hit ray flag from this).
RX_LOOKUP_FN bool rx_terminate_on_first_hit() {
  return rx_flag(RX_FLAG_SCAN | RX_FLAG_FIRST_HIT_ONLY);
}

// Whether a range lookup can stop casting rays for further lines.
RX_LOOKUP_FN bool rx_done(RxHitState s) {
  return s.entry != RX_NO_ENTRY;
}

// Hit-and-scan, after tracing: all matches of [lo, hi] are adjacent in key order, so walk the
// records down and up from the entry while keys stay in range.
RX_LOOKUP_FN void rx_finish(RDB_INOUT(RxHitState) s, RDB_U32 query) {
  if (!rx_flag(RX_FLAG_SCAN) || s.entry == RX_NO_ENTRY) return;
  if (rx_flag(RX_FLAG_FIRST_HIT_ONLY)) {  // unique keys, point lookup: the entry is the match
    rx_add(s, query, rx_record(s.entry));
    return;
  }
  for (RDB_U32 p = s.entry;; --p) {
    KeyRecord rec = rx_record(p);
    if (rec.key < s.lo) break;
    rx_add(s, query, rec);
    if (p == 0u) break;
  }
  RDB_U32 n = rx_num_primitives();
  for (RDB_U32 p = s.entry + 1u; p < n; ++p) {
    KeyRecord rec = rx_record(p);
    if (rec.key > s.hi) break;
    rx_add(s, query, rec);
  }
}

// Box candidates: whether a key found by the intersection program counts for this ray (ranges
// check the key's line, rx_key_on_line; points are pinned by the exact key test).
RX_LOOKUP_FN bool rx_box_on_ray(RDB_U64 key, RDB_VEC3 origin) {
  if (!rx_flag(RX_FLAG_RANGES)) return true;
  return rx_key_on_line(key, origin);
}

#endif
