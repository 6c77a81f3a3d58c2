// What the standalone probes of bench/gpu share (each is built alone with one compiler line; see
// its header): failing with a message, a wall clock, medians and, in CUDA, an L2 flush.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace probe {

// Prints "<name>: <what>" and exits with status 2 (the probes' "could not measure").
[[noreturn]] inline void fail(const char* name, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", name, what.c_str());
  std::exit(2);
}

inline double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The upper median (the middle of an odd count).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

#ifdef __CUDACC__
// Reads `n` 16-byte words and keeps a sum where the compiler cannot drop it: evicts what L2 held,
// for the CUDA probes' runs with L2 cold (as `raydb bench dpbis --cuda-flush-l2`).
static __global__ void read_kernel(const uint4* __restrict__ in, size_t n, unsigned* sink) {
  unsigned s = 0;
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    s += in[i].x ^ in[i].w;
  if (s == 0x9e3779b9u) *sink = s;
}
#endif

}  // namespace probe
