// Bitmap algebra, counting and compaction: the twins of shaders/scan/bitmap_ops.comp and
// bitmap_to_rows.comp.
#include <cub/device/device_scan.cuh>

#include "backend/cuda/grid.cuh"
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

// The op codes of scan_impl.hpp's BitmapOp.
constexpr uint32_t kAnd = 0, kOr = 1, kNot = 2;

__global__ void bitmap_op_kernel(uint32_t* a, const uint32_t* b, uint32_t words, uint32_t rows,
                                 uint32_t op, uint32_t* counts) {
  uint64_t i = thread_index();
  if (i >= words) return;
  if (op == kAnd) {
    a[i] &= b[i];
  } else if (op == kOr) {
    a[i] |= b[i];
  } else if (op == kNot) {
    uint32_t valid = rows - static_cast<uint32_t>(i) * 32u;
    uint32_t mask = valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
    a[i] = ~a[i] & mask;
  } else {
    counts[i] = static_cast<uint32_t>(__popc(a[i]));
  }
}

__global__ void count_kernel(const uint32_t* bitmap, uint32_t words, unsigned long long* total) {
  uint64_t i = thread_index();
  unsigned c = i < words ? static_cast<unsigned>(__popc(bitmap[i])) : 0u;
  c = __reduce_add_sync(0xFFFFFFFFu, c);
  if ((threadIdx.x & 31u) == 0 && c) atomicAdd(total, static_cast<unsigned long long>(c));
}

__global__ void popcount_kernel(const uint32_t* bitmap, uint32_t words, uint32_t* counts) {
  uint64_t i = thread_index();
  if (i < words) counts[i] = static_cast<uint32_t>(__popc(bitmap[i]));
  if (i == words) counts[i] = 0;  // the scan's extra entry, which becomes the total
}

__global__ void scatter_kernel(const uint32_t* bitmap, const uint32_t* offsets, uint32_t words,
                               uint32_t* rows) {
  uint64_t i = thread_index();
  if (i >= words) return;
  uint32_t bits = bitmap[i];
  uint32_t at = offsets[i];
  while (bits != 0u) {
    uint32_t b = static_cast<uint32_t>(__ffs(bits) - 1);
    rows[at++] = static_cast<uint32_t>(i) * 32u + b;
    bits &= bits - 1u;
  }
}

}  // namespace

cudaError_t bitmap_op(uint32_t* a, uint32_t* b, uint32_t words, uint32_t rows, uint32_t op,
                      cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  bitmap_op_kernel<<<blocks_for(words), kBlock, 0, s>>>(a, b, words, rows, op, b);
  return cudaGetLastError();
}

cudaError_t bitmap_count(const uint32_t* bitmap, uint32_t words, unsigned long long* total,
                         cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  count_kernel<<<blocks_for(words), kBlock, 0, s>>>(bitmap, words, total);
  return cudaGetLastError();
}

cudaError_t bitmap_offsets(const uint32_t* bitmap, uint32_t words, uint32_t* offsets,
                           cudaStream_t s) {
  uint32_t* counts = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  auto done = [&](cudaError_t e) {
    cudaError_t f1 = counts ? cudaFreeAsync(counts, s) : cudaSuccess;
    cudaError_t f2 = temp ? cudaFreeAsync(temp, s) : cudaSuccess;
    return e != cudaSuccess ? e : f1 != cudaSuccess ? f1 : f2;
  };
  uint32_t n = words + 1;
  if (cudaError_t e = cudaMallocAsync(reinterpret_cast<void**>(&counts), sizeof(uint32_t) * n, s);
      e != cudaSuccess)
    return done(e);
  popcount_kernel<<<blocks_for(n), kBlock, 0, s>>>(bitmap, words, counts);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return done(e);
  if (cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, n, s);
      e != cudaSuccess)
    return done(e);
  if (cudaError_t e = cudaMallocAsync(&temp, temp_bytes, s); e != cudaSuccess) return done(e);
  return done(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, n, s));
}

cudaError_t bitmap_scatter(const uint32_t* bitmap, const uint32_t* offsets, uint32_t words,
                           uint32_t* rows, cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  scatter_kernel<<<blocks_for(words), kBlock, 0, s>>>(bitmap, offsets, words, rows);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
