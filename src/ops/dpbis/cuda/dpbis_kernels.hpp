// Launchers of the DP-BIS and sieving CUDA kernels (dpbis.cu), on raw device pointers. Each returns
// the launch's error; dpbis_cuda.cpp checks and names them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace raydb::detail::cuda::kernels {

cudaError_t sieve_vectors(const uint32_t* codes, uint32_t* vectors, uint32_t rows, uint32_t words,
                          uint32_t bins, uint32_t stride, cudaStream_t s);
cudaError_t sieve_select(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows, uint32_t words,
                         int32_t b_lo, int32_t b_hi, uint32_t bins, uint32_t stride,
                         cudaStream_t s);
cudaError_t codes_select(const uint32_t* codes, uint32_t* bitmap, uint32_t rows, int32_t b_lo,
                         int32_t b_hi, cudaStream_t s);
// Refine::in_select: the selections that also decide the boundary bins' rows against [lo, hi],
// their values read from `clustered` (the column by bin, each bin in row order) from `offsets`
// (bin * tiles + tile: a 4096-row tile's first row of the bin there).
cudaError_t codes_select_exact(const uint32_t* codes, const uint32_t* clustered,
                               const uint32_t* offsets, uint32_t* bitmap, uint32_t rows,
                               uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t lo, uint32_t hi,
                               uint32_t tiles, cudaStream_t s);
// stream: the vectors and boundary values are loaded evict-first (__ldcs), for bitmaps small
// enough that the query's other passes find theirs in L2.
cudaError_t sieve_select_exact(const uint32_t* vectors, const uint32_t* clustered,
                               const uint32_t* offsets, uint32_t* bitmap, uint32_t rows,
                               uint32_t words, int32_t b_lo, int32_t b_hi, uint32_t bins,
                               uint32_t stride, uint32_t lo, uint32_t hi, uint32_t tiles,
                               bool stream, cudaStream_t s);
cudaError_t refine_candidates(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                              uint32_t begin0, uint32_t end0, uint32_t begin1, uint32_t end1,
                              uint32_t lo, uint32_t hi, cudaStream_t s);

}  // namespace raydb::detail::cuda::kernels
