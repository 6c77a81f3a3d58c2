// The Crystal-style SSB baseline on shared buffers (CUDA builds): scratch, timing, error names.
#include "ops/ssb/cuda/ssb_cuda.hpp"

#include <algorithm>

#include "backend/cuda/runtime.hpp"
#include "ops/ssb/cuda/ssb_kernels.hpp"

namespace raydb::detail::cuda {

SsbCrystalResult ssb_crystal(VkContext& ctx, const Buffer& columns, const Buffer& dim_data,
                             const std::vector<uint32_t>& masks,
                             const ssb::detail::SsbCrystalQuery& q) {
  if (q.slots == 0) throw Error(Errc::internal, "ssb_crystal: a query has at least one slot");
  if (masks.size() < q.mask_words) throw Error(Errc::internal, "ssb_crystal: masks too short");
  need(columns, uint64_t{q.n} * 9 * 4, "lineorder columns");
  Runtime& rt = runtime(ctx);
  const uint32_t* cols = ptr<uint32_t>(ctx, columns);
  const uint32_t* data = ptr<uint32_t>(ctx, dim_data);
  // The per-query scratch: stream-ordered, released after the work that uses it.
  struct Scratch {
    cudaStream_t s;
    cudaMemPool_t pool;
    std::vector<void*> p;
    ~Scratch() {
      for (void* x : p) cudaFreeAsync(x, s);
    }
    void* get(uint64_t bytes) {
      void* x = nullptr;
      check(cudaMallocFromPoolAsync(&x, std::max<uint64_t>(bytes, 4), pool, s),
            "cudaMallocFromPoolAsync");
      p.push_back(x);
      return x;
    }
  } scratch{rt.stream, rt.pool, {}};
  auto* tables = static_cast<uint32_t*>(scratch.get(uint64_t{q.table_words} * 4));
  auto* mask = static_cast<uint32_t*>(scratch.get(uint64_t{q.mask_words} * 4));
  auto* sums = static_cast<unsigned long long*>(scratch.get(uint64_t{q.slots} * 8));
  auto* counts = static_cast<uint32_t*>(scratch.get(uint64_t{q.slots} * 4));
  if (q.mask_words)
    check(cudaMemcpyAsync(mask, masks.data(), uint64_t{q.mask_words} * 4, cudaMemcpyHostToDevice,
                          rt.stream),
          "cudaMemcpyAsync (filter masks)");
  check(cudaMemsetAsync(tables, 0xFF, uint64_t{q.table_words} * 4, rt.stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(sums, 0, uint64_t{q.slots} * 8, rt.stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(counts, 0, uint64_t{q.slots} * 4, rt.stream), "cudaMemsetAsync");
  Timer timer(ctx, 3);
  uint32_t t0 = timer.mark();
  for (const auto& d : q.dim)
    check(kernels::ssb_dim_build(data, mask, tables, d, rt.stream), "SSB dimension build kernel");
  uint32_t t1 = timer.mark();
  check(kernels::ssb_probe(cols, tables, sums, counts, q, rt.stream), "SSB probe kernel");
  uint32_t t2 = timer.mark();
  SsbCrystalResult r;
  r.sums.resize(q.slots);
  r.counts.resize(q.slots);
  check(cudaMemcpyAsync(r.sums.data(), sums, uint64_t{q.slots} * 8, cudaMemcpyDeviceToHost,
                        rt.stream),
        "cudaMemcpyAsync (sums)");
  check(cudaMemcpyAsync(r.counts.data(), counts, uint64_t{q.slots} * 4, cudaMemcpyDeviceToHost,
                        rt.stream),
        "cudaMemcpyAsync (counts)");
  check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (SSB query)");
  r.build_ms = timer.ms(t0, t1);
  r.probe_ms = timer.ms(t1, t2);
  return r;
}

}  // namespace raydb::detail::cuda
