// The DP-BIS and sieving kernels on shared buffers (CUDA builds): argument checks, buffer mapping,
// error names.
#include "ops/dpbis/cuda/dpbis_cuda.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "backend/cuda/runtime.hpp"
#include "ops/dpbis/cuda/dpbis_kernels.hpp"
#include "ops/dpbis/dpbis_params.hpp"

namespace raydb::detail::cuda {

namespace {

// A diagnostic, Diagnostics::cuda_own_memory on: the DP-BIS selection pass runs over cudaMalloc'd
// copies of its codes and bitmap instead of the Vulkan memory CUDA imported, so that a gap between
// the CUDA pass and its Vulkan twin can be told apart from how the imported memory is mapped
// (docs/baselines.md). The copies are made once per buffer, outside the timed stream work of later
// calls; the bitmap written is the copy, so the query's result is not valid (the bench marks the
// pass alone as a diagnostic anyway).
bool own_memory(const VkContext& ctx) {
  return ctx.diagnostics.cuda_own_memory == CudaOwnMemory::on;
}

template <class T>
T* own_copy(VkContext& ctx, const Buffer& b) {
  static std::unordered_map<uint64_t, std::pair<uint64_t, void*>> copies;
  auto& slot = copies[b.address()];
  if (slot.second == nullptr || slot.first != b.size()) {
    if (slot.second) cudaFree(slot.second);
    check(cudaMalloc(&slot.second, b.size()), "cudaMalloc (Diagnostics::cuda_own_memory copy)");
    check(cudaMemcpy(slot.second, device_ptr(ctx, b), b.size(), cudaMemcpyDeviceToDevice),
          "cudaMemcpy (Diagnostics::cuda_own_memory copy)");
    slot.first = b.size();
  }
  return static_cast<T*>(slot.second);
}

}  // namespace

void sieve_vectors(VkContext& ctx, const Buffer& codes, const Buffer& vectors, uint64_t rows,
                   uint32_t bins) {
  uint32_t words = words_of(rows);
  if (words == 0 || bins < 2) return;
  need(codes, uint64_t{words} * 32, "codes");
  uint64_t stride = sieve_vector_stride(words);
  if (uint64_t{bins - 1} * stride > 0xFFFFFFFFull)
    throw Error(
        Errc::limit_exceeded,
        fmt::format("{} sieving vectors of {} words exceed 2^32 - 1 words", bins - 1, stride));
  need(vectors, uint64_t{bins - 1} * stride * 4, "sieve vectors");
  check(kernels::sieve_vectors(ptr<uint32_t>(ctx, codes), ptr<uint32_t>(ctx, vectors),
                               static_cast<uint32_t>(rows), words, bins,
                               static_cast<uint32_t>(stride), runtime(ctx).stream),
        "sieve vectors kernel");
}

void sieve_select(VkContext& ctx, const Buffer& vectors, const Buffer& bitmap, uint64_t rows,
                  int32_t b_lo, int32_t b_hi, uint32_t bins) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  need(bitmap, uint64_t{words} * 4, "bitmap");
  uint64_t stride = sieve_vector_stride(words);
  need(vectors, uint64_t{bins - 1} * stride * 4, "sieve vectors");
  check(kernels::sieve_select(ptr<uint32_t>(ctx, vectors), ptr<uint32_t>(ctx, bitmap),
                              static_cast<uint32_t>(rows), words, b_lo, b_hi, bins,
                              static_cast<uint32_t>(stride), runtime(ctx).stream),
        "sieve select kernel");
}

void codes_select(VkContext& ctx, const Buffer& codes, const Buffer& bitmap, uint64_t rows,
                  int32_t b_lo, int32_t b_hi) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  need(codes, uint64_t{words} * 32, "codes");
  need(bitmap, uint64_t{words} * 4, "bitmap");
  bool own = own_memory(ctx);
  check(kernels::codes_select(own ? own_copy<uint32_t>(ctx, codes) : ptr<uint32_t>(ctx, codes),
                              own ? own_copy<uint32_t>(ctx, bitmap) : ptr<uint32_t>(ctx, bitmap),
                              static_cast<uint32_t>(rows), b_lo, b_hi, runtime(ctx).stream),
        "codes select kernel");
}

void codes_select_exact(VkContext& ctx, const Buffer& codes, const Buffer& clustered,
                        const Buffer& offsets, const Buffer& bitmap, uint64_t rows, int32_t b_lo,
                        int32_t b_hi, uint32_t bins, uint32_t lo, uint32_t hi) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  const uint32_t tiles = dpbis_tiles(rows);
  need(codes, uint64_t{words} * 32, "codes");
  need(clustered, rows * 4, "clustered values");
  need(offsets, uint64_t{bins} * tiles * 4, "bin offsets");
  need(bitmap, uint64_t{words} * 4, "bitmap");
  check(kernels::codes_select_exact(ptr<uint32_t>(ctx, codes), ptr<uint32_t>(ctx, clustered),
                                    ptr<uint32_t>(ctx, offsets), ptr<uint32_t>(ctx, bitmap),
                                    static_cast<uint32_t>(rows), words, b_lo, b_hi, lo, hi, tiles,
                                    runtime(ctx).stream),
        "codes select (in_select) kernel");
}

void sieve_select_exact(VkContext& ctx, const Buffer& vectors, const Buffer& clustered,
                        const Buffer& offsets, const Buffer& bitmap, uint64_t rows, int32_t b_lo,
                        int32_t b_hi, uint32_t bins, uint32_t lo, uint32_t hi) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  const uint32_t tiles = dpbis_tiles(rows);
  need(clustered, rows * 4, "clustered values");
  need(offsets, uint64_t{bins} * tiles * 4, "bin offsets");
  need(bitmap, uint64_t{words} * 4, "bitmap");
  uint64_t stride = sieve_vector_stride(words);
  need(vectors, uint64_t{bins - 1} * stride * 4, "sieve vectors");
  // Evict-first loads of what this pass alone reads pay where the query's bitmaps fit in half of
  // L2 (its other passes then find them there): on the H100 at 1e8 rows and 3 columns 0.80-0.84
  // -> 0.85-0.89 of the copy ceiling. Where they do not fit they cost: 0.96-0.97 -> 0.93-0.94 at
  // 1e9 rows (docs/dpbis_refine.md).
  Runtime& rt = runtime(ctx);
  const bool stream = uint64_t{words} * 4 * 2 <= rt.l2_bytes;
  check(kernels::sieve_select_exact(
            ptr<uint32_t>(ctx, vectors), ptr<uint32_t>(ctx, clustered), ptr<uint32_t>(ctx, offsets),
            ptr<uint32_t>(ctx, bitmap), static_cast<uint32_t>(rows), words, b_lo, b_hi, bins,
            static_cast<uint32_t>(stride), lo, hi, tiles, stream, rt.stream),
        "sieve select (in_select) kernel");
}

void refine_candidates(VkContext& ctx, const Buffer& sorted, const Buffer& row_ids,
                       const Buffer& bitmap, uint32_t begin0, uint32_t end0, uint32_t begin1,
                       uint32_t end1, uint32_t lo, uint32_t hi) {
  if (end0 <= begin0 && end1 <= begin1) return;
  uint32_t end = std::max(end0 > begin0 ? end0 : 0u, end1 > begin1 ? end1 : 0u);
  need(sorted, dpbis_sorted_bytes(end), "sorted values");
  need(row_ids, dpbis_sorted_bytes(end), "row ids");
  check(kernels::refine_candidates(ptr<uint32_t>(ctx, sorted), ptr<uint32_t>(ctx, row_ids),
                                   ptr<uint32_t>(ctx, bitmap), begin0, end0, begin1, end1, lo, hi,
                                   runtime(ctx).stream),
        "candidate refinement kernel");
}

}  // namespace raydb::detail::cuda
