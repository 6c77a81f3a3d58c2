// TPC-H columns and predicates for Q3, Q6 and Q17: the calendar, the specification's value ranges
// and row counts, and predicates that select what the SQL selects.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>

#include "raydb/scan.hpp"
#include "raydb/tpch_scans.hpp"
#include "support.hpp"

using namespace raydb;
using workload::tpch_day;

namespace {

uint64_t selected(const workload::TpchScan& s) {
  std::vector<std::span<const uint32_t>> cols(s.columns.begin(), s.columns.end());
  uint64_t n = 0;
  for (uint32_t w : full_scan_reference(cols, s.predicates)) n += std::popcount(w);
  return n;
}

const workload::TpchScan& find(const std::vector<workload::TpchScan>& all, const char* query,
                               const char* table) {
  auto it = std::find_if(all.begin(), all.end(),
                         [&](const auto& s) { return s.query == query && s.table == table; });
  REQUIRE(it != all.end());
  return *it;
}

}  // namespace

TEST_CASE("tpch scans: the calendar counts days from 1992-01-01") {
  CHECK(tpch_day(1992, 1, 1) == 0);
  CHECK(tpch_day(1992, 3, 1) == 60);  // 1992 is a leap year
  CHECK(tpch_day(1993, 1, 1) == 366);
  CHECK(tpch_day(1994, 1, 1) == 731);
  CHECK(tpch_day(1995, 1, 1) == 1096);
  CHECK(tpch_day(1995, 3, 15) == 1096 + 31 + 28 + 14);
  CHECK(tpch_day(1998, 12, 31) == 2556);  // the last day of the calendar
}

TEST_CASE("tpch scans: value ranges and row counts follow the specification") {
  auto all = workload::tpch_scans(0.01, 7).value();
  REQUIRE(all.size() == 5);
  const auto& q6 = find(all, "Q6", "lineitem");
  const auto& orders = find(all, "Q3", "orders");
  CHECK(orders.columns[0].size() == 15000);
  CHECK(find(all, "Q3", "customer").columns[0].size() == 1500);
  CHECK(find(all, "Q17", "part").columns[0].size() == 2000);
  uint64_t lines = q6.columns[0].size();
  CHECK(lines >= 15000);
  CHECK(lines <= 7 * 15000);
  CHECK(find(all, "Q3", "lineitem").columns[0] == q6.columns[0]);
  for (uint32_t d : orders.columns[0]) CHECK_LE(d, tpch_day(1998, 12, 31) - 151);
  for (uint32_t d : q6.columns[0]) CHECK_LE(d, tpch_day(1998, 12, 31) - 151 + 121);
  CHECK(*std::max_element(q6.columns[1].begin(), q6.columns[1].end()) <= 10);
  auto [qmin, qmax] = std::minmax_element(q6.columns[2].begin(), q6.columns[2].end());
  CHECK(*qmin >= 1);
  CHECK(*qmax <= 50);
  for (uint32_t c : find(all, "Q3", "customer").columns[0]) CHECK_LT(c, 5);
  for (uint32_t c : find(all, "Q17", "part").columns[0]) CHECK_LT(c, 25);
  for (uint32_t c : find(all, "Q17", "part").columns[1]) CHECK_LT(c, 40);
  for (const auto& s : all) {
    CHECK(s.columns.size() == s.column_names.size());
    for (const auto& p : s.predicates) CHECK(p.column < s.columns.size());
  }
  // The same seed gives the same data.
  CHECK(workload::tpch_scans(0.01, 7).value()[3].columns == q6.columns);
  CHECK(!workload::tpch_scans(0.0).ok());
  CHECK(!workload::tpch_scans(-1.0).ok());
}

TEST_CASE("tpch scans: the predicates select what the queries' SQL selects") {
  auto all = workload::tpch_scans(0.01, 7).value();
  // Q6: l_shipdate in 1994, l_discount in [0.05, 0.07], l_quantity < 24, counted directly.
  const auto& q6 = find(all, "Q6", "lineitem");
  uint64_t want = 0;
  for (size_t i = 0; i < q6.columns[0].size(); ++i)
    want += q6.columns[0][i] >= 731 && q6.columns[0][i] < 1096 && q6.columns[1][i] >= 5 &&
            q6.columns[1][i] <= 7 && q6.columns[2][i] < 24;
  CHECK(selected(q6) == want);
  // About 1.9% of LINEITEM (1/7 of the dates x 3/11 discounts x 23/50 quantities).
  double share = double(want) / double(q6.columns[0].size());
  CHECK(share > 0.01);
  CHECK(share < 0.03);
  // Q3 and Q17: BUILDING is segment code 1; Brand#23 is brand code 7; MED BOX is a MED container.
  const auto& customer = find(all, "Q3", "customer");
  CHECK(customer.predicates[0].value == 1);
  CHECK(selected(customer) ==
        uint64_t(std::count(customer.columns[0].begin(), customer.columns[0].end(), 1u)));
  const auto& part = find(all, "Q17", "part");
  CHECK(part.predicates[0].value == 7);
  CHECK(selected(find(all, "Q3", "orders")) > 0);
  CHECK(selected(find(all, "Q3", "lineitem")) > 0);
  CHECK(selected(part) < part.columns[0].size() / 100);
}
