// Launchers of the CUDA kernels (the .cu files), on raw device pointers. Each returns the launch's
// error (or the first CUB or allocation error); ops.cpp checks and names them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "ops/ssb/ssb_params.hpp"

namespace raydb::detail::cuda::kernels {

// Stable sort of n keys in place; rows[i] becomes the original position of the i-th key.
// Temporary buffers come from the stream-ordered allocator.
cudaError_t sort_pairs32(uint32_t* keys, uint32_t* rows, uint32_t n, cudaStream_t s);
cudaError_t sort_pairs64(uint64_t* keys, uint32_t* rows, uint32_t n, cudaStream_t s);

cudaError_t bitmap_op(uint32_t* a, uint32_t* b, uint32_t words, uint32_t rows, uint32_t op,
                      cudaStream_t s);
// Adds the set bits of `words` words to *total.
cudaError_t bitmap_count(const uint32_t* bitmap, uint32_t words, unsigned long long* total,
                         cudaStream_t s);
// offsets (words + 1 entries): exclusive prefix sums of the words' population counts, the last
// entry the total.
cudaError_t bitmap_offsets(const uint32_t* bitmap, uint32_t words, uint32_t* offsets,
                           cudaStream_t s);
cudaError_t bitmap_scatter(const uint32_t* bitmap, const uint32_t* offsets, uint32_t words,
                           uint32_t* rows, cudaStream_t s);

cudaError_t sieve_vectors(const uint32_t* codes, uint32_t* vectors, uint32_t rows, uint32_t words,
                          uint32_t bins, uint32_t stride, cudaStream_t s);
cudaError_t sieve_select(const uint32_t* vectors, uint32_t* bitmap, uint32_t rows, uint32_t words,
                         int32_t b_lo, int32_t b_hi, uint32_t bins, uint32_t stride,
                         cudaStream_t s);
cudaError_t codes_select(const uint32_t* codes, uint32_t* bitmap, uint32_t rows, int32_t b_lo,
                         int32_t b_hi, cudaStream_t s);
// Refine::in_select: the selections that also decide the boundary bins' rows from `values` (the
// column in row order) against [lo, hi].
cudaError_t codes_select_exact(const uint32_t* codes, const uint32_t* values, uint32_t* bitmap,
                               uint32_t rows, int32_t b_lo, int32_t b_hi, uint32_t lo, uint32_t hi,
                               cudaStream_t s);
cudaError_t sieve_select_exact(const uint32_t* vectors, const uint32_t* values, uint32_t* bitmap,
                               uint32_t rows, uint32_t words, int32_t b_lo, int32_t b_hi,
                               uint32_t bins, uint32_t stride, uint32_t lo, uint32_t hi,
                               cudaStream_t s);
cudaError_t refine_candidates(const uint32_t* sorted, const uint32_t* row_ids, uint32_t* bitmap,
                              uint32_t begin0, uint32_t end0, uint32_t begin1, uint32_t end1,
                              uint32_t lo, uint32_t hi, cudaStream_t s);

// ssb_crystal.cu: fills one dimension's slots of `tables` (already all 0xFF) from its rows.
cudaError_t ssb_dim_build(const uint32_t* dim_data, const uint32_t* masks, uint32_t* tables,
                          const ssb::detail::SsbCrystalDim& d, cudaStream_t s);
// The fused probe: every lineorder row's filters, joins and group, summed into sums / counts
// (q.slots entries each, zeroed).
cudaError_t ssb_probe(const uint32_t* columns, const uint32_t* tables, unsigned long long* sums,
                      uint32_t* counts, const ssb::detail::SsbCrystalQuery& q, cudaStream_t s);

// One thread that spins for `ns` nanoseconds of the GPU's global timer (Timer's hold).
cudaError_t hold_stream(uint64_t ns, cudaStream_t s);

}  // namespace raydb::detail::cuda::kernels
