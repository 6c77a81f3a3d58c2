// After the launch, on the host: per-group values to output rows, HAVING, ORDER BY, LIMIT
// (RTCUDB's "the rest" stage).
#include "sql/finish.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace raydb::sql::detail {

namespace {

// One output cell, typed for ordering.
struct Cell {
  bool null = false, is_text = false, is_double = false;
  std::string text;
  int64_t v = 0;
  int scale = 0;
  double d = 0;
};

int compare(const Cell& a, const Cell& b) {
  if (a.null || b.null) return int(b.null) - int(a.null);  // NULLs first ascending
  if (a.is_text) return a.text.compare(b.text) < 0 ? -1 : a.text == b.text ? 0 : 1;
  if (a.is_double || b.is_double) {
    double x = a.is_double ? a.d : double(a.v), y = b.is_double ? b.d : double(b.v);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (compare_scaled(a.v, a.scale, "<", b.v, b.scale)) return -1;
  return compare_scaled(a.v, a.scale, "=", b.v, b.scale) ? 0 : 1;
}

std::string render(const Cell& c, ColType type) {
  if (c.null) return "NULL";
  if (c.is_text) return c.text;
  if (c.is_double) return fmt::format("{}", c.d);
  if (type == ColType::date) return format_date(c.v);
  return format_decimal(c.v, c.scale);
}

int64_t unbias(uint64_t u) {
  return static_cast<int64_t>(u ^ 0x8000000000000000ull);
}

}  // namespace

SqlTable finish(const BoundQuery& q, const Catalog& cat, const RtPlan& p, const GroupResults& r) {
  size_t groups = p.group_tuples.size();
  // Per group: the aggregates' cells (in q.aggs order).
  auto agg_cell = [&](size_t a, size_t g) {
    const Aggregate& ag = q.aggs[a];
    Cell c;
    uint32_t n = r.counts[g];
    if (ag.func == AggFunc::count) {
      c.v = n;
      return c;
    }
    c.scale = ag.expr.scale;
    if (n == 0) {
      c.null = true;
      return c;
    }
    switch (ag.func) {
      case AggFunc::sum:
        c.v = static_cast<int64_t>(r.aggs[a][g]);
        break;
      case AggFunc::min:
      case AggFunc::max:
        c.v = unbias(r.aggs[a][g]);
        break;
      case AggFunc::avg: {
        long double s = static_cast<int64_t>(r.aggs[a][g]);
        for (int i = 0; i < c.scale; ++i) s /= 10;
        c.is_double = true;
        c.d = static_cast<double>(s / n);
        break;
      }
      case AggFunc::count:
        break;
    }
    return c;
  };
  auto having_ok = [&](auto&& self, const HavingPred& h, size_t g) -> bool {
    switch (h.kind) {
      case HavingPred::Kind::all:
        return std::all_of(h.kids.begin(), h.kids.end(), [&](auto& k) { return self(self, k, g); });
      case HavingPred::Kind::any:
        return std::any_of(h.kids.begin(), h.kids.end(), [&](auto& k) { return self(self, k, g); });
      case HavingPred::Kind::negate:
        return !self(self, h.kids[0], g);
      case HavingPred::Kind::cmp:
        break;
    }
    Cell c = agg_cell(size_t(h.agg), g);
    if (c.null) return false;
    if (c.is_double) {
      double lit = double(h.lit.mantissa);
      for (int i = 0; i < h.lit.scale; ++i) lit /= 10;
      const std::string& op = h.op;
      return op == "="    ? c.d == lit
             : op == "<>" ? c.d != lit
             : op == "<"  ? c.d < lit
             : op == "<=" ? c.d <= lit
             : op == ">"  ? c.d > lit
                          : c.d >= lit;
    }
    return compare_scaled(c.v, c.scale, h.op, h.lit.mantissa, h.lit.scale);
  };

  std::vector<std::vector<Cell>> rows;
  for (size_t g = 0; g < groups; ++g) {
    // Groups no row reached are left out, except the single group of a query without GROUP BY.
    if (r.counts[g] == 0 && !q.group.empty()) continue;
    if (q.has_having && !having_ok(having_ok, q.having, g)) continue;
    std::vector<Cell> row;
    for (const Output& o : q.outputs) {
      if (o.agg >= 0) {
        row.push_back(agg_cell(size_t(o.agg), g));
        continue;
      }
      const Dictionary& d = *p.group_dicts[size_t(o.group)];
      uint32_t code = p.group_tuples[g][size_t(o.group)];
      const Column& col = column_of(cat, q, q.group[size_t(o.group)]);
      Cell c;
      if (col.type == ColType::text) {
        c.is_text = true;
        c.text = d.texts[code];
      } else {
        c.v = d.ints[code];
        c.scale = col.scale;
      }
      row.push_back(std::move(c));
    }
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    for (const OrderKey& k : q.order) {
      int c = compare(a[size_t(k.output)], b[size_t(k.output)]);
      if (c != 0) return k.desc ? c > 0 : c < 0;
    }
    return false;
  });
  if (q.limit >= 0 && rows.size() > static_cast<uint64_t>(q.limit)) rows.resize(size_t(q.limit));

  SqlTable t;
  std::vector<ColType> types;
  for (const Output& o : q.outputs) {
    t.columns.push_back(o.name);
    types.push_back(o.group >= 0 ? column_of(cat, q, q.group[size_t(o.group)]).type
                                 : ColType::decimal);
  }
  for (const auto& row : rows) {
    std::vector<std::string> out;
    for (size_t i = 0; i < row.size(); ++i) out.push_back(render(row[i], types[i]));
    t.rows.push_back(std::move(out));
  }
  for (const OrderKey& k : q.order) {
    t.order_keys.push_back(k.output);
    t.order_desc.push_back(k.desc);
  }
  return t;
}

}  // namespace raydb::sql::detail
