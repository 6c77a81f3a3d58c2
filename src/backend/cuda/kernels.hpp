// Launchers of the generic CUDA kernels (sort, bitmaps, the timer hold; the .cu files here), on raw
// device pointers. Each returns the launch's error (or the first CUB or allocation error); ops.cpp
// checks and names them. Operators' own kernels are declared beside them (src/ops/<op>/cuda/).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace raydb::detail::cuda::kernels {

// Stable sort of n keys in place; rows[i] becomes the original position of the i-th key.
// Temporary buffers come from `pool`, stream-ordered.
cudaError_t sort_pairs32(uint32_t* keys, uint32_t* rows, uint32_t n, cudaMemPool_t pool,
                         cudaStream_t s);
cudaError_t sort_pairs64(uint64_t* keys, uint32_t* rows, uint32_t n, cudaMemPool_t pool,
                         cudaStream_t s);

cudaError_t bitmap_op(uint32_t* a, uint32_t* b, uint32_t words, uint32_t rows, uint32_t op,
                      cudaStream_t s);
// Adds the set bits of `words` words to *total.
cudaError_t bitmap_count(const uint32_t* bitmap, uint32_t words, unsigned long long* total,
                         cudaStream_t s);
// offsets (words + 1 entries): exclusive prefix sums of the words' population counts, the last
// entry the total. Temporary buffers come from `pool`, stream-ordered.
cudaError_t bitmap_offsets(const uint32_t* bitmap, uint32_t words, uint32_t* offsets,
                           cudaMemPool_t pool, cudaStream_t s);
cudaError_t bitmap_scatter(const uint32_t* bitmap, const uint32_t* offsets, uint32_t words,
                           uint32_t* rows, cudaStream_t s);

// One thread that spins for `ns` nanoseconds of the GPU's global timer (Timer's hold).
cudaError_t hold_stream(uint64_t ns, cudaStream_t s);
// Reads `bytes` of zeros (a multiple of 16, 16-byte aligned) through L2 (Timer's flush).
cudaError_t read_through(void* zeros, uint64_t bytes, cudaStream_t s);

}  // namespace raydb::detail::cuda::kernels
