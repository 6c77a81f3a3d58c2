// Push-constant blocks of the DP-BIS kernels (shaders/dpbis/, scalar layout); shared by the
// operator and the tests that run the Vulkan twins beside the CUDA kernels.
#pragma once

#include <cstdint>

namespace raydb::detail {

struct BinsParams {
  uint64_t sorted, starts;
  uint32_t n, bins;
};
// The bin codes: one byte per row, 8 words per 32-row group, row r of a group in byte r / 8 of
// its word r % 8. A selection's 4-byte tests set each byte's high bit, so word i's rows land in
// their bitmap word with one shift (shaders/dpbis/dpbis_common.glsl).
struct CodesParams {
  uint64_t rows, starts, codes;
  uint32_t n, bins;
};
struct VectorsParams {
  uint64_t codes, vectors;
  uint32_t rows, words, bins, stride;
};
struct SieveParams {
  uint64_t vectors, bitmap;
  uint32_t rows, words;
  int32_t b_lo, b_hi;
  uint32_t bins, stride;
};
static_assert(sizeof(VectorsParams) == 32 && sizeof(SieveParams) == 40);
struct SelectParams {
  uint64_t codes, bitmap;
  uint32_t rows;
  int32_t b_lo, b_hi;
  uint32_t pad0;
};
struct CandidatesParams {
  uint64_t sorted, rows, bitmap;
  uint32_t begin0, end0, begin1, end1, lo, hi;
};
// Refine::in_select: the selection passes also decide the boundary rows, from the row-ordered
// values (dpbis_select_exact.comp) or the values clustered by bin (dpbis_sieve_exact.comp, and the
// CUDA pass over the codes); [lo, hi] is the accepted interval.
struct SelectExactParams {
  uint64_t codes, values, bitmap;
  uint32_t rows;
  int32_t b_lo, b_hi;
  uint32_t lo, hi, pad0;
};
struct SieveExactParams {
  uint64_t vectors, clustered, offsets, bitmap;
  uint32_t rows, words;
  int32_t b_lo, b_hi;
  uint32_t bins, stride, lo, hi, tiles, pad0;
};
static_assert(sizeof(SelectExactParams) == 48 && sizeof(SieveExactParams) == 72);
// dpbis_cluster_keys.comp (from: codes, to: keys) and dpbis_cluster_values.comp (from: row ids,
// table: the values in row order, to: the clustered values).
struct ClusterParams {
  uint64_t from, table, to;
  uint32_t n, pad0;
};
static_assert(sizeof(ClusterParams) == 32);

// Rows per tile of the clustered values' offsets: an in_select pass's 32 invocations (a CUDA warp)
// of 128 rows each, and the tile of the radix sort whose histogram the offsets are.
inline constexpr uint64_t kDpBisTileRows = 4096;
inline uint32_t dpbis_tiles(uint64_t rows) {
  return static_cast<uint32_t>((rows + kDpBisTileRows - 1) / kDpBisTileRows);
}
static_assert(sizeof(BinsParams) == 24 && sizeof(CodesParams) == 32 && sizeof(SelectParams) == 32 &&
              sizeof(CandidatesParams) == 48);

// Words between two sieving vectors: the bitmap's words rounded up to a multiple of 4, so that
// each vector starts 16-byte aligned (dpbis_sieve_select.comp loads 4 words at once).
inline uint64_t sieve_vector_stride(uint64_t words) {
  return (words + 3) / 4 * 4;
}

// Bytes of the sorted values (and of the row ids) of n rows: padded to whole 16-byte chunks,
// which dpbis_candidates.comp loads whole.
inline uint64_t dpbis_sorted_bytes(uint64_t n) {
  return (n + 3) / 4 * 16;
}

// Invocations of dpbis_candidates.comp for the boundary bins [begin0, end0) and [begin1, end1):
// one per 16-byte chunk holding positions of either.
inline uint64_t candidate_items(uint32_t begin0, uint32_t end0, uint32_t begin1, uint32_t end1) {
  auto chunks = [](uint32_t b, uint32_t e) -> uint64_t {
    return e > b ? (uint64_t{e} - 1) / 4 + 1 - b / 4 : 0;
  };
  return chunks(begin0, end0) + chunks(begin1, end1);
}

}  // namespace raydb::detail
