// Everything the RX probe kernels share, whichever way they traverse (ray-tracing pipeline or ray
// query): the push constants, buffer views and query loading, and the hooks through which the
// API-neutral lookup (rx/rx_lookup.h: the exact re-check, hit-and-scan) and the rays and
// primitives (common/rx_mapping.h) reach this API's buffers. The OptiX programs include the same
// two headers.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#include "common/records.glsl"
#include "common/rx_mapping.h"

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };

layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32Counter { uint n; };
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer MatchArray { uvec2 m[]; };

struct RxResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { RxResult r[]; };
layout(buffer_reference, scalar, buffer_reference_align = 16) writeonly buffer ResultWords { uvec4 r[]; };

// Mirrors raydb::detail::RxProbeParams (static_asserts on the C++ side keep them equal).
layout(push_constant, scalar) uniform RxProbeParams {
  uint64_t records;      // common/records.glsl: key, row id and value of primitive p
  uint64_t queries;      // points, or (lo, hi) pairs, of the key width
  uint64_t results;      // one RxResult per query; 0: none stored (collect_rows on device data)
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
  // Ranges over more 2^23-key lines than this cast no ray (rx_range_over_bound).
  uint64_t max_range_lines;
  // Pipelined sorted probes: the previous chunk's results, which rx_carry_results writes out.
  uint64_t carry_from;   // device memory, 16-byte aligned
  uint64_t carry_to;     // pinned host memory, 8-byte aligned
  uint carry_count;
  uint carry_stride;     // the launch's lookups: slot i writes results i, i + stride, ...
}
pc;

bool rx_flag(uint f) { return (pc.flags & f) != 0u; }

void rx_load_query(uint q, out uint64_t lo, out uint64_t hi) {
  load_key_query(pc.queries, q, rx_flag(RX_FLAG_RANGES), rx_flag(RX_FLAG_KEY64), lo, hi);
}

// The lookup that launch slot q traces (its result and matches are written at that index): q
// itself unless the lookups were sorted on the GPU.
uint rx_query_id(uint q) { return pc.order != 0ul ? U32Array(pc.order).v[q] : q; }

// Launch slot q's query, for lookup `id` (rx_query_id(q)): read at q where the queries were sorted
// with the order (RX_FLAG_SORTED_QUERIES), so that the read waits for no other.
void rx_load_launch_query(uint q, uint id, out uint64_t lo, out uint64_t hi) {
  rx_load_query(rx_flag(RX_FLAG_SORTED_QUERIES) ? q : id, lo, hi);
}

KeyRecord rx_record(uint prim) { return load_record(pc.records, prim, rx_flag(RX_FLAG_KEY64)); }

// The record a ray hit: BLAS `instance`'s primitive `primitive_in_blas`, through the per-instance
// offsets and the distinct-key index when the build used them (both tiny next to the records).
uint rx_primitive(uint instance, uint primitive_in_blas) {
  uint p = (pc.instance_first != 0ul ? U32Array(pc.instance_first).v[instance]
                                     : instance * pc.chunk_size) +
           primitive_in_blas;
  return pc.primitive_records != 0ul ? U32Array(pc.primitive_records).v[p] : p;
}

void rx_write_match(uint query, uint row) {
  uint slot = atomicAdd(U32Counter(pc.match_count).n, 1u);
  if (slot < pc.match_capacity) MatchArray(pc.matches).m[slot] = uvec2(query, row);
}

uint rx_num_primitives() { return pc.num_primitives; }

#include "rx/rx_lookup.h"

uint rx_ray_flags() { return rx_terminate_on_first_hit() ? gl_RayFlagsTerminateOnFirstHitEXT : 0u; }

// One 16-byte store where the results are 16-byte aligned (raydb's own buffers; a caller's span of
// RxLookup need only be 8-byte aligned), else a store per field. The pipelined calls write results
// across PCIe into pinned memory (docs/e2e.md), where the field stores may not merge.
void rx_write_result(uint query, uint first_row, uint count, uint64_t sum) {
  if ((pc.results & 15ul) == 0ul)
    ResultWords(pc.results).r[query] = uvec4(first_row, count, uint(sum), uint(sum >> 32));
  else
    ResultArray(pc.results).r[query] = RxResult(first_row, count, sum);
}

layout(buffer_reference, scalar, buffer_reference_align = 16) readonly buffer CarriedWords { uvec4 r[]; };

// Sorted probes in chunks (ResultPath::carried): launch slot `slot` writes result `slot` (and
// every carry_stride-th after it) of the previous chunk across PCIe. The stores ride along with
// this chunk's rays, as an unsorted chunk's own results do, where a download on a copy queue would
// halve the trace beside it (docs/e2e.md).
void rx_carry_results(uint slot) {
  for (uint i = slot; i < pc.carry_count; i += pc.carry_stride) {
    uvec4 r = CarriedWords(pc.carry_from).r[i];
    if ((pc.carry_to & 15ul) == 0ul)
      ResultWords(pc.carry_to).r[i] = r;
    else
      ResultArray(pc.carry_to).r[i] = RxResult(r.x, r.y, packUint2x32(r.zw));
  }
}

// results is 0 for collect_rows on device buffers (raydb/device_buffers.hpp): matches only.
void rx_store_result(uint query, RxHitState s) {
  if (pc.results != 0ul) rx_write_result(query, s.first_row, s.count, s.sum);
}

// A range over more lines than pc.max_range_lines: stores the marker {RX_MISS_ROW,
// RX_RANGE_OVER_BOUND, lines} in place of a result and returns true, so that the caller casts no
// ray. The host-vector API refuses such ranges before the launch; the device path cannot read the
// host's ranges, and an unbounded loop of rays could run for hours (2^41 lines in 64-bit keys).
// lo > hi is unspecified: it wraps here to a huge line count (the marker) or to none (a miss).
bool rx_range_over_bound(uint query, uint64_t lo, uint64_t hi) {
  if (!rx_flag(RX_FLAG_RANGES)) return false;
  uint64_t lines = rx_line(hi) - rx_line(lo) + 1ul;
  if (lines <= pc.max_range_lines) return false;
  rx_write_result(query, RX_MISS_ROW, RX_RANGE_OVER_BOUND, lines);
  return true;
}

