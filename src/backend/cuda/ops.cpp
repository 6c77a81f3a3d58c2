// The CUDA kernels on shared buffers: argument checks, buffer mapping, error names.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "backend/cuda/kernels.hpp"
#include "backend/cuda/runtime.hpp"
#include "ops/dpbis/dpbis_params.hpp"

namespace raydb::detail::cuda {

namespace {

uint32_t words_of(uint64_t rows) {
  return static_cast<uint32_t>((rows + 31) / 32);
}

void need(const Buffer& b, uint64_t bytes, const char* what) {
  if (b.size() < bytes)
    throw Error(Errc::internal,
                fmt::format("{}: buffer of {} bytes, {} needed", what, b.size(), bytes));
}

// A diagnostic, set by RAYDB_CUDA_OWN_MEMORY=1: the DP-BIS selection pass runs over cudaMalloc'd
// copies of its codes and bitmap instead of the Vulkan memory CUDA imported, so that a gap between
// the CUDA pass and its Vulkan twin can be told apart from how the imported memory is mapped
// (docs/baselines.md). The copies are made once per buffer, outside the timed stream work of later
// calls; the bitmap written is the copy, so the query's result is not valid (the bench marks the
// pass alone as a diagnostic anyway).
bool own_memory() {
  static const bool on = [] {
    const char* v = std::getenv("RAYDB_CUDA_OWN_MEMORY");
    return v && std::string_view(v) == "1";
  }();
  return on;
}

template <class T>
T* own_copy(VkContext& ctx, const Buffer& b) {
  static std::unordered_map<uint64_t, std::pair<uint64_t, void*>> copies;
  auto& slot = copies[b.address()];
  if (slot.second == nullptr || slot.first != b.size()) {
    if (slot.second) cudaFree(slot.second);
    check(cudaMalloc(&slot.second, b.size()), "cudaMalloc (RAYDB_CUDA_OWN_MEMORY copy)");
    check(cudaMemcpy(slot.second, device_ptr(ctx, b), b.size(), cudaMemcpyDeviceToDevice),
          "cudaMemcpy (RAYDB_CUDA_OWN_MEMORY copy)");
    slot.first = b.size();
  }
  return static_cast<T*>(slot.second);
}

}  // namespace

void fill_zero(VkContext& ctx, const Buffer& buffer) {
  check(cudaMemsetAsync(device_ptr(ctx, buffer), 0, buffer.size(), runtime(ctx).stream),
        "cudaMemsetAsync");
}

void sort_pairs(VkContext& ctx, const Buffer& keys, const Buffer& rows, uint64_t n, bool key64) {
  if (n == 0) return;
  if (n > 0xFFFFFFFFull) throw Error(Errc::limit_exceeded, "the sort takes at most 2^32 - 1 keys");
  need(keys, n * (key64 ? 8 : 4), "sort keys");
  need(rows, n * 4, "sort rows");
  Runtime& rt = runtime(ctx);
  uint32_t count = static_cast<uint32_t>(n);
  if (key64)
    check(
        kernels::sort_pairs64(ptr<uint64_t>(ctx, keys), ptr<uint32_t>(ctx, rows), count, rt.stream),
        "cub::DeviceRadixSort::SortPairs (64-bit keys)");
  else
    check(
        kernels::sort_pairs32(ptr<uint32_t>(ctx, keys), ptr<uint32_t>(ctx, rows), count, rt.stream),
        "cub::DeviceRadixSort::SortPairs (32-bit keys)");
}

void bitmap_op(VkContext& ctx, const Buffer& a, const Buffer* b, uint64_t rows, uint32_t op) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  need(a, uint64_t{words} * 4, "bitmap");
  constexpr uint32_t kNot = 2;
  if (op != kNot && !b) throw Error(Errc::internal, "bitmap_op needs a second buffer");
  if (b) need(*b, uint64_t{words} * 4, "second bitmap");
  Runtime& rt = runtime(ctx);
  check(kernels::bitmap_op(ptr<uint32_t>(ctx, a), b ? ptr<uint32_t>(ctx, *b) : nullptr, words,
                           static_cast<uint32_t>(rows), op, rt.stream),
        "bitmap_op kernel");
}

uint64_t bitmap_count(VkContext& ctx, const Buffer& bitmap, uint64_t rows) {
  uint32_t words = words_of(rows);
  if (words == 0) return 0;
  need(bitmap, uint64_t{words} * 4, "bitmap");
  Runtime& rt = runtime(ctx);
  unsigned long long* total = nullptr;
  check(cudaMallocAsync(reinterpret_cast<void**>(&total), sizeof *total, rt.stream),
        "cudaMallocAsync");
  unsigned long long host = 0;
  cudaError_t e = cudaMemsetAsync(total, 0, sizeof *total, rt.stream);
  if (e == cudaSuccess)
    e = kernels::bitmap_count(ptr<uint32_t>(ctx, bitmap), words, total, rt.stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, rt.stream);
  cudaFreeAsync(total, rt.stream);
  check(e, "bitmap count kernel");
  check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (bitmap count)");
  return host;
}

uint64_t bitmap_to_rows(VkContext& ctx, const Buffer& bitmap, uint64_t rows, const Buffer& out) {
  uint32_t words = words_of(rows);
  if (words == 0) return 0;
  need(bitmap, uint64_t{words} * 4, "bitmap");
  Runtime& rt = runtime(ctx);
  uint32_t* offsets = nullptr;
  check(cudaMallocAsync(reinterpret_cast<void**>(&offsets), (uint64_t{words} + 1) * 4, rt.stream),
        "cudaMallocAsync");
  struct Free {  // stream-ordered, so it may be released before the kernels have run
    uint32_t* p;
    cudaStream_t s;
    ~Free() { cudaFreeAsync(p, s); }
  } free_offsets{offsets, rt.stream};
  const uint32_t* bits = ptr<uint32_t>(ctx, bitmap);
  check(kernels::bitmap_offsets(bits, words, offsets, rt.stream), "bitmap offsets (CUB scan)");
  uint32_t total = 0;
  check(cudaMemcpyAsync(&total, offsets + words, 4, cudaMemcpyDeviceToHost, rt.stream),
        "cudaMemcpyAsync (row count)");
  check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (row count)");
  if (uint64_t{total} * 4 > out.size())
    throw Error(Errc::output_too_small,
                fmt::format("{} row ids do not fit in {} bytes", total, out.size()));
  if (total)
    check(kernels::bitmap_scatter(bits, offsets, words, ptr<uint32_t>(ctx, out), rt.stream),
          "bitmap scatter kernel");
  return total;
}

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
  bool own = own_memory();
  check(kernels::codes_select(own ? own_copy<uint32_t>(ctx, codes) : ptr<uint32_t>(ctx, codes),
                              own ? own_copy<uint32_t>(ctx, bitmap) : ptr<uint32_t>(ctx, bitmap),
                              static_cast<uint32_t>(rows), b_lo, b_hi, runtime(ctx).stream),
        "codes select kernel");
}

void codes_select_exact(VkContext& ctx, const Buffer& codes, const Buffer& values,
                        const Buffer& bitmap, uint64_t rows, int32_t b_lo, int32_t b_hi,
                        uint32_t lo, uint32_t hi) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  need(codes, uint64_t{words} * 32, "codes");
  need(values, rows * 4, "row-ordered values");
  need(bitmap, uint64_t{words} * 4, "bitmap");
  check(kernels::codes_select_exact(ptr<uint32_t>(ctx, codes), ptr<uint32_t>(ctx, values),
                                    ptr<uint32_t>(ctx, bitmap), static_cast<uint32_t>(rows), b_lo,
                                    b_hi, lo, hi, runtime(ctx).stream),
        "codes select (in_select) kernel");
}

void sieve_select_exact(VkContext& ctx, const Buffer& vectors, const Buffer& values,
                        const Buffer& bitmap, uint64_t rows, int32_t b_lo, int32_t b_hi,
                        uint32_t bins, uint32_t lo, uint32_t hi) {
  uint32_t words = words_of(rows);
  if (words == 0) return;
  need(values, rows * 4, "row-ordered values");
  need(bitmap, uint64_t{words} * 4, "bitmap");
  uint64_t stride = sieve_vector_stride(words);
  need(vectors, uint64_t{bins - 1} * stride * 4, "sieve vectors");
  check(kernels::sieve_select_exact(ptr<uint32_t>(ctx, vectors), ptr<uint32_t>(ctx, values),
                                    ptr<uint32_t>(ctx, bitmap), static_cast<uint32_t>(rows), words,
                                    b_lo, b_hi, bins, static_cast<uint32_t>(stride), lo, hi,
                                    runtime(ctx).stream),
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

void upload(VkContext& ctx, const Buffer& dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  need(dst, bytes, "upload");
  Runtime& rt = runtime(ctx);
  check(cudaMemcpyAsync(device_ptr(ctx, dst), src, bytes, cudaMemcpyHostToDevice, rt.stream),
        "cudaMemcpyAsync (upload)");
  check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (upload)");
}

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
    std::vector<void*> p;
    ~Scratch() {
      for (void* x : p) cudaFreeAsync(x, s);
    }
    void* get(uint64_t bytes) {
      void* x = nullptr;
      check(cudaMallocAsync(&x, std::max<uint64_t>(bytes, 4), s), "cudaMallocAsync");
      p.push_back(x);
      return x;
    }
  } scratch{rt.stream, {}};
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

void set_timer_hold(VkContext& ctx, double microseconds) {
  runtime(ctx).timer_hold_ns = microseconds > 0 ? static_cast<uint64_t>(microseconds * 1e3) : 0;
}

}  // namespace raydb::detail::cuda
