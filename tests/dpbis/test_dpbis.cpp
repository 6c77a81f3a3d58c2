// DP-BIS against the CPU reference: skewed and small-range columns, values equal to bin borders
// and to query bounds, AND and OR.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "raydb/dpbis.hpp"
#include "raydb/scan.hpp"
#include "scan_data.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

// Random simple and compound queries (AND and OR) against the CPU reference. Row counts give
// every bitmap word count modulo 4 (the selections move 4 words at once, the tail word by word).
void check_queries(const DpBisOptions& options, std::initializer_list<size_t> row_counts,
                   int trials) {
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows : row_counts) {
    std::vector<std::vector<uint32_t>> data;
    for (int kind = 0; kind < 4; ++kind) data.push_back(test::column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    auto table = DpBisTable::build(test::context(), cols, options).value();
    for (uint32_t used : table.build_stats().bins_used) CHECK(used <= options.bins);
    if (rows > 1000 && options.bins >= 64)
      CHECK(table.build_stats().bins_used[2] <= 64);  // 64 distinct values: at most 64 bins
    for (int trial = 0; trial < trials; ++trial) {
      std::vector<Predicate> preds;
      for (int k = 0, n = 1 + trial % 3; k < n; ++k) {
        Predicate p;
        p.column = static_cast<uint32_t>(rng() % 4);
        p.op = static_cast<CompareOp>(rng() % 6);
        // Constants taken from the data land on values, bin borders included.
        p.value = rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
        p.value2 = rng() % 4 ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
        preds.push_back(p);
      }
      for (Combine combine : {Combine::all, Combine::any}) {
        CAPTURE(rows);
        CAPTURE(options.bins);
        CAPTURE(options.sieve_vectors);
        CAPTURE(static_cast<int>(options.refine));
        CAPTURE(trial);
        auto got = table.select(preds, combine).value().words().value();
        test::check_equal_whole(got, test::reference(cols, preds, combine, rows), "dpbis bitmap");
      }
    }
  }
}

}  // namespace

// Both refinements: the scattered atomics after the selection, and the selection pass that
// decides the boundary rows itself from the values in row order or clustered by bin.
const Refine kRefines[] = {Refine::scatter, Refine::in_select};

TEST_CASE("dpbis: simple and compound range queries equal the CPU reference") {
  test::ValidationGuard guard;
  for (Refine refine : kRefines) {
    DpBisOptions options;
    options.refine = refine;
    check_queries(options, {1, 1000, 100003}, 40);
    check_queries(options, {33, 129, 2000}, 10);  // 2, 5 and 63 bitmap words
    for (uint32_t bins : {2u, 3u, 128u}) {        // fewer bins: runs and tiles of other lengths
      options.bins = bins;
      check_queries(options, {129, 100003}, 8);
    }
  }
}

TEST_CASE("dpbis: sieving vectors answer as the codes do") {
  test::ValidationGuard guard;
  for (Refine refine : kRefines)
    for (uint32_t bins : {2u, 3u, 128u, 256u}) {
      DpBisOptions sieve{bins, true};
      sieve.refine = refine;
      check_queries(sieve, {1, 33, 129, 2000, 100003}, 8);
    }
}

TEST_CASE("dpbis: in_select counts its boundary rows and refuses the pass diagnostics") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  size_t rows = 20011;
  std::vector<uint32_t> data = test::column(rng, rows, 0);
  std::vector<std::span<const uint32_t>> cols = {data};
  for (bool sieve : {false, true}) {
    CAPTURE(sieve);
    DpBisOptions scatter{128, sieve}, in_select{128, sieve};
    in_select.refine = Refine::in_select;
    auto a = DpBisTable::build(test::context(), cols, scatter).value();
    auto b = DpBisTable::build(test::context(), cols, in_select).value();
    // 4 bytes a row: the values in row order, or for the sieve and in CUDA clustered by bin, which
    // also keeps each 4096-row tile's offset in each of the 128 bins.
    const bool clustered = sieve || b.backend() == Backend::cuda;
    const size_t offsets = clustered ? 128 * ((rows + 4095) / 4096) * 4 : 0;
    CHECK(b.build_stats().index_bytes == a.build_stats().index_bytes + rows * 4 + offsets);
    std::vector<Predicate> preds{{0, CompareOp::between, data[rows / 3], data[rows / 2]}};
    if (preds[0].value > preds[0].value2) std::swap(preds[0].value, preds[0].value2);
    auto want = test::reference(cols, preds, Combine::all, rows);
    test::check_equal_whole(a.select(preds).value().words().value(), want, "scatter");
    test::check_equal_whole(b.select(preds).value().words().value(), want, "in_select");
    // The same boundary bins are decided, both bins refined.
    CHECK(b.last_stats().candidates == a.last_stats().candidates);
    REQUIRE(b.last_stats().candidates > 0);
    b.set_diagnostic(DpBisDiagnostic::select_only);
    auto refused = b.select(preds);
    REQUIRE(!refused.ok());
    CHECK(std::string(refused.error().what()).find("in_select") != std::string::npos);
  }
}

TEST_CASE("dpbis: a diagnostic runs the selection or the refinement alone") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  size_t rows = 20011;
  std::vector<uint32_t> data = test::column(rng, rows, 0);
  std::vector<std::span<const uint32_t>> cols = {data};
  for (bool sieve : {false, true}) {
    CAPTURE(sieve);
    auto table = DpBisTable::build(test::context(), cols, {128, sieve}).value();
    // Bounds inside the data: both boundary bins are refined.
    std::vector<Predicate> preds{{0, CompareOp::between, data[rows / 3], data[rows / 2]}};
    if (preds[0].value > preds[0].value2) std::swap(preds[0].value, preds[0].value2);
    auto want = test::reference(cols, preds, Combine::all, rows);
    auto full = table.select(preds).value().words().value();
    test::check_equal_whole(full, want, "all passes");
    DpBisQueryStats all = table.last_stats();
    REQUIRE(all.candidates > 0);

    table.set_diagnostic(DpBisDiagnostic::select_only);
    auto inner = table.select(preds).value().words().value();
    DpBisQueryStats select_only = table.last_stats();
    CHECK(select_only.candidates == 0);
    CHECK(select_only.bytes == all.bytes - all.candidates * 8);
    // The inner bins alone: a subset of the answer, and short of it by boundary rows only.
    uint64_t missing = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK((inner[i] & ~want[i]) == 0u);
      missing += static_cast<uint64_t>(__builtin_popcount(want[i] & ~inner[i]));
    }
    CHECK(missing > 0);
    CHECK(missing <= all.candidates);

    table.set_diagnostic(DpBisDiagnostic::refine_only);
    REQUIRE(table.select(preds).ok());
    CHECK(table.last_stats().candidates == all.candidates);
    CHECK(table.last_stats().bytes == all.candidates * 8);

    table.set_diagnostic(DpBisDiagnostic::none);
    test::check_equal_whole(table.select(preds).value().words().value(), want, "passes restored");
  }
}

TEST_CASE("dpbis: no predicates, empty table and bad input") {
  test::ValidationGuard guard;
  std::vector<uint32_t> a = {3, 1, 2, 3, 3};
  std::vector<std::span<const uint32_t>> cols = {a};
  auto table = DpBisTable::build(test::context(), cols).value();
  CHECK(table.select({}, Combine::all).value().count().value() == 5);
  CHECK(table.select({}, Combine::any).value().count().value() == 0);
  CHECK(table.select(std::vector<Predicate>{{0, CompareOp::eq, 3}}).value().count().value() == 3);
  auto bad = table.select(std::vector<Predicate>{{1, CompareOp::eq, 3}});
  REQUIRE(!bad.ok());
  CHECK(std::string(bad.error().what()).find("column 1") != std::string::npos);
  DpBisOptions one_bin{1, false};
  CHECK(DpBisTable::build(test::context(), cols, one_bin).error().code() == Errc::invalid_argument);
  std::vector<uint32_t> b = {1};
  std::vector<std::span<const uint32_t>> uneven = {a, b};
  CHECK(DpBisTable::build(test::context(), uneven).error().code() == Errc::invalid_argument);
  std::vector<uint32_t> none;
  std::vector<std::span<const uint32_t>> empty = {none};
  auto e = DpBisTable::build(test::context(), empty).value();
  CHECK(e.select(std::vector<Predicate>{{0, CompareOp::ge, 0}}).value().count().value() == 0);
}

TEST_CASE("dpbis: a lower bound at the column's smallest value refines no lower bin") {
  test::ValidationGuard guard;
  // 0 .. rows - 1 shuffled: 128 bins of 100 rows each, bin b holding 100 b .. 100 b + 99.
  constexpr uint32_t kBins = 128, kPerBin = 100, kRows = kBins * kPerBin;
  std::vector<uint32_t> data(kRows);
  for (uint32_t i = 0; i < kRows; ++i) data[i] = i;
  std::shuffle(data.begin(), data.end(), std::mt19937_64(test::fresh_seed()));
  std::vector<std::span<const uint32_t>> cols = {data};
  struct Case {
    Predicate p;
    uint64_t candidates;  // rows of the bins refined
  };
  const Case cases[] = {
      {{0, CompareOp::lt, 550, 0}, kPerBin},             // [0, 549]: bin 5 only
      {{0, CompareOp::between, 0, 549}, kPerBin},        // the same interval
      {{0, CompareOp::le, 50, 0}, kPerBin},              // [0, 50]: inside bin 0
      {{0, CompareOp::between, 1, 549}, 2 * kPerBin},    // row 0 fails: bin 0 refined too
      {{0, CompareOp::between, 100, 549}, 2 * kPerBin},  // bin 1's first value: refined
      {{0, CompareOp::ge, 12345, 0}, 2 * kPerBin}};      // [12345, max]: bins 123 and 127
  for (bool sieve : {false, true}) {
    for (Refine refine : kRefines) {
      DpBisOptions options{kBins, sieve};
      options.refine = refine;
      auto table = DpBisTable::build(test::context(), cols, options).value();
      REQUIRE(table.build_stats().bins_used[0] == kBins);
      for (const Case& c : cases) {
        CAPTURE(sieve);
        CAPTURE(static_cast<int>(refine));
        CAPTURE(static_cast<int>(c.p.op));
        CAPTURE(c.p.value);
        std::vector<Predicate> preds{c.p};
        test::check_equal_whole(table.select(preds).value().words().value(),
                                test::reference(cols, preds, Combine::all, kRows), "dpbis bitmap");
        CHECK(table.last_stats().candidates == c.candidates);
      }
    }
  }
}
