// The host's copy bandwidth, per thread count: what bounds a pipelined lookup call whose queries
// and results the host copies through pinned slots (docs/e2e.md). Standalone, no raydb:
//   g++ -O2 -pthread bench/gpu/host_copy_bandwidth.cpp -o host_copy_bandwidth
// Copies 2 GiB with memcpy and with SSE2 streaming stores (as src/common/host_copy.cpp does),
// and fills 2 GiB with memset; prints the second-fastest of four runs for each.
#include <emmintrin.h>

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

}  // namespace

int main() {
  const size_t n = size_t{2} << 30;
  std::vector<uint8_t> a(n, 1), b(n, 2);
  const unsigned hw = std::thread::hardware_concurrency();
  std::printf("hardware_concurrency %u\n", hw);
  const char* names[] = {"memcpy ", "ntcopy ", "memset "};
  for (int mode = 0; mode < 3; ++mode)
    for (unsigned t : {1u, 4u, 8u, 16u, 32u}) {
      if (t > 2 * hw) continue;
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
            else
              std::memset(b.data() + first, 0xA5, end - first);
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
