// TPC-H columns for the scan predicates of Q3, Q6 and Q17, drawn as the specification's clause
// 4.2.3 describes, joined to LINEITEM, and the queries' substitution defaults (clause 2.4) as
// predicates.
#include "raydb/tpch_scans.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/capture.hpp"

namespace raydb::workload {

uint32_t tpch_day(int year, int month, int day) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  uint32_t d = 0;
  for (int y = 1992; y < year; ++y) d += y % 4 == 0 ? 366 : 365;
  for (int m = 1; m < month; ++m) d += kDays[m - 1] + (m == 2 && year % 4 == 0 ? 1 : 0);
  return d + static_cast<uint32_t>(day - 1);
}

namespace {

// The allowed string values, sorted, so a value's code is its rank.
std::vector<std::string> segments() {
  return {"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"};
}
std::vector<std::string> brands() {
  std::vector<std::string> b;
  for (int m = 1; m <= 5; ++m)
    for (int n = 1; n <= 5; ++n) b.push_back(fmt::format("Brand#{}{}", m, n));
  return b;
}
std::vector<std::string> containers() {
  std::vector<std::string> c;
  for (const char* s1 : {"SM", "LG", "MED", "JUMBO", "WRAP"})
    for (const char* s2 : {"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"})
      c.push_back(fmt::format("{} {}", s1, s2));
  std::sort(c.begin(), c.end());
  return c;
}
uint32_t code_of(const std::vector<std::string>& sorted, const std::string& v) {
  return static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
}

}  // namespace

Result<std::vector<TpchScan>> tpch_scans(double sf, uint64_t seed) {
  return detail::capture([&]() -> std::vector<TpchScan> {
    if (!(sf > 0.0) || !std::isfinite(sf) || sf * 6.0e6 * 7.0 / 4.0 > 4.0e9)
      throw Error(Errc::invalid_argument,
                  fmt::format("TPC-H scale factor {} (must be > 0 and keep LINEITEM below 2^32 "
                              "rows)",
                              sf));
    auto rows = [&](double base) { return std::max<uint64_t>(1, std::llround(base * sf)); };
    std::mt19937_64 rng(seed);
    auto uniform = [&](uint32_t lo, uint32_t hi) {  // inclusive
      return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    const uint32_t start = tpch_day(1992, 1, 1), last_order = tpch_day(1998, 12, 31) - 151;

    // The parent tables first: C_MKTSEGMENT per customer, P_BRAND and P_CONTAINER per part.
    auto segs = segments();
    auto br = brands(), co = containers();
    const uint64_t customers = rows(1.5e5), parts = rows(2.0e5);
    std::vector<uint32_t> mktsegment(customers), brand(parts), container(parts);
    for (auto& s : mktsegment) s = uniform(0, static_cast<uint32_t>(segs.size()) - 1);
    for (uint64_t p = 0; p < parts; ++p) {
      // P_BRAND = Brand#MN, M (P_MFGR's) and N uniform in 1..5: the code of the (M, N) pair.
      uint32_t m = uniform(1, 5), n = uniform(1, 5);  // drawn in this order: deterministic
      brand[p] = (m - 1) * 5 + (n - 1);
      container[p] = uniform(0, static_cast<uint32_t>(co.size()) - 1);
    }

    // ORDERS and LINEITEM: O_ORDERDATE uniform in [STARTDATE, ENDDATE - 151 days], O_CUSTKEY
    // uniform over the customer keys not divisible by 3 (a third of the customers have no
    // orders); 1..7 lines per order, each shipped 1..121 days after its order, L_DISCOUNT
    // 0.00..0.10, L_QUANTITY 1..50 and L_PARTKEY uniform. Each scan is one row per line with the
    // parent tables' columns joined to it, as the paper scanned three columns per query.
    TpchScan q3{"Q3", "lineitem", {"l_shipdate", "o_orderdate", "c_mktsegment"}, {{}, {}, {}}, {}};
    TpchScan q6{"Q6", "lineitem", {"l_shipdate", "l_discount", "l_quantity"}, {{}, {}, {}}, {}};
    TpchScan q17{"Q17", "lineitem", {"p_brand", "p_container", "l_quantity"}, {{}, {}, {}}, {}};
    const uint64_t orders = rows(1.5e6);
    for (auto* s : {&q3, &q6, &q17})
      for (auto& c : s->columns) c.reserve(orders * 4);
    for (uint64_t o = 0; o < orders; ++o) {
      uint32_t orderdate = uniform(start, last_order);
      uint64_t custkey;  // 1-based; key 1 always qualifies
      do custkey = std::uniform_int_distribution<uint64_t>(1, customers)(rng);
      while (custkey % 3 == 0);
      for (uint32_t l = 0, lines = uniform(1, 7); l < lines; ++l) {
        uint32_t shipdate = orderdate + uniform(1, 121);
        uint32_t discount = uniform(0, 10), quantity = uniform(1, 50);
        uint64_t part = std::uniform_int_distribution<uint64_t>(0, parts - 1)(rng);
        q3.columns[0].push_back(shipdate);
        q3.columns[1].push_back(orderdate);
        q3.columns[2].push_back(mktsegment[custkey - 1]);
        q6.columns[0].push_back(shipdate);
        q6.columns[1].push_back(discount);
        q6.columns[2].push_back(quantity);
        q17.columns[0].push_back(brand[part]);
        q17.columns[1].push_back(container[part]);
        q17.columns[2].push_back(quantity);
      }
    }

    // The queries' predicates with the specification's default substitution parameters (clause
    // 2.4), one per column as RTScan's query files hold. Q6: shipdate in [1994-01-01, 1995-01-01),
    // discount 0.06 +- 0.01. Q17's correlated subquery, l_quantity < 0.2 * avg(l_quantity) of the
    // part, is the paper's constant l_quantity < 6: with L_QUANTITY uniform in 1..50 the part's
    // average is about 25.5, 0.2 of it 5.1.
    q3.predicates = {{0, CompareOp::gt, tpch_day(1995, 3, 15), 0},
                     {1, CompareOp::lt, tpch_day(1995, 3, 15), 0},
                     {2, CompareOp::eq, code_of(segs, "BUILDING"), 0}};
    q6.predicates = {{0, CompareOp::between, tpch_day(1994, 1, 1), tpch_day(1995, 1, 1) - 1},
                     {1, CompareOp::between, 5, 7},
                     {2, CompareOp::lt, 24, 0}};
    q17.predicates = {{0, CompareOp::eq, code_of(br, "Brand#23"), 0},
                      {1, CompareOp::eq, code_of(co, "MED BOX"), 0},
                      {2, CompareOp::lt, 6, 0}};
    return {q3, q6, q17};
  });
}

}  // namespace raydb::workload
