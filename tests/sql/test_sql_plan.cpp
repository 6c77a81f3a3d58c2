// The planner's parallel host passes (src/sql/plan.cpp, dictionary.cpp) against plain serial
// references on fresh random data: the stable order by Z code, dictionaries (both numbering
// methods, text), the join index and its error, block evaluation of aggregate expressions.
// Sizes pass 65,536 rows, so the passes run in several parts wherever the host has 2+ threads.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <random>

#include "sql/plan.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::sql::detail;

namespace {

Column int_column(std::string name, std::vector<int64_t> v) {
  Column c;
  c.name = std::move(name);
  c.ints = std::move(v);
  return c;
}

}  // namespace

TEST_CASE("sql plan: stable_order equals a stable sort by key, rows of one key in row order") {
  uint64_t seed = raydb::test::fresh_seed();  // printed with any failure, to repeat it
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Key ranges of one digit, exactly 12 bits, two digits, and the 2^23 Z codes; sizes from none
  // to several parts, keys spread or crowded into few values.
  for (uint64_t codes :
       {uint64_t{1}, uint64_t{2}, uint64_t{4096}, uint64_t{4097}, uint64_t{1} << 23}) {
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{200003}}) {
      for (uint64_t distinct : {uint64_t{3}, codes}) {
        RowVector<uint32_t> keys(n);
        std::vector<uint32_t> pick(std::max<uint64_t>(1, std::min({distinct, codes, n})));
        for (auto& k : pick) k = static_cast<uint32_t>(rng() % codes);
        pick.back() = static_cast<uint32_t>(codes - 1);  // the largest key occurs
        for (auto& k : keys) k = pick[rng() % pick.size()];
        RowVector<uint32_t> order, pos;
        stable_order(keys, codes, order, pos);
        std::vector<uint32_t> want(n);
        std::iota(want.begin(), want.end(), 0u);
        std::stable_sort(want.begin(), want.end(),
                         [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
        INFO("codes " << codes << ", rows " << n << ", distinct " << distinct);
        REQUIRE(order.size() == n);
        CHECK(std::equal(want.begin(), want.end(), order.begin()));
        bool inverse = pos.size() == n;
        for (uint64_t k = 0; k < n && inverse; ++k) inverse = pos[order[k]] == k;
        CHECK(inverse);
      }
    }
  }
}

TEST_CASE("sql plan: dictionaries equal sorted distinct values and their ranks") {
  uint64_t seed = raydb::test::fresh_seed();  // printed with any failure, to repeat it
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Catalog cat;
  Table t;
  t.name = "t";
  const uint64_t n = 150001;
  t.rows = n;
  std::vector<int64_t> narrow(n), wide(n), extreme(n);
  for (uint64_t r = 0; r < n; ++r) {
    narrow[r] = 19920101 + static_cast<int64_t>(rng() % 70000);           // through the value table
    wide[r] = static_cast<int64_t>(rng() % 5000) * 1000003 - 2500000000;  // by sorting
    extreme[r] = (r % 3 == 0)   ? std::numeric_limits<int64_t>::min()
                 : (r % 3 == 1) ? std::numeric_limits<int64_t>::max()
                                : static_cast<int64_t>(rng());
  }
  t.columns = {int_column("narrow", narrow), int_column("wide", wide),
               int_column("extreme", extreme), int_column("empty", {})};
  Column text;
  text.name = "text";
  text.type = ColType::text;
  for (uint64_t r = 0; r < n; ++r) text.texts.push_back(fmt::format("MFGR#{}", rng() % 997));
  text.texts[5] = "";
  t.columns.push_back(text);
  cat.tables.push_back(t);
  PlanCache cache;
  for (int c = 0; c < 5; ++c) {
    const Column& col = cat.tables[0].columns[size_t(c)];
    if (c == 3) {  // no values: nothing to number
      const Dictionary& d = dictionary(cache, cat, 0, c);
      CHECK(d.size() == 0);
      CHECK(d.code.empty());
      continue;
    }
    INFO("column " << col.name);
    const Dictionary& d = dictionary(cache, cat, 0, c);
    REQUIRE(d.code.size() == n);
    bool ok = true;
    if (col.type == ColType::text) {
      std::vector<std::string> want = col.texts;
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      CHECK(d.texts == want);
      for (uint64_t r = 0; r < n && ok; ++r) ok = d.texts[d.code[r]] == col.texts[r];
    } else {
      std::vector<int64_t> want = col.ints;
      std::sort(want.begin(), want.end());
      want.erase(std::unique(want.begin(), want.end()), want.end());
      CHECK(d.ints == want);
      for (uint64_t r = 0; r < n && ok; ++r) ok = d.ints[d.code[r]] == col.ints[r];
    }
    CHECK(ok);
    CHECK(&dictionary(cache, cat, 0, c) == &d);  // cached
  }
}

TEST_CASE("sql plan: dim_rows finds each key's first dimension row and names the first missing") {
  uint64_t seed = raydb::test::fresh_seed();  // printed with any failure, to repeat it
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (bool dense : {true, false}) {
    for (bool text : {false, true}) {
      INFO((dense ? "dense" : "sparse") << (text ? " text" : " integer") << " keys");
      Catalog cat;
      Table f, d;
      f.name = "fact";
      d.name = "dim";
      const uint32_t dim_rows_n = 5000;
      const uint64_t n = 120000;
      d.rows = dim_rows_n;
      f.rows = n;
      std::vector<int64_t> keys(dim_rows_n);
      for (uint32_t i = 0; i < dim_rows_n; ++i)
        keys[i] = dense ? 1 + int64_t(i % 4000)  // duplicates: the first row wins
                        : int64_t(rng() % (uint64_t{1} << 40)) - (int64_t{1} << 39);
      std::vector<int64_t> fk(n);
      for (auto& k : fk) k = keys[rng() % dim_rows_n];
      Column pk = int_column("pk", keys), fkc = int_column("fk", fk);
      if (text) {
        for (Column* c : {&pk, &fkc}) {
          c->type = ColType::text;
          for (int64_t v : c->ints) c->texts.push_back(fmt::format("k{}", v));
          c->ints.clear();
        }
      }
      d.columns = {pk};
      f.columns = {fkc};
      cat.tables = {f, d};
      Dim dim;
      dim.table = 1;
      dim.fact_column = 0;
      dim.key_column = 0;
      PlanCache cache;
      const RowVector<uint32_t>& rows = dim_rows(cache, cat, 0, dim);
      REQUIRE(rows.size() == n);
      std::map<int64_t, uint32_t> first;
      for (uint32_t i = 0; i < dim_rows_n; ++i) first.emplace(keys[i], i);
      bool ok = true;
      for (uint64_t r = 0; r < n && ok; ++r) ok = rows[r] == first.at(fk[r]);
      CHECK(ok);
      // Two fact rows without a dimension row, in different parts: the error names the first.
      uint64_t bad1 = 70001 + rng() % 40000, bad0 = 1 + rng() % 50000;
      Column& c = cat.tables[0].columns[0];
      if (text)
        c.texts[bad1] = "nope", c.texts[bad0] = "missing";
      else
        c.ints[bad1] = std::numeric_limits<int64_t>::max(), c.ints[bad0] = -7777777777777;
      PlanCache fresh;
      try {
        dim_rows(fresh, cat, 0, dim);
        FAIL("a missing key was not refused");
      } catch (const Error& e) {
        std::string want =
            fmt::format("fact row {}: fk = {} has no row in dim (pk is not a key there)", bad0 + 1,
                        text ? "missing" : "-7777777777777");
        CHECK(std::string(e.what()).find(want) != std::string::npos);
      }
    }
  }
}

TEST_CASE("sql plan: block evaluation of aggregate expressions equals eval_expr row by row") {
  uint64_t seed = raydb::test::fresh_seed();  // printed with any failure, to repeat it
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  Table t;
  t.name = "t";
  const uint64_t n = 10007;
  t.rows = n;
  for (int c = 0; c < 3; ++c) {
    std::vector<int64_t> v(n);
    for (auto& x : v)
      x = c == 2 ? static_cast<int64_t>(rng())  // wraps when multiplied or scaled
                 : static_cast<int64_t>(rng() % 200001) - 100000;
    t.columns.push_back(int_column(fmt::format("c{}", c), v));
  }
  auto col = [](int c, int scale) {
    Expr e;
    e.op = 'c';
    e.column = c;
    e.scale = scale;
    return e;
  };
  auto node = [](char op, Expr a, Expr b, int scale) {
    Expr e;
    e.op = op;
    e.scale = scale;
    e.kids = {std::move(a), std::move(b)};
    return e;
  };
  Expr k;
  k.op = 'k';
  k.value = 44;
  k.scale = 0;
  std::vector<Expr> exprs = {
      col(0, 2), node('*', col(0, 2), col(1, 2), 4),
      node('+', col(0, 2), k, 2),                                   // the constant scaled up
      node('-', node('*', col(2, 0), col(1, 2), 2), col(0, 2), 3),  // wraps
      node('+', node('-', col(2, 0), k, 0), node('*', col(0, 2), k, 2), 9)};  // scaled by 10^9
  for (size_t i = 0; i < exprs.size(); ++i) {
    const std::pair<uint64_t, uint64_t> blocks[] = {{0, n}, {5, 4096}, {n - 1, 1}};
    for (auto [first, count] : blocks) {
      std::vector<int64_t> got(count);
      eval_rows(exprs[i], t, first, count, got.data());
      bool ok = true;
      for (uint64_t r = 0; r < count && ok; ++r) ok = got[r] == eval_expr(exprs[i], t, first + r);
      INFO("expression " << i << ", rows " << first << " + " << count);
      CHECK(ok);
    }
  }
}
