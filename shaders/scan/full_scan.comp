#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_scalar_block_layout : require

// Full scan: a conjunction of predicates over uint32 columns into a bitmap.
//
// The scan is bound by memory bandwidth, so the layout is chosen for the loads: a workgroup of
// 256 invocations owns 8192 rows (256 bitmap words). Per column, invocation t loads the 16-byte
// chunks t, t + 256, ..., t + 7 * 256 of its rows (uvec4: 4 rows each), so each of the 8 load
// instructions of a subgroup reads one contiguous span and every invocation has 8 independent
// 16-byte loads (128 bytes) in flight: enough to cover DRAM latency without relying on occupancy.
// The 4-bit matches of its 8 chunks stay in one register across predicates (ANDed), and only once
// at the end they go through shared memory so that invocation t can assemble the whole bitmap
// word t from 8 nibbles and write it with a plain store: no atomics, no read-modify-write of the
// bitmap, and no barrier per predicate.
layout(local_size_x = 256) in;
layout(buffer_reference, scalar, buffer_reference_align = 4) readonly buffer U32Array { uint v[]; };
// The host checks that every column starts 16-byte aligned (ColumnTable allocates it so).
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer U32x4Array { uvec4 v[]; };
layout(buffer_reference, scalar, buffer_reference_align = 4) writeonly buffer WordArray { uint w[]; };

// One predicate: a column's address and lo <= value <= hi (every comparison is rewritten so, with
// lo <= hi; predicates that accept nothing never reach the shader).
struct ScanPredicate {
  uint64_t column;
  uint lo;
  uint hi;
};
layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer PredicateArray { ScanPredicate p[]; };

// Mirrors raydb::detail::FullScanParams.
layout(push_constant, scalar) uniform FullScanParams {
  uint64_t predicates;
  uint64_t bitmap;
  uint rows;
  uint num_predicates;
}
pc;

const uint kThreads = 256u;
const uint kChunks = 8u;                         // uvec4 chunks per invocation and column
const uint kGroupRows = kThreads * kChunks * 4u;  // 8192
// Nibble of chunk c (0 .. 2047 within the group) at (c % 8) * kStride + c / 8: the stores (chunk
// i * 256 + t) and the loads (word t reads chunks 8t .. 8t + 7) both hit 32 distinct banks.
const uint kStride = 264u;
shared uint nibbles[kChunks * kStride];

// Bit j of the result: lo <= v[j] <= hi, as one unsigned compare ((v - lo) <= hi - lo).
uint match4(uvec4 v, uint lo, uint span) {
  uvec4 m = uvec4(lessThanEqual(v - uvec4(lo), uvec4(span)));
  return m.x | (m.y << 1u) | (m.z << 2u) | (m.w << 3u);
}

void main() {
  uint t = gl_LocalInvocationID.x;
  uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint64_t base = uint64_t(group) * kGroupRows;
  if (base >= uint64_t(pc.rows)) return;  // the whole workgroup: the grid was rounded up
  bool full = base + kGroupRows <= uint64_t(pc.rows);
  uint first_chunk = group * (kGroupRows / 4u);  // < 2^30: rows < 2^32

  // Bit i * 4 + j: row 4 * (i * 256 + t) + j of the group qualifies. Rows past the end start 0.
  uint acc = 0xFFFFFFFFu;
  if (!full) {
    acc = 0u;
    for (uint i = 0u; i < kChunks; ++i) {
      uint64_t row = base + 4u * (i * kThreads + t);
      uint valid = row >= uint64_t(pc.rows) ? 0u : uint(min(uint64_t(4u), uint64_t(pc.rows) - row));
      acc |= ((1u << valid) - 1u) << (4u * i);
    }
  }

  for (uint k = 0u; k < pc.num_predicates; ++k) {
    ScanPredicate p = PredicateArray(pc.predicates).p[k];
    uint span = p.hi - p.lo;
    uint m = 0u;
    if (full) {
      // All 8 loads are issued before any compare uses them.
      U32x4Array col = U32x4Array(p.column);
      uvec4 v[kChunks];
      for (uint i = 0u; i < kChunks; ++i) v[i] = col.v[first_chunk + i * kThreads + t];
      for (uint i = 0u; i < kChunks; ++i) m |= match4(v[i], p.lo, span) << (4u * i);
    } else {
      // The last workgroup: whole chunks as uvec4, the partial one row by row (the column ends at
      // row `rows`, so a uvec4 there would read past it).
      U32x4Array col = U32x4Array(p.column);
      U32Array col1 = U32Array(p.column);
      for (uint i = 0u; i < kChunks; ++i) {
        uint nib = (acc >> (4u * i)) & 0xFu;
        uint chunk = first_chunk + i * kThreads + t;
        if (nib == 0xFu) {
          m |= match4(col.v[chunk], p.lo, span) << (4u * i);
        } else {
          for (uint j = 0u; j < 4u; ++j)
            if ((nib >> j & 1u) != 0u && col1.v[chunk * 4u + j] - p.lo <= span)
              m |= 1u << (4u * i + j);
        }
      }
    }
    acc &= m;
  }

  for (uint i = 0u; i < kChunks; ++i) {
    uint c = i * kThreads + t;
    nibbles[(c % kChunks) * kStride + c / kChunks] = (acc >> (4u * i)) & 0xFu;
  }
  barrier();
  uint word = 0u;
  for (uint k = 0u; k < kChunks; ++k) word |= nibbles[k * kStride + t] << (4u * k);
  uint index = group * kThreads + t;
  if (uint64_t(index) * 32u < uint64_t(pc.rows)) WordArray(pc.bitmap).w[index] = word;
}
