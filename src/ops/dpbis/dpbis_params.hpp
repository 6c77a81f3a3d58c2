// Push-constant blocks of the DP-BIS kernels (shaders/dpbis/, scalar layout); shared by the
// operator and the tests that run the Vulkan twins beside the CUDA kernels.
#pragma once

#include <cstdint>

namespace raydb::detail {

struct BinsParams {
  uint64_t sorted, starts;
  uint32_t n, bins;
};
struct CodesParams {
  uint64_t rows, starts, codes;
  uint32_t n, bins;
};
struct VectorsParams {
  uint64_t codes, vectors;
  uint32_t rows, words, bins, pad0;
};
struct SieveParams {
  uint64_t vectors, bitmap;
  uint32_t rows, words;
  int32_t b_lo, b_hi;
  uint32_t bins, pad0;
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
  uint32_t begin, end, lo, hi;
};
static_assert(sizeof(BinsParams) == 24 && sizeof(CodesParams) == 32 && sizeof(SelectParams) == 32 &&
              sizeof(CandidatesParams) == 40);

}  // namespace raydb::detail
