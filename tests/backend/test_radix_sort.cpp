// The Vulkan radix sort and scan against std::stable_sort / std::exclusive_scan.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

#include "backend/vk/commands.hpp"
#include "backend/vk/radix_sort.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::detail;

namespace {

template <class T>
std::vector<T> download(VkContext& c, const Buffer& b, size_t n) {
  Buffer host(c, n * sizeof(T), VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
              "test readback");
  CommandBatch batch(c);
  VkBufferCopy r{0, 0, n * sizeof(T)};
  if (n) c.vk.vkCmdCopyBuffer(batch.cmd(), b.handle(), host.handle(), 1, &r);
  batch.submit_and_wait();
  host.invalidate();
  std::vector<T> out(n);
  if (n) std::memcpy(out.data(), host.mapped(), n * sizeof(T));
  return out;
}

template <class Key>
std::vector<Key> random_keys(size_t n, uint64_t key_mask, std::mt19937_64& rng) {
  std::vector<Key> keys(n);
  for (auto& k : keys) k = static_cast<Key>(rng() & key_mask);
  return keys;
}

// Uploads `keys` into `b`, then runs what `record` records after the upload.
template <class Key, class Record>
void upload_and_run(VkContext& c, const Buffer& b, const std::vector<Key>& keys, Record record) {
  CommandBatch batch(c);
  Buffer staging;
  record_upload(c, batch.cmd(), staging, b, keys.data(), keys.size() * sizeof(Key));
  memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  record(batch.cmd());
  batch.submit_and_wait();
}

// Checks `kb` and `rb` against a stable sort of `keys` by `rank`: the keys in that order, and
// each one's position in `keys`.
template <class Key, class Rank>
void check_stable(VkContext& c, const Buffer& kb, const Buffer& rb, const std::vector<Key>& keys,
                  Rank rank) {
  const size_t n = keys.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rank(keys[a]) < rank(keys[b]); });
  std::vector<Key> want_keys(n);
  for (size_t i = 0; i < n; ++i) want_keys[i] = keys[order[i]];
  test::check_equal_whole(download<Key>(c, kb, n), want_keys, "sorted keys");
  test::check_equal_whole(download<uint32_t>(c, rb, n), order, "row ids (stable)");
}

template <class Key>
void check_sort(size_t n, uint64_t key_mask, std::mt19937_64& rng, uint32_t first_bit = 0,
                RadixScatter scatter = RadixScatter::best) {
  VkContext& c = test::context().vk();
  const std::vector<Key> keys = random_keys<Key>(n, key_mask, rng);
  Buffer kb(c, n * sizeof(Key), kStorageUsage, MemoryUse::device, "test keys");
  Buffer rb(c, n * 4, kStorageUsage, MemoryUse::device, "test rows");
  RadixSort sort(c, scatter);
  RadixSort::Temps temps;
  upload_and_run(c, kb, keys, [&](VkCommandBuffer cmd) {
    sort.record(cmd, kb, rb, n, sizeof(Key) == 8, temps, first_bit);
  });
  check_stable(c, kb, rb, keys, [&](Key k) { return k >> first_bit; });
}

// One pass by the digit at `shift`, read from a source buffer that must stay as it was.
template <class Key>
void check_digit(size_t n, uint64_t key_mask, std::mt19937_64& rng, uint32_t shift,
                 RadixScatter scatter) {
  VkContext& c = test::context().vk();
  const std::vector<Key> keys = random_keys<Key>(n, key_mask, rng);
  Buffer src(c, n * sizeof(Key), kStorageUsage, MemoryUse::device, "test source");
  Buffer kb(c, n * sizeof(Key), kStorageUsage, MemoryUse::device, "test keys");
  Buffer rb(c, n * 4, kStorageUsage, MemoryUse::device, "test rows");
  RadixSort sort(c, scatter);
  RadixSort::Temps temps;
  upload_and_run(c, src, keys, [&](VkCommandBuffer cmd) {
    sort.record_digit(cmd, src.address(), kb, rb, n, sizeof(Key) == 8, temps, shift);
  });
  check_stable(c, kb, rb, keys, [&](Key k) { return (static_cast<uint64_t>(k) >> shift) & 0xFF; });
  test::check_equal_whole(download<Key>(c, src, n), keys, "source untouched");
}

// The scatters this device runs: rounds everywhere, ranked where it is supported.
std::vector<RadixScatter> scatter_kinds(VkContext& c) {
  std::vector<RadixScatter> kinds{RadixScatter::rounds};
  if (supports_ranked_scatter(c)) kinds.push_back(RadixScatter::ranked);
  return kinds;
}

}  // namespace

TEST_CASE("radix sort: 32- and 64-bit keys equal a stable sort, with either scatter") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  VkContext& c = test::context().vk();
  const std::vector<RadixScatter> kinds = scatter_kinds(c);
  // lavapipe and every GPU raydb targets run the ranked scatter: it must not go untested.
  CHECK(kinds.size() == 2);
  CHECK(RadixSort(c).scatter() == kinds.back());
  for (RadixScatter kind : kinds) {
    CAPTURE(static_cast<int>(kind));
    // Sizes around the 4096-element tile and past one scan block (more than 16 tiles).
    for (size_t n :
         {size_t{1}, size_t{31}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{100003}}) {
      CAPTURE(n);
      check_sort<uint32_t>(n, ~0ull, rng, 0, kind);
      check_sort<uint32_t>(n, 0xFF, rng, 0, kind);  // many duplicates: stability shows
      check_sort<uint32_t>(n, 0, rng, 0, kind);     // one digit only: a whole tile's run
      check_sort<uint64_t>(n, ~0ull, rng, 0, kind);
      check_sort<uint64_t>(n, 0xFFFF00000000FFFFull, rng, 0, kind);
      // The top bits only (RX's chunk sorts): keys equal there keep their input order.
      check_sort<uint32_t>(n, ~0ull, rng, 16, kind);
      check_sort<uint64_t>(n, ~0ull, rng, 48, kind);
      check_sort<uint64_t>(n, 0xFFFF00000000FFFFull, rng, 32, kind);
    }
  }
}

TEST_CASE("radix sort: one digit's pass from a source equals a stable sort by that digit") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  VkContext& c = test::context().vk();
  const std::vector<RadixScatter> kinds = scatter_kinds(c);
  for (RadixScatter kind : kinds) {
    CAPTURE(static_cast<int>(kind));
    for (size_t n : {size_t{1}, size_t{4095}, size_t{4097}, size_t{100003}}) {
      CAPTURE(n);
      check_digit<uint32_t>(n, ~0ull, rng, 24, kind);       // RX's chunks: the top 8 bits
      check_digit<uint32_t>(n, ~0ull, rng, 5, kind);        // a digit at no byte boundary
      check_digit<uint32_t>(n, 0x0FFFFFFF, rng, 24, kind);  // one digit only: input order
      check_digit<uint64_t>(n, ~0ull, rng, 56, kind);
      check_digit<uint64_t>(n, 0xFF000000FFFFFFFFull, rng, 32, kind);  // a middle digit of 0s
    }
  }
  Buffer kb(c, 64, kStorageUsage, MemoryUse::device, "test keys");
  Buffer rb(c, 64, kStorageUsage, MemoryUse::device, "test rows");
  RadixSort sort(c);
  RadixSort::Temps temps;
  CommandBatch batch(c);
  CHECK_THROWS_WITH_AS(sort.record_digit(batch.cmd(), kb.address(), kb, rb, 16, false, temps, 25),
                       doctest::Contains("bit 25"), Error);
  CHECK_THROWS_AS(sort.record_digit(batch.cmd(), kb.address(), kb, rb, 8, true, temps, 28), Error);
}

TEST_CASE("radix sort: a first bit that is no multiple of 16 is refused") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  Buffer kb(c, 64, kStorageUsage, MemoryUse::device, "test keys");
  Buffer rb(c, 64, kStorageUsage, MemoryUse::device, "test rows");
  RadixSort sort(c);
  RadixSort::Temps temps;
  CommandBatch batch(c);
  CHECK_THROWS_WITH_AS(sort.record(batch.cmd(), kb, rb, 16, false, temps, 8),
                       doctest::Contains("first_bit 8"), Error);
  CHECK_THROWS_AS(sort.record(batch.cmd(), kb, rb, 16, false, temps, 32), Error);
}

TEST_CASE("scan: three levels of blocks equal std::exclusive_scan") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  size_t n = 4096 * 4096 + 12345;  // needs a third level
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(rng() % 7);
  Buffer b(c, n * 4, kStorageUsage, MemoryUse::device, "test scan");
  RadixSort sort(c);
  RadixSort::Temps temps;
  {
    CommandBatch batch(c);
    Buffer staging;
    record_upload(c, batch.cmd(), staging, b, v.data(), n * 4);
    memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
    sort.record_exclusive_scan(batch.cmd(), b.address(), n, temps);
    batch.submit_and_wait();
  }
  std::vector<uint32_t> want(n);
  std::exclusive_scan(v.begin(), v.end(), want.begin(), 0u);
  test::check_equal_whole(download<uint32_t>(c, b, n), want, "scan");
  CHECK(temps.scan_levels.size() == 2);
}
