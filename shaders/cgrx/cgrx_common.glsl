// Everything the cgRX probe kernels share, whichever way they traverse (ray-tracing pipeline or
// ray query): push constants, query loading, the rays that find a bucket (cgrx_geometry.h), the
// exact re-check of the bucket the rays named, the search inside the bucket and the scan.
// Geometry only narrows the search: a bucket is used only once the exact keys confirm it, and a
// row counts only when its exact key lies in [lo, hi].
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#include "cgrx/cgrx_geometry.h"
#include "common/records.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer U64Array { uint64_t v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counters { uint rays; uint fallbacks; };

struct CgrxResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { CgrxResult r[]; };

// Mirrors raydb::detail::CgrxProbeParams (static_asserts on the C++ side keep them equal).
layout(push_constant, scalar) uniform CgrxProbeParams {
  uint64_t records;   // common/records.glsl, key order
  uint64_t queries;   // points, or (lo, hi) pairs, of the key width
  uint64_t results;   // one CgrxResult per query
  uint64_t buckets;   // per primitive: the bucket it names (representatives and markers)
  uint64_t counters;  // Counters: rays beyond the first, lookups the rays got wrong
  uint query_offset;  // index of this launch's first query in the batch
  uint num_queries;   // queries in this launch
  uint flags;         // CGRX_FLAG_*
  uint bucket_shift;  // log2(bucket size)
  uint num_records;   // keys in the index (> 0: empty indexes never launch)
  uint num_buckets;
  uint ray_window;    // length of the first part of ray 1; 0: one ray to the line's end
  uint pad0;
}
pc;

bool cgrx_flag(uint f) { return (pc.flags & f) != 0u; }

void cgrx_load_query(uint q, out uint64_t lo, out uint64_t hi) {
  uint width = cgrx_flag(CGRX_FLAG_RANGES) ? 2u : 1u;
  if (cgrx_flag(CGRX_FLAG_KEY64)) {
    lo = U64Array(pc.queries).v[q * width];
    hi = U64Array(pc.queries).v[q * width + width - 1u];
  } else {
    lo = uint64_t(U32Array(pc.queries).v[q * width]);
    hi = uint64_t(U32Array(pc.queries).v[q * width + width - 1u]);
  }
}

uint64_t cgrx_key(uint i) { return load_record(pc.records, i, cgrx_flag(CGRX_FLAG_KEY64)).key; }

// One past the last record of bucket b. In 64 bits: near 2^32 keys, (b + 1) * size may not fit.
uint cgrx_bucket_end(uint b) {
  return uint(min(uint64_t(b + 1u) << pc.bucket_shift, uint64_t(pc.num_records)));
}

// The representative (largest key) of bucket b: its last record.
uint64_t cgrx_rep(uint b) {
  return cgrx_key(cgrx_bucket_end(b) - 1u);
}

// Defined by each traversal (rgen / ray-query compute): the primitive of the closest opaque hit
// of one ray, or CGRX_NO_BUCKET on a miss. The index has one BLAS, so that is gl_PrimitiveID.
uint cgrx_trace(vec3 origin, vec3 dir, float tmax);

// The bucket the rays name for q: the bucket of the smallest representative >= q, or
// CGRX_NO_BUCKET when no representative is >= q. `rays` counts the rays cast.
uint cgrx_ray_bucket(uint64_t q, out uint rays) {
  uint x = rx_part_x(q), y = rx_part_y(q), z = rx_part_z(q);
  rays = 1u;
  // A closest-hit ray to the line's end spans the whole line (up to 2^23) however near its hit;
  // the window keeps the first ray as short as the gaps between representatives.
  uint reach = RX_LINE_LENGTH - x;
  uint first = pc.ray_window == 0u ? reach : min(reach, pc.ray_window);
  uint p = cgrx_trace(vec3(float(x) - 0.5, float(y), float(z)), vec3(1.0, 0.0, 0.0), float(first));
  if (p == CGRX_NO_BUCKET && first < reach) {
    rays += 1u;  // the rest of the line: x + first - 1/2 is a half-integer below 2^23, exact
    p = cgrx_trace(vec3(float(x + first) - 0.5, float(y), float(z)), vec3(1.0, 0.0, 0.0),
                   float(reach - first));
  }
  if (p == CGRX_NO_BUCKET && y + 1u < RX_LINE_LENGTH) {
    rays += 1u;
    p = cgrx_trace(vec3(CGRX_MARKER_COORD, float(y) + 0.5, float(z)), vec3(0.0, 1.0, 0.0),
                   float(RX_LINE_LENGTH - 1u - y));
  }
  if (p == CGRX_NO_BUCKET && cgrx_flag(CGRX_FLAG_KEY64) && z + 1u < CGRX_Z_LIMIT) {
    rays += 1u;
    p = cgrx_trace(vec3(CGRX_MARKER_COORD, CGRX_MARKER_COORD, float(z) + 0.5),
                   vec3(0.0, 0.0, 1.0), float(CGRX_Z_LIMIT - 1u - z));
  }
  return p == CGRX_NO_BUCKET ? CGRX_NO_BUCKET : U32Array(pc.buckets).v[p];
}

// Whether b is exactly the first bucket whose representative is >= q (CGRX_NO_BUCKET: none is).
bool cgrx_bucket_exact(uint64_t q, uint b) {
  if (b == CGRX_NO_BUCKET) return cgrx_rep(pc.num_buckets - 1u) < q;
  if (b >= pc.num_buckets || cgrx_rep(b) < q) return false;
  return b == 0u || cgrx_rep(b - 1u) < q;
}

// Exact fallback, used only if the rays ever named a wrong bucket: binary search over buckets.
uint cgrx_search_buckets(uint64_t q) {
  uint lo = 0u, hi = pc.num_buckets;  // first bucket with rep >= q lies in [lo, hi]
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (cgrx_rep(mid) < q) lo = mid + 1u; else hi = mid;
  }
  return lo == pc.num_buckets ? CGRX_NO_BUCKET : lo;
}

// The position of the first key >= q (num_records when none). Buckets before b hold only keys
// < q (their representatives are < q), and b's representative is >= q, so the answer lies in b:
// a binary search over its at most bucket-size records.
uint cgrx_lower_bound(uint64_t q) {
  uint rays = 0u;
  uint b = cgrx_flag(CGRX_FLAG_DIAG_NO_TRACE) ? cgrx_search_buckets(q) : cgrx_ray_bucket(q, rays);
  if (rays > 1u) atomicAdd(Counters(pc.counters).rays, rays - 1u);
  if (!cgrx_flag(CGRX_FLAG_DIAG_NO_TRACE) && !cgrx_bucket_exact(q, b)) {
    atomicAdd(Counters(pc.counters).fallbacks, 1u);
    b = cgrx_search_buckets(q);
  }
  if (b == CGRX_NO_BUCKET) return pc.num_records;
  uint lo = b << pc.bucket_shift, hi = cgrx_bucket_end(b) - 1u;
  while (lo < hi) {  // the last record of the bucket is >= q
    uint mid = lo + (hi - lo) / 2u;
    if (cgrx_key(mid) < q) lo = mid + 1u; else hi = mid;
  }
  return lo;
}

// One lookup [lo, hi] (lo == hi for points): the first key >= lo, then forward while key <= hi,
// across bucket boundaries (equal keys may fill several buckets).
void cgrx_lookup(uint q, uint qid) {
  uint64_t lo, hi;
  cgrx_load_query(q, lo, hi);
  CgrxResult res = CgrxResult(RX_MISS_ROW, 0u, 0ul);
  if (cgrx_flag(CGRX_FLAG_DIAG_TRACE_ONLY)) {
    uint rays;
    res.first_row = cgrx_ray_bucket(lo, rays);
    res.count = rays;
    ResultArray(pc.results).r[qid] = res;
    return;
  }
  bool key64 = cgrx_flag(CGRX_FLAG_KEY64);
  uint start = cgrx_lower_bound(lo);
  for (uint i = start; i < pc.num_records; ++i) {
    KeyRecord rec = load_record(pc.records, i, key64);
    if (rec.key > hi) break;
    res.count += 1u;
    res.first_row = min(res.first_row, rec.row);
    res.sum += uint64_t(rec.value);
  }
  if (cgrx_flag(CGRX_FLAG_RUN_START) && res.count != 0u) res.first_row = start;
  ResultArray(pc.results).r[qid] = res;
}
