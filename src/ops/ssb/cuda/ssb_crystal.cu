// The SSB baseline in the style of Crystal (Shanbhag et al., SIGMOD 2020): per query, small
// kernels build one perfect-hash table per joined dimension (slot = key - min key, SSB keys being
// dense), then one fused kernel reads lineorder in tiles, each thread a few rows, and filters,
// probes and aggregates them without leaving registers. The layouts are those of the Vulkan
// star-join kernel (ssb_star_join.comp); the results are the same.
#include "backend/cuda/grid.cuh"
#include "ops/ssb/cuda/ssb_kernels.hpp"

namespace raydb::detail::cuda::kernels {

namespace {

using ssb::detail::SsbCrystalDim;
using ssb::detail::SsbCrystalQuery;

constexpr uint32_t kNone = 0xFFFFFFFFu;
// Crystal's tile: 128 threads of 4 rows each, so a block moves 2 KiB per column in coalesced
// 512-byte rows (thread t's item i is row tile + i * 128 + t) and keeps 4 loads in flight.
constexpr uint32_t kThreads = 128, kItems = 4, kTile = kThreads * kItems;

__global__ void dim_build_kernel(const uint32_t* __restrict__ data,
                                 const uint32_t* __restrict__ masks, uint32_t* __restrict__ tables,
                                 SsbCrystalDim d) {
  uint64_t r = thread_index();
  if (r >= d.rows) return;
  for (uint32_t f = 0; f < d.filters; ++f) {
    uint32_t code = data[d.filter_codes[f] + r];
    if (((masks[d.filter_mask[f] + code / 32u] >> (code % 32u)) & 1u) == 0u) return;
  }
  uint32_t share = 0;
  for (uint32_t g = 0; g < d.groups; ++g) share += data[d.group_codes[g] + r] * d.group_stride[g];
  tables[d.table + (data[d.keys + r] - d.key_min)] = share;
}

// Loads column `col`'s rows of this thread's items that are still selected (Crystal's
// predicated block load: rows already filtered out cost no memory traffic).
__device__ inline void load_selected(const uint32_t* __restrict__ col, uint64_t tile,
                                     const bool (&sel)[kItems], uint32_t (&out)[kItems]) {
#pragma unroll
  for (uint32_t i = 0; i < kItems; ++i)
    if (sel[i]) out[i] = __ldg(col + tile + i * kThreads + threadIdx.x);
}

__global__ void __launch_bounds__(kThreads)
    probe_kernel(const uint32_t* __restrict__ cols, const uint32_t* __restrict__ tables,
                 unsigned long long* __restrict__ sums, uint32_t* __restrict__ counts,
                 SsbCrystalQuery q) {
  const uint64_t n = q.n;
  const uint64_t tile = uint64_t{blockIdx.x} * kTile;
  bool sel[kItems];
  uint32_t group[kItems], v[kItems] = {};
#pragma unroll
  for (uint32_t i = 0; i < kItems; ++i) {
    sel[i] = tile + i * kThreads + threadIdx.x < n;
    group[i] = 0;
  }
  // lineorder's own ranges first (Q1.x: the cheapest and most selective test).
  bool qty = q.qty_lo != 0u || q.qty_hi != kNone, disc = q.disc_lo != 0u || q.disc_hi != kNone;
  if (qty) {
    load_selected(cols + 4 * n, tile, sel, v);
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i) sel[i] = sel[i] && v[i] >= q.qty_lo && v[i] <= q.qty_hi;
  }
  uint32_t discount[kItems] = {};
  if (disc || q.aggregate == 0u) {
    load_selected(cols + 5 * n, tile, sel, discount);
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i)
      sel[i] = sel[i] && discount[i] >= q.disc_lo && discount[i] <= q.disc_hi;
  }
  // The joins: probe each joined dimension's table; a miss (filtered out, or no such key) drops
  // the row, a hit adds the dimension's share of the group slot.
#pragma unroll
  for (uint32_t d = 0; d < 4; ++d) {
    const SsbCrystalDim& dim = q.dim[d];
    if (dim.key_len == 0u) continue;
    load_selected(cols + d * n, tile, sel, v);
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i) {
      if (!sel[i]) continue;
      uint32_t slot = v[i] - dim.key_min;  // wraps past key_len below the minimum
      uint32_t share = slot < dim.key_len ? __ldg(tables + dim.table + slot) : kNone;
      sel[i] = share != kNone;
      group[i] += share;
    }
  }
  // The aggregate, 64-bit.
  long long value[kItems];
  if (q.aggregate == 0u) {
    load_selected(cols + 6 * n, tile, sel, v);
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i)
      value[i] = static_cast<long long>(v[i]) * static_cast<long long>(discount[i]);
  } else {
    load_selected(cols + 7 * n, tile, sel, v);
    uint32_t cost[kItems] = {};
    if (q.aggregate == 2u) load_selected(cols + 8 * n, tile, sel, cost);
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i)
      value[i] = static_cast<long long>(v[i]) -
                 (q.aggregate == 2u ? static_cast<long long>(cost[i]) : 0ll);
  }
  if (q.slots == 1u) {
    // One group (Q1.x): a warp sum, then one pair of atomics per warp (Crystal reduces per block).
    unsigned long long sum = 0;
    uint32_t count = 0;
#pragma unroll
    for (uint32_t i = 0; i < kItems; ++i)
      if (sel[i]) {
        sum += static_cast<unsigned long long>(value[i]);
        ++count;
      }
    for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, off);
    count = __reduce_add_sync(0xFFFFFFFFu, count);
    if ((threadIdx.x & 31u) == 0u && count) {
      atomicAdd(sums, sum);
      atomicAdd(counts, count);
    }
    return;
  }
#pragma unroll
  for (uint32_t i = 0; i < kItems; ++i)
    if (sel[i]) {
      atomicAdd(sums + group[i], static_cast<unsigned long long>(value[i]));
      atomicAdd(counts + group[i], 1u);
    }
}

}  // namespace

cudaError_t ssb_dim_build(const uint32_t* dim_data, const uint32_t* masks, uint32_t* tables,
                          const SsbCrystalDim& d, cudaStream_t s) {
  if (d.rows == 0 || d.key_len == 0) return cudaSuccess;
  dim_build_kernel<<<blocks_for(d.rows), kBlock, 0, s>>>(dim_data, masks, tables, d);
  return cudaGetLastError();
}

cudaError_t ssb_probe(const uint32_t* columns, const uint32_t* tables, unsigned long long* sums,
                      uint32_t* counts, const SsbCrystalQuery& q, cudaStream_t s) {
  if (q.n == 0) return cudaSuccess;
  unsigned blocks = static_cast<unsigned>((uint64_t{q.n} + kTile - 1) / kTile);
  probe_kernel<<<blocks, kThreads, 0, s>>>(columns, tables, sums, counts, q);
  return cudaGetLastError();
}

}  // namespace raydb::detail::cuda::kernels
