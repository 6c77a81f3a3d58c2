// The host's copy bandwidth, per thread count: what bounds a pipelined lookup call whose queries
// and results the host copies through pinned slots (docs/e2e.md). Standalone, no raydb:
//   g++ -O2 -pthread bench/gpu/host_copy_bandwidth.cpp -o host_copy_bandwidth
// Copies 2 GiB with memcpy and with SSE2 streaming stores (as src/common/host_copy.cpp does), and
// with AVX2 and AVX-512 streaming stores where the host has them, and fills 2 GiB with memset;
// prints the second-fastest of four runs for each.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace {

void stream_copy(uint8_t* d, const uint8_t* s, size_t n) {
  while ((reinterpret_cast<uintptr_t>(d) & 15) && n) {
    *d++ = *s++;
    --n;
  }
  for (; n >= 64; n -= 64, d += 64, s += 64)
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
  std::memcpy(d, s, n);
  _mm_sfence();
}

// The same with 32- and 64-byte streaming stores, where the host has AVX2 or AVX-512: whether
// wider stores move more per thread (a VM's threads each stream only a few GB/s).
__attribute__((target("avx2"))) void stream_copy_avx2(uint8_t* d, const uint8_t* s, size_t n) {
  while ((reinterpret_cast<uintptr_t>(d) & 31) && n) {
    *d++ = *s++;
    --n;
  }
  for (; n >= 64; n -= 64, d += 64, s += 64)
    for (int k = 0; k < 64; k += 32)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k)));
  std::memcpy(d, s, n);
  _mm_sfence();
}

__attribute__((target("avx512f"))) void stream_copy_avx512(uint8_t* d, const uint8_t* s, size_t n) {
  while ((reinterpret_cast<uintptr_t>(d) & 63) && n) {
    *d++ = *s++;
    --n;
  }
  for (; n >= 64; n -= 64, d += 64, s += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
  std::memcpy(d, s, n);
  _mm_sfence();
}

}  // namespace

int main() {
  const size_t n = size_t{2} << 30;
  std::vector<uint8_t> a(n, 1), b(n, 2);
  const unsigned hw = std::thread::hardware_concurrency();
  std::printf("hardware_concurrency %u\n", hw);
  const char* names[] = {"memcpy ", "ntcopy ", "memset ", "nt256  ", "nt512  "};
  const bool have[] = {true, true, true, __builtin_cpu_supports("avx2") != 0,
                       __builtin_cpu_supports("avx512f") != 0};
  for (int mode = 0; mode < 5; ++mode)
    for (unsigned t : {1u, 4u, 8u, 16u, 32u}) {
      if (t > 2 * hw || !have[mode]) continue;
      std::vector<double> ms;
      for (int r = 0; r < 4; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        std::vector<std::thread> pool;
        for (unsigned k = 0; k < t; ++k)
          pool.emplace_back([&, k] {
            size_t per = n / t, first = k * per, end = k + 1 == t ? n : first + per;
            if (mode == 0)
              std::memcpy(b.data() + first, a.data() + first, end - first);
            else if (mode == 1)
              stream_copy(b.data() + first, a.data() + first, end - first);
            else if (mode == 2)
              std::memset(b.data() + first, 0xA5, end - first);
            else if (mode == 3)
              stream_copy_avx2(b.data() + first, a.data() + first, end - first);
            else
              stream_copy_avx512(b.data() + first, a.data() + first, end - first);
          });
        for (auto& th : pool) th.join();
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
      }
      std::sort(ms.begin(), ms.end());
      std::printf("%s threads %2u: %.1f ms for 2 GiB, %.1f GB/s\n", names[mode], t, ms[1],
                  n / ms[1] / 1e6);
    }
}
