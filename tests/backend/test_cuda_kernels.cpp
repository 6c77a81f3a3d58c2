// Every CUDA kernel against the CPU reference and its Vulkan twin, on fresh random data with the
// edges (empty, one element, sizes off multiples of 32 and 64, all ones, duplicates, maximal
// keys), through buffers shared with Vulkan and ordered by timeline semaphores. Without a CUDA
// device each case says it was skipped (bench/gpu/cuda.sh fails on that message on the GPU).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "backend/vk/radix_sort.hpp"
#include "cuda_support.hpp"
#include "ops/dpbis/cuda/dpbis_cuda.hpp"
#include "ops/scan/scan_impl.hpp"

using namespace raydb;
using namespace raydb::detail;

namespace {

const size_t kSizes[] = {0, 1, 31, 32, 33, 63, 64, 65, 4097, 100003};

std::vector<uint32_t> random_words(std::mt19937_64& rng, size_t words, uint64_t rows, int kind) {
  std::vector<uint32_t> w(words);
  for (auto& x : w) x = kind == 0 ? static_cast<uint32_t>(rng()) : kind == 1 ? 0xFFFFFFFFu : 0u;
  if (rows % 32 && words) w.back() &= (1u << (rows % 32)) - 1;  // bits past the rows are 0
  return w;
}

template <class Key>
void check_sort(std::mt19937_64& rng, size_t n, uint64_t mask) {
  VkContext& c = test::context().vk();
  std::vector<Key> keys(n);
  for (auto& k : keys) k = static_cast<Key>(rng() & mask);
  if (n > 2) keys[n / 2] = keys[0] = static_cast<Key>(~Key{0});  // the maximal key, twice
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  std::vector<Key> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = keys[order[i]];

  Buffer kb = test::shared_upload(keys);
  Buffer rb = test::shared_upload(std::vector<uint32_t>(n, 0xDEADBEEFu));  // poisoned
  cuda::sort_pairs(c, kb, rb, n, sizeof(Key) == 8);
  test::check_equal_whole(test::download<Key>(kb, n), want, "CUDA sorted keys");
  test::check_equal_whole(test::download<uint32_t>(rb, n), order, "CUDA row ids (stable)");

  // The Vulkan twin on the same keys.
  Buffer vk_keys = test::shared_upload(keys);
  Buffer vk_rows = test::shared_upload(std::vector<uint32_t>(n));
  RadixSort sort(c);
  RadixSort::Temps temps;
  {
    CommandBatch cb(c);
    sort.record(cb.cmd(), vk_keys, vk_rows, n, sizeof(Key) == 8, temps);
    cb.submit_and_wait();
  }
  test::check_equal_whole(test::download<Key>(vk_keys, n), test::download<Key>(kb, n),
                          "Vulkan twin keys");
  test::check_equal_whole(test::download<uint32_t>(vk_rows, n), test::download<uint32_t>(rb, n),
                          "Vulkan twin rows");
}

}  // namespace

TEST_CASE("cuda kernels: radix sort of 32- and 64-bit keys with row ids") {
  if (!test::cuda_or_skip()) return;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t n : kSizes) {
    CAPTURE(n);
    check_sort<uint32_t>(rng, n, ~0ull);
    check_sort<uint32_t>(rng, n, 0xF);  // duplicates: stability shows
    check_sort<uint64_t>(rng, n, ~0ull);
    check_sort<uint64_t>(rng, n, 0xFFFF00000000FFFFull);
  }
}

TEST_CASE(
    "cuda kernels: the sort's scratch stays in the pool between sorts until memory runs out") {
  // A build's sort gave its scratch back to the driver at the next synchronisation and mapped it
  // again for the next sort, ~1-2 ms each way for 2^26 keys on an H100 (docs/e2e.md).
  if (!test::cuda_or_skip()) return;
  std::mt19937_64 rng(test::fresh_seed());
  VkContext& c = test::context().vk();
  check_sort<uint32_t>(rng, 100003, ~0ull);  // waits for the stream: its frees are done
  const uint64_t held = cuda::pool_reserved_bytes(c);
  CHECK(held >= 2 * 100003 * 4);  // at least the keys' and row ids' other halves
  check_sort<uint32_t>(rng, 100003, ~0ull);
  CHECK(cuda::pool_reserved_bytes(c) == held);  // taken again from the pool, nothing more
  CHECK(c.drain_releases());                    // what an allocation out of memory calls
  CHECK(cuda::pool_reserved_bytes(c) == 0);
}

TEST_CASE("cuda kernels: bitmap and or not popcount and count") {
  if (!test::cuda_or_skip()) return;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  for (uint64_t rows : kSizes) {
    for (int kind : {0, 1, 2}) {
      CAPTURE(rows);
      CAPTURE(kind);
      size_t words = (rows + 31) / 32;
      auto a = random_words(rng, words, rows, kind);
      auto b = random_words(rng, words, rows, 0);
      for (uint32_t op : {0u, 1u, 2u, 3u}) {
        CAPTURE(op);
        std::vector<uint32_t> want = a, want_b = b;
        for (size_t i = 0; i < words; ++i) {
          if (op == 0) want[i] &= b[i];
          if (op == 1) want[i] |= b[i];
          if (op == 2) {
            uint64_t valid = rows - i * 32;
            want[i] = ~a[i] & (valid >= 32 ? 0xFFFFFFFFu : (1u << valid) - 1);
          }
          if (op == 3) want_b[i] = static_cast<uint32_t>(__builtin_popcount(a[i]));
        }
        Buffer ca = test::shared_upload(a), cb = test::shared_upload(b);
        cuda::bitmap_op(c, ca, op == 2 ? nullptr : &cb, rows, op);
        test::check_equal_whole(test::download<uint32_t>(ca, words), want, "CUDA a");
        test::check_equal_whole(test::download<uint32_t>(cb, words), want_b, "CUDA b");
        Buffer va = test::shared_upload(a), vb = test::shared_upload(b);
        test::BitmapOpParams p{va.address(),
                               vb.address(),
                               static_cast<uint32_t>(words),
                               static_cast<uint32_t>(rows),
                               op,
                               0};
        test::run_vulkan(ShaderId::bitmap_ops, p, bitmap_op_items(words));
        test::check_equal_whole(test::download<uint32_t>(va, words),
                                test::download<uint32_t>(ca, words), "Vulkan twin a");
        test::check_equal_whole(test::download<uint32_t>(vb, words),
                                test::download<uint32_t>(cb, words), "Vulkan twin b");
      }
      uint64_t ones = 0;
      for (uint32_t w : a) ones += static_cast<uint64_t>(__builtin_popcount(w));
      Buffer ca = test::shared_upload(a);
      CHECK(cuda::bitmap_count(c, ca, rows) == ones);
    }
  }
}

TEST_CASE("cuda kernels: bitmap to row ids in row order") {
  if (!test::cuda_or_skip()) return;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  for (uint64_t rows : kSizes) {
    for (int kind : {0, 1, 2}) {
      CAPTURE(rows);
      CAPTURE(kind);
      size_t words = (rows + 31) / 32;
      auto a = random_words(rng, words, rows, kind);
      std::vector<uint32_t> want;
      for (uint64_t r = 0; r < rows; ++r)
        if (a[r / 32] >> (r % 32) & 1u) want.push_back(static_cast<uint32_t>(r));
      Buffer bits = test::shared_upload(a);
      Buffer out = test::shared_upload(std::vector<uint32_t>(rows + 1, 0xDEADBEEFu));
      uint64_t n = cuda::bitmap_to_rows(c, bits, rows, out);
      CHECK(n == want.size());
      test::check_equal_whole(test::download<uint32_t>(out, n), want, "CUDA row ids");
      if (!want.empty()) {  // too small an output is an error, not a truncation
        Buffer small = test::shared_upload(std::vector<uint32_t>(1));
        if (want.size() * 4 > small.size())
          CHECK_THROWS_AS(cuda::bitmap_to_rows(c, bits, rows, small), Error);
      }
      // The Vulkan twin: Bitmap::row_ids over the same words.
      auto impl = new_bitmap(test::context().shared(), rows);
      {
        CommandBatch up(c);
        Buffer staging;
        record_upload(c, up.cmd(), staging, impl->words, a.data(), words * 4);
        up.submit_and_wait();
      }
      test::check_equal_whole(Bitmap(impl).row_ids().value(), test::download<uint32_t>(out, n),
                              "Vulkan twin row ids");
    }
  }
}

namespace {

// Random 8-bit bin codes below `bins`, four to a word, in whole 32-row groups as DP-BIS lays
// them out (row r in byte r / 8 % 4 of word r / 32 * 8 + r % 8; the bytes past the last row stay
// 0).
std::vector<uint32_t> random_codes(std::mt19937_64& rng, uint64_t rows, uint32_t bins,
                                   std::vector<uint32_t>& code_of_row) {
  std::vector<uint32_t> codes((rows + 31) / 32 * 8, 0);
  code_of_row.resize(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    // Mostly uniform, with runs of the lowest and highest bins.
    uint32_t code =
        rng() % 4 == 0 ? (rng() % 2 ? 0 : bins - 1) : static_cast<uint32_t>(rng() % bins);
    code_of_row[r] = code;
    codes[r / 32 * 8 + r % 8] |= code << (8 * (r / 8 % 4));
  }
  return codes;
}

std::vector<uint32_t> select_reference(const std::vector<uint32_t>& code_of_row, int b_lo,
                                       int b_hi) {
  std::vector<uint32_t> out((code_of_row.size() + 31) / 32, 0);
  for (size_t r = 0; r < code_of_row.size(); ++r) {
    int code = static_cast<int>(code_of_row[r]);
    if (code > b_lo && code < b_hi) out[r / 32] |= 1u << (r % 32);
  }
  return out;
}

}  // namespace

TEST_CASE("cuda kernels: sieving vectors and selections from vectors and codes") {
  if (!test::cuda_or_skip()) return;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  for (uint64_t rows : kSizes) {
    for (uint32_t bins : {2u, 3u, 128u, 256u}) {
      CAPTURE(rows);
      CAPTURE(bins);
      uint32_t words = static_cast<uint32_t>((rows + 31) / 32);
      std::vector<uint32_t> code_of_row;
      auto codes = random_codes(rng, rows, bins, code_of_row);
      // Vectors lie `stride` words apart; the padding words between them are 0.
      uint32_t stride = static_cast<uint32_t>(sieve_vector_stride(words));
      std::vector<uint32_t> want_vectors(uint64_t{bins - 1} * stride, 0);
      for (uint32_t k = 1; k < bins; ++k)
        for (uint64_t r = 0; r < rows; ++r)
          if (code_of_row[r] < k) want_vectors[uint64_t{k - 1} * stride + r / 32] |= 1u << (r % 32);
      Buffer cb = test::shared_upload(codes);
      Buffer vectors = test::shared_upload(std::vector<uint32_t>(want_vectors.size(), ~0u));
      cuda::sieve_vectors(c, cb, vectors, rows, bins);
      test::check_equal_whole(test::download<uint32_t>(vectors, want_vectors.size()), want_vectors,
                              "CUDA sieve vectors");
      Buffer vk_vectors = test::shared_upload(std::vector<uint32_t>(want_vectors.size(), ~0u));
      test::VectorsParams vp{
          cb.address(), vk_vectors.address(), static_cast<uint32_t>(rows), words, bins, stride};
      test::run_vulkan(ShaderId::dpbis_vectors, vp, want_vectors.size());
      test::check_equal_whole(test::download<uint32_t>(vk_vectors, want_vectors.size()),
                              test::download<uint32_t>(vectors, want_vectors.size()),
                              "Vulkan twin vectors");
      // Boundary bins as DP-BIS passes them: b_lo from -1, b_hi up to bins - 1, and the extremes.
      std::vector<std::pair<int, int>> bounds = {
          {-1, 0},
          {-1, static_cast<int>(bins) - 1},
          {0, static_cast<int>(bins) - 1},
          {static_cast<int>(bins) - 1, static_cast<int>(bins) - 1}};
      for (int t = 0; t < 6; ++t) {
        int hi = static_cast<int>(rng() % bins);
        bounds.push_back({static_cast<int>(rng() % (hi + 2)) - 1, hi});
      }
      for (auto [b_lo, b_hi] : bounds) {
        CAPTURE(b_lo);
        CAPTURE(b_hi);
        auto want = select_reference(code_of_row, b_lo, b_hi);
        Buffer from_vectors = test::shared_upload(std::vector<uint32_t>(words, ~0u));
        cuda::sieve_select(c, vectors, from_vectors, rows, b_lo, b_hi, bins);
        test::check_equal_whole(test::download<uint32_t>(from_vectors, words), want,
                                "CUDA sieve select");
        Buffer from_codes = test::shared_upload(std::vector<uint32_t>(words, ~0u));
        cuda::codes_select(c, cb, from_codes, rows, b_lo, b_hi);
        test::check_equal_whole(test::download<uint32_t>(from_codes, words), want,
                                "CUDA codes select");
        Buffer vk_sieve = test::shared_upload(std::vector<uint32_t>(words, ~0u));
        test::SieveParams sp{vectors.address(),
                             vk_sieve.address(),
                             static_cast<uint32_t>(rows),
                             words,
                             b_lo,
                             b_hi,
                             bins,
                             stride};
        test::run_vulkan(ShaderId::dpbis_sieve_select, sp, (words + 3) / 4);
        test::check_equal_whole(test::download<uint32_t>(vk_sieve, words), want,
                                "Vulkan twin sieve select");
        Buffer vk_codes = test::shared_upload(std::vector<uint32_t>(words, ~0u));
        test::SelectParams cp{
            cb.address(), vk_codes.address(), static_cast<uint32_t>(rows), b_lo, b_hi, 0};
        test::run_vulkan(ShaderId::dpbis_select, cp, words);
        test::check_equal_whole(test::download<uint32_t>(vk_codes, words), want,
                                "Vulkan twin codes select");
      }
    }
  }
}

TEST_CASE("cuda kernels: linear-scan refinement of candidate ranges") {
  if (!test::cuda_or_skip()) return;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  for (uint64_t rows : kSizes) {
    CAPTURE(rows);
    // Bin-clustered base data: sorted values (duplicates and the extremes) with their row ids.
    std::vector<uint32_t> sorted(rows), row_ids(rows);
    for (auto& v : sorted)
      v = rng() % 4 == 0 ? (rng() % 2 ? 0u : 0xFFFFFFFFu) : static_cast<uint32_t>(rng() % 1000);
    std::sort(sorted.begin(), sorted.end());
    std::iota(row_ids.begin(), row_ids.end(), 0u);
    std::shuffle(row_ids.begin(), row_ids.end(), rng);
    size_t words = (rows + 31) / 32;
    // Padded to whole 16-byte chunks, as DpBisTable allocates them (the kernels load 4 at once).
    Buffer sb = test::shared_upload(sorted, dpbis_sorted_bytes(rows));
    Buffer rb = test::shared_upload(row_ids, dpbis_sorted_bytes(rows));
    auto random_range = [&](uint32_t& begin, uint32_t& end) {
      begin = rows ? static_cast<uint32_t>(rng() % rows) : 0;
      end = rows ? begin + static_cast<uint32_t>(rng() % (rows - begin + 1)) : 0;
    };
    for (int t = 0; t < 10; ++t) {
      // Two ranges as DP-BIS passes its boundary bins: either may be empty, both whole, adjacent
      // (sharing a 16-byte chunk) or apart, ending anywhere within a chunk.
      uint32_t begin0, end0, begin1, end1;
      random_range(begin0, end0);
      random_range(begin1, end1);
      if (t == 0) begin0 = 0, end0 = static_cast<uint32_t>(rows), begin1 = end1 = 0;
      if (t == 1) begin1 = end0, end1 = static_cast<uint32_t>(rows);
      if (t == 2) begin0 = end0 = 0;
      const uint32_t picks[] = {0u, 1u, 500u, 999u, 0xFFFFFFFEu, 0xFFFFFFFFu};
      uint32_t lo = picks[rng() % 6], hi = picks[rng() % 6];
      CAPTURE(begin0);
      CAPTURE(end0);
      CAPTURE(begin1);
      CAPTURE(end1);
      CAPTURE(lo);
      CAPTURE(hi);
      auto before = random_words(rng, words, rows, t % 3);  // refinement only ORs bits in
      std::vector<uint32_t> want = before;
      for (auto [b, e] : {std::pair{begin0, end0}, std::pair{begin1, end1}})
        for (uint32_t p = b; p < e; ++p)
          if (sorted[p] >= lo && sorted[p] <= hi) want[row_ids[p] / 32] |= 1u << (row_ids[p] % 32);
      Buffer bits = test::shared_upload(before);
      cuda::refine_candidates(c, sb, rb, bits, begin0, end0, begin1, end1, lo, hi);
      test::check_equal_whole(test::download<uint32_t>(bits, words), want, "CUDA refinement");
      Buffer vk_bits = test::shared_upload(before);
      test::CandidatesParams p{
          sb.address(), rb.address(), vk_bits.address(), begin0, end0, begin1, end1, lo, hi};
      test::run_vulkan(ShaderId::dpbis_candidates, p, candidate_items(begin0, end0, begin1, end1));
      test::check_equal_whole(test::download<uint32_t>(vk_bits, words), want,
                              "Vulkan twin refinement");
    }
  }
}

TEST_CASE("cuda kernels: a Vulkan pass then CUDA then Vulkan with no host wait between") {
  if (!test::cuda_or_skip()) return;
  VkContext& c = test::context().vk();
  std::mt19937_64 rng(test::fresh_seed());
  uint64_t rows = 1000003;
  uint32_t words = static_cast<uint32_t>((rows + 31) / 32);
  auto a = random_words(rng, words, rows, 0);
  Buffer bits = test::shared_upload(a);
  Buffer counts = test::shared_upload(std::vector<uint32_t>(words, ~0u));
  test::BitmapOpParams not_op{bits.address(), 0, words, static_cast<uint32_t>(rows), 2, 0};
  test::BitmapOpParams pop_op{
      bits.address(), counts.address(), words, static_cast<uint32_t>(rows), 3, 0};
  CommandBatch first(c);  // Vulkan: NOT
  kernel(c, ShaderId::bitmap_ops, sizeof not_op)
      .dispatch(first.cmd(), &not_op, bitmap_op_items(words));
  cuda::cuda_after(c, first);
  first.submit();
  cuda::bitmap_op(c, bits, nullptr, rows, 2);  // CUDA: NOT again, after the Vulkan pass
  CommandBatch second(c);                      // Vulkan: popcounts, after the CUDA kernel
  cuda::vulkan_after(c, second);
  kernel(c, ShaderId::bitmap_ops, sizeof pop_op)
      .dispatch(second.cmd(), &pop_op, bitmap_op_items(words));
  second.submit_and_wait();
  first.wait();
  std::vector<uint32_t> want(words);
  for (uint32_t i = 0; i < words; ++i) want[i] = static_cast<uint32_t>(__builtin_popcount(a[i]));
  test::check_equal_whole(test::download<uint32_t>(counts, words), want, "popcounts");
  test::check_equal_whole(test::download<uint32_t>(bits, words), a, "NOT NOT a");
}
