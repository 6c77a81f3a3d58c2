// What a device-to-device copy reaches at the sizes of raydb's short passes (bench/gpu/README.md).
// The passes are held to 0.85 of the copy ceiling, the bandwidth of a 1 GiB copy; a bitmap NOT at
// 1e8 rows moves 25 MB and takes 10 us. This probe asks what a copy of those same bytes takes:
// cudaMemcpyAsync and a copy kernel of the passes' shape (16 bytes a thread, blocks of 256 that
// load, store and exit), and the same kernel writing the complement (a NOT).
//
// Each size is timed with CUDA events, median of 50 after 3 warm-ups, with L2 warm (the source
// left there by the copy before) and cold (2x the L2 read from another buffer before each timed
// copy, as `raydb bench dpbis --cuda-flush-l2` does). Every copy's destination is checked
// (MISMATCH, exit 1).
//
// Built here with the line in bench/gpu/README.md, run on the GPU machine (carry the binary):
// `copy_size_probe [GB/s]` gives the fractions of that ceiling, by default of this run's 1 GiB
// cudaMemcpyAsync.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "probe_util.hpp"

namespace {

const char* kName = "copy_size_probe";

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) probe::fail(kName, std::string(what) + ": " + cudaGetErrorString(e));
}

template <bool Invert>
__global__ void copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out, size_t n) {
  const size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 v = in[i];
  if (Invert) v = make_uint4(~v.x, ~v.y, ~v.z, ~v.w);
  out[i] = v;
}

enum class Op { memcpy_async, copy_kernel, not_kernel };
const char* op_name(Op op) {
  return op == Op::memcpy_async  ? "cudaMemcpyAsync"
         : op == Op::copy_kernel ? "copy kernel"
                                 : "NOT kernel";
}

struct Buffers {
  uint4 *src = nullptr, *dst = nullptr, *flush = nullptr;
  unsigned* sink = nullptr;
  size_t flush_words = 0;
};

void run(Op op, const Buffers& b, size_t bytes, cudaStream_t s) {
  const size_t words = bytes / 16;
  const unsigned blocks = static_cast<unsigned>((words + 255) / 256);
  if (op == Op::memcpy_async)
    check(cudaMemcpyAsync(b.dst, b.src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
  else if (op == Op::copy_kernel)
    copy_kernel<false><<<blocks, 256, 0, s>>>(b.src, b.dst, words);
  else
    copy_kernel<true><<<blocks, 256, 0, s>>>(b.src, b.dst, words);
  check(cudaGetLastError(), "launch");
}

// Median ms of one op over `bytes` (read and written each).
double time_op(Op op, const Buffers& b, size_t bytes, bool cold, cudaStream_t s) {
  cudaEvent_t t0, t1;
  check(cudaEventCreate(&t0), "cudaEventCreate");
  check(cudaEventCreate(&t1), "cudaEventCreate");
  std::vector<double> ms;
  for (int rep = 0; rep < 53; ++rep) {
    if (cold) probe::read_kernel<<<1024, 256, 0, s>>>(b.flush, b.flush_words, b.sink);
    check(cudaEventRecord(t0, s), "cudaEventRecord");
    run(op, b, bytes, s);
    check(cudaEventRecord(t1, s), "cudaEventRecord");
    check(cudaEventSynchronize(t1), "cudaEventSynchronize");
    float m = 0;
    check(cudaEventElapsedTime(&m, t0, t1), "cudaEventElapsedTime");
    if (rep >= 3) ms.push_back(m);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return probe::median(ms);
}

// Whether dst holds src (or its complement) in its first `bytes`.
bool verify(Op op, const Buffers& b, size_t bytes) {
  std::vector<uint32_t> src(bytes / 4), dst(bytes / 4);
  check(cudaMemcpy(src.data(), b.src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(dst.data(), b.dst, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  for (size_t i = 0; i < src.size(); ++i)
    if (dst[i] != (op == Op::not_kernel ? ~src[i] : src[i])) return false;
  return true;
}

__global__ void fill_kernel(uint4* p, size_t n) {
  const size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) {
    const unsigned x = static_cast<unsigned>(i * 2654435761u);
    p[i] = make_uint4(x, x ^ 0x5bd1e995u, x + 1, ~x);
  }
}

}  // namespace

int main(int argc, char** argv) {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("%s, %d SMs, L2 %d MiB, CUDA driver %d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, driver);

  const size_t kMax = size_t{1} << 30;
  Buffers b;
  b.flush_words = 2 * static_cast<size_t>(prop.l2CacheSize) / 16;
  check(cudaMalloc(&b.src, kMax), "cudaMalloc");
  check(cudaMalloc(&b.dst, kMax), "cudaMalloc");
  check(cudaMalloc(&b.flush, b.flush_words * 16), "cudaMalloc");
  check(cudaMalloc(&b.sink, 4), "cudaMalloc");
  check(cudaMemset(b.flush, 0, b.flush_words * 16), "cudaMemset");
  fill_kernel<<<static_cast<unsigned>(kMax / 16 / 256), 256>>>(b.src, kMax / 16);
  check(cudaDeviceSynchronize(), "fill");
  cudaStream_t s;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");

  const double big_ms = time_op(Op::memcpy_async, b, kMax, false, s);
  const double own_ceiling = 2.0 * kMax / (big_ms * 1e-3) / 1e9;
  const double ceiling = argc > 1 ? std::stod(argv[1]) : own_ceiling;
  std::printf(
      "1 GiB cudaMemcpyAsync: %.4f ms, %.0f GB/s (read + write); fractions below are of "
      "%.0f GB/s\n\n",
      big_ms, own_ceiling, ceiling);
  std::printf("%-16s %12s %8s %10s %9s %10s %9s\n", "op", "bytes/side", "moved MB", "warm ms",
              "fraction", "cold ms", "fraction");

  // 1e8 rows: a bitmap (12.5 MB), the sieve's and DP-BIS's bytes at 1e8 x 1 (about 21 and 58 MB
  // a side), a 1e8-row column (400 MB); 1e9 rows: a bitmap (125 MB).
  for (size_t bytes : {size_t{12500000}, size_t{21000000}, size_t{57800000}, size_t{125000000},
                       size_t{400000000}}) {
    bytes = bytes / 16 * 16;
    for (Op op : {Op::memcpy_async, Op::copy_kernel, Op::not_kernel}) {
      const double warm = time_op(op, b, bytes, false, s);
      if (!verify(op, b, bytes)) {
        std::printf("MISMATCH: %s of %zu bytes\n", op_name(op), bytes);
        return 1;
      }
      const double cold = time_op(op, b, bytes, true, s);
      const double moved = 2.0 * bytes;
      std::printf("%-16s %12zu %8.1f %10.4f %9.3f %10.4f %9.3f\n", op_name(op), bytes, moved / 1e6,
                  warm, moved / (warm * 1e-3) / 1e9 / ceiling, cold,
                  moved / (cold * 1e-3) / 1e9 / ceiling);
    }
  }
  return 0;
}
