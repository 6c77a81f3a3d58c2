// The SSB queries' names and SQL text, and the shell-like printing of a result table.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/capture.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb {

namespace {

constexpr const char* kLineorderDate = "from lineorder, date where lo_orderdate = d_datekey";
constexpr const char* kQ2 =
    "select sum(lo_revenue) as revenue, d_year, p_brand1 from lineorder, date, part, supplier "
    "where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey and {} "
    "group by d_year, p_brand1 order by d_year, p_brand1";
constexpr const char* kQ3 =
    "select {0}, d_year, sum(lo_revenue) as revenue from customer, lineorder, supplier, date "
    "where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey and {1} "
    "group by {0}, d_year order by d_year asc, revenue desc, {0}";
constexpr const char* kQ4 =
    "select {0}, sum(lo_revenue - lo_supplycost) as profit from date, customer, supplier, part, "
    "lineorder where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey "
    "and lo_orderdate = d_datekey and {1} group by {0} order by {0}";
constexpr const char* kUkCities =
    "(c_city = 'UNITED KI1' or c_city = 'UNITED KI5') and (s_city = 'UNITED KI1' or s_city = "
    "'UNITED KI5')";

struct Query {
  const char* name;
  std::string sql;
};

const std::vector<Query>& queries() {
  static const std::vector<Query> q = {
      {"1.1", fmt::format("select sum(lo_extendedprice * lo_discount) as revenue {} and d_year = "
                          "1993 and lo_discount between 1 and 3 and lo_quantity < 25",
                          kLineorderDate)},
      {"1.2", fmt::format("select sum(lo_extendedprice * lo_discount) as revenue {} and "
                          "d_yearmonthnum = 199401 and lo_discount between 4 and 6 and "
                          "lo_quantity between 26 and 35",
                          kLineorderDate)},
      {"1.3", fmt::format("select sum(lo_extendedprice * lo_discount) as revenue {} and "
                          "d_weeknuminyear = 6 and d_year = 1994 and lo_discount between 5 and 7 "
                          "and lo_quantity between 26 and 35",
                          kLineorderDate)},
      {"2.1", fmt::format(kQ2, "p_category = 'MFGR#12' and s_region = 'AMERICA'")},
      {"2.2",
       fmt::format(kQ2, "p_brand1 between 'MFGR#2221' and 'MFGR#2228' and s_region = 'ASIA'")},
      {"2.3", fmt::format(kQ2, "p_brand1 = 'MFGR#2221' and s_region = 'EUROPE'")},
      {"3.1", fmt::format(kQ3, "c_nation, s_nation",
                          "c_region = 'ASIA' and s_region = 'ASIA' and d_year >= 1992 and d_year "
                          "<= 1997")},
      {"3.2", fmt::format(kQ3, "c_city, s_city",
                          "c_nation = 'UNITED STATES' and s_nation = 'UNITED STATES' and d_year "
                          ">= 1992 and d_year <= 1997")},
      {"3.3", fmt::format(kQ3, "c_city, s_city",
                          fmt::format("{} and d_year >= 1992 and d_year <= 1997", kUkCities))},
      {"3.4", fmt::format(kQ3, "c_city, s_city",
                          fmt::format("{} and d_yearmonth = 'Dec1997'", kUkCities))},
      {"4.1", fmt::format(kQ4, "d_year, c_nation",
                          "c_region = 'AMERICA' and s_region = 'AMERICA' and (p_mfgr = 'MFGR#1' "
                          "or p_mfgr = 'MFGR#2')")},
      {"4.2", fmt::format(kQ4, "d_year, s_nation, p_category",
                          "c_region = 'AMERICA' and s_region = 'AMERICA' and (d_year = 1997 or "
                          "d_year = 1998) and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')")},
      {"4.3", fmt::format(kQ4, "d_year, s_city, p_brand1",
                          "c_region = 'AMERICA' and s_nation = 'UNITED STATES' and (d_year = "
                          "1997 or d_year = 1998) and p_category = 'MFGR#14'")},
  };
  return q;
}

}  // namespace

const std::vector<std::string>& query_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& q : queries()) n.emplace_back(q.name);
    return n;
  }();
  return names;
}

Result<std::string> canonical_query_name(std::string_view name) {
  return detail::capture([&] {
    std::string_view n = name;
    if (!n.empty() && (n[0] == 'Q' || n[0] == 'q')) n.remove_prefix(1);
    for (const auto& q : queries())
      if (n == q.name) return std::string(q.name);
    throw Error(Errc::invalid_argument, fmt::format("unknown SSB query '{}'; the queries are {}",
                                                    name, fmt::join(query_names(), ", ")));
  });
}

Result<std::string> query_sql(std::string_view name) {
  return detail::capture([&] {
    std::string n = canonical_query_name(name).value();
    for (const auto& q : queries())
      if (n == q.name) return q.sql;
    throw Error(Errc::internal, "query list out of step");
  });
}

std::string ResultTable::format() const {
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], r[c].size());
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c)
      out += fmt::format("{}{:<{}}", c ? " | " : "", cells[c], width[c]);
    out += '\n';
  };
  line(columns);
  for (size_t c = 0; c < columns.size(); ++c)
    out += fmt::format("{}{}", c ? "-+-" : "", std::string(width[c], '-'));
  out += '\n';
  for (const auto& r : rows) line(r);
  out += fmt::format("({} row{})\n", rows.size(), rows.size() == 1 ? "" : "s");
  return out;
}

}  // namespace raydb::ssb
