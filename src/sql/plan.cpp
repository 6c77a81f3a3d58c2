// Bound query -> RTCUDB encoding (triangles, Z intervals, group dictionary); see plan.hpp.
#include "sql/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numeric>
#include <thread>
#include <unordered_map>

namespace raydb::sql::detail {

namespace {
// Z codes and rays are exact in float32 at half-integers below 2^23.
constexpr uint64_t kMaxZCodes = uint64_t{1} << 23;
// Past this many Z intervals the launch costs more than checking in the any-hit shader.
constexpr uint64_t kMaxIntervals = uint64_t{1} << 20;
constexpr uint64_t kMaxGroups = uint64_t{1} << 24;  // Y holds every group code exactly
constexpr uint64_t kMaxLanes = 65536;               // SsbEngineOptions::max_lanes' default

// f(begin, end) over [0, n) in contiguous parts on the host's cores: the per-row passes of the
// encoding are what a user waits for at large scale factors (120 M rows at SF 20). f must not
// throw and parts must not write shared state.
template <class F>
void parallel_rows(uint64_t n, F&& f) {
  uint64_t threads =
      std::min<uint64_t>(std::max(1u, std::thread::hardware_concurrency()), n / 65536 + 1);
  if (threads <= 1) {
    f(uint64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  uint64_t part = (n + threads - 1) / threads;
  for (uint64_t b = 0; b < n; b += part)
    pool.emplace_back([&f, b, e = std::min(n, b + part)] { f(b, e); });
  for (auto& t : pool) t.join();
}
}  // namespace

const Dictionary& dictionary(PlanCache& cache, const Catalog& cat, int table, int column) {
  auto key = std::make_pair(table, column);
  if (auto it = cache.dicts.find(key); it != cache.dicts.end()) return it->second;
  const Column& c = cat.tables[size_t(table)].columns[size_t(column)];
  Dictionary d;
  if (c.type == ColType::text) {
    d.texts = c.texts;
    std::sort(d.texts.begin(), d.texts.end());
    d.texts.erase(std::unique(d.texts.begin(), d.texts.end()), d.texts.end());
    std::unordered_map<std::string_view, uint32_t> idx;
    for (uint32_t i = 0; i < d.texts.size(); ++i) idx[d.texts[i]] = i;
    d.code.reserve(c.texts.size());
    for (const std::string& s : c.texts) d.code.push_back(idx[s]);
  } else {
    d.ints = c.ints;
    std::sort(d.ints.begin(), d.ints.end());
    d.ints.erase(std::unique(d.ints.begin(), d.ints.end()), d.ints.end());
    d.code.reserve(c.ints.size());
    for (int64_t v : c.ints)
      d.code.push_back(static_cast<uint32_t>(std::lower_bound(d.ints.begin(), d.ints.end(), v) -
                                             d.ints.begin()));
  }
  return cache.dicts.emplace(key, std::move(d)).first->second;
}

const std::vector<uint32_t>& dim_rows(PlanCache& cache, const Catalog& cat, int fact,
                                      const Dim& d) {
  auto key = std::make_tuple(fact, d.fact_column, d.table, d.key_column);
  if (auto it = cache.joins.find(key); it != cache.joins.end()) return it->second;
  const Table& ft = cat.tables[size_t(fact)];
  const Table& dt = cat.tables[size_t(d.table)];
  const Column& fk = ft.columns[size_t(d.fact_column)];
  const Column& pk = dt.columns[size_t(d.key_column)];
  if ((fk.type == ColType::text) != (pk.type == ColType::text))
    throw Error(Errc::invalid_argument,
                fmt::format("type error: join of {}.{} ({}) with {}.{} ({})", ft.name, fk.name,
                            type_name(fk.type), dt.name, pk.name, type_name(pk.type)));
  std::vector<uint32_t> rows(ft.rows);
  auto missing = [&](uint64_t r) {
    std::string v = fk.type == ColType::text ? fk.texts[r] : std::to_string(fk.ints[r]);
    return Error(Errc::invalid_argument,
                 fmt::format("{} row {}: {} = {} has no row in {} ({} is not a key there)", ft.name,
                             r + 1, fk.name, v, dt.name, pk.name));
  };
  if (pk.type == ColType::text) {
    std::unordered_map<std::string_view, uint32_t> idx;
    for (uint32_t i = 0; i < dt.rows; ++i) idx.emplace(pk.texts[i], i);
    for (uint64_t r = 0; r < ft.rows; ++r) {
      auto it = idx.find(fk.texts[r]);
      if (it == idx.end()) throw missing(r);
      rows[r] = it->second;
    }
  } else {
    std::unordered_map<int64_t, uint32_t> idx;
    idx.reserve(dt.rows);
    for (uint32_t i = 0; i < dt.rows; ++i) idx.emplace(pk.ints[i], i);
    for (uint64_t r = 0; r < ft.rows; ++r) {
      auto it = idx.find(fk.ints[r]);
      if (it == idx.end()) throw missing(r);
      rows[r] = it->second;
    }
  }
  return cache.joins.emplace(key, std::move(rows)).first->second;
}

std::vector<bool> selected_codes(const Filter& f, const Column& col, const Dictionary& d) {
  std::vector<bool> sel(d.size());
  static const std::string kNone;
  for (uint32_t c = 0; c < d.size(); ++c)
    sel[c] = col.type == ColType::text ? eval_pred(f.pred, col, 0, d.texts[c])
                                       : eval_pred(f.pred, col, d.ints[c], kNone);
  return sel;
}

std::vector<uint32_t> attr_codes(const BoundQuery& q, const Catalog& cat, PlanCache& cache,
                                 AttrRef a, const Dictionary*& dict) {
  int table = a.dim < 0 ? q.fact : q.dims[size_t(a.dim)].table;
  dict = &dictionary(cache, cat, table, a.column);
  if (a.dim < 0) return dict->code;
  const std::vector<uint32_t>& rows = dim_rows(cache, cat, q.fact, q.dims[size_t(a.dim)]);
  std::vector<uint32_t> codes(rows.size());
  parallel_rows(rows.size(), [&](uint64_t b, uint64_t e) {
    for (uint64_t r = b; r < e; ++r) codes[r] = dict->code[rows[r]];
  });
  return codes;
}

int64_t eval_expr(const Expr& e, const Table& fact, uint64_t row) {
  auto up = [](int64_t v, int by) {
    for (int i = 0; i < by; ++i) v = static_cast<int64_t>(static_cast<uint64_t>(v) * 10u);
    return v;
  };
  switch (e.op) {
    case 'c':
      return fact.columns[size_t(e.column)].ints[row];
    case 'k':
      return e.value;
    default:
      break;
  }
  int64_t a = eval_expr(e.kids[0], fact, row), b = eval_expr(e.kids[1], fact, row);
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  if (e.op == '*') return static_cast<int64_t>(ua * ub);
  ua = static_cast<uint64_t>(up(a, e.scale - e.kids[0].scale));
  ub = static_cast<uint64_t>(up(b, e.scale - e.kids[1].scale));
  return static_cast<int64_t>(e.op == '+' ? ua + ub : ua - ub);
}

RtPlan plan_rt(const BoundQuery& q, const Catalog& cat, PlanCache& cache) {
  const Table& fact = cat.tables[size_t(q.fact)];
  RtPlan p;
  p.rows = fact.rows;
  // Every dimension must resolve for every fact row, joined or not by a filter (inner joins).
  for (const Dim& d : q.dims) dim_rows(cache, cat, q.fact, d);

  // Filters: selected codes; drop the ones that select everything.
  struct F {
    std::string name;
    std::vector<uint32_t> codes;
    std::vector<bool> sel;
    uint32_t selected = 0, runs = 0;
  };
  std::vector<F> fs;
  for (const Filter& f : q.filters) {
    const Dictionary* d = nullptr;
    F x;
    x.name = attr_name(cat, q, f.attr);
    x.codes = attr_codes(q, cat, cache, f.attr, d);
    x.sel = selected_codes(f, column_of(cat, q, f.attr), *d);
    for (size_t c = 0; c < x.sel.size(); ++c) {
      x.selected += x.sel[c];
      x.runs += x.sel[c] && (c == 0 || !x.sel[c - 1]);
    }
    if (x.selected == 0) p.empty = true;
    if (x.selected == x.sel.size()) {
      p.explain_notes += fmt::format("  filter on {} selects every value: dropped\n", x.name);
      continue;
    }
    fs.push_back(std::move(x));
  }
  // Fewest selected codes first (most significant Z digit), most last: the intervals are the
  // product of the leading digits' selected codes times the last digit's runs, so this order
  // keeps them fewest. The same order as the SSB engine's (ssb_encoding.cpp), so the same query
  // gets the same Z codes and the same BVH.
  std::stable_sort(fs.begin(), fs.end(),
                   [](const F& a, const F& b) { return a.selected < b.selected; });
  std::vector<F*> zf;
  uint64_t codes = 1, intervals = 1;
  for (F& f : fs) {
    uint64_t c = codes * f.sel.size();
    // Intervals if f is the last digit: the earlier digits' selections times f's runs.
    uint64_t iv = zf.empty() ? f.runs
                             : intervals / std::max<uint64_t>(zf.back()->runs, 1) *
                                   zf.back()->selected * f.runs;
    if (c > kMaxZCodes || iv > kMaxIntervals) {
      p.explain_notes += fmt::format(
          "  filter on {} checked in the any-hit shader: Z would need {} codes and {} "
          "intervals (limits {} and {})\n",
          f.name, c, iv, kMaxZCodes, kMaxIntervals);
      SideFilter s;
      s.name = f.name;
      s.codes = std::move(f.codes);
      s.mask.assign((f.sel.size() + 31) / 32, 0);
      for (size_t k = 0; k < f.sel.size(); ++k)
        if (f.sel[k]) s.mask[k / 32] |= 1u << (k % 32);
      p.side.push_back(std::move(s));
      continue;
    }
    codes = c, intervals = iv;
    zf.push_back(&f);
  }
  p.z_codes = codes;
  std::vector<uint32_t> z(p.rows, 0);
  uint64_t stride = 1;
  for (size_t i = zf.size(); i-- > 0;) {
    ZAttr za{zf[i]->name, static_cast<uint32_t>(zf[i]->sel.size()), zf[i]->selected, zf[i]->runs,
             stride};
    parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) z[r] += static_cast<uint32_t>(zf[i]->codes[r] * stride);
    });
    stride *= zf[i]->sel.size();
    p.z.insert(p.z.begin(), za);
  }
  // Intervals: every selected code of the leading digits, and the last digit's runs.
  if (!p.empty) {
    auto rec = [&](auto&& self, size_t i, uint64_t base) -> void {
      if (zf.empty()) {
        p.intervals.push_back({0, 0});
        return;
      }
      const F& f = *zf[i];
      uint64_t st = p.z[i].stride;
      if (i + 1 == zf.size()) {
        for (size_t c = 0; c < f.sel.size(); ++c) {
          if (!f.sel[c] || (c > 0 && f.sel[c - 1])) continue;
          size_t e = c;
          while (e + 1 < f.sel.size() && f.sel[e + 1]) ++e;
          auto lo = static_cast<uint32_t>(base + c * st), hi = static_cast<uint32_t>(base + e * st);
          if (!p.intervals.empty() && p.intervals.back().second + 1 == lo)
            p.intervals.back().second = hi;
          else
            p.intervals.push_back({lo, hi});
        }
        return;
      }
      for (size_t c = 0; c < f.sel.size(); ++c)
        if (f.sel[c]) self(self, i + 1, base + c * st);
    };
    rec(rec, 0, 0);
  }

  // Lanes: rows sharing a filter code are spread over `lanes` Z codes (the row number modulo
  // lanes as the least significant digit), so the BVH separates them and an interval is cut
  // into parallel rays; otherwise every row of a code lies at one point, on one ray. As many as
  // the SSB engine takes (up to the first power of two at or past the average rows per code):
  // half as many left Q4.2 with half its rays (16,384 against 32,768) on the H100.
  uint64_t lanes = 1;
  uint64_t rows_per_code = (p.rows + p.z_codes - 1) / p.z_codes;
  while (lanes * 2 <= kMaxLanes && p.z_codes * lanes * 2 <= kMaxZCodes && lanes < rows_per_code)
    lanes *= 2;
  if (lanes > 1) {
    parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) z[r] = static_cast<uint32_t>(z[r] * lanes + r % lanes);
    });
    for (auto& [lo, hi] : p.intervals) {
      lo = static_cast<uint32_t>(lo * lanes);
      hi = static_cast<uint32_t>(hi * lanes + lanes - 1);
    }
    p.z_codes *= lanes;
  }
  p.lanes = static_cast<uint32_t>(lanes);

  // Y: the group tuples present in the fact table, in value order.
  std::vector<std::vector<uint32_t>> gcodes;
  std::vector<uint64_t> radix;
  uint64_t gspace = 1;
  for (AttrRef a : q.group) {
    const Dictionary* d = nullptr;
    gcodes.push_back(attr_codes(q, cat, cache, a, d));
    p.group_dicts.push_back(d);
    if (gspace > (uint64_t{1} << 62) / std::max<uint32_t>(d->size(), 1))
      throw Error(Errc::limit_exceeded,
                  "the GROUP BY attributes' value combinations exceed 2^62 (the group key)");
    gspace *= std::max<uint32_t>(d->size(), 1);
    radix.push_back(d->size());
  }
  std::vector<uint64_t> key(p.rows, 0);
  for (size_t g = 0; g < gcodes.size(); ++g)
    parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) key[r] = key[r] * radix[g] + gcodes[g][r];
    });
  // Y: each row's rank among the keys present. A small key space (at most 2^26 or 4 per row) is
  // ranked through a table in O(rows + space), a large one by sorting.
  std::vector<uint32_t> ycode(p.rows);
  std::vector<uint64_t> keys;
  if (gspace <= std::max<uint64_t>(uint64_t{1} << 26, 4 * p.rows) &&
      gspace <= (uint64_t{1} << 32)) {
    constexpr uint32_t kAbsent = 0xffffffffu;
    std::vector<uint32_t> rank(gspace, kAbsent);
    for (uint64_t r = 0; r < p.rows; ++r) rank[key[r]] = 0;
    for (uint64_t k = 0; k < gspace; ++k)
      if (rank[k] != kAbsent) {
        rank[k] = static_cast<uint32_t>(std::min<uint64_t>(keys.size(), kAbsent - 1));
        keys.push_back(k);
      }
    if (keys.size() <= kMaxGroups)
      parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
        for (uint64_t r = b; r < e; ++r) ycode[r] = rank[key[r]];
      });
  } else {
    keys = key;
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (keys.size() <= kMaxGroups)
      for (uint64_t r = 0; r < p.rows; ++r)
        ycode[r] = static_cast<uint32_t>(std::lower_bound(keys.begin(), keys.end(), key[r]) -
                                         keys.begin());
  }
  if (keys.size() > kMaxGroups)
    throw Error(
        Errc::limit_exceeded,
        fmt::format("{} groups exceed the 2^24 group codes float32 Y holds exactly", keys.size()));
  for (uint64_t k : keys) {
    std::vector<uint32_t> t(gcodes.size());
    for (size_t g = gcodes.size(); g-- > 0;) {
      t[g] = static_cast<uint32_t>(k % radix[g]);
      k /= radix[g];
    }
    p.group_tuples.push_back(std::move(t));
  }
  if (p.group_tuples.empty()) p.group_tuples.push_back({});

  // X: the first SUM/MIN/MAX/AVG whose every value float32 holds exactly.
  std::vector<int64_t> xv(p.rows, 0);
  for (size_t i = 0; i < q.aggs.size() && p.x_agg < 0; ++i) {
    if (q.aggs[i].func == AggFunc::count) continue;
    std::atomic<bool> fits{true};
    parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e && fits.load(std::memory_order_relaxed); ++r) {
        xv[r] = eval_expr(q.aggs[i].expr, fact, r);
        if (xv[r] < -(int64_t{1} << 24) || xv[r] > (int64_t{1} << 24)) fits = false;
      }
    });
    if (fits) p.x_agg = static_cast<int>(i);
  }
  if (p.x_agg < 0) std::fill(xv.begin(), xv.end(), 0);
  auto collect = [&](auto&& self, const Expr& e) -> void {
    if (e.op == 'c' &&
        std::find(p.fact_columns.begin(), p.fact_columns.end(), e.column) == p.fact_columns.end())
      p.fact_columns.push_back(e.column);
    for (const Expr& k : e.kids) self(self, k);
  };
  for (size_t i = 0; i < q.aggs.size(); ++i)
    if (static_cast<int>(i) != p.x_agg && !q.aggs[i].star) collect(collect, q.aggs[i].expr);

  // Triangles (x, y, z), (x + Sx, y, z), (x, y + Sy, z), S = 4W, W at least the value range: the
  // point (xmin + 1.5 Wx, 1.5 Wy) is strictly inside every triangle, W/8 from each edge.
  if (p.rows == 0) p.empty = true;
  int64_t xmin = 0, xmax = 0;
  for (int64_t v : xv) xmin = std::min(xmin, v), xmax = std::max(xmax, v);
  auto width = [](double lo, double hi) {
    return std::max({hi - lo + 1, 64.0, std::max(std::abs(lo), std::abs(hi)) / 65536});
  };
  double wx = width(double(xmin), double(xmax)), wy = width(0, double(p.group_tuples.size() - 1));
  auto sx = static_cast<float>(4 * wx), sy = static_cast<float>(4 * wy);
  p.ray_x = static_cast<float>(double(xmin) + 1.5 * wx);
  p.ray_y = static_cast<float>(1.5 * wy);
  // Triangles in Z order (a counting sort; rows of one Z code keep their order), as the SSB
  // engine lays them out: the rows a ray meets are neighbours in every per-row array the any-hit
  // shader reads (vertices, row flags, side codes, fact columns).
  std::vector<uint32_t> pos(p.rows);
  {
    std::vector<uint32_t> start(p.z_codes + 1, 0);
    for (uint64_t r = 0; r < p.rows; ++r) ++start[z[r] + uint64_t{1}];
    for (uint64_t c = 1; c <= p.z_codes; ++c) start[c] += start[c - 1];
    p.order.resize(p.rows);
    for (uint64_t r = 0; r < p.rows; ++r) {
      pos[r] = start[z[r]]++;
      p.order[pos[r]] = static_cast<uint32_t>(r);
    }
  }
  for (SideFilter& s : p.side) {
    std::vector<uint32_t> by_pos(p.rows);
    parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
      for (uint64_t r = b; r < e; ++r) by_pos[pos[r]] = s.codes[r];
    });
    s.codes = std::move(by_pos);
  }
  p.vertices.resize(p.rows * 9);
  parallel_rows(p.rows, [&](uint64_t b, uint64_t e) {
    for (uint64_t r = b; r < e; ++r) {
      auto x = static_cast<float>(xv[r]);
      auto y = static_cast<float>(ycode[r]);
      auto zz = static_cast<float>(z[r]);
      float* t = &p.vertices[uint64_t{pos[r]} * 9];
      t[0] = x, t[1] = y, t[2] = zz;
      t[3] = x + sx, t[4] = y, t[5] = zz;
      t[6] = x, t[7] = y + sy, t[8] = zz;
    }
  });
  return p;
}

}  // namespace raydb::sql::detail
