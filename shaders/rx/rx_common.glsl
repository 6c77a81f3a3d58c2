// Everything the RX probe kernels share, whichever way they traverse (ray-tracing pipeline or ray
// query): the push constants, buffer views, query loading, ray construction, and the exact
// re-check that turns a geometric hit into a result. Geometry only narrows the search; a row
// counts only when its exact key lies in the query's [lo, hi].
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

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
  uint64_t keys;         // primitive order: the key of primitive p
  uint64_t rows;         // row id of primitive p (0: identity, primitives are in row order)
  uint64_t values;       // value of primitive p (0: no value column, sums stay 0)
  uint64_t queries;      // points, or (lo, hi) pairs, of the key width
  uint64_t results;      // one RxResult per query
  uint64_t matches;      // (query, row) pairs, when RX_FLAG_WRITE_MATCHES
  uint64_t match_count;  // counts every match, also those past match_capacity
  uint query_offset;     // index of this launch's first query in the batch
  uint num_queries;      // queries in this launch
  uint chunk_size;       // primitives per BLAS: primitive = instance * chunk_size + primitive id
  uint flags;            // RX_FLAG_*
  uint match_capacity;
  uint pad0;
}
pc;

struct RxHitState {
  uint64_t lo;
  uint64_t hi;
  uint64_t sum;
  uint count;
  uint first_row;
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

uint64_t rx_key_of(uint prim) {
  return rx_flag(RX_FLAG_KEY64) ? U64Array(pc.keys).v[prim] : uint64_t(U32Array(pc.keys).v[prim]);
}

uint rx_primitive(uint instance, uint primitive_in_blas) {
  return instance * pc.chunk_size + primitive_in_blas;
}

// The exact re-check and accumulation for one candidate primitive. Returns whether it matched.
bool rx_accept(inout RxHitState s, uint query, uint prim) {
  uint64_t key = rx_key_of(prim);
  if (key < s.lo || key > s.hi) return false;
  uint row = pc.rows == 0ul ? prim : U32Array(pc.rows).v[prim];
  s.count += 1u;
  s.first_row = min(s.first_row, row);
  if (pc.values != 0ul) s.sum += uint64_t(U32Array(pc.values).v[prim]);
  if (rx_flag(RX_FLAG_WRITE_MATCHES)) {
    uint slot = atomicAdd(U32Counter(pc.match_count).n, 1u);
    if (slot < pc.match_capacity) MatchArray(pc.matches).m[slot] = uvec2(query, row);
  }
  return true;
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

// The key point of primitive p, where rays of its own lookups cross it.
vec3 rx_key_point(uint64_t k) {
  return vec3(float(rx_part_x(k)), float(rx_part_y(k)), float(rx_part_z(k)));
}
