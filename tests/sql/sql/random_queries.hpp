// Differential testing of the SQL engine: random queries of the RTCUDB class over a star schema
// (values drawn from the loaded data, so most filters select something), and a second generated
// star schema of another shape (retail: three dimensions plus a date dimension; text, decimals,
// dates, skewed keys).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace raydb::sql::test {

enum class Kind { integer, decimal, text, date };

struct RandColumn {
  std::string name;
  Kind kind;
  std::vector<std::string> samples;  // literal text of values present in the data
  bool groupable = true;             // few distinct values
  bool measure = false;              // a fact column aggregates may read
};

struct RandTable {
  std::string name;
  std::string join;  // "fact_column = dim_key" (dimensions only)
  std::vector<RandColumn> columns;
};

struct RandSchema {
  RandTable fact;
  std::vector<RandTable> dims;
};

inline std::string literal(const RandColumn& c, const std::string& v) {
  return c.kind == Kind::text || c.kind == Kind::date ? "'" + v + "'" : v;
}

// One random query of the class.
inline std::string random_query(const RandSchema& s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  std::vector<const RandTable*> tables = {&s.fact};
  std::vector<std::string> joins;
  for (const RandTable& d : s.dims)
    if (chance(0.6)) {
      tables.push_back(&d);
      joins.push_back(d.join);
    }
  std::vector<const RandColumn*> attrs;
  for (const RandTable* t : tables)
    for (const RandColumn& c : t->columns) attrs.push_back(&c);
  std::vector<std::string> where = joins;
  std::set<const RandColumn*> filtered;
  size_t nf = pick(4);
  for (size_t i = 0; i < nf; ++i) {
    const RandColumn& c = *attrs[pick(attrs.size())];
    if (c.samples.empty() || filtered.count(&c)) continue;
    filtered.insert(&c);
    auto v = [&] { return literal(c, c.samples[pick(c.samples.size())]); };
    static const char* kOps[] = {"=", "<>", "<", "<=", ">", ">="};
    switch (pick(5)) {
      case 0:
        where.push_back(fmt::format("{} {} {}", c.name, kOps[pick(6)], v()));
        break;
      case 1: {
        std::string a = c.samples[pick(c.samples.size())], b = c.samples[pick(c.samples.size())];
        if (c.kind == Kind::integer || c.kind == Kind::decimal) {
          if (std::stod(a) > std::stod(b)) std::swap(a, b);
        } else if (a > b) {
          std::swap(a, b);
        }
        where.push_back(fmt::format("{} between {} and {}", c.name, literal(c, a), literal(c, b)));
        break;
      }
      case 2: {
        std::string in = v();
        for (size_t k = pick(3); k-- > 0;) in += ", " + v();
        where.push_back(fmt::format("{} in ({})", c.name, in));
        break;
      }
      case 3:
        where.push_back(fmt::format("({} = {} or {} = {})", c.name, v(), c.name, v()));
        break;
      default:
        where.push_back(fmt::format("({} < {} or {} >= {})", c.name, v(), c.name, v()));
        break;
    }
  }
  std::vector<const RandColumn*> group;
  size_t ng = pick(4);
  for (size_t i = 0; i < ng; ++i) {
    const RandColumn* c = attrs[pick(attrs.size())];
    if (c->groupable && std::find(group.begin(), group.end(), c) == group.end()) group.push_back(c);
  }
  std::vector<const RandColumn*> measures;
  for (const RandColumn& c : s.fact.columns)
    if (c.measure) measures.push_back(&c);
  // Whether SQLite computes some aggregate inexactly: AVG, or decimals (REAL in SQLite, so sums
  // and products round, and equal groups can come out unequal and ordered either way).
  bool sqlite_inexact = false;
  auto expr = [&]() -> std::string {
    const RandColumn& a = *measures[pick(measures.size())];
    const RandColumn& b = *measures[pick(measures.size())];
    size_t shape = pick(5);
    bool reads_b = shape == 0 || shape == 1 || shape == 3;
    sqlite_inexact |= a.kind == Kind::decimal || (reads_b && b.kind == Kind::decimal);
    switch (shape) {
      case 0:
        return fmt::format("{}*{}", a.name, b.name);
      case 1:
        return fmt::format("{} - {}", a.name, b.name);
      case 2:
        return fmt::format("{} + {}", a.name, pick(100));
      case 3:
        return fmt::format("{} * 2 - {}", a.name, b.name);
      default:
        return a.name;
    }
  };
  static const char* kFuncs[] = {"sum", "count", "min", "max", "avg"};
  std::vector<std::string> aggs;
  for (size_t n = 1 + pick(3); aggs.size() < n;) {
    size_t f = pick(6);
    if (f == 5) {
      aggs.push_back("count(*)");
      continue;
    }
    bool before = sqlite_inexact;
    std::string e = expr();
    if (f == 1) sqlite_inexact = before;  // a count reads no value
    sqlite_inexact |= f == 4;             // AVG divides in floating point
    aggs.push_back(fmt::format("{}({})", kFuncs[f], e));
  }
  std::vector<std::string> outputs;
  for (const RandColumn* c : group) outputs.push_back(c->name);
  for (const std::string& a : aggs) outputs.push_back(a);
  std::shuffle(outputs.begin(), outputs.end(), rng);
  std::string tl;
  for (const RandTable* t : tables) tl += (tl.empty() ? "" : ", ") + t->name;
  std::string sql = "select ";
  for (size_t i = 0; i < outputs.size(); ++i) sql += (i ? ", " : "") + outputs[i];
  sql += " from " + tl;
  for (size_t i = 0; i < where.size(); ++i) sql += (i ? " and " : " where ") + where[i];
  if (!group.empty()) {
    sql += " group by ";
    for (size_t i = 0; i < group.size(); ++i) sql += (i ? ", " : "") + group[i]->name;
  }
  if (chance(0.2)) sql += fmt::format(" having count(*) > {}", pick(4));
  // Every output column in the ORDER BY: the order is total, so SQLite's is the same.
  if (!group.empty() || chance(0.5)) {
    std::vector<size_t> order(outputs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i + 1;
    std::shuffle(order.begin(), order.end(), rng);
    sql += " order by ";
    for (size_t i = 0; i < order.size(); ++i)
      sql += fmt::format("{}{}{}", i ? ", " : "", order[i], chance(0.3) ? " desc" : "");
    // A LIMIT cuts SQLite's order, which ties that SQLite rounds apart would decide: only over
    // exact values (the same draws either way, so a seed's other queries stay the same).
    if (chance(0.3)) {
      size_t n = pick(20);
      if (!sqlite_inexact) sql += fmt::format(" limit {}", n);
    }
  }
  return sql;
}

// The retail star schema: DDL, and its data files written to `dir` (a skewed product key).
inline std::string retail_ddl() {
  return "CREATE TABLE store (st_id INTEGER PRIMARY KEY, st_city VARCHAR(20), st_region TEXT, "
         "st_size INTEGER);\n"
         "CREATE TABLE product (pr_id INTEGER PRIMARY KEY, pr_category TEXT, pr_brand TEXT, "
         "pr_price DECIMAL(8,2));\n"
         "CREATE TABLE shopper (sh_id INTEGER PRIMARY KEY, sh_segment TEXT, sh_age INTEGER);\n"
         "CREATE TABLE day (dy_date DATE PRIMARY KEY, dy_year INTEGER, dy_month INTEGER, "
         "dy_weekday TEXT);\n"
         "CREATE TABLE sales (sa_id INTEGER, sa_store INTEGER REFERENCES store (st_id), "
         "sa_product INTEGER REFERENCES product (pr_id), sa_shopper INTEGER REFERENCES shopper, "
         "sa_date DATE REFERENCES day (dy_date), sa_qty INTEGER, sa_amount DECIMAL(10,2), "
         "sa_discount DECIMAL(4,2));\n";
}

inline RandSchema write_retail(const std::filesystem::path& dir, uint64_t seed, int fact_rows) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  static const char* kCities[] = {"Lyon", "Osaka", "Porto", "Quito", "Accra", "Perth", "Oslo"};
  static const char* kRegions[] = {"EU", "ASIA", "AMERICA", "AFRICA", "OCEANIA"};
  static const char* kCats[] = {"food", "tools", "toys", "garden", "books"};
  static const char* kSegs[] = {"retail", "business", "student"};
  static const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  RandSchema s;
  std::vector<std::string> dates;
  {
    std::ofstream f(dir / "store.tbl");
    for (int i = 1; i <= 30; ++i)
      f << fmt::format("{}|{}|{}|{}|\n", i, kCities[pick(7)], kRegions[pick(5)], 10 + pick(90));
    std::ofstream p(dir / "product.csv");
    p << "pr_id,pr_category,pr_brand,pr_price\n";
    for (int i = 1; i <= 200; ++i)
      p << fmt::format("{},{},B{:02},{}.{:02}\n", i, kCats[pick(5)], pick(40), pick(500),
                       pick(100));
    std::ofstream h(dir / "shopper.tbl");
    for (int i = 1; i <= 100; ++i)
      h << fmt::format("{}|{}|{}|\n", i, kSegs[pick(3)], 18 + pick(60));
    std::ofstream d(dir / "day.csv");
    d << "dy_date,dy_year,dy_month,dy_weekday\n";
    for (int y = 2020, k = 0; y <= 2022; ++y)
      for (int m = 1; m <= 12; ++m)
        for (int dd = 1; dd <= 28; dd += 3, ++k) {
          dates.push_back(fmt::format("{}-{:02}-{:02}", y, m, dd));
          d << fmt::format("{},{},{},{}\n", dates.back(), y, m, kDays[k % 7]);
        }
    std::ofstream sa(dir / "sales.tbl");
    for (int i = 1; i <= fact_rows; ++i) {
      double u = std::uniform_real_distribution<double>(0, 1)(rng);
      int product = 1 + static_cast<int>(199 * u * u * u);  // skewed toward the first products
      sa << fmt::format("{}|{}|{}|{}|{}|{}|{}.{:02}|0.{:02}|\n", i, 1 + pick(30), product,
                        1 + pick(100), dates[size_t(pick(int(dates.size())))], 1 + pick(20),
                        pick(2000), pick(100), pick(30));
    }
  }
  auto col = [](std::string n, Kind k, std::vector<std::string> samples, bool groupable,
                bool measure = false) {
    return RandColumn{std::move(n), k, std::move(samples), groupable, measure};
  };
  std::vector<std::string> cities(std::begin(kCities), std::end(kCities));
  std::vector<std::string> regions(std::begin(kRegions), std::end(kRegions));
  std::vector<std::string> cats(std::begin(kCats), std::end(kCats));
  std::vector<std::string> segs(std::begin(kSegs), std::end(kSegs));
  std::vector<std::string> days(std::begin(kDays), std::end(kDays));
  std::vector<std::string> some_dates;
  for (size_t i = 0; i < dates.size(); i += 17) some_dates.push_back(dates[i]);
  s.fact = {"sales",
            "",
            {col("sa_qty", Kind::integer, {"1", "5", "10", "15", "20"}, true, true),
             col("sa_amount", Kind::decimal, {"0.50", "100.25", "999.99", "1500.00"}, false, true),
             col("sa_discount", Kind::decimal, {"0.05", "0.10", "0.2"}, true, true),
             col("sa_date", Kind::date, some_dates, false)}};
  s.dims = {
      {"store",
       "sa_store = st_id",
       {col("st_city", Kind::text, cities, true), col("st_region", Kind::text, regions, true),
        col("st_size", Kind::integer, {"20", "50", "80"}, true)}},
      {"product",
       "sa_product = pr_id",
       {col("pr_category", Kind::text, cats, true),
        col("pr_brand", Kind::text, {"B01", "B10", "B20", "B39"}, true),
        col("pr_price", Kind::decimal, {"10.5", "100", "250.25", "499.99"}, false)}},
      {"shopper",
       "sa_shopper = sh_id",
       {col("sh_segment", Kind::text, segs, true),
        col("sh_age", Kind::integer, {"20", "40", "60"}, true)}},
      {"day",
       "sa_date = dy_date",
       {col("dy_year", Kind::integer, {"2020", "2021", "2022"}, true),
        col("dy_month", Kind::integer, {"1", "6", "12"}, true),
        col("dy_weekday", Kind::text, days, true), col("dy_date", Kind::date, some_dates, false)}},
  };
  return s;
}

// The SSB schema's query columns for the generator (values as in raydb's generator and dbgen).
inline RandSchema ssb_random_schema() {
  auto col = [](std::string n, Kind k, std::vector<std::string> samples, bool groupable,
                bool measure = false) {
    return RandColumn{std::move(n), k, std::move(samples), groupable, measure};
  };
  RandSchema s;
  s.fact = {"lineorder",
            "",
            {col("lo_quantity", Kind::integer, {"1", "10", "25", "35", "50"}, true, true),
             col("lo_discount", Kind::integer, {"0", "2", "5", "8", "10"}, true, true),
             col("lo_extendedprice", Kind::integer, {"100000", "2000000"}, false, true),
             col("lo_revenue", Kind::integer, {"100000", "3000000"}, false, true),
             col("lo_supplycost", Kind::integer, {"60000", "100000"}, false, true),
             col("lo_shipmode", Kind::text, {"AIR", "MAIL", "RAIL", "SHIP", "TRUCK"}, true)}},
  s.dims = {
      {"date",
       "lo_orderdate = d_datekey",
       {col("d_year", Kind::integer, {"1992", "1994", "1996", "1998"}, true),
        col("d_yearmonthnum", Kind::integer, {"199401", "199612"}, true),
        col("d_weeknuminyear", Kind::integer, {"1", "6", "30", "53"}, true),
        col("d_yearmonth", Kind::text, {"Jan1994", "Dec1997"}, true)}},
      {"customer",
       "lo_custkey = c_custkey",
       {col("c_region", Kind::text, {"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}, true),
        col("c_nation", Kind::text, {"CHINA", "UNITED STATES", "BRAZIL", "FRANCE"}, true),
        col("c_city", Kind::text, {"UNITED KI1", "UNITED KI5", "CHINA    3"}, true)}},
      {"supplier",
       "lo_suppkey = s_suppkey",
       {col("s_region", Kind::text, {"AFRICA", "AMERICA", "ASIA", "EUROPE"}, true),
        col("s_nation", Kind::text, {"CHINA", "UNITED STATES", "JAPAN"}, true)}},
      {"part",
       "lo_partkey = p_partkey",
       {col("p_mfgr", Kind::text, {"MFGR#1", "MFGR#3", "MFGR#5"}, true),
        col("p_category", Kind::text, {"MFGR#12", "MFGR#14", "MFGR#33"}, true),
        col("p_brand1", Kind::text, {"MFGR#2221", "MFGR#2228", "MFGR#1404"}, true),
        col("p_size", Kind::integer, {"1", "25", "50"}, true)}},
  };
  return s;
}

}  // namespace raydb::sql::test
