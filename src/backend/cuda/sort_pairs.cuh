// CUB's stable radix sort of (key, row id) pairs, instantiated once per key width in its own .cu
// file (each instantiation takes a while to compile).
#pragma once

#include <cub/device/device_radix_sort.cuh>

#include "backend/cuda/grid.cuh"
#include "backend/cuda/kernels.hpp"

namespace raydb::detail::cuda::kernels {

// Each .cu file gets its own copy: kernels are not linked across files (no -rdc).
static __global__ void iota_rows(uint32_t* rows, uint32_t n) {
  uint64_t i = thread_index();
  if (i < n) rows[i] = static_cast<uint32_t>(i);
}

template <class Key>
cudaError_t sort_pairs(Key* keys, uint32_t* rows, uint32_t n, cudaMemPool_t pool, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  Key* keys_alt = nullptr;
  uint32_t* rows_alt = nullptr;
  void* temp = nullptr;
  size_t temp_bytes = 0;
  // Release whatever was allocated, keeping the first error.
  auto done = [&](cudaError_t e) {
    cudaError_t f1 = keys_alt ? cudaFreeAsync(keys_alt, s) : cudaSuccess;
    cudaError_t f2 = rows_alt ? cudaFreeAsync(rows_alt, s) : cudaSuccess;
    cudaError_t f3 = temp ? cudaFreeAsync(temp, s) : cudaSuccess;
    return e != cudaSuccess ? e : f1 != cudaSuccess ? f1 : f2 != cudaSuccess ? f2 : f3;
  };
  iota_rows<<<blocks_for(n), kBlock, 0, s>>>(rows, n);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return done(e);
  if (cudaError_t e =
          cudaMallocFromPoolAsync(reinterpret_cast<void**>(&keys_alt), sizeof(Key) * n, pool, s);
      e != cudaSuccess)
    return done(e);
  if (cudaError_t e = cudaMallocFromPoolAsync(reinterpret_cast<void**>(&rows_alt),
                                              sizeof(uint32_t) * n, pool, s);
      e != cudaSuccess)
    return done(e);
  cub::DoubleBuffer<Key> k(keys, keys_alt);
  cub::DoubleBuffer<uint32_t> v(rows, rows_alt);
  constexpr int kBits = static_cast<int>(sizeof(Key) * 8);
  if (cudaError_t e = cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, k, v, n, 0, kBits, s);
      e != cudaSuccess)
    return done(e);
  if (cudaError_t e = cudaMallocFromPoolAsync(&temp, temp_bytes, pool, s); e != cudaSuccess)
    return done(e);
  if (cudaError_t e = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, n, 0, kBits, s);
      e != cudaSuccess)
    return done(e);
  // CUB leaves the result in whichever buffer its last pass wrote; ours must hold it.
  if (k.Current() != keys)
    if (cudaError_t e =
            cudaMemcpyAsync(keys, k.Current(), sizeof(Key) * n, cudaMemcpyDeviceToDevice, s);
        e != cudaSuccess)
      return done(e);
  if (v.Current() != rows)
    if (cudaError_t e =
            cudaMemcpyAsync(rows, v.Current(), sizeof(uint32_t) * n, cudaMemcpyDeviceToDevice, s);
        e != cudaSuccess)
      return done(e);
  return done(cudaSuccess);
}

}  // namespace raydb::detail::cuda::kernels
