#include "common/host_copy.hpp"
#include "common/host_time.hpp"

#include <algorithm>
#include <cstring>

#include "common/parallel.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace raydb::detail {

namespace {

void stream_copy(uint8_t* d, const uint8_t* s, uint64_t n) {
#if defined(__SSE2__)
  const uint64_t head = std::min<uint64_t>(n, (16 - reinterpret_cast<uintptr_t>(d) % 16) % 16);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  n -= head;
  for (; n >= 64; n -= 64, d += 64, s += 64) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16));
    __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 32));
    __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(d), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(d + 48), e);
  }
  std::memcpy(d, s, n);
  // Streaming stores are weakly ordered: fence them before the GPU is told to read.
  _mm_sfence();
#else
  std::memcpy(d, s, n);
#endif
}

}  // namespace

void host_copies(std::initializer_list<HostCopy> copies) {
  HostPhaseScope timed(HostPhase::copy);
  uint64_t total = 0;
  for (const HostCopy& c : copies) total += c.bytes;
  unsigned parts = total < (uint64_t{4} << 20) ? 1u : std::min(host_threads(), 16u);
  parallel_slices(2 * size_t{parts}, parts, [&](size_t, size_t, unsigned t) {
    for (const HostCopy& c : copies) {
      // Shares of whole cache lines, so that no two threads write one line.
      uint64_t per = (c.bytes / parts + 63) & ~uint64_t{63};
      uint64_t b = std::min(c.bytes, t * per), e = std::min(c.bytes, b + per);
      if (t + 1 == parts) e = c.bytes;
      if (b >= e) continue;
      auto* d = static_cast<uint8_t*>(c.dst) + b;
      if (c.src)
        stream_copy(d, static_cast<const uint8_t*>(c.src) + b, e - b);
      else
        std::memset(d, c.fill_byte, e - b);
    }
  });
}

}  // namespace raydb::detail
