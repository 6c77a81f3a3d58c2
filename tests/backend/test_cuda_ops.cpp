// Operators with a backend choice: DP-BIS and its bitmaps run in CUDA over shared memory with the
// same answers as in Vulkan compute and as the CPU reference.
#include <doctest/doctest.h>

#include <random>

#include "cuda_support.hpp"
#include "raydb/dpbis.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/scan.hpp"
#include "raydb/sorted_index.hpp"

using namespace raydb;

namespace {

std::vector<uint32_t> skewed_column(std::mt19937_64& rng, size_t rows, int kind) {
  std::vector<uint32_t> c(rows);
  for (auto& v : c) {
    if (kind == 0) v = static_cast<uint32_t>(rng());
    if (kind == 1) v = rng() % 10 < 4 ? 7u : static_cast<uint32_t>(rng() % 1000);
    if (kind == 2)
      v = rng() % 3 == 0 ? 0xFFFFFFFFu : (rng() % 2 ? 0u : static_cast<uint32_t>(rng()));
  }
  return c;
}

}  // namespace

TEST_CASE("cuda ops: asking for the CUDA backend where it is unavailable is a clear error") {
  test::ValidationGuard guard;
  std::vector<uint32_t> a = {3, 1, 2};
  std::vector<std::span<const uint32_t>> cols = {a};
  DpBisOptions o;
  o.backend = Backend::cuda;
  auto t = DpBisTable::build(test::context(), cols, o);
  if (test::context().cuda().available) {
    REQUIRE(t.ok());
    CHECK(t.value().backend() == Backend::cuda);
  } else {
    REQUIRE(!t.ok());
    CHECK(t.error().code() == Errc::unsupported);
    o.backend = Backend::automatic;
    CHECK(DpBisTable::build(test::context(), cols, o).value().backend() == Backend::vulkan);
  }
}

TEST_CASE("cuda ops: DP-BIS in CUDA equals the CPU reference and DP-BIS in Vulkan") {
  if (!test::cuda_or_skip()) return;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows : {size_t{0}, size_t{1}, size_t{33}, size_t{100003}}) {
    std::vector<std::vector<uint32_t>> data;
    for (int kind = 0; kind < 3; ++kind) data.push_back(skewed_column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    for (bool sieve : {false, true}) {
      CAPTURE(rows);
      CAPTURE(sieve);
      DpBisOptions oc, ov;
      oc.sieve_vectors = ov.sieve_vectors = sieve;
      oc.bins = ov.bins = sieve ? 128 : 256;
      oc.backend = Backend::cuda;
      ov.backend = Backend::vulkan;
      auto tc = DpBisTable::build(test::context(), cols, oc).value();
      auto tv = DpBisTable::build(test::context(), cols, ov).value();
      CHECK(tc.backend() == Backend::cuda);
      CHECK(tv.backend() == Backend::vulkan);
      CHECK(tc.build_stats().bins_used == tv.build_stats().bins_used);
      for (int trial = 0; trial < 12; ++trial) {
        std::vector<Predicate> preds;
        for (int k = 0, n = trial % 4; k < n; ++k) {
          Predicate p;
          p.column = static_cast<uint32_t>(rng() % 3);
          p.op = static_cast<CompareOp>(rng() % 6);
          p.value = rows && rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
          p.value2 =
              rows && rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
          preds.push_back(p);
        }
        for (Combine combine : {Combine::all, Combine::any}) {
          CAPTURE(trial);
          auto bc = tc.select(preds, combine).value();
          auto bv = tv.select(preds, combine).value();
          auto want = bv.words().value();
          if (combine == Combine::all) {
            test::check_equal_whole(want, full_scan_reference(cols, preds), "Vulkan vs CPU");
          }
          test::check_equal_whole(bc.words().value(), want, "CUDA vs Vulkan bitmap");
          CHECK(bc.count().value() == bv.count().value());
          test::check_equal_whole(bc.row_ids().value(), bv.row_ids().value(), "row ids");
        }
      }
    }
  }
}

namespace {

// The CPU reference of a query: every predicate (all) or any of them, as bitmap words; an empty
// list selects every row (all) or none (any).
std::vector<uint32_t> combined_reference(std::span<const std::span<const uint32_t>> cols,
                                         size_t rows, const std::vector<Predicate>& preds,
                                         Combine combine) {
  if (combine == Combine::all) return full_scan_reference(cols, preds);
  std::vector<uint32_t> any((rows + 31) / 32, 0u);
  for (const Predicate& p : preds) {
    auto one = full_scan_reference(cols, std::span<const Predicate>(&p, 1));
    for (size_t i = 0; i < any.size(); ++i) any[i] |= one[i];
  }
  return any;
}

}  // namespace

// Refine::in_select: the selections decide the boundary bins' rows from the row-ordered values,
// without atomics (codes_select_exact / sieve_select_exact). Bounds taken from the data (equal to
// values and to bin borders), values 0 and 2^32 - 1, runs of one value filling whole bins, row
// counts that end inside a word and inside a 4-word chunk of the sieve pass.
TEST_CASE("cuda ops: DP-BIS in_select in CUDA equals the CPU reference and Vulkan") {
  if (!test::cuda_or_skip()) return;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows : {size_t{0}, size_t{1}, size_t{33}, size_t{100}, size_t{100003}}) {
    std::vector<std::vector<uint32_t>> data;
    for (int kind = 0; kind < 3; ++kind) data.push_back(skewed_column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    for (bool sieve : {false, true}) {
      CAPTURE(rows);
      CAPTURE(sieve);
      DpBisOptions oc, ov;
      oc.refine = ov.refine = Refine::in_select;
      oc.sieve_vectors = ov.sieve_vectors = sieve;
      oc.bins = ov.bins = sieve ? 64 : 256;
      oc.backend = Backend::cuda;
      ov.backend = Backend::vulkan;
      auto tc = DpBisTable::build(test::context(), cols, oc).value();
      auto tv = DpBisTable::build(test::context(), cols, ov).value();
      CHECK(tc.backend() == Backend::cuda);
      for (int trial = 0; trial < 16; ++trial) {
        std::vector<Predicate> preds;
        for (int k = 0, n = trial % 4; k < n; ++k) {
          Predicate p;
          p.column = static_cast<uint32_t>(rng() % 3);
          p.op = static_cast<CompareOp>(rng() % 6);
          p.value = rows && rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
          p.value2 =
              rows && rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
          if (trial == 5) p.value = 0xFFFFFFFFu;
          if (trial == 6) p.value2 = 0;
          preds.push_back(p);
        }
        for (Combine combine : {Combine::all, Combine::any}) {
          CAPTURE(trial);
          CAPTURE(static_cast<int>(combine));
          auto want = combined_reference(cols, rows, preds, combine);
          auto bc = tc.select(preds, combine).value();
          test::check_equal_whole(bc.words().value(), want, "CUDA in_select vs CPU");
          test::check_equal_whole(tv.select(preds, combine).value().words().value(), want,
                                  "Vulkan in_select vs CPU");
          uint64_t set = 0;
          for (uint32_t w : want) set += static_cast<uint64_t>(__builtin_popcount(w));
          CHECK(bc.count().value() == set);
        }
      }
    }
  }
}

TEST_CASE("cuda ops: indexes sort their keys with CUB and equal the CPU reference and Vulkan") {
  if (!test::cuda_or_skip()) return;
  ContextOptions vulkan_only;
  vulkan_only.backend = Backend::vulkan;
  vulkan_only.device = std::to_string(test::context().device().index);  // the same device
  auto vk_ctx = Context::create(vulkan_only).value();
  REQUIRE(vk_ctx.resolve(Backend::automatic).value() == Backend::vulkan);
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t n : {size_t{1}, size_t{33}, size_t{100003}}) {
    for (bool wide : {false, true}) {
      CAPTURE(n);
      CAPTURE(wide);
      std::vector<uint32_t> k32(n), values(n);
      std::vector<uint64_t> k64(n);
      for (size_t i = 0; i < n; ++i) {
        uint64_t r = rng();
        k64[i] = rng() % 8 == 0 ? ~0ull : rng() % 4 == 0 ? r % 64 : r;  // duplicates, the maximum
        k32[i] = static_cast<uint32_t>(k64[i]);
        values[i] = static_cast<uint32_t>(rng());
      }
      KeySpan keys = wide ? KeySpan(k64) : KeySpan(k32);
      std::vector<uint64_t> p64(n);
      std::vector<uint32_t> p32(n);
      for (size_t i = 0; i < n; ++i) {
        p64[i] = rng() % 2 ? k64[rng() % n] : rng();
        p32[i] = static_cast<uint32_t>(p64[i]);
      }
      KeySpan probes = wide ? KeySpan(p64) : KeySpan(p32);
      auto want = RxReference(keys, values).lookup(probes);
      auto cuda_sorted = SortedIndex::build(test::context(), keys, values).value();
      auto vk_sorted = SortedIndex::build(vk_ctx, keys, values).value();
      auto got = cuda_sorted.lookup(probes).value();
      test::check_lookups(got, want, "sorted index (CUB sort)");
      test::check_lookups(vk_sorted.lookup(probes).value(), got, "sorted index (Vulkan sort)");
      CHECK(cuda_sorted.build_stats().unique_keys == vk_sorted.build_stats().unique_keys);
      auto rx = RxIndex::build(test::context(), keys, values).value();
      test::check_lookups(rx.lookup(probes).value(), want, "RX index (CUB sort)");
    }
  }
}
