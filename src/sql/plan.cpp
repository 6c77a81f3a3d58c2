// Bound query -> RTCUDB encoding (triangles, Z intervals, group dictionary); see plan.hpp.
#include "sql/plan.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/parallel.hpp"

namespace raydb::sql::detail {

using raydb::detail::host_threads;
using raydb::detail::parallel_slices;

namespace {
// Z codes and rays are exact in float32 at half-integers below 2^23.
constexpr uint64_t kMaxZCodes = uint64_t{1} << 23;
// Past this many Z intervals the launch costs more than checking in the any-hit shader.
constexpr uint64_t kMaxIntervals = uint64_t{1} << 20;
constexpr uint64_t kMaxGroups = uint64_t{1} << 24;  // Y holds every group code exactly
constexpr uint64_t kMaxLanes = 65536;               // SsbEngineOptions::max_lanes' default

// The process's CPU time (user and system, all threads).
double cpu_ms() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

// One part per hardware thread; one below 65,536 rows, where threads cost more than they save.
unsigned parts_for(uint64_t n) {
  return n < 65536 ? 1u : host_threads();
}

// A fact row's code of one attribute: its own row's, or its dimension row's, dictionary code.
struct CodeOf {
  const uint32_t* code = nullptr;
  const uint32_t* rows = nullptr;  // fact row -> dimension row; null for a fact attribute
  uint32_t operator()(uint64_t r) const { return code[rows ? rows[r] : r]; }
};

CodeOf code_of(const BoundQuery& q, const Catalog& cat, PlanCache& cache, AttrRef a,
               const Dictionary*& dict) {
  int table = a.dim < 0 ? q.fact : q.dims[size_t(a.dim)].table;
  dict = &dictionary(cache, cat, table, a.column);
  CodeOf c;
  c.code = dict->code.data();
  if (a.dim >= 0) c.rows = dim_rows(cache, cat, q.fact, q.dims[size_t(a.dim)]).data();
  return c;
}

constexpr size_t kRowBlock = 1024;

// acc[j] = acc[j] * scale + code(first + j) * stride for j < n: one attribute of a block of rows
// (a mixed-radix digit: stride for Z's least significant first, scale for the group key's most
// significant first).
void add_codes(const CodeOf& c, uint64_t first, size_t n, uint64_t stride, uint64_t scale,
               uint64_t* acc) {
  const uint32_t* code = c.code;
  if (c.rows) {
    const uint32_t* rows = c.rows + first;
    for (size_t j = 0; j < n; ++j) acc[j] = acc[j] * scale + uint64_t{code[rows[j]]} * stride;
  } else {
    code += first;
    for (size_t j = 0; j < n; ++j) acc[j] = acc[j] * scale + uint64_t{code[j]} * stride;
  }
}

}  // namespace

// eval_expr over rows [first, first + n) into out, one operator at a time over the block
// instead of a recursive call per row: the same wrapping arithmetic, so the same values.
void eval_rows(const Expr& e, const Table& fact, uint64_t first, uint64_t n, int64_t* out) {
  if (e.op == 'c') {
    std::memcpy(out, fact.columns[size_t(e.column)].ints.data() + first, n * 8);
    return;
  }
  if (e.op == 'k') {
    std::fill(out, out + n, e.value);
    return;
  }
  std::vector<int64_t> rhs(n);
  eval_rows(e.kids[0], fact, first, n, out);
  eval_rows(e.kids[1], fact, first, n, rhs.data());
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  if (e.op == '*') {
    for (uint64_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(u(out[i]) * u(rhs[i]));
    return;
  }
  // Scaling up by 10^k wraps as k multiplications by 10 do (multiplication modulo 2^64).
  auto pow10 = [](int k) {
    uint64_t m = 1;
    for (int i = 0; i < k; ++i) m *= 10u;
    return m;
  };
  uint64_t ma = pow10(e.scale - e.kids[0].scale), mb = pow10(e.scale - e.kids[1].scale);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t x = u(out[i]) * ma, y = u(rhs[i]) * mb;
    out[i] = static_cast<int64_t>(e.op == '+' ? x + y : x - y);
  }
}

// The stable order of rows by key (keys below `codes`): order[k] is the row at position k and
// pos[r] the position of row r, rows of one key in row order (the order of one serial counting
// sort). An LSD radix sort of
// digits of at most 12 bits; each digit is a parallel counting sort: per-part histograms, then
// every part scatters its rows in order to its own offsets.
void stable_order(const RowVector<uint32_t>& keys, uint64_t codes, RowVector<uint32_t>& order,
                  RowVector<uint32_t>& pos) {
  uint64_t n = keys.size();
  int bits = 0;
  while (bits < 32 && (uint64_t{1} << bits) < codes) ++bits;
  int passes = std::max(1, (bits + 11) / 12);
  int width = (bits + passes - 1) / passes;
  uint32_t mask = (uint32_t{1} << width) - 1;
  unsigned parts = parts_for(n);
  order.resize(n);
  pos.resize(n);
  RowVector<uint32_t> next(n), key, next_key;
  if (passes > 1) key.resize(n), next_key.resize(n);
  std::vector<uint64_t> at(size_t(parts) << width);
  for (int pass = 0; pass < passes; ++pass) {
    int shift = pass * width;
    bool first = pass == 0, last = pass + 1 == passes;
    const uint32_t* kin = first ? keys.data() : key.data();
    const uint32_t* rin = first ? nullptr : order.data();
    std::fill(at.begin(), at.end(), 0);
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      uint64_t* c = &at[size_t(t) << width];
      for (size_t i = b; i < e; ++i) ++c[(kin[i] >> shift) & mask];
    });
    uint64_t sum = 0;
    for (uint64_t d = 0; d <= mask; ++d)
      for (unsigned t = 0; t < parts; ++t) {
        uint64_t c = at[(size_t(t) << width) + d];
        at[(size_t(t) << width) + d] = sum;
        sum += c;
      }
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      uint64_t* c = &at[size_t(t) << width];
      for (size_t i = b; i < e; ++i) {
        uint32_t k = kin[i];
        auto to = static_cast<uint32_t>(c[(k >> shift) & mask]++);
        uint32_t row = rin ? rin[i] : static_cast<uint32_t>(i);
        next[to] = row;
        if (last)
          pos[row] = to;
        else
          next_key[to] = k;
      }
    });
    order.swap(next);
    key.swap(next_key);
  }
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

RtPlan plan_rt(const BoundQuery& q, const Catalog& cat, PlanCache& cache, StarGeometry geometry) {
  const Table& fact = cat.tables[size_t(q.fact)];
  RtPlan p;
  p.geometry = geometry;
  const bool filter_only = geometry == StarGeometry::filter_only;
  p.rows = fact.rows;
  const uint64_t n = p.rows;
  const unsigned parts = parts_for(n);
  auto t0 = std::chrono::steady_clock::now();
  double c0 = cpu_ms();
  auto mark = [&](const char* phase) {
    auto t = std::chrono::steady_clock::now();
    double c = cpu_ms();
    p.host_ms.push_back({phase, std::chrono::duration<double, std::milli>(t - t0).count(), c - c0});
    t0 = t, c0 = c;
  };
  // Every dimension must resolve for every fact row, joined or not by a filter (inner joins).
  for (const Dim& d : q.dims) dim_rows(cache, cat, q.fact, d);
  mark("joins");

  // Filters: selected codes; drop the ones that select everything. The rows' codes are read
  // through the cached dictionaries and joins in the one pass over the rows below, not copied.
  struct F {
    std::string name;
    CodeOf codes;
    std::vector<bool> sel;
    uint32_t selected = 0, runs = 0;
  };
  std::vector<F> fs;
  for (const Filter& f : q.filters) {
    const Dictionary* d = nullptr;
    F x;
    x.name = attr_name(cat, q, f.attr);
    x.codes = code_of(q, cat, cache, f.attr, d);
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
  std::vector<CodeOf> side_codes;
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
      side_codes.push_back(f.codes);
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
  std::vector<uint64_t> zstride(zf.size());
  uint64_t stride = 1;
  for (size_t i = zf.size(); i-- > 0;) {
    zstride[i] = stride;
    p.z.insert(p.z.begin(), ZAttr{zf[i]->name, static_cast<uint32_t>(zf[i]->sel.size()),
                                  zf[i]->selected, zf[i]->runs, stride});
    stride *= zf[i]->sel.size();
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
    for (auto& [lo, hi] : p.intervals) {
      lo = static_cast<uint32_t>(lo * lanes);
      hi = static_cast<uint32_t>(hi * lanes + lanes - 1);
    }
    p.z_codes *= lanes;
  }
  p.lanes = static_cast<uint32_t>(lanes);

  // Y's key space: the group tuples in mixed radix, first attribute most significant.
  std::vector<CodeOf> gcodes;
  std::vector<uint64_t> radix;
  uint64_t gspace = 1;
  for (AttrRef a : q.group) {
    const Dictionary* d = nullptr;
    gcodes.push_back(code_of(q, cat, cache, a, d));
    p.group_dicts.push_back(d);
    if (gspace > (uint64_t{1} << 62) / std::max<uint32_t>(d->size(), 1))
      throw Error(Errc::limit_exceeded,
                  "the GROUP BY attributes' value combinations exceed 2^62 (the group key)");
    gspace *= std::max<uint32_t>(d->size(), 1);
    radix.push_back(d->size());
  }
  // A small key space (at most 2^26 or 4 per row) is ranked through a table in O(rows + space),
  // a large one by sorting.
  const bool by_table =
      gspace <= std::max<uint64_t>(uint64_t{1} << 26, 4 * n) && gspace <= (uint64_t{1} << 32);
  mark("filters");

  // One pass over the rows: each row's Z code and group key, and which keys occur.
  RowVector<uint32_t> z(n);
  RowVector<uint64_t> key(gcodes.empty() ? 0 : n);
  RowVector<uint8_t> seen(by_table && !gcodes.empty() ? gspace : 0);
  parallel_slices(seen.size(), parts_for(seen.size()), [&](size_t b, size_t e, unsigned) {
    if (e > b) std::memset(seen.data() + b, 0, e - b);
  });
  // Block by block, one attribute at a time: a tight gather loop per attribute (as separate
  // passes had) without writing each attribute's codes for every row.
  std::vector<CodeOf> zcodes;
  for (const F* f : zf) zcodes.push_back(f->codes);
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
    uint64_t acc[kRowBlock];
    for (size_t s = b; s < e; s += kRowBlock) {
      size_t m = std::min(kRowBlock, e - s);
      std::fill(acc, acc + m, 0);
      for (size_t i = 0; i < zcodes.size(); ++i) add_codes(zcodes[i], s, m, zstride[i], 1, acc);
      for (size_t j = 0; j < m; ++j)
        z[s + j] = static_cast<uint32_t>(acc[j] * lanes + ((s + j) & (lanes - 1)));
      if (gcodes.empty()) continue;
      std::fill(acc, acc + m, 0);
      for (size_t g = 0; g < gcodes.size(); ++g) add_codes(gcodes[g], s, m, 1, radix[g], acc);
      std::copy(acc, acc + m, &key[s]);
      if (by_table)
        for (size_t j = 0; j < m; ++j) {
          std::atomic_ref<uint8_t> seen_k(seen[acc[j]]);
          if (!seen_k.load(std::memory_order_relaxed)) seen_k.store(1, std::memory_order_relaxed);
        }
    }
  });
  mark("codes");

  // Y: each row's rank among the keys present (its group code), keys in value order.
  std::vector<uint64_t> keys;
  RowVector<uint32_t> rank;
  auto too_many_groups = [](uint64_t groups) {
    return Error(
        Errc::limit_exceeded,
        fmt::format("{} groups exceed the 2^24 group codes float32 Y holds exactly", groups));
  };
  if (gcodes.empty()) {
    if (n) keys.push_back(0);
  } else if (by_table) {
    unsigned kparts = parts_for(gspace);
    std::vector<uint64_t> first(size_t(kparts) + 1, 0);
    parallel_slices(gspace, kparts, [&](size_t b, size_t e, unsigned t) {
      uint64_t c = 0;
      for (size_t k = b; k < e; ++k) c += seen[k];
      first[t + 1] = c;
    });
    for (unsigned t = 0; t < kparts; ++t) first[t + 1] += first[t];
    if (first[kparts] > kMaxGroups) throw too_many_groups(first[kparts]);
    rank.resize(gspace);
    keys.resize(first[kparts]);
    parallel_slices(gspace, kparts, [&](size_t b, size_t e, unsigned t) {
      uint64_t c = first[t];
      for (size_t k = b; k < e; ++k)
        if (seen[k]) rank[k] = static_cast<uint32_t>(c), keys[c++] = k;
    });
  } else {
    std::vector<std::vector<uint64_t>> part(parts);
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      part[t].assign(key.begin() + static_cast<ptrdiff_t>(b),
                     key.begin() + static_cast<ptrdiff_t>(e));
      std::sort(part[t].begin(), part[t].end());
      part[t].erase(std::unique(part[t].begin(), part[t].end()), part[t].end());
    });
    for (auto& pk : part) {
      std::vector<uint64_t> merged;
      merged.reserve(keys.size() + pk.size());
      std::set_union(keys.begin(), keys.end(), pk.begin(), pk.end(), std::back_inserter(merged));
      keys = std::move(merged);
      std::vector<uint64_t>().swap(pk);
    }
  }
  if (keys.size() > kMaxGroups) throw too_many_groups(keys.size());
  for (uint64_t k : keys) {
    std::vector<uint32_t> t(gcodes.size());
    for (size_t g = gcodes.size(); g-- > 0;) {
      t[g] = static_cast<uint32_t>(k % radix[g]);
      k /= radix[g];
    }
    p.group_tuples.push_back(std::move(t));
  }
  if (p.group_tuples.empty()) p.group_tuples.push_back({});
  mark("y");

  // X: the first SUM/MIN/MAX/AVG whose every value float32 holds exactly; the value range with
  // 0 in it (the triangles' width). filter_only keeps X and Y at 0 for every triangle (the
  // aggregates come from fact columns, the group from row_groups): a BVH builder that also
  // splits on X and Y makes splits no ray along Z can prune with.
  constexpr uint64_t kBlock = 4096;
  RowVector<int64_t> xv;
  int64_t xmin = 0, xmax = 0;
  for (size_t i = 0; i < q.aggs.size() && p.x_agg < 0 && !filter_only; ++i) {
    if (q.aggs[i].func == AggFunc::count) continue;
    xv.resize(n);
    std::atomic<bool> fits{true};
    std::vector<int64_t> lo(parts, 0), hi(parts, 0);
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      int64_t mn = 0, mx = 0;
      for (uint64_t s = b; s < e && fits.load(std::memory_order_relaxed); s += kBlock) {
        uint64_t m = std::min<uint64_t>(kBlock, e - s);
        eval_rows(q.aggs[i].expr, fact, s, m, &xv[s]);
        for (uint64_t r = s; r < s + m; ++r) {
          if (xv[r] < -(int64_t{1} << 24) || xv[r] > (int64_t{1} << 24)) fits = false;
          mn = std::min(mn, xv[r]), mx = std::max(mx, xv[r]);
        }
      }
      lo[t] = mn, hi[t] = mx;
    });
    if (!fits) continue;
    p.x_agg = static_cast<int>(i);
    xmin = *std::min_element(lo.begin(), lo.end());
    xmax = *std::max_element(hi.begin(), hi.end());
  }
  auto collect = [&](auto&& self, const Expr& e) -> void {
    if (e.op == 'c' &&
        std::find(p.fact_columns.begin(), p.fact_columns.end(), e.column) == p.fact_columns.end())
      p.fact_columns.push_back(e.column);
    for (const Expr& k : e.kids) self(self, k);
  };
  for (size_t i = 0; i < q.aggs.size(); ++i)
    if (static_cast<int>(i) != p.x_agg && !q.aggs[i].star) collect(collect, q.aggs[i].expr);
  mark("x");

  // Triangles in Z order (a stable sort; rows of one Z code keep their order), as the SSB
  // engine lays them out: the rows a ray meets are neighbours in every per-row array the any-hit
  // shader reads (vertices, row flags, side codes, fact columns).
  RowVector<uint32_t> pos;
  stable_order(z, p.z_codes, p.order, pos);
  mark("sort");

  // Triangles (x, y, z), (x + Sx, y, z), (x, y + Sy, z), S = 4W, W at least the value range: the
  // point (xmin + 1.5 Wx, 1.5 Wy) is strictly inside every triangle, W/8 from each edge.
  if (p.rows == 0) p.empty = true;
  auto width = [](double lo, double hi) {
    return std::max({hi - lo + 1, 64.0, std::max(std::abs(lo), std::abs(hi)) / 65536});
  };
  const bool y_is_group = !filter_only || p.group_tuples.size() == 1;
  double wx = width(double(xmin), double(xmax));
  double wy = width(0, y_is_group ? double(p.group_tuples.size() - 1) : 0.0);
  auto sx = static_cast<float>(4 * wx), sy = static_cast<float>(4 * wy);
  p.ray_x = static_cast<float>(double(xmin) + 1.5 * wx);
  p.ray_y = static_cast<float>(1.5 * wy);
  p.vertices.resize(n * 9);
  for (SideFilter& s : p.side) s.codes.resize(n);
  if (!y_is_group) p.row_groups.resize(n);
  // Fresh pages touched first in order, in parallel, so that their page faults are not taken in
  // the scattered writes below (its effect alone was not measured).
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
    if (e == b) return;  // no rows: data() may be null, which memset must not get
    std::memset(p.vertices.data() + b * 9, 0, (e - b) * 36);
    for (SideFilter& s : p.side) std::memset(s.codes.data() + b, 0, (e - b) * 4);
  });
  // By row: sequential reads, each row's triangle written at its position (one scattered write
  // a row; gathering by position instead reads z, key and x scattered, 2x slower here).
  const bool has_x = p.x_agg >= 0;
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
    uint32_t y[kRowBlock];
    for (size_t s = b; s < e; s += kRowBlock) {
      size_t m = std::min(kRowBlock, e - s);
      if (gcodes.empty())
        std::fill(y, y + m, 0u);
      else if (by_table)
        for (size_t j = 0; j < m; ++j) y[j] = rank[key[s + j]];
      else
        for (size_t j = 0; j < m; ++j)
          y[j] = static_cast<uint32_t>(std::lower_bound(keys.begin(), keys.end(), key[s + j]) -
                                       keys.begin());
      for (size_t j = 0; j < m; ++j) {
        size_t r = s + j;
        auto x = has_x ? static_cast<float>(xv[r]) : 0.0f;
        auto yy = y_is_group ? static_cast<float>(y[j]) : 0.0f;
        if (!y_is_group) p.row_groups[pos[r]] = y[j];
        auto zz = static_cast<float>(z[r]);
        float* t = &p.vertices[uint64_t{pos[r]} * 9];
        t[0] = x, t[1] = yy, t[2] = zz;
        t[3] = x + sx, t[4] = yy, t[5] = zz;
        t[6] = x, t[7] = yy + sy, t[8] = zz;
      }
      for (size_t i = 0; i < p.side.size(); ++i)
        for (size_t j = 0; j < m; ++j) p.side[i].codes[pos[s + j]] = side_codes[i](s + j);
    }
  });
  mark("triangles");
  return p;
}

}  // namespace raydb::sql::detail
