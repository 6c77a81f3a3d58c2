#version 460
#include "dpbis/dpbis_common.glsl"

// Refine::in_select over the sieving vectors: dpbis_sieve_select.comp's pass that also decides
// the rows of the boundary bins. Vector k marks the rows whose code is below k, so per word
//   inner      = V(b_hi) & ~V(b_lo + 1)      (b_lo < code < b_hi: set)
//   bin b rows = V(b + 1) & ~V(b)            (b = b_lo, b_hi: the value decides)
// Up to four vectors are read instead of two. The boundary rows' values come from the column
// clustered by bin, each bin in row order (DpBisColumn::clustered): the rows of bin b in one
// 4096-row tile (32 invocations) are consecutive there, from offsets[b * tiles + tile]. The
// invocations of a tile count their rows of each boundary bin and take their places by a prefix
// sum, so the tile's loads are one contiguous run per bin instead of one 32-byte sector per row
// (docs/dpbis_refine.md). As in the sieve pass, each invocation owns 4 bitmap words (16-byte loads
// and store; vectors `stride` words apart, padding words 0).
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer U32x4Array { uvec4 v[]; };
layout(push_constant, scalar) uniform DpBisSieveExactParams {
  uint64_t vectors;    // vector k (k >= 1) at word offset (k - 1) * stride
  uint64_t clustered;  // the column's values by bin, each bin's in row order
  uint64_t offsets;    // [bin * tiles + tile]: the tile's first row of that bin in `clustered`
  uint64_t bitmap;
  uint rows;
  uint words;
  int b_lo;  // -1: no lower boundary bin
  int b_hi;
  uint bins;
  uint stride;
  uint lo;  // the accepted interval [lo, hi]
  uint hi;
  uint tiles;
  uint pad0;
}
pc;

const uint kTileUnits = 32u;  // invocations (4 words, 128 rows each) per 4096-row tile

shared uint counts[2u * 64u];  // each invocation's rows of b_hi, then of b_lo

uint valid_bits(uint i) {
  uint valid = pc.rows - i * 32u;
  return i * 32u >= pc.rows ? 0u : valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

uvec4 vector_words(int k, uint q, uvec4 valid) {
  if (k <= 0) return uvec4(0u);
  if (uint(k) >= pc.bins) return valid;
  uint64_t at = pc.vectors + uint64_t(uint(k - 1)) * uint64_t(pc.stride) * 4ul;  // 64-bit: large
  return U32x4Array(at).v[q];
}

uint popcount4(uvec4 m) { return bitCount(m.x) + bitCount(m.y) + bitCount(m.z) + bitCount(m.w); }

// Sets the rows of `edge` (one boundary bin's `count` rows, ascending) whose values, read from
// `at` on, lie in [lo, hi]. The k-th row's value is the k-th one from `at`, so a batch's four
// loads are issued before the rows they belong to are found, and each row is then found within
// its own word (as the CUDA twin, where a search across the four words first made the pass 1.3x
// slower on the H100: docs/dpbis_refine.md).
void refine(inout uvec4 bits, uvec4 edge, uint64_t at, uint count) {
  for (uint taken = 0u; taken < count; taken += 4u) {
    uint pass = 0u;  // bit k: the batch's k-th row lies in [lo, hi]
    for (uint k = 0u; k < 4u; ++k) {
      uint v = taken + k < count ? U32Array(at + uint64_t(taken + k) * 4ul).v[0] : 0u;
      pass |= taken + k < count && v >= pc.lo && v <= pc.hi ? 1u << k : 0u;
    }
    const uint n = min(4u, count - taken);
    uint k = 0u;
    for (uint w = 0u; w < 4u; ++w) {
      uint m = edge[w];
      for (; m != 0u && k < n; ++k) {
        bits[w] |= ((pass >> k) & 1u) << uint(findLSB(m));
        m &= m - 1u;
      }
      edge[w] = m;
    }
  }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint q = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + t;
  const uint first = q * 4u;
  const bool in_bitmap = first < pc.words;  // the others only take part in the prefix sum
  // Every word of the quad is whole (all but the last quads), or each word's rows are masked.
  uvec4 valid = uint64_t(first) * 32ul + 128ul <= uint64_t(pc.rows) ? uvec4(0xFFFFFFFFu)
                : in_bitmap ? uvec4(valid_bits(first), valid_bits(first + 1u),
                                    valid_bits(first + 2u), valid_bits(first + 3u))
                            : uvec4(0u);
  uvec4 bits = uvec4(0u), edge_hi = uvec4(0u), edge_lo = uvec4(0u);
  const bool two = pc.b_lo >= 0 && pc.b_lo != pc.b_hi;  // a lower boundary bin of its own
  // The tile's offsets depend on nothing else: loaded with the vectors, they add no round trip.
  const uint tile = q / kTileUnits;
  uint offset_hi = 0u, offset_lo = 0u;
  if (in_bitmap) {
    offset_hi = U32Array(pc.offsets).v[uint(pc.b_hi) * pc.tiles + tile];
    if (two) offset_lo = U32Array(pc.offsets).v[uint(pc.b_lo) * pc.tiles + tile];
    // All four loads are issued before any is used.
    uvec4 hi = vector_words(pc.b_hi, q, valid);
    uvec4 lo = vector_words(pc.b_lo + 1, q, valid);
    uvec4 hi1 = vector_words(pc.b_hi + 1, q, valid);
    uvec4 lo0 = vector_words(pc.b_lo, q, valid);
    bits = hi & ~lo & valid;
    edge_hi = hi1 & ~hi & valid;
    if (two) edge_lo = lo & ~lo0 & valid;
  }
  const uint count_hi = popcount4(edge_hi), count_lo = popcount4(edge_lo);
  counts[t] = count_hi;
  counts[64u + t] = count_lo;
  barrier();
  if (!in_bitmap) return;
  // Rows of each boundary bin in this tile before this invocation's.
  uint before_hi = 0u, before_lo = 0u;
  for (uint u = t & ~(kTileUnits - 1u); u < t; ++u) {
    before_hi += counts[u];
    before_lo += counts[64u + u];
  }
  // 64-bit: large columns.
  refine(bits, edge_hi, pc.clustered + uint64_t(offset_hi + before_hi) * 4ul, count_hi);
  if (two) refine(bits, edge_lo, pc.clustered + uint64_t(offset_lo + before_lo) * 4ul, count_lo);
  if (pc.words - first >= 4u) {
    U32x4Array(pc.bitmap).v[q] = bits;
    return;
  }
  for (uint j = 0u; first + j < pc.words; ++j) U32Array(pc.bitmap).v[first + j] = bits[j];
}
