// CpuBinDex (the BinDex-style scan on the CPU) against the plain reference scan: skewed and
// small-range columns, bounds on values and bin borders, AND and OR, one and several threads.
#include <doctest/doctest.h>

#include <random>

#include "raydb/cpu_bindex.hpp"
#include "scan_data.hpp"
#include "support.hpp"

using namespace raydb;

TEST_CASE("cpu bindex: selections equal the reference scan") {
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows :
       {size_t{0}, size_t{1}, size_t{31}, size_t{32}, size_t{33}, size_t{1000}, size_t{100003}}) {
    std::vector<std::vector<uint32_t>> data;
    for (int kind = 0; kind < 4; ++kind) data.push_back(test::column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    for (uint32_t bins : {2u, 7u, 128u}) {
      for (unsigned threads : {1u, 4u}) {
        auto index = CpuBinDex::build(cols, {bins, threads}).value();
        CHECK(index.rows() == rows);
        for (uint32_t used : index.build_stats().bins_used) CHECK(used <= bins);
        for (int trial = 0; trial < 30; ++trial) {
          std::vector<Predicate> preds;
          for (int k = 0, n = trial % 4; k < n; ++k) {  // 0 to 3 predicates
            Predicate p;
            p.column = static_cast<uint32_t>(rng() % 4);
            p.op = static_cast<CompareOp>(rng() % 6);
            bool from_data = rows > 0 && rng() % 4 != 0;
            p.value = from_data ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
            p.value2 = from_data ? data[p.column][rng() % rows] : static_cast<uint32_t>(rng());
            preds.push_back(p);
          }
          for (Combine combine : {Combine::all, Combine::any}) {
            CAPTURE(rows);
            CAPTURE(bins);
            CAPTURE(trial);
            CpuBinDexQueryStats stats;
            auto got = index.select(preds, combine, &stats).value();
            test::check_equal_whole(got, test::reference(cols, preds, combine, rows),
                                    "cpu bindex bitmap");
            CHECK(stats.candidates <= 2 * preds.size() * rows);
          }
        }
      }
    }
  }
}

TEST_CASE("cpu bindex: bad input gets a clear error") {
  std::vector<uint32_t> a{1, 2, 3}, b{1, 2};
  std::vector<std::span<const uint32_t>> uneven{a, b};
  auto r = CpuBinDex::build(uneven);
  REQUIRE(!r.ok());
  CHECK(r.error().code() == Errc::invalid_argument);
  CHECK(std::string(r.error().what()).find("column 1") != std::string::npos);

  std::vector<std::span<const uint32_t>> one{a};
  auto bad_bins = CpuBinDex::build(one, {1, 0});
  REQUIRE(!bad_bins.ok());
  CHECK(bad_bins.error().code() == Errc::invalid_argument);

  auto index = CpuBinDex::build(one).value();
  std::vector<Predicate> off{{1, CompareOp::lt, 5, 0}};
  auto q = index.select(off);
  REQUIRE(!q.ok());
  CHECK(q.error().code() == Errc::invalid_argument);
}
