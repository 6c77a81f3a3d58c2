// Does the sieve's second round trip hold its short passes back? (bench/gpu/README.md)
//
// The sieve's `in_select` (src/ops/dpbis/cuda/dpbis.cu) loads a tile's vectors and its boundary
// bin's offset, and only then the bin's values, from where the offset says. At 1e8 rows it reached
// 0.74-0.78 of the copy ceiling where a copy of its bytes reaches 0.82-1.01. If the values sat at
// an address known without a load (a fixed number of slots per tile and bin), they could be loaded
// with the vectors, in one round trip. This probe measures what that would buy before any layout
// is changed, on synthetic sieve data of the pass's shape:
// - 4096-row tiles, one warp each, a lane 4 bitmap words (16-byte loads and store);
// - codes uniform in [0, 128): vector A is "code < 64", B "code < 65", so the boundary bin (64)
//   holds 32 rows a tile on average, and a row is selected when A is set, or when its code is 64
//   and its value lies in [lo, hi].
//
// Shapes, all with evict-first loads as the pass uses at 1e8 rows:
// - `no values`: A alone, the boundary bin's rows left clear (the bytes without the refine);
// - `two trips`: values clustered by tile at a loaded offset, each lane loading its own rows'
//   values after the warp's prefix sum (raydb's pass before the warp-loaded runs);
// - `two trips, warp`: the same values and offset, the warp loading the tile's run together
//   (lane l takes values l and 32 + l) and sharing the compares by a ballot;
// - `one trip, slots`: each tile's values in 64 fixed slots, loaded by the warp with the vectors;
// - `raydb kernel`: raydb's own `sieve_select_exact` (this file includes its source) on the same
//   data, laid out as its sieve index is (V(1) = A, V(2) = B, bin 1 refined).
// Every bitmap but the first is checked against the CPU (MISMATCH, exit 1). Timed with CUDA
// events, median of 50 after 3 warm-ups, L2 warm and cold (2x L2 read before each, as
// `raydb bench dpbis --cuda-flush-l2` does). `round_trip_probe [GB/s] [rows]` gives fractions of
// that ceiling (default 3032, the H100's) at that many rows (default 1e8), counting the bytes as
// raydb does: vectors, bitmap, 4 bytes per boundary row and 4 per tile.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "ops/dpbis/cuda/dpbis.cu"
#include "probe_util.hpp"

namespace {

const char* kName = "round_trip_probe";
constexpr uint32_t kSlots = 64;  // per tile; a uniform tile holds 32 +- 5.6 boundary rows
constexpr uint32_t kTileRows = 4096;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) probe::fail(kName, std::string(what) + ": " + cudaGetErrorString(e));
}

enum class Shape { no_values, two_trips, two_trips_warp, one_trip_slots, raydb };
const char* shape_name(Shape s) {
  return s == Shape::no_values        ? "no values"
         : s == Shape::two_trips      ? "two trips"
         : s == Shape::two_trips_warp ? "two trips, warp"
         : s == Shape::raydb          ? "raydb kernel"
                                      : "one trip, slots";
}

struct Data {
  const uint32_t *a, *b, *clustered, *offsets, *slots;
  uint32_t* bitmap;
  uint32_t words, lo, hi;
  // raydb's layout: vectors V(1), V(2) (A, B) at a stride of `words`; offsets of bins 0 and 1.
  const uint32_t *vectors, *bin_offsets;
  uint32_t rows, tiles;
};

// The lane's boundary rows, in order, take the bits of `pass` from `rank` on.
__device__ inline void deposit(uint32_t (&bits)[4], uint32_t (&edge)[4], uint64_t pass) {
#pragma unroll
  for (int w = 0; w < 4; ++w)
    for (uint32_t m = edge[w]; m != 0u; m &= m - 1u) {
      bits[w] |= static_cast<uint32_t>(pass & 1u) << (__ffs(m) - 1);
      pass >>= 1;
    }
}

template <Shape kShape>
__global__ void __launch_bounds__(64) sieve_kernel(Data d) {
  const uint32_t q = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u, tile = q / 32u;
  const bool active = q * 4u < d.words;  // words are whole quads here
  uint32_t offset = 0u;
  uint32_t s0 = 0u, s1 = 0u;
  uint4 va = make_uint4(0, 0, 0, 0), vb = va;
  if (active) {
    if (kShape == Shape::two_trips || kShape == Shape::two_trips_warp)
      offset = __ldg(d.offsets + tile);
    if (kShape == Shape::one_trip_slots) {
      s0 = __ldcs(d.slots + tile * kSlots + lane);
      s1 = __ldcs(d.slots + tile * kSlots + 32u + lane);
    }
    va = __ldcs(reinterpret_cast<const uint4*>(d.a) + q);
    if (kShape != Shape::no_values) vb = __ldcs(reinterpret_cast<const uint4*>(d.b) + q);
  }
  uint32_t bits[4] = {va.x, va.y, va.z, va.w};
  uint32_t edge[4] = {vb.x & ~va.x, vb.y & ~va.y, vb.z & ~va.z, vb.w & ~va.w};
  if (kShape != Shape::no_values) {
    const uint32_t count = __popc(edge[0]) + __popc(edge[1]) + __popc(edge[2]) + __popc(edge[3]);
    uint32_t sum = count;
#pragma unroll
    for (uint32_t k = 1u; k < 32u; k <<= 1u) {
      const uint32_t up = __shfl_up_sync(0xFFFFFFFFu, sum, k);
      if (lane >= k) sum += up;
    }
    const uint32_t rank = sum - count, total = __shfl_sync(0xFFFFFFFFu, sum, 31);
    uint64_t pass = 0u;
    if (kShape == Shape::two_trips) {
      // Four loads issued before any compare, as raydb's per-lane refine_run did.
      for (uint32_t k = 0u; k < count; k += 4u) {
        uint32_t v[4];
#pragma unroll
        for (uint32_t j = 0u; j < 4u; ++j)
          v[j] = k + j < count ? __ldcs(d.clustered + offset + rank + k + j) : 0u;
#pragma unroll
        for (uint32_t j = 0u; j < 4u; ++j)
          pass |= uint64_t{k + j < count && v[j] >= d.lo && v[j] <= d.hi} << (k + j);
      }
    } else {
      if (kShape == Shape::two_trips_warp) {
        s0 = lane < total ? __ldcs(d.clustered + offset + lane) : 0u;
        s1 = 32u + lane < total ? __ldcs(d.clustered + offset + 32u + lane) : 0u;
      }
      const uint64_t all =
          __ballot_sync(0xFFFFFFFFu, lane < total && s0 >= d.lo && s0 <= d.hi) |
          uint64_t{__ballot_sync(0xFFFFFFFFu, 32u + lane < total && s1 >= d.lo && s1 <= d.hi)}
              << 32;
      pass = rank < 64u ? all >> rank : 0u;
    }
    deposit(bits, edge, pass);
  }
  if (active)
    reinterpret_cast<uint4*>(d.bitmap)[q] = make_uint4(bits[0], bits[1], bits[2], bits[3]);
}

void launch(Shape s, const Data& d, cudaStream_t st) {
  const unsigned blocks = (d.words / 4u + 63u) / 64u;
  if (s == Shape::no_values) sieve_kernel<Shape::no_values><<<blocks, 64, 0, st>>>(d);
  if (s == Shape::two_trips) sieve_kernel<Shape::two_trips><<<blocks, 64, 0, st>>>(d);
  if (s == Shape::two_trips_warp) sieve_kernel<Shape::two_trips_warp><<<blocks, 64, 0, st>>>(d);
  if (s == Shape::one_trip_slots) sieve_kernel<Shape::one_trip_slots><<<blocks, 64, 0, st>>>(d);
  if (s == Shape::raydb)
    check(raydb::detail::cuda::kernels::sieve_select_exact(d.vectors, d.clustered, d.bin_offsets,
                                                           d.bitmap, d.rows, d.words, -1, 1, 128,
                                                           d.words, d.lo, d.hi, d.tiles, true, st),
          "raydb kernel");
  check(cudaGetLastError(), "launch");
}

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  return x ^ (x >> 16);
}

template <typename T>
T* upload(const std::vector<T>& v) {
  T* p = nullptr;
  check(cudaMalloc(&p, v.size() * sizeof(T) + 16), "cudaMalloc");
  check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const double ceiling = argc > 1 ? std::stod(argv[1]) : 3032.0;
  const uint64_t want = argc > 2 ? static_cast<uint64_t>(std::stod(argv[2])) : 100000000u;
  const uint32_t rows = static_cast<uint32_t>((want + kTileRows - 1) / kTileRows * kTileRows);
  const uint32_t words = rows / 32u, tiles = rows / kTileRows;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("%s, L2 %d MiB; %u rows (%u tiles), fractions of %.0f GB/s\n", prop.name,
              prop.l2CacheSize >> 20, rows, tiles, ceiling);

  const uint32_t lo = 1u << 30, hi = 3u << 30;  // about half the boundary rows pass
  std::vector<uint32_t> a(words), b(words), clustered, offsets(tiles),
      slots(size_t{tiles} * kSlots);
  std::vector<uint32_t> expect(words);
  uint32_t most = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    offsets[t] = static_cast<uint32_t>(clustered.size());
    uint32_t n = 0;
    for (uint32_t r = t * kTileRows; r < (t + 1) * kTileRows; ++r) {
      const uint32_t code = mix(r) & 127u, bit = 1u << (r & 31u), w = r / 32u;
      if (code < 64u) a[w] |= bit, expect[w] |= bit;
      if (code < 65u) b[w] |= bit;
      if (code != 64u) continue;
      const uint32_t v = mix(r ^ 0xa5a5a5a5u);
      if (v >= lo && v <= hi) expect[w] |= bit;
      clustered.push_back(v);
      if (n < kSlots) slots[size_t{t} * kSlots + n] = v;
      ++n;
    }
    most = n > most ? n : most;
  }
  if (most > kSlots) probe::fail(kName, "a tile holds more boundary rows than slots");
  std::printf("boundary rows %zu, at most %u a tile\n\n", clustered.size(), most);

  std::vector<uint32_t> vectors(a), bin_offsets(offsets);
  vectors.insert(vectors.end(), b.begin(), b.end());
  bin_offsets.insert(bin_offsets.begin(), offsets.begin(), offsets.end());
  Data d{
      upload(a), upload(b), upload(clustered), upload(offsets),     upload(slots), nullptr, words,
      lo,        hi,        upload(vectors),   upload(bin_offsets), rows,          tiles};
  check(cudaMalloc(&d.bitmap, size_t{words} * 4), "cudaMalloc");
  const size_t flush_words = 2 * static_cast<size_t>(prop.l2CacheSize) / 16;
  uint4* flush = nullptr;
  unsigned* sink = nullptr;
  check(cudaMalloc(&flush, flush_words * 16), "cudaMalloc");
  check(cudaMemset(flush, 0, flush_words * 16), "cudaMemset");
  check(cudaMalloc(&sink, 4), "cudaMalloc");
  cudaStream_t st;
  check(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaEvent_t t0, t1;
  check(cudaEventCreate(&t0), "cudaEventCreate");
  check(cudaEventCreate(&t1), "cudaEventCreate");

  const double bytes = 2.0 * words * 4 + words * 4.0 + clustered.size() * 4.0 + tiles * 4.0;
  std::printf("%-18s %10s %9s %10s %9s\n", "shape", "warm ms", "fraction", "cold ms", "fraction");
  for (int round = 0; round < 2; ++round)
    for (Shape s : {Shape::no_values, Shape::two_trips, Shape::two_trips_warp,
                    Shape::one_trip_slots, Shape::raydb}) {
      double ms[2];
      for (int cold = 0; cold < 2; ++cold) {
        std::vector<double> times;
        for (int rep = 0; rep < 53; ++rep) {
          if (cold) probe::read_kernel<<<1024, 256, 0, st>>>(flush, flush_words, sink);
          check(cudaEventRecord(t0, st), "cudaEventRecord");
          launch(s, d, st);
          check(cudaEventRecord(t1, st), "cudaEventRecord");
          check(cudaEventSynchronize(t1), "cudaEventSynchronize");
          float m = 0;
          check(cudaEventElapsedTime(&m, t0, t1), "cudaEventElapsedTime");
          if (rep >= 3) times.push_back(m);
        }
        ms[cold] = probe::median(times);
      }
      if (s != Shape::no_values) {
        std::vector<uint32_t> got(words);
        check(cudaMemcpy(got.data(), d.bitmap, size_t{words} * 4, cudaMemcpyDeviceToHost),
              "cudaMemcpy");
        if (got != expect) {
          std::printf("MISMATCH: %s\n", shape_name(s));
          return 1;
        }
      }
      const double b_s = s == Shape::no_values ? 2.0 * words * 4 : bytes;
      std::printf("%-18s %10.4f %9.3f %10.4f %9.3f\n", shape_name(s), ms[0],
                  b_s / (ms[0] * 1e-3) / 1e9 / ceiling, ms[1],
                  b_s / (ms[1] * 1e-3) / 1e9 / ceiling);
    }
  return 0;
}
