// The flat table, the 13 query plans, and their encoding into triangles and Z intervals.
#include "ops/ssb/ssb_encoding.hpp"

#include "common/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace raydb::ssb::detail {

using raydb::detail::FillLaterVector;
using raydb::detail::host_threads;
using raydb::detail::parallel_slices;
using raydb::detail::resize_zeroed;

Dim dim_of(Attr a) {
  switch (a) {
    case Attr::d_year:
    case Attr::d_yearmonthnum:
    case Attr::d_yearmonth:
    case Attr::d_weeknuminyear:
    case Attr::day:
      return Dim::date;
    case Attr::lo_discount:
    case Attr::lo_quantity:
      return Dim::lineorder;
    case Attr::c_city:
    case Attr::c_nation:
    case Attr::c_region:
      return Dim::customer;
    case Attr::s_city:
    case Attr::s_nation:
    case Attr::s_region:
      return Dim::supplier;
    default:
      return Dim::part;
  }
}

namespace {

// Key -> row of a dimension table: a direct table for dbgen's dense keys, a hash map otherwise.
class KeyIndex {
 public:
  KeyIndex(const std::vector<uint32_t>& keys, const char* table) : table_(table) {
    uint64_t max_key = keys.empty() ? 0 : *std::max_element(keys.begin(), keys.end());
    dense_ = max_key <= 2 * keys.size() + 64;
    if (dense_) direct_.assign(max_key + 1, kNone);
    for (size_t i = 0; i < keys.size(); ++i) {
      bool fresh = dense_ ? direct_[keys[i]] == kNone
                          : map_.emplace(keys[i], static_cast<uint32_t>(i)).second;
      if (!fresh)
        throw Error(Errc::invalid_argument,
                    fmt::format("{} key {} appears more than once", table_, keys[i]));
      if (dense_) direct_[keys[i]] = static_cast<uint32_t>(i);
    }
  }
  uint32_t row(uint32_t key, uint64_t lo_row, const char* column) const {
    uint32_t r = kNone;
    if (dense_) {
      if (key < direct_.size()) r = direct_[key];
    } else if (auto it = map_.find(key); it != map_.end()) {
      r = it->second;
    }
    if (r == kNone)
      throw Error(Errc::invalid_argument, fmt::format("lineorder row {}: {} {} is not a key of {}",
                                                      lo_row + 1, column, key, table_));
    return r;
  }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  const char* table_;
  bool dense_ = true;
  std::vector<uint32_t> direct_;
  std::unordered_map<uint32_t, uint32_t> map_;
};

void numeric_dict(const std::vector<uint32_t>& v, Dictionary& d, std::vector<uint32_t>& codes) {
  std::vector<uint32_t> u(v);
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  for (uint32_t x : u) d.values.push_back(std::to_string(x));
  codes.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    codes[i] = static_cast<uint32_t>(std::lower_bound(u.begin(), u.end(), v[i]) - u.begin());
}

void text_dict(const std::vector<std::string>& v, Dictionary& d, std::vector<uint32_t>& codes) {
  std::vector<std::string> u(v);
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  codes.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    codes[i] = static_cast<uint32_t>(std::lower_bound(u.begin(), u.end(), v[i]) - u.begin());
  d.values = std::move(u);
}

// Lineorder attributes are coded by value: codes[value] is the code of that value.
void value_dict(const std::vector<uint32_t>& v, Dictionary& d, std::vector<uint32_t>& codes) {
  uint32_t max = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  if (max > (1u << 20))
    throw Error(Errc::invalid_argument,
                fmt::format("lineorder value {} is outside the SSB ranges", max));
  std::vector<bool> seen(max + 1);
  for (uint32_t x : v) seen[x] = true;
  codes.assign(max + 1, 0);
  for (uint32_t x = 0; x <= max; ++x)
    if (seen[x]) {
      codes[x] = static_cast<uint32_t>(d.values.size());
      d.values.push_back(std::to_string(x));
    }
}

int64_t value_of(Aggregate a, const LineorderColumns& lo, uint64_t r) {
  switch (a) {
    case Aggregate::extprice_times_discount:
      return lo.extendedprice[r];
    case Aggregate::revenue:
      return lo.revenue[r];
    default:
      return int64_t{lo.revenue[r]} - int64_t{lo.supplycost[r]};
  }
}

}  // namespace

uint32_t FlatTable::code(Attr a, uint64_t row) const {
  const auto& c = codes[size_t(a)];
  switch (dim_of(a)) {
    case Dim::date:
      return c[date_row[row]];
    case Dim::customer:
      return c[cust_row[row]];
    case Dim::supplier:
      return c[supp_row[row]];
    case Dim::part:
      return c[part_row[row]];
    default:
      return c[a == Attr::lo_discount ? tables->lineorder.discount[row]
                                      : tables->lineorder.quantity[row]];
  }
}

FlatTable make_flat(const SsbTables& t) {
  FlatTable f;
  f.tables = &t;
  const LineorderColumns& lo = t.lineorder;
  f.n = lo.size();
  for (const auto* col : {&lo.custkey, &lo.partkey, &lo.suppkey, &lo.quantity, &lo.extendedprice,
                          &lo.discount, &lo.revenue, &lo.supplycost})
    if (col->size() != f.n) throw Error(Errc::invalid_argument, "lineorder columns differ in size");
  KeyIndex dates(t.date.datekey, "date"), custs(t.customer.key, "customer"),
      supps(t.supplier.key, "supplier"), parts(t.part.partkey, "part");
  f.date_row.resize(f.n);
  f.cust_row.resize(f.n);
  f.supp_row.resize(f.n);
  f.part_row.resize(f.n);
  for (uint64_t r = 0; r < f.n; ++r) {
    f.date_row[r] = dates.row(lo.orderdate[r], r, "lo_orderdate");
    f.cust_row[r] = custs.row(lo.custkey[r], r, "lo_custkey");
    f.supp_row[r] = supps.row(lo.suppkey[r], r, "lo_suppkey");
    f.part_row[r] = parts.row(lo.partkey[r], r, "lo_partkey");
  }
  auto at = [&](Attr a) -> std::pair<Dictionary&, std::vector<uint32_t>&> {
    return {f.dict[size_t(a)], f.codes[size_t(a)]};
  };
  auto num = [&](Attr a, const std::vector<uint32_t>& v) {
    auto [d, c] = at(a);
    numeric_dict(v, d, c);
  };
  auto txt = [&](Attr a, const std::vector<std::string>& v) {
    auto [d, c] = at(a);
    text_dict(v, d, c);
  };
  num(Attr::d_year, t.date.year);
  num(Attr::d_yearmonthnum, t.date.yearmonthnum);
  txt(Attr::d_yearmonth, t.date.yearmonth);
  num(Attr::d_weeknuminyear, t.date.weeknuminyear);
  num(Attr::day, t.date.datekey);
  f.day_date_row.resize(t.date.size());
  for (size_t r = 0; r < t.date.size(); ++r)
    f.day_date_row[f.codes[size_t(Attr::day)][r]] = static_cast<uint32_t>(r);
  {
    auto [d, c] = at(Attr::lo_discount);
    value_dict(lo.discount, d, c);
  }
  {
    auto [d, c] = at(Attr::lo_quantity);
    value_dict(lo.quantity, d, c);
  }
  txt(Attr::c_city, t.customer.city);
  txt(Attr::c_nation, t.customer.nation);
  txt(Attr::c_region, t.customer.region);
  txt(Attr::s_city, t.supplier.city);
  txt(Attr::s_nation, t.supplier.nation);
  txt(Attr::s_region, t.supplier.region);
  txt(Attr::p_mfgr, t.part.mfgr);
  txt(Attr::p_category, t.part.category);
  txt(Attr::p_brand1, t.part.brand1);
  return f;
}

QueryPlan plan_query(const std::string& q, const FlatTable& f) {
  const SsbTables& t = *f.tables;
  QueryPlan p;
  p.name = q;
  auto where = [&](Attr a, const std::function<bool(const std::string&)>& keep) {
    Filter flt{a, std::vector<bool>(f.domain(a))};
    for (uint32_t c = 0; c < f.domain(a); ++c) flt.selected[c] = keep(f.value(a, c));
    p.filters.push_back(std::move(flt));
  };
  auto is = [](std::initializer_list<const char*> set) {
    std::vector<std::string> s(set.begin(), set.end());
    return [s](const std::string& v) { return std::find(s.begin(), s.end(), v) != s.end(); };
  };
  auto between = [](uint32_t lo, uint32_t hi) {
    return [lo, hi](const std::string& v) {
      uint32_t x = static_cast<uint32_t>(std::stoul(v));
      return x >= lo && x <= hi;
    };
  };
  // Q1.x filter the order date itself (its code is the date's rank), so one Z code space holds
  // discount, quantity and day for every Q1 date predicate.
  auto days = [&](const std::function<bool(uint32_t date_row)>& keep) {
    Filter flt{Attr::day, std::vector<bool>(f.domain(Attr::day))};
    for (uint32_t c = 0; c < f.domain(Attr::day); ++c) flt.selected[c] = keep(f.day_date_row[c]);
    p.filters.push_back(std::move(flt));
  };
  auto out = [&](std::initializer_list<std::pair<const char*, int>> cols) {
    for (auto& [name, g] : cols) p.output.push_back({name, g});
  };
  const std::string us = "UNITED STATES";
  if (q[0] == '1') {
    p.aggregate = Aggregate::extprice_times_discount;
    out({{"revenue", -1}});
    if (q == "1.1") {
      days([&](uint32_t r) { return t.date.year[r] == 1993; });
      where(Attr::lo_discount, between(1, 3));
      where(Attr::lo_quantity, between(0, 24));
    } else if (q == "1.2") {
      days([&](uint32_t r) { return t.date.yearmonthnum[r] == 199401; });
      where(Attr::lo_discount, between(4, 6));
      where(Attr::lo_quantity, between(26, 35));
    } else {
      days([&](uint32_t r) { return t.date.weeknuminyear[r] == 6 && t.date.year[r] == 1994; });
      where(Attr::lo_discount, between(5, 7));
      where(Attr::lo_quantity, between(26, 35));
    }
  } else if (q[0] == '2') {
    p.group = {Attr::d_year, Attr::p_brand1};
    out({{"revenue", -1}, {"d_year", 0}, {"p_brand1", 1}});
    if (q == "2.1") {
      where(Attr::p_category, is({"MFGR#12"}));
      where(Attr::s_region, is({"AMERICA"}));
    } else if (q == "2.2") {
      where(Attr::p_brand1,
            [](const std::string& v) { return v >= "MFGR#2221" && v <= "MFGR#2228"; });
      where(Attr::s_region, is({"ASIA"}));
    } else {
      where(Attr::p_brand1, is({"MFGR#2221"}));
      where(Attr::s_region, is({"EUROPE"}));
    }
  } else if (q[0] == '3') {
    p.order_by_value_desc = true;
    bool nations = q == "3.1";
    p.group = {Attr::d_year, nations ? Attr::c_nation : Attr::c_city,
               nations ? Attr::s_nation : Attr::s_city};
    if (nations)
      out({{"c_nation", 1}, {"s_nation", 2}, {"d_year", 0}, {"revenue", -1}});
    else
      out({{"c_city", 1}, {"s_city", 2}, {"d_year", 0}, {"revenue", -1}});
    if (q == "3.1") {
      where(Attr::c_region, is({"ASIA"}));
      where(Attr::s_region, is({"ASIA"}));
    } else if (q == "3.2") {
      where(Attr::c_nation, is({us.c_str()}));
      where(Attr::s_nation, is({us.c_str()}));
    } else {
      where(Attr::c_city, is({"UNITED KI1", "UNITED KI5"}));
      where(Attr::s_city, is({"UNITED KI1", "UNITED KI5"}));
    }
    if (q == "3.4")
      where(Attr::d_yearmonth, is({"Dec1997"}));
    else
      where(Attr::d_year, between(1992, 1997));
  } else {
    p.aggregate = Aggregate::profit;
    where(Attr::c_region, is({"AMERICA"}));
    if (q == "4.1") {
      p.group = {Attr::d_year, Attr::c_nation};
      out({{"d_year", 0}, {"c_nation", 1}, {"profit", -1}});
      where(Attr::s_region, is({"AMERICA"}));
      where(Attr::p_mfgr, is({"MFGR#1", "MFGR#2"}));
    } else if (q == "4.2") {
      p.group = {Attr::d_year, Attr::s_nation, Attr::p_category};
      out({{"d_year", 0}, {"s_nation", 1}, {"p_category", 2}, {"profit", -1}});
      where(Attr::s_region, is({"AMERICA"}));
      where(Attr::d_year, is({"1997", "1998"}));
      where(Attr::p_mfgr, is({"MFGR#1", "MFGR#2"}));
    } else {
      p.group = {Attr::d_year, Attr::s_city, Attr::p_brand1};
      out({{"d_year", 0}, {"s_city", 1}, {"p_brand1", 2}, {"profit", -1}});
      where(Attr::s_nation, is({us.c_str()}));
      where(Attr::d_year, is({"1997", "1998"}));
      where(Attr::p_category, is({"MFGR#14"}));
    }
  }
  return p;
}

EncodedQuery encode_query(const QueryPlan& plan, const FlatTable& f, bool force_side_values,
                          uint32_t max_lanes, StarGeometry geometry) {
  EncodedQuery e;
  const LineorderColumns& lo = f.tables->lineorder;
  e.rows = f.n;

  // Z: mixed radix over the filter columns, the ones selecting fewer codes first (wider ranges
  // last), so the selection is few long runs of Z codes.
  std::vector<const Filter*> filters;
  for (const Filter& flt : plan.filters) filters.push_back(&flt);
  auto selected = [](const Filter* flt) {
    return std::count(flt->selected.begin(), flt->selected.end(), true);
  };
  std::stable_sort(filters.begin(), filters.end(),
                   [&](const Filter* a, const Filter* b) { return selected(a) < selected(b); });
  std::vector<uint64_t> stride(filters.size());
  uint64_t zc = 1;
  for (size_t i = filters.size(); i-- > 0;) {
    stride[i] = zc;
    zc *= std::max<uint32_t>(1, f.domain(filters[i]->attr));
    if (zc > kMaxZCodes)
      throw Error(Errc::limit_exceeded,
                  fmt::format("SSB Q{}: the filter code space exceeds 2^23 codes", plan.name));
  }
  // The lane digit: the least significant Z digit is the row number modulo `lanes`, a power of
  // two. It spreads rows that share a filter code over `lanes` Z codes, so an interval of one
  // filter code still becomes `lanes` rays that run in parallel; every interval keeps covering
  // whole lanes, so the selection is unchanged.
  // More lanes than rows per filter code (on average) only add empty rays, so the lanes stop
  // there: a one-code selection (Q2.1) gets as many rays as rows it can have in parallel, which
  // is what keeps a GPU without RT cores busy (1,024 lanes left an H100 with 2,048 rays).
  uint64_t rows_per_code = (uint64_t{f.n} + zc - 1) / zc;
  uint64_t lanes = 1;
  while (lanes * 2 <= max_lanes && zc * lanes * 2 <= kMaxZCodes && lanes < rows_per_code)
    lanes *= 2;
  e.lanes = static_cast<uint32_t>(lanes);
  e.z_codes = static_cast<uint32_t>(zc * lanes);

  // Intervals: every selected tuple of the leading filters times the runs of the last one,
  // merged where they touch.
  if (filters.empty()) {
    e.intervals.push_back({0, 0});
  } else {
    const Filter& last = *filters.back();
    std::vector<std::pair<uint32_t, uint32_t>> runs;
    for (uint32_t c = 0; c < last.selected.size(); ++c)
      if (last.selected[c]) {
        if (!runs.empty() && runs.back().second + 1 == c)
          runs.back().second = c;
        else
          runs.push_back({c, c});
      }
    std::function<void(size_t, uint64_t)> walk = [&](size_t i, uint64_t base) {
      if (i + 1 == filters.size()) {
        for (auto [a, b] : runs) {
          auto lo_z = static_cast<uint32_t>(base + a), hi_z = static_cast<uint32_t>(base + b);
          if (!e.intervals.empty() && e.intervals.back().second + 1 == lo_z)
            e.intervals.back().second = hi_z;
          else
            e.intervals.push_back({lo_z, hi_z});
        }
        return;
      }
      for (uint32_t c = 0; c < filters[i]->selected.size(); ++c)
        if (filters[i]->selected[c]) walk(i + 1, base + c * stride[i]);
    };
    walk(0, 0);
  }
  for (auto& [a, b] : e.intervals) {
    a = static_cast<uint32_t>(a * lanes);
    b = static_cast<uint32_t>(b * lanes + lanes - 1);
  }

  // Y: the distinct group tuples of the whole table, numbered in tuple order.
  uint64_t gspace = 1;
  for (Attr a : plan.group) {
    gspace *= std::max<uint32_t>(1, f.domain(a));
    if (gspace > (uint64_t{1} << 28))
      throw Error(
          Errc::limit_exceeded,
          fmt::format("SSB Q{}: the group-by columns have too many combinations", plan.name));
  }
  auto group_key = [&](uint64_t r) {
    uint64_t k = 0;
    for (Attr a : plan.group) k = k * f.domain(a) + f.code(a, r);
    return k;
  };
  constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> gcode(gspace, kAbsent);
  // Per row: its Z code and group key (pass 1, parallel), then its triangle (pass 2, parallel);
  // between them the counting sort by Z and the group numbering, serial.
  FillLaterVector<uint32_t> z(f.n), gkey(f.n);
  unsigned parts = f.n < 65536 ? 1u : host_threads();
  std::vector<int64_t> part_min(parts, std::numeric_limits<int64_t>::max()),
      part_max(parts, std::numeric_limits<int64_t>::min());
  parallel_slices(f.n, parts, [&](size_t b, size_t end, unsigned part) {
    int64_t mn = part_min[part], mx = part_max[part];
    for (uint64_t r = b; r < end; ++r) {
      uint64_t code = 0;
      for (size_t i = 0; i < filters.size(); ++i) code += f.code(filters[i]->attr, r) * stride[i];
      z[r] = static_cast<uint32_t>(code * lanes + (r & (lanes - 1)));
      gkey[r] = static_cast<uint32_t>(group_key(r));
      int64_t x = value_of(plan.aggregate, lo, r);
      mn = std::min(mn, x);
      mx = std::max(mx, x);
    }
    part_min[part] = mn;
    part_max[part] = mx;
  });
  int64_t xmin = *std::min_element(part_min.begin(), part_min.end());
  int64_t xmax = *std::max_element(part_max.begin(), part_max.end());
  // The counting sort by Z, stable and parallel: each slice of rows counts its Z codes, and its
  // rows go to consecutive positions after the earlier slices' rows of the same code. Fewer
  // slices where the code space is large keep the per-slice counts small.
  const uint64_t buckets = uint64_t{zc} * lanes;
  unsigned sort_parts = parts;
  while (sort_parts > 1 && buckets * sort_parts > (uint64_t{1} << 24)) sort_parts /= 2;
  if (f.n < uint64_t{2} * sort_parts) sort_parts = 1;  // parallel_slices' serial case
  // Both passes below cut the rows into the same slices (same n and part count).
  std::vector<std::vector<uint32_t>> next(sort_parts);  // per slice: counts, then next position
  parallel_slices(f.n, sort_parts, [&](size_t b, size_t end, unsigned part) {
    std::vector<uint32_t>& count = next[part];
    count.assign(buckets, 0);
    for (uint64_t r = b; r < end; ++r) {
      ++count[z[r]];
      // Several slices may mark one group: the same value, so relaxed atomic stores suffice.
      std::atomic_ref<uint32_t>(gcode[gkey[r]]).store(0, std::memory_order_relaxed);
    }
  });
  // zend[c]: one past the last position of Z code c; next[part][c]: the slice's first position.
  std::vector<uint64_t> zend(buckets);
  uint64_t running = 0;
  for (uint64_t c = 0; c < buckets; ++c) {
    for (auto& count : next) {
      uint32_t k = count[c];
      count[c] = static_cast<uint32_t>(running);
      running += k;
    }
    zend[c] = running;
  }
  uint32_t groups = 0;
  for (uint64_t k = 0; k < gspace; ++k)
    if (gcode[k] != kAbsent) {
      gcode[k] = groups++;
      std::vector<uint32_t> tuple(plan.group.size());
      uint64_t rest = k;
      for (size_t i = plan.group.size(); i-- > 0;) {
        uint32_t d = f.domain(plan.group[i]);
        tuple[i] = static_cast<uint32_t>(rest % d);
        rest /= d;
      }
      e.group_tuples.push_back(std::move(tuple));
    }
  if (f.n == 0) {
    xmin = xmax = 0;
    if (plan.group.empty()) e.group_tuples.push_back({});
  }
  if (e.group_tuples.empty()) e.group_tuples.push_back({});
  groups = static_cast<uint32_t>(e.group_tuples.size());
  if (groups > (1u << 24))  // Y must hold every group code exactly
    throw Error(Errc::limit_exceeded,
                fmt::format("SSB Q{}: {} groups exceed the 2^24 codes float32 holds exactly",
                            plan.name, groups));

  // X: the value where float32 holds it exactly, else the side array (and X = 0). filter_only
  // puts every triangle at X = Y = 0, with value and group in per-row arrays: with X and Y spread,
  // a BVH builder splits on them too, and those splits cannot prune a ray that runs along Z.
  constexpr int64_t kExact = int64_t{1} << 24;
  const bool filter_only = geometry == StarGeometry::filter_only;
  bool side = filter_only || force_side_values || xmin < -kExact || xmax > kExact;
  if (side) xmin = xmax = 0;
  const bool y_is_group = !filter_only || groups == 1;  // one group: Y = 0 is its code
  e.hits_read_vertices = !filter_only;
  if (plan.aggregate == Aggregate::extprice_times_discount) resize_zeroed(e.multipliers, f.n);

  // Triangle (x, y, z), (x + Sx, y, z), (x, y + Sy, z) with S = 4W, W at least the value range:
  // the point (xmin + 1.5 Wx, 1.5 Wy) lies strictly inside every triangle, at least W/8 from
  // each edge, so one lattice point per interval meets every row and no ray grazes an edge.
  auto width = [](double lo_v, double hi_v) {
    return std::max({hi_v - lo_v + 1, 64.0, std::max(std::abs(lo_v), std::abs(hi_v)) / 65536});
  };
  double wx = width(double(xmin), double(xmax));
  double wy = width(0, y_is_group ? double(groups - 1) : 0.0);
  auto sx = static_cast<float>(4 * wx), sy = static_cast<float>(4 * wy);
  e.ray_x = static_cast<float>(double(xmin) + 1.5 * wx);
  e.ray_y = static_cast<float>(1.5 * wy);

  FillLaterVector<uint32_t>& pos = gkey;  // each row's group key becomes its triangle's position
  parallel_slices(f.n, sort_parts, [&](size_t b, size_t end, unsigned part) {
    std::vector<uint32_t>& at = next[part];
    for (uint64_t r = b; r < end; ++r) {
      uint32_t g = gcode[gkey[r]];
      pos[r] = at[z[r]]++;
      z[r] = g;  // and its Z code its group code (the Z code is the position's order)
    }
  });
  resize_zeroed(e.vertices, f.n * 9);
  if (side) resize_zeroed(e.side_values, f.n);
  if (!y_is_group) resize_zeroed(e.row_groups, f.n);
  parallel_slices(f.n, parts, [&](size_t b, size_t end, unsigned) {
    for (uint64_t r = b; r < end; ++r) {
      uint64_t p = pos[r];
      int64_t v = value_of(plan.aggregate, lo, r);
      auto x = side ? 0.0f : static_cast<float>(v);
      auto y = y_is_group ? static_cast<float>(z[r]) : 0.0f;
      float* t = &e.vertices[p * 9];
      t[0] = x, t[1] = y;
      t[3] = x + sx, t[4] = y;
      t[6] = x, t[7] = y + sy;
      if (side) e.side_values[p] = v;
      if (!y_is_group) e.row_groups[p] = z[r];
      if (!e.multipliers.empty()) e.multipliers[p] = lo.discount[r];
    }
  });
  // The Z of each position: the counting sort's runs, in order.
  parallel_slices(buckets, parts, [&](size_t b, size_t end, unsigned) {
    for (uint64_t c = b; c < end; ++c) {
      uint64_t first = c == 0 ? 0 : zend[c - 1];
      auto zf = static_cast<float>(c);
      for (uint64_t p = first; p < zend[c]; ++p)
        e.vertices[p * 9 + 2] = e.vertices[p * 9 + 5] = e.vertices[p * 9 + 8] = zf;
    }
  });
  return e;
}

std::vector<std::pair<uint32_t, uint32_t>> split_rays(
    const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t target_rays) {
  uint64_t total = 0;
  for (auto [a, b] : intervals) total += uint64_t{b} - a + 1;
  uint64_t seg = std::max<uint64_t>(1, (total + target_rays - 1) / std::max(1u, target_rays));
  std::vector<std::pair<uint32_t, uint32_t>> rays;
  for (auto [a, b] : intervals)
    for (uint64_t s = a; s <= b; s += seg)
      rays.push_back(
          {static_cast<uint32_t>(s), static_cast<uint32_t>(std::min<uint64_t>(b, s + seg - 1))});
  return rays;
}

ResultTable finish_query(const QueryPlan& plan, const FlatTable& f, const EncodedQuery& enc,
                         const std::vector<int64_t>& sums, const std::vector<uint32_t>& counts) {
  ResultTable t;
  for (const auto& c : plan.output) t.columns.push_back(c.name);
  std::vector<uint32_t> hit;
  for (uint32_t g = 0; g < counts.size(); ++g)
    if (counts[g] > 0) hit.push_back(g);
  if (plan.order_by_value_desc)  // Q3.x: year, then revenue descending, then the group columns
    std::stable_sort(hit.begin(), hit.end(), [&](uint32_t a, uint32_t b) {
      uint32_t ya = enc.group_tuples[a][0], yb = enc.group_tuples[b][0];
      if (ya != yb) return ya < yb;
      return sums[a] > sums[b];
    });
  if (plan.group.empty()) {
    t.rows.push_back({hit.empty() ? "NULL" : std::to_string(sums[0])});
    return t;
  }
  for (uint32_t g : hit) {
    std::vector<std::string> row;
    for (const auto& c : plan.output)
      row.push_back(
          c.group < 0 ? std::to_string(sums[g])
                      : f.value(plan.group[size_t(c.group)], enc.group_tuples[g][size_t(c.group)]));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace raydb::ssb::detail
