// DP-BIS against the CPU reference: skewed and small-range columns, values equal to bin borders
// and to query bounds, AND and OR.
#include <doctest/doctest.h>

#include <random>

#include "raydb/dpbis.hpp"
#include "raydb/scan.hpp"
#include "scan_data.hpp"
#include "support.hpp"

using namespace raydb;

TEST_CASE("dpbis: simple and compound range queries equal the CPU reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows : {size_t{1}, size_t{1000}, size_t{100003}}) {
    std::vector<std::vector<uint32_t>> data;
    for (int kind = 0; kind < 4; ++kind) data.push_back(test::column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    auto table = DpBisTable::build(test::context(), cols).value();
    for (uint32_t used : table.build_stats().bins_used) CHECK(used <= 256);
    if (rows > 1000)
      CHECK(table.build_stats().bins_used[2] <= 64);  // 64 distinct values: at most 64 bins
    for (int trial = 0; trial < 40; ++trial) {
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
        CAPTURE(trial);
        auto got = table.select(preds, combine).value().words().value();
        test::check_equal_whole(got, test::reference(cols, preds, combine, rows), "dpbis bitmap");
      }
    }
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
