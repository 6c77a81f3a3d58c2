// TPC-H columns for the scan predicates of Q3, Q6 and Q17, drawn as the specification's clause
// 4.2.3 describes, and the queries' substitution defaults (clause 2.4) as predicates.
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

    // ORDERS and LINEITEM: o_orderdate uniform; each order has 1..7 lines shipped 1..121 days
    // after it; l_discount 0.00..0.10 and l_quantity 1..50 uniform.
    TpchScan q3_orders{"Q3", "orders", {"o_orderdate"}, {{}}, {}};
    TpchScan q3_lineitem{"Q3", "lineitem", {"l_shipdate"}, {{}}, {}};
    TpchScan q6{"Q6", "lineitem", {"l_shipdate", "l_discount", "l_quantity"}, {{}, {}, {}}, {}};
    for (uint64_t o = 0, n = rows(1.5e6); o < n; ++o) {
      uint32_t orderdate = uniform(start, last_order);
      q3_orders.columns[0].push_back(orderdate);
      for (uint32_t l = 0, lines = uniform(1, 7); l < lines; ++l) {
        uint32_t shipdate = orderdate + uniform(1, 121);
        q6.columns[0].push_back(shipdate);
        q6.columns[1].push_back(uniform(0, 10));
        q6.columns[2].push_back(uniform(1, 50));
      }
    }
    q3_lineitem.columns[0] = q6.columns[0];

    TpchScan q3_customer{"Q3", "customer", {"c_mktsegment"}, {{}}, {}};
    auto segs = segments();
    for (uint64_t c = 0, n = rows(1.5e5); c < n; ++c)
      q3_customer.columns[0].push_back(uniform(0, static_cast<uint32_t>(segs.size()) - 1));

    TpchScan q17{"Q17", "part", {"p_brand", "p_container"}, {{}, {}}, {}};
    auto br = brands(), co = containers();
    for (uint64_t p = 0, n = rows(2.0e5); p < n; ++p) {
      // P_BRAND = Brand#MN with M and N uniform in 1..5: the code of the (M, N) pair.
      uint32_t m = uniform(1, 5), n2 = uniform(1, 5);  // drawn in this order: deterministic
      q17.columns[0].push_back((m - 1) * 5 + (n2 - 1));
      q17.columns[1].push_back(uniform(0, static_cast<uint32_t>(co.size()) - 1));
    }

    // The queries' predicates with the specification's default substitution parameters.
    // One predicate per column, as RTScan's query files hold: shipdate in [1994-01-01, 1995-01-01).
    q6.predicates = {{0, CompareOp::between, tpch_day(1994, 1, 1), tpch_day(1995, 1, 1) - 1},
                     {1, CompareOp::between, 5, 7},
                     {2, CompareOp::lt, 24, 0}};
    q3_customer.predicates = {{0, CompareOp::eq, code_of(segs, "BUILDING"), 0}};
    q3_orders.predicates = {{0, CompareOp::lt, tpch_day(1995, 3, 15), 0}};
    q3_lineitem.predicates = {{0, CompareOp::gt, tpch_day(1995, 3, 15), 0}};
    q17.predicates = {{0, CompareOp::eq, code_of(br, "Brand#23"), 0},
                      {1, CompareOp::eq, code_of(co, "MED BOX"), 0}};
    return {q3_customer, q3_orders, q3_lineitem, q6, q17};
  });
}

}  // namespace raydb::workload
