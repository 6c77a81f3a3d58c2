#version 460
#include "common/records.glsl"
#include "common/rx_mapping.h"

// The sorted-array baseline: per lookup, a binary search for the first record with key >= lo,
// then a walk while key <= hi. Same queries and results as the RX kernels, so the two are
// compared on identical work.
layout(local_size_x = 64) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer U64Array { uint64_t v[]; };
struct LookupResult {
  uint first_row;
  uint count;
  uint64_t sum;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) writeonly buffer ResultArray { LookupResult r[]; };

// Mirrors raydb::detail::SortedLookupParams.
layout(push_constant, scalar) uniform SortedLookupParams {
  uint64_t records;  // key-sorted records
  uint64_t queries;  // points, or (lo, hi) pairs, of the key width
  uint64_t results;
  uint n;
  uint num_queries;
  uint query_offset;
  uint flags;  // RX_FLAG_KEY64 | RX_FLAG_RANGES
}
pc;

void main() {
  uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
  if (local >= pc.num_queries) return;
  uint q = local + pc.query_offset;
  bool key64 = (pc.flags & RX_FLAG_KEY64) != 0u;
  uint width = (pc.flags & RX_FLAG_RANGES) != 0u ? 2u : 1u;
  uint64_t lo, hi;
  if (key64) {
    lo = U64Array(pc.queries).v[q * width];
    hi = U64Array(pc.queries).v[q * width + width - 1u];
  } else {
    lo = uint64_t(U32Array(pc.queries).v[q * width]);
    hi = uint64_t(U32Array(pc.queries).v[q * width + width - 1u]);
  }
  uint first = 0u, count = pc.n;
  while (count > 0u) {
    uint step = count / 2u;
    uint mid = first + step;
    if (load_record(pc.records, mid, key64).key < lo) {
      first = mid + 1u;
      count -= step + 1u;
    } else {
      count = step;
    }
  }
  LookupResult res = LookupResult(RX_MISS_ROW, 0u, 0ul);
  for (uint p = first; p < pc.n; ++p) {
    KeyRecord r = load_record(pc.records, p, key64);
    if (r.key > hi) break;
    res.count += 1u;
    res.first_row = min(res.first_row, r.row);
    res.sum += uint64_t(r.value);
  }
  ResultArray(pc.results).r[q] = res;
}
