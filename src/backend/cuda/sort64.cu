#include "backend/cuda/sort_pairs.cuh"

namespace raydb::detail::cuda::kernels {

cudaError_t sort_pairs64(uint64_t* keys, uint32_t* rows, uint32_t n, cudaMemPool_t pool,
                         cudaStream_t s) {
  return sort_pairs(keys, rows, n, pool, s);
}

}  // namespace raydb::detail::cuda::kernels
