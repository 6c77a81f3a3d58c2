// Everything the RX probe kernels share, whichever way they traverse (ray-tracing pipeline or ray
// query): the push constants, buffer views, query loading, ray construction, and the exact
// re-check that turns a geometric hit into a result. Geometry only narrows the search; a row
// counts only when its exact key lies in the query's [lo, hi].
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#include "common/records.glsl"
#include "common/rx_mapping.h"

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer U64Array { uint64_t v[]; };

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Counter { uint n; };
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer MatchArray { uvec2 m[]; };

struct RxResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { RxResult r[]; };

// Mirrors raydb::detail::RxProbeParams (static_asserts on the C++ side keep them equal).
layout(push_constant, scalar) uniform RxProbeParams {
  uint64_t records;      // common/records.glsl: key, row id and value of primitive p
  uint64_t queries;      // points, or (lo, hi) pairs, of the key width
  uint64_t results;      // one RxResult per query
  uint64_t matches;      // (query, row) pairs, when RX_FLAG_WRITE_MATCHES
  uint64_t match_count;  // counts every match, also those past match_capacity
  uint64_t order;        // sorted probes: the index of the n-th lookup in key order; else 0
  // Partitions of unequal size: the first primitive of each BLAS (one uint per instance); else 0
  // and BLAS k starts at primitive k * chunk_size.
  uint64_t instance_first;
  // compress_duplicates: the record of each primitive (the first of its key's run); else 0 and
  // primitive p is record p.
  uint64_t primitive_records;
  uint query_offset;     // index of this launch's first query in the batch
  uint num_queries;      // queries in this launch
  uint chunk_size;       // primitives per BLAS when instance_first is 0
  uint flags;            // RX_FLAG_*
  uint match_capacity;
  uint num_primitives;   // records in the index
}
pc;

struct RxHitState {
  uint64_t lo;
  uint64_t hi;
  uint64_t sum;
  uint count;
  uint first_row;
  uint entry;  // hit-and-scan: the matching primitive the ray found, or RX_NO_ENTRY
};

bool rx_flag(uint f) { return (pc.flags & f) != 0u; }

void rx_load_query(uint q, out uint64_t lo, out uint64_t hi) {
  uint width = rx_flag(RX_FLAG_RANGES) ? 2u : 1u;
  if (rx_flag(RX_FLAG_KEY64)) {
    lo = U64Array(pc.queries).v[q * width];
    hi = U64Array(pc.queries).v[q * width + width - 1u];
  } else {
    lo = uint64_t(U32Array(pc.queries).v[q * width]);
    hi = uint64_t(U32Array(pc.queries).v[q * width + width - 1u]);
  }
}

// The lookup that launch slot q traces (its query is read, and its result and matches written,
// at that index): q itself unless the lookups were sorted on the GPU.
uint rx_query_id(uint q) { return pc.order != 0ul ? U32Array(pc.order).v[q] : q; }

KeyRecord rx_record(uint prim) { return load_record(pc.records, prim, rx_flag(RX_FLAG_KEY64)); }

// The record a ray hit: BLAS `instance`'s primitive `primitive_in_blas`, through the per-instance
// offsets and the distinct-key index when the build used them (both tiny next to the records).
uint rx_primitive(uint instance, uint primitive_in_blas) {
  uint p = (pc.instance_first != 0ul ? U32Array(pc.instance_first).v[instance]
                                     : instance * pc.chunk_size) +
           primitive_in_blas;
  return pc.primitive_records != 0ul ? U32Array(pc.primitive_records).v[p] : p;
}

void rx_add(inout RxHitState s, uint query, KeyRecord rec) {
  s.count += 1u;
  s.first_row = min(s.first_row, rec.row);
  s.sum += uint64_t(rec.value);
  if (rx_flag(RX_FLAG_WRITE_MATCHES)) {
    uint slot = atomicAdd(U32Counter(pc.match_count).n, 1u);
    if (slot < pc.match_capacity) MatchArray(pc.matches).m[slot] = uvec2(query, rec.row);
  }
}

// One candidate primitive reached by a ray: the exact re-check, then either accumulation
// (any-hit method) or, for hit-and-scan, remembering it as the entry into the sorted run.
// Returns true when the ray may stop. Under hit-and-scan, calling it twice for one primitive
// changes nothing, which keeps results exact on drivers that repeat any-hit calls.
bool rx_candidate(inout RxHitState s, uint query, uint prim) {
  KeyRecord rec = rx_record(prim);
  if (rec.key < s.lo || rec.key > s.hi) return false;
  if (rx_flag(RX_FLAG_SCAN)) {
    s.entry = prim;
    return true;
  }
  rx_add(s, query, rec);
  return rx_flag(RX_FLAG_FIRST_HIT_ONLY);
}

uint rx_ray_flags() {
  return rx_flag(RX_FLAG_SCAN | RX_FLAG_FIRST_HIT_ONLY) ? gl_RayFlagsTerminateOnFirstHitEXT : 0u;
}

// Whether a range lookup can stop casting rays for further lines.
bool rx_done(RxHitState s) { return s.entry != RX_NO_ENTRY; }

// Hit-and-scan, after tracing: all matches of [lo, hi] are adjacent in key order, so walk the
// records down and up from the entry while keys stay in range.
void rx_finish(inout RxHitState s, uint query) {
  if (!rx_flag(RX_FLAG_SCAN) || s.entry == RX_NO_ENTRY) return;
  if (rx_flag(RX_FLAG_FIRST_HIT_ONLY)) {  // unique keys, point lookup: the entry is the match
    rx_add(s, query, rx_record(s.entry));
    return;
  }
  for (uint p = s.entry;; --p) {
    KeyRecord rec = rx_record(p);
    if (rec.key < s.lo) break;
    rx_add(s, query, rec);
    if (p == 0u) break;
  }
  for (uint p = s.entry + 1u; p < pc.num_primitives; ++p) {
    KeyRecord rec = rx_record(p);
    if (rec.key > s.hi) break;
    rx_add(s, query, rec);
  }
}

void rx_store_result(uint query, RxHitState s) {
  ResultArray(pc.results).r[query] = RxResult(s.first_row, s.count, s.sum);
}

RxHitState rx_begin(uint64_t lo, uint64_t hi) {
  RxHitState s;
  s.lo = lo;
  s.hi = hi;
  s.sum = 0ul;
  s.count = 0u;
  s.first_row = RX_MISS_ROW;
  s.entry = RX_NO_ENTRY;
  return s;
}

// Point lookup: a ray along +z through the key's (x, y), crossing its triangle at z = z_k, t = 0.5.
// Its ends lie halfway to the neighbouring z planes, so no other key's triangle is in reach.
void rx_point_ray(uint64_t k, out vec3 origin, out vec3 dir, out float tmax) {
  origin = vec3(float(rx_part_x(k)), float(rx_part_y(k)), float(rx_part_z(k)) - 0.5);
  dir = vec3(0.0, 0.0, 1.0);
  tmax = 1.0;
}

// Range lookup, one ray per x line: along +x at the line's (y, z), from x_lo - 0.5 on the first
// line (else -0.5) to x_hi + 0.5 on the last (else 2^23 - 0.5). All values are exact floats.
void rx_range_ray(uint64_t lo, uint64_t hi, uint64_t line, out vec3 origin, out vec3 dir,
                  out float tmax) {
  float x_begin = line == rx_line(lo) ? float(rx_part_x(lo)) - 0.5 : -0.5;
  float x_end = line == rx_line(hi) ? float(rx_part_x(hi)) + 0.5 : float(RX_LINE_LENGTH) - 0.5;
  origin = vec3(x_begin, float(rx_line_y(line)), float(rx_line_z(line)));
  dir = vec3(1.0, 0.0, 0.0);
  tmax = x_end - x_begin;
}

// Box candidates only: whether a key lies on the line of the range ray starting at `origin` (a
// range ray's y and z name its line). Box tests may be conservative, so a ray can reach boxes of
// neighbouring lines, and a key of a multi-line range must not be counted by two rays. Point
// lookups need no such check: their exact key test already pins the key.
bool rx_box_on_ray(uint64_t key, vec3 origin) {
  if (!rx_flag(RX_FLAG_RANGES)) return true;
  return rx_line(key) == (uint64_t(origin.y) | (uint64_t(origin.z) << RX_Y_BITS));
}

// The key point of primitive p, where rays of its own lookups cross it.
vec3 rx_key_point(uint64_t k) {
  return vec3(float(rx_part_x(k)), float(rx_part_y(k)), float(rx_part_z(k)));
}
