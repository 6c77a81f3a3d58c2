// The DP-BIS and sieving kernels of the CUDA fast path (dpbis.cu): no CUDA types here, so callers
// compile the same with or without the CUDA backend (dpbis_cuda_absent.cpp answers 'unavailable'
// then). Buffers, ordering and thread-safety as in backend/cuda/cuda.hpp.
#pragma once

#include <cstdint>

#include "backend/cuda/cuda.hpp"

namespace raydb::detail::cuda {

// dpbis_vectors.comp: sieving vector k (1 .. bins-1) of `rows` rows from the bin codes, vectors
// sieve_vector_stride(words) words apart (dpbis_params.hpp).
void sieve_vectors(VkContext& ctx, const Buffer& codes, const Buffer& vectors, uint64_t rows,
                   uint32_t bins);
// dpbis_sieve_select.comp: rows of bins strictly between b_lo and b_hi from two vectors.
void sieve_select(VkContext& ctx, const Buffer& vectors, const Buffer& bitmap, uint64_t rows,
                  int32_t b_lo, int32_t b_hi, uint32_t bins);
// dpbis_select.comp: the same from the codes.
void codes_select(VkContext& ctx, const Buffer& codes, const Buffer& bitmap, uint64_t rows,
                  int32_t b_lo, int32_t b_hi);
// dpbis_select_exact.comp (Refine::in_select): as codes_select, and the rows whose code is b_lo
// or b_hi are set when their value lies in [lo, hi], read from `clustered` (the column by bin,
// each bin in row order) from `offsets` (bin * tiles + tile: a 4096-row tile's first row of the
// bin there; RadixSort::Temps::hist of the clustering sort).
void codes_select_exact(VkContext& ctx, const Buffer& codes, const Buffer& clustered,
                        const Buffer& offsets, const Buffer& bitmap, uint64_t rows, int32_t b_lo,
                        int32_t b_hi, uint32_t bins, uint32_t lo, uint32_t hi);
// dpbis_sieve_exact.comp: the same over the sieving vectors.
void sieve_select_exact(VkContext& ctx, const Buffer& vectors, const Buffer& clustered,
                        const Buffer& offsets, const Buffer& bitmap, uint64_t rows, int32_t b_lo,
                        int32_t b_hi, uint32_t bins, uint32_t lo, uint32_t hi);
// dpbis_candidates.comp: sorted positions in [begin0, end0) or [begin1, end1) (the boundary
// bins; either may be empty) whose value v has lo <= v <= hi set their rows' bits (OR into
// `bitmap`). Sorted values and row ids are read in whole 16-byte chunks: their buffers hold
// dpbis_sorted_bytes(end) bytes.
void refine_candidates(VkContext& ctx, const Buffer& sorted, const Buffer& row_ids,
                       const Buffer& bitmap, uint32_t begin0, uint32_t end0, uint32_t begin1,
                       uint32_t end1, uint32_t lo, uint32_t hi);

}  // namespace raydb::detail::cuda
