#include "common/host_copy.hpp"
#include "common/host_time.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <vector>

#include "common/parallel.hpp"
#include "common/worker_pool.hpp"

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
  if (total == 0) return;
  WorkerPool& pool = WorkerPool::shared();
  // About four blocks per thread, so that threads the OS runs late leave theirs to the others;
  // below 4 MiB in all, one block per copy (the caller alone).
  const uint64_t piece = total < (uint64_t{4} << 20)
                             ? total
                             : std::max<uint64_t>(uint64_t{256} << 10,
                                                  (total / (4 * pool.size()) + 63) & ~uint64_t{63});
  std::vector<uint32_t> first_block;  // copy i's blocks start at first_block[i]
  uint32_t blocks = 0;
  for (const HostCopy& c : copies) {
    first_block.push_back(blocks);
    blocks += static_cast<uint32_t>((c.bytes + piece - 1) / piece);
  }
  const std::function<void(uint32_t)> block = [&](uint32_t b) {
    size_t i =
        std::upper_bound(first_block.begin(), first_block.end(), b) - first_block.begin() - 1;
    const HostCopy& c = copies.begin()[i];
    // Block boundaries on the destination's cache lines, so that no two threads write one line.
    auto* dst = static_cast<uint8_t*>(c.dst);
    auto at = [&](uint64_t k) {
      const uint64_t raw = k * piece;
      if (raw >= c.bytes) return c.bytes;
      const uint64_t lined = (reinterpret_cast<uintptr_t>(dst) + raw + 63) / 64 * 64 -
                             reinterpret_cast<uintptr_t>(dst);
      return k == 0 ? 0 : std::min(c.bytes, lined);
    };
    const uint64_t k = b - first_block[i], begin = at(k), end = at(k + 1);
    if (begin >= end) return;
    if (c.src)
      widest(dst + begin, static_cast<const uint8_t*>(c.src) + begin, end - begin);
    else
      std::memset(dst + begin, c.fill_byte, end - begin);
  };
  // Another thread's call holds the pool: threads of its own for this one.
  if (!pool.try_run(blocks, block)) {
    const unsigned parts = std::min<unsigned>(pool.size(), blocks);
    parallel_slices(blocks, parts, [&](size_t begin, size_t end, unsigned) {
      for (size_t b = begin; b < end; ++b) block(static_cast<uint32_t>(b));
    });
  }
}

}  // namespace raydb::detail
