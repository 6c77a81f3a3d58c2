#include "common/host_copy.hpp"
#include "common/host_time.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/parallel.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RAYDB_STREAM_COPY_X86 1
#endif

namespace raydb::detail {

namespace {

#if RAYDB_STREAM_COPY_X86
// Streams `blocks` 64-byte blocks to a 64-byte-aligned `d`, one routine per store width.
using BlockCopy = void (*)(uint8_t* d, const uint8_t* s, uint64_t blocks);

void blocks_sse2(uint8_t* d, const uint8_t* s, uint64_t blocks) {
  for (; blocks > 0; --blocks, d += 64, s += 64)
    for (int k = 0; k < 64; k += 16)
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + k),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
}

__attribute__((target("avx2"))) void blocks_avx2(uint8_t* d, const uint8_t* s, uint64_t blocks) {
  for (; blocks > 0; --blocks, d += 64, s += 64)
    for (int k = 0; k < 64; k += 32)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + k),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + k)));
}

__attribute__((target("avx512f"))) void blocks_avx512(uint8_t* d, const uint8_t* s,
                                                      uint64_t blocks) {
  for (; blocks > 0; --blocks, d += 64, s += 64)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(d), _mm512_loadu_si512(s));
}

// The bytes before `dst`'s first 64-byte boundary and after its last one are copied plainly;
// the streaming stores need aligned destinations.
template <BlockCopy copy_blocks>
void stream_copy(void* dst, const void* src, uint64_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  const uint64_t head = std::min<uint64_t>(n, (64 - reinterpret_cast<uintptr_t>(d) % 64) % 64);
  std::memcpy(d, s, head);
  const uint64_t blocks = (n - head) / 64;
  copy_blocks(d + head, s + head, blocks);
  const uint64_t done = head + blocks * 64;
  std::memcpy(d + done, s + done, n - done);
  // Streaming stores are weakly ordered: fence them before the GPU is told to read.
  _mm_sfence();
}
#else
void stream_copy_plain(void* dst, const void* src, uint64_t n) {
  std::memcpy(dst, src, n);
}
#endif

std::vector<StreamCopy> available_stream_copies() {
#if RAYDB_STREAM_COPY_X86
  std::vector<StreamCopy> v = {{"sse2", stream_copy<blocks_sse2>}};
  if (__builtin_cpu_supports("avx2")) v.push_back({"avx2", stream_copy<blocks_avx2>});
  if (__builtin_cpu_supports("avx512f")) v.push_back({"avx512", stream_copy<blocks_avx512>});
  return v;
#else
  return {{"memcpy", stream_copy_plain}};
#endif
}

}  // namespace

std::span<const StreamCopy> stream_copies() {
  static const std::vector<StreamCopy> copies = available_stream_copies();
  return copies;
}

void host_copies(std::initializer_list<HostCopy> copies) {
  HostPhaseScope timed(HostPhase::copy);
  static const StreamCopyFn widest = stream_copies().back().copy;
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
        widest(d, static_cast<const uint8_t*>(c.src) + b, e - b);
      else
        std::memset(d, c.fill_byte, e - b);
    }
  });
}

}  // namespace raydb::detail
