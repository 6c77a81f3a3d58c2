// The generic CUDA kernels on shared buffers: argument checks, buffer mapping, error names.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "backend/cuda/kernels.hpp"
#include "backend/cuda/runtime.hpp"

namespace raydb::detail::cuda {

void need(const Buffer& b, uint64_t bytes, const char* what) {
  if (b.size() < bytes)
    throw Error(Errc::internal,
                fmt::format("{}: buffer of {} bytes, {} needed", what, b.size(), bytes));
}

uint64_t pool_reserved_bytes(VkContext& ctx) {
  uint64_t bytes = 0;
  check(cudaMemPoolGetAttribute(runtime(ctx).pool, cudaMemPoolAttrReservedMemCurrent, &bytes),
        "cudaMemPoolGetAttribute (reserved)");
  return bytes;
}

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
    check(kernels::sort_pairs64(ptr<uint64_t>(ctx, keys), ptr<uint32_t>(ctx, rows), count, rt.pool,
                                rt.stream),
          "cub::DeviceRadixSort::SortPairs (64-bit keys)");
  else
    check(kernels::sort_pairs32(ptr<uint32_t>(ctx, keys), ptr<uint32_t>(ctx, rows), count, rt.pool,
                                rt.stream),
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
  check(
      cudaMallocFromPoolAsync(reinterpret_cast<void**>(&total), sizeof *total, rt.pool, rt.stream),
      "cudaMallocFromPoolAsync");
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
  check(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&offsets), (uint64_t{words} + 1) * 4,
                                rt.pool, rt.stream),
        "cudaMallocFromPoolAsync");
  struct Free {  // stream-ordered, so it may be released before the kernels have run
    uint32_t* p;
    cudaStream_t s;
    ~Free() { cudaFreeAsync(p, s); }
  } free_offsets{offsets, rt.stream};
  const uint32_t* bits = ptr<uint32_t>(ctx, bitmap);
  check(kernels::bitmap_offsets(bits, words, offsets, rt.pool, rt.stream),
        "bitmap offsets (CUB scan)");
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

void upload(VkContext& ctx, const Buffer& dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  need(dst, bytes, "upload");
  Runtime& rt = runtime(ctx);
  check(cudaMemcpyAsync(device_ptr(ctx, dst), src, bytes, cudaMemcpyHostToDevice, rt.stream),
        "cudaMemcpyAsync (upload)");
  check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (upload)");
}

void set_timer_hold(VkContext& ctx, double microseconds) {
  runtime(ctx).timer_hold_ns = microseconds > 0 ? static_cast<uint64_t>(microseconds * 1e3) : 0;
}

uint64_t set_timer_flush(VkContext& ctx, bool on) {
  Runtime& rt = runtime(ctx);
  if (rt.flush_buffer) {
    check(cudaStreamSynchronize(rt.stream), "cudaStreamSynchronize (set_timer_flush)");
    check(cudaFree(rt.flush_buffer), "cudaFree (set_timer_flush)");
    rt.flush_buffer = nullptr;
    rt.flush_bytes = 0;
  }
  if (!on) return 0;
  const uint64_t bytes = 2 * rt.l2_bytes;
  check(cudaMalloc(&rt.flush_buffer, bytes), "cudaMalloc (set_timer_flush)");
  rt.flush_bytes = bytes;
  check(cudaMemsetAsync(rt.flush_buffer, 0, bytes, rt.stream), "cudaMemsetAsync (set_timer_flush)");
  return bytes;
}

}  // namespace raydb::detail::cuda
