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

const workload::TpchScan& find(const std::vector<workload::TpchScan>& all, const char* query) {
  auto it = std::find_if(all.begin(), all.end(), [&](const auto& s) { return s.query == query; });
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
  REQUIRE(all.size() == 3);
  const auto& q3 = find(all, "Q3");
  const auto& q6 = find(all, "Q6");
  const auto& q17 = find(all, "Q17");
  // 15,000 orders of 1..7 lines each, on average 4.
  uint64_t lines = q6.columns[0].size();
  CHECK(lines > 15000 * 3.8);
  CHECK(lines < 15000 * 4.2);
  for (const auto& s : all) {
    CHECK(s.table == "lineitem");
    REQUIRE(s.columns.size() == 3);
    CHECK(s.column_names.size() == 3);
    CHECK(s.predicates.size() == 3);
    for (const auto& c : s.columns) CHECK(c.size() == lines);
    for (const auto& p : s.predicates) CHECK(p.column < s.columns.size());
  }
  // The joined columns: Q3's and Q6's ship dates and Q6's and Q17's quantities are the same lines.
  CHECK(q3.columns[0] == q6.columns[0]);
  CHECK(q17.columns[2] == q6.columns[2]);
  const uint32_t last_order = tpch_day(1998, 12, 31) - 151;
  std::vector<uint64_t> segment_count(5), discount_count(11), quantity_count(51);
  std::vector<uint64_t> brand_count(25), container_count(40);
  uint32_t first_date = ~0u, last_date = 0;
  for (uint64_t i = 0; i < lines; ++i) {
    uint32_t ship = q3.columns[0][i], order = q3.columns[1][i];
    REQUIRE(order <= last_order);
    REQUIRE(ship >= order + 1);
    REQUIRE(ship <= order + 121);
    first_date = std::min(first_date, order);
    last_date = std::max(last_date, order);
    REQUIRE(q3.columns[2][i] < 5);
    REQUIRE(q6.columns[1][i] <= 10);
    REQUIRE(q6.columns[2][i] >= 1);
    REQUIRE(q6.columns[2][i] <= 50);
    REQUIRE(q17.columns[0][i] < 25);
    REQUIRE(q17.columns[1][i] < 40);
    ++segment_count[q3.columns[2][i]];
    ++discount_count[q6.columns[1][i]];
    ++quantity_count[q6.columns[2][i]];
    ++brand_count[q17.columns[0][i]];
    ++container_count[q17.columns[1][i]];
  }
  // Uniform draws: every value near its share of the 60,000 lines. Lines of one order share a
  // customer, so segments vary as 15,000 draws; brands and containers as the 2,000 parts (50 to 80
  // per value, hence the wider bound).
  CHECK(first_date < 30);
  CHECK(last_date > last_order - 30);
  auto roughly_uniform = [&](const std::vector<uint64_t>& counts, size_t from, double tol) {
    double expect = double(lines) / double(counts.size() - from);
    for (size_t v = from; v < counts.size(); ++v) {
      CHECK(double(counts[v]) > expect * (1 - tol));
      CHECK(double(counts[v]) < expect * (1 + tol));
    }
  };
  roughly_uniform(segment_count, 0, 0.1);
  roughly_uniform(discount_count, 0, 0.1);
  roughly_uniform(quantity_count, 1, 0.15);
  roughly_uniform(brand_count, 0, 0.5);
  roughly_uniform(container_count, 0, 0.5);
  // The same seed gives the same data.
  CHECK(workload::tpch_scans(0.01, 7).value()[1].columns == q6.columns);
  CHECK(!workload::tpch_scans(0.0).ok());
  CHECK(!workload::tpch_scans(-1.0).ok());
}

TEST_CASE("tpch scans: the predicates select what the queries' SQL selects") {
  auto all = workload::tpch_scans(0.01, 7).value();
  // Q6: l_shipdate in 1994, l_discount in [0.05, 0.07], l_quantity < 24, counted directly.
  const auto& q6 = find(all, "Q6");
  uint64_t want = 0;
  for (size_t i = 0; i < q6.columns[0].size(); ++i)
    want += q6.columns[0][i] >= 731 && q6.columns[0][i] < 1096 && q6.columns[1][i] >= 5 &&
            q6.columns[1][i] <= 7 && q6.columns[2][i] < 24;
  CHECK(selected(q6) == want);
  // About 1.9% of LINEITEM (1/7 of the dates x 3/11 discounts x 23/50 quantities).
  double share = double(want) / double(q6.columns[0].size());
  CHECK(share > 0.01);
  CHECK(share < 0.03);
  // Q3: shipped after 1995-03-15 of an order placed before it, BUILDING (segment code 1).
  const auto& q3 = find(all, "Q3");
  const uint32_t day = tpch_day(1995, 3, 15);
  CHECK(q3.predicates[2].value == 1);
  want = 0;
  for (size_t i = 0; i < q3.columns[0].size(); ++i)
    want += q3.columns[0][i] > day && q3.columns[1][i] < day && q3.columns[2][i] == 1;
  CHECK(selected(q3) == want);
  CHECK(want > 0);
  // Q17: Brand#23 is brand code 7 (M = 2, N = 3), MED BOX the container code of that name in the
  // sorted list, quantity 1..5: about 1/25 x 1/40 x 5/50 of the lines.
  const auto& q17 = find(all, "Q17");
  CHECK(q17.predicates[0].value == 7);
  CHECK(q17.predicates[1].value == 17);  // after 8 JUMBO, 8 LG and MED BAG
  CHECK(q17.predicates[2].value == 6);
  want = 0;
  for (size_t i = 0; i < q17.columns[0].size(); ++i)
    want += q17.columns[0][i] == 7 && q17.columns[1][i] == q17.predicates[1].value &&
            q17.columns[2][i] < 6;
  CHECK(selected(q17) == want);
  CHECK(want < q17.columns[0].size() / 1000);
}
