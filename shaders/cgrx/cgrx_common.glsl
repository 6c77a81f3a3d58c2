// Everything the cgRX probe kernels share, whichever way they traverse (ray-tracing pipeline or
// ray query): push constants, query loading, and the hooks through which the lookup itself
// (cgrx/cgrx_lookup.h, shared with the OptiX programs) reaches this API's buffers.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

#include "cgrx/cgrx_geometry.h"
#include "common/records.glsl"

layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) buffer Counters { uint rays; uint fallbacks; };

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
  load_key_query(pc.queries, q, cgrx_flag(CGRX_FLAG_RANGES), cgrx_flag(CGRX_FLAG_KEY64), lo, hi);
}

KeyRecord cgrx_record(uint i) { return load_record(pc.records, i, cgrx_flag(CGRX_FLAG_KEY64)); }
uint cgrx_primitive_bucket(uint p) { return U32Array(pc.buckets).v[p]; }
uint cgrx_num_records() { return pc.num_records; }
uint cgrx_num_buckets() { return pc.num_buckets; }
uint cgrx_bucket_shift() { return pc.bucket_shift; }
uint cgrx_ray_window() { return pc.ray_window; }
void cgrx_count_rays(uint extra) { atomicAdd(Counters(pc.counters).rays, extra); }
void cgrx_count_fallback() { atomicAdd(Counters(pc.counters).fallbacks, 1u); }

// Defined by each traversal (rgen / ray-query compute): the primitive of the closest opaque hit
// of one ray, or CGRX_NO_BUCKET on a miss. The index has one BLAS, so that is gl_PrimitiveID.
uint cgrx_trace(vec3 origin, vec3 dir, float tmax);

#include "cgrx/cgrx_lookup.h"

layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { CgrxResult r[]; };

// One lookup of the batch: query q, result slot qid.
void cgrx_lookup(uint q, uint qid) {
  uint64_t lo, hi;
  cgrx_load_query(q, lo, hi);
  ResultArray(pc.results).r[qid] = cgrx_find(lo, hi);
}
