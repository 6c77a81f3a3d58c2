// RX key mapping (RTIndeX, 3D mode): a key k of up to 64 bits becomes the point
//   x = k[22:0], y = k[45:23], z = k[63:46]
// Every part is below 2^23, so the part and the part +- 0.5 are exact float32 values; a key is
// never converted to float whole. 32-bit keys simply have z = 0 and y < 2^9.
// Included by GLSL shaders, by the C++ host code and by CUDA.
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

#define RX_NO_ENTRY 0xFFFFFFFFu  // hit-and-scan: no matching primitive found yet

#define RX_MISS_ROW 0xFFFFFFFFu  // first_row of a query with no match

#endif
