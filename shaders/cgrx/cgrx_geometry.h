// cgRX geometry, shared by the GLSL probe shaders and the C++ layout code: where the markers sit
// and how far each of the (at most three) rays of a lookup reaches. Representatives use the RX
// mapping and triangle (common/rx_mapping.h); markers live at x = -1, left of every key (x >= 0).
//
//   ray 1: +x along the query's own line (y_q, z_q), from x_q - 1/2 to 2^23 - 1/2:
//          crosses only representatives of that line (they sit at x >= 0). With a ray window W
//          (CgrxScene::ray_window) it is cast in two parts: first W long, which reaches the next
//          representative of the line whenever the gap before it is at most W (the build picks W
//          so that nearly all gaps are), and only on a miss the rest of the line.
//   ray 2: +y along the marker column (x = -1, z = z_q), from y_q + 1/2 to 2^23 - 1/2:
//          crosses only row markers (-1, y, z_q), one per non-empty line, y > y_q.
//   ray 3: +z along the plane column (x = y = -1), from z_q + 1/2 to 2^18 - 1/2 (64-bit keys
//          only; 32-bit keys all lie in plane 0): crosses only plane markers (-1, -1, z), z > z_q.
// Each marker stores the bucket of the first representative of its line or plane, so the first
// hit of the first ray that hits names the bucket of the smallest representative >= q.
// Every coordinate is an integer or half-integer below 2^23: exact in float32.
#ifndef RAYDB_CGRX_GEOMETRY_H
#define RAYDB_CGRX_GEOMETRY_H

#include "common/rx_mapping.h"

#define CGRX_MARKER_COORD (-1.0f)   // x of every marker, and y of plane markers
#define CGRX_Z_LIMIT 262144u        // 2^18: z = k[63:46] of a 64-bit key is below it
#define CGRX_NO_BUCKET 0xFFFFFFFFu  // a lookup above every representative (or no hit yet)

// Probe flags (CgrxProbeParams.flags); the values match RX_FLAG_KEY64 / RX_FLAG_RANGES.
#define CGRX_FLAG_KEY64 1u
#define CGRX_FLAG_RANGES 2u
// Diagnostics (CgrxIndex::set_diagnostic): NO_TRACE finds the bucket by a binary search over the
// representatives instead of rays (still exact); TRACE_ONLY casts the rays and stores the bucket
// they name (first_row) and the rays cast (count), without the bucket search.
#define CGRX_FLAG_DIAG_NO_TRACE 4u
#define CGRX_FLAG_DIAG_TRACE_ONLY 8u
// The join's lookups (src/ops/join/cgrx_join.cpp): a hit's first_row is the position in the records
// of the key's first record, not its smallest row, so that the key's rows are the records
// [first_row, first_row + count) and the join's expand pass copies them out without new rays.
#define CGRX_FLAG_RUN_START 16u

#endif
