// DP-BIS and sieving: the twins of shaders/dpbis/dpbis_{vectors,sieve_select,select,candidates}.
#include "backend/cuda/grid.cuh"
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

__global__ void vectors_kernel(const uint32_t* codes, uint32_t* vectors, uint32_t rows,
                               uint32_t words, uint32_t bins) {
  uint64_t i = thread_index();
  if (i >= uint64_t{bins - 1} * words) return;
  uint32_t k = static_cast<uint32_t>(i / words) + 1u;
  uint32_t word = static_cast<uint32_t>(i % words);
  uint32_t bits = 0u;
  for (uint32_t j = 0u; j < 8u; ++j) {
    uint32_t w = codes[uint64_t{word} * 8u + j];
    for (uint32_t b = 0u; b < 4u; ++b) {
      uint32_t r = j * 4u + b;
      if (uint64_t{word} * 32u + r < rows && ((w >> (8u * b)) & 0xFFu) < k) bits |= 1u << r;
    }
  }
  vectors[i] = bits;
}

__device__ uint32_t vector_word(const uint32_t* vectors, int32_t k, uint32_t word, uint32_t words,
                                uint32_t bins, uint32_t valid) {
  if (k <= 0) return 0u;                               // no code is below 0
  if (static_cast<uint32_t>(k) >= bins) return valid;  // every code is below bins
  return vectors[uint64_t(k - 1) * words + word];
}

__global__ void sieve_select_kernel(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows,
                                    uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t bins) {
  uint64_t i = thread_index();
  if (i >= words) return;
  uint32_t word = static_cast<uint32_t>(i);
  uint32_t in_word = min(32u, rows - word * 32u);
  uint32_t valid = in_word == 32u ? 0xFFFFFFFFu : ((1u << in_word) - 1u);
  bitmap[word] = vector_word(vectors, b_hi, word, words, bins, valid) &
                 ~vector_word(vectors, b_lo + 1, word, words, bins, valid);
}

__global__ void codes_select_kernel(const uint32_t* codes, uint32_t* bitmap, uint32_t rows,
                                    int32_t b_lo, int32_t b_hi) {
  uint64_t word = thread_index();
  uint64_t first = word * 32u;
  if (first >= rows) return;
  // The word's 32 code bytes as two 16-byte loads (codes are padded to whole words and mapped at
  // an aligned address), as in dpbis_select.comp.
  const uint4* q = reinterpret_cast<const uint4*>(codes) + word * 2u;
  uint4 a = q[0], b = q[1];
  const uint32_t w8[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  uint32_t bits = 0u;
  for (uint32_t i = 0u; i < 8u; ++i) {
    uint32_t w = w8[i];
    for (uint32_t j = 0u; j < 4u; ++j) {
      uint32_t r = i * 4u + j;
      int32_t code = static_cast<int32_t>((w >> (8u * j)) & 0xFFu);
      if (first + r < rows && code > b_lo && code < b_hi) bits |= 1u << r;
    }
  }
  bitmap[word] = bits;
}

__global__ void candidates_kernel(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                                  uint32_t begin, uint32_t end, uint32_t lo, uint32_t hi) {
  uint64_t p = begin + thread_index();
  if (p >= end) return;
  uint32_t v = sorted[p];
  if (v < lo || v > hi) return;
  uint32_t row = row_ids[p];
  atomicOr(&bitmap[row >> 5u], 1u << (row & 31u));
}

}  // namespace

cudaError_t sieve_vectors(const uint32_t* codes, uint32_t* vectors, uint32_t rows, uint32_t words,
                          uint32_t bins, cudaStream_t s) {
  uint64_t items = uint64_t{bins - 1} * words;
  if (items == 0) return cudaSuccess;
  vectors_kernel<<<blocks_for(items), kBlock, 0, s>>>(codes, vectors, rows, words, bins);
  return cudaGetLastError();
}

cudaError_t sieve_select(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows, uint32_t words,
                         int32_t b_lo, int32_t b_hi, uint32_t bins, cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  sieve_select_kernel<<<blocks_for(words), kBlock, 0, s>>>(vectors, bitmap, rows, words, b_lo, b_hi,
                                                           bins);
  return cudaGetLastError();
}

cudaError_t codes_select(const uint32_t* codes, uint32_t* bitmap, uint32_t rows, int32_t b_lo,
                         int32_t b_hi, cudaStream_t s) {
  uint64_t words = (uint64_t{rows} + 31) / 32;
  if (words == 0) return cudaSuccess;
  codes_select_kernel<<<blocks_for(words), kBlock, 0, s>>>(codes, bitmap, rows, b_lo, b_hi);
  return cudaGetLastError();
}

cudaError_t refine_candidates(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                              uint32_t begin, uint32_t end, uint32_t lo, uint32_t hi,
                              cudaStream_t s) {
  if (end <= begin) return cudaSuccess;
  candidates_kernel<<<blocks_for(end - begin), kBlock, 0, s>>>(sorted, row_ids, bitmap, begin, end,
                                                               lo, hi);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
