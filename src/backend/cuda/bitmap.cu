// Bitmap algebra, counting and compaction: the twins of shaders/scan/bitmap_ops.comp and
// bitmap_to_rows.comp.
#include <cub/device/device_scan.cuh>

#include "backend/cuda/grid.cuh"
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

// The op codes of scan_impl.hpp's BitmapOp.
constexpr uint32_t kAnd = 0, kOr = 1, kNot = 2, kPopcount = 3;

__device__ inline uint32_t valid_bits(uint32_t i, uint32_t rows) {
  uint32_t valid = rows - i * 32u;
  return valid >= 32u ? 0xFFFFFFFFu : ((1u << valid) - 1u);
}

// Each thread owns 4 consecutive words and moves them as one 16-byte access per bitmap, as
// bitmap_ops.comp (a 4-byte access per thread kept too few bytes in flight); the last thread's
// words may run past the end, so it goes word by word. Bitmaps start 16-byte aligned.
__global__ void bitmap_op_kernel(uint32_t* a, uint32_t* b, uint32_t words, uint32_t rows,
                                 uint32_t op) {
  uint64_t q = thread_index();
  uint64_t first = q * 4u;
  if (first >= words) return;
  if (words - first >= 4u) {
    uint4 x = reinterpret_cast<const uint4*>(a)[q];
    uint32_t f = static_cast<uint32_t>(first);
    if (op == kPopcount) {
      reinterpret_cast<uint4*>(b)[q] =
          make_uint4(__popc(x.x), __popc(x.y), __popc(x.z), __popc(x.w));
    } else if (op == kNot) {
      reinterpret_cast<uint4*>(a)[q] =
          make_uint4(~x.x & valid_bits(f, rows), ~x.y & valid_bits(f + 1, rows),
                     ~x.z & valid_bits(f + 2, rows), ~x.w & valid_bits(f + 3, rows));
    } else {
      uint4 y = reinterpret_cast<const uint4*>(b)[q];
      reinterpret_cast<uint4*>(a)[q] = op == kAnd
                                           ? make_uint4(x.x & y.x, x.y & y.y, x.z & y.z, x.w & y.w)
                                           : make_uint4(x.x | y.x, x.y | y.y, x.z | y.z, x.w | y.w);
    }
    return;
  }
  for (uint32_t i = static_cast<uint32_t>(first); i < words; ++i) {
    if (op == kAnd)
      a[i] &= b[i];
    else if (op == kOr)
      a[i] |= b[i];
    else if (op == kNot)
      a[i] = ~a[i] & valid_bits(i, rows);
    else
      b[i] = static_cast<uint32_t>(__popc(a[i]));
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
  bitmap_op_kernel<<<blocks_for((uint64_t{words} + 3) / 4), kBlock, 0, s>>>(a, b, words, rows, op);
  return cudaGetLastError();
}

cudaError_t bitmap_count(const uint32_t* bitmap, uint32_t words, unsigned long long* total,
                         cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  count_kernel<<<blocks_for(words), kBlock, 0, s>>>(bitmap, words, total);
  return cudaGetLastError();
}

cudaError_t bitmap_offsets(const uint32_t* bitmap, uint32_t words, uint32_t* offsets,
                           cudaMemPool_t pool, cudaStream_t s) {
  uint32_t* counts = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  auto done = [&](cudaError_t e) {
    cudaError_t f1 = counts ? cudaFreeAsync(counts, s) : cudaSuccess;
    cudaError_t f2 = temp ? cudaFreeAsync(temp, s) : cudaSuccess;
    return e != cudaSuccess ? e : f1 != cudaSuccess ? f1 : f2;
  };
  uint32_t n = words + 1;
  if (cudaError_t e =
          cudaMallocFromPoolAsync(reinterpret_cast<void**>(&counts), sizeof(uint32_t) * n, pool, s);
      e != cudaSuccess)
    return done(e);
  popcount_kernel<<<blocks_for(n), kBlock, 0, s>>>(bitmap, words, counts);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return done(e);
  if (cudaError_t e = cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, offsets, n, s);
      e != cudaSuccess)
    return done(e);
  if (cudaError_t e = cudaMallocFromPoolAsync(&temp, temp_bytes, pool, s); e != cudaSuccess)
    return done(e);
  return done(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, n, s));
}

cudaError_t bitmap_scatter(const uint32_t* bitmap, const uint32_t* offsets, uint32_t words,
                           uint32_t* rows, cudaStream_t s) {
  if (words == 0) return cudaSuccess;
  scatter_kernel<<<blocks_for(words), kBlock, 0, s>>>(bitmap, offsets, words, rows);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
