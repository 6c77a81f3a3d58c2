// The planner's offline part (PlanCache): per-column dictionaries and the fact rows' dimension
// rows, built once per loaded table in parallel passes over the rows; see plan.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/parallel.hpp"
#include "sql/plan.hpp"

namespace raydb::sql::detail {

using raydb::detail::host_threads;
using raydb::detail::parallel_slices;

namespace {

constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();

// One part per hardware thread; one below 65,536 rows, where threads cost more than they save.
unsigned parts_for(uint64_t n) {
  return n < 65536 ? 1u : host_threads();
}

// Smallest and largest value (0 and -1 for none), in parallel.
std::pair<int64_t, int64_t> min_max(const std::vector<int64_t>& v) {
  unsigned parts = parts_for(v.size());
  std::vector<int64_t> lo(parts, std::numeric_limits<int64_t>::max()),
      hi(parts, std::numeric_limits<int64_t>::min());
  parallel_slices(v.size(), parts, [&](size_t b, size_t e, unsigned t) {
    int64_t mn = lo[t], mx = hi[t];
    for (size_t i = b; i < e; ++i) mn = std::min(mn, v[i]), mx = std::max(mx, v[i]);
    lo[t] = mn, hi[t] = mx;
  });
  if (v.empty()) return {0, -1};
  return {*std::min_element(lo.begin(), lo.end()), *std::max_element(hi.begin(), hi.end())};
}

// Value ranges up to this many slots (or 4 per row) are numbered through a table indexed by the
// value, in O(rows + range); wider ones by sorting.
constexpr uint64_t kTableRange = uint64_t{1} << 24;

Dictionary int_dictionary(const std::vector<int64_t>& v) {
  Dictionary d;
  uint64_t n = v.size();
  unsigned parts = parts_for(n);
  const std::pair<int64_t, int64_t> range = min_max(v);
  const int64_t mn = range.first, mx = range.second;  // lambdas capture them: no binding (clang 14)
  d.code.resize(n);
  if (n == 0) return d;
  uint64_t span = static_cast<uint64_t>(mx) - static_cast<uint64_t>(mn);
  if (span < std::max(kTableRange, 4 * n)) {
    // Which values occur (a racy "set to 1" made atomic), then each one's rank among them.
    uint64_t range = span + 1;
    RowVector<uint8_t> seen(range);
    parallel_slices(range, parts_for(range), [&](size_t b, size_t e, unsigned) {
      if (e > b) std::memset(seen.data() + b, 0, e - b);
    });
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i) {
        std::atomic_ref<uint8_t> s(seen[static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(mn)]);
        if (!s.load(std::memory_order_relaxed)) s.store(1, std::memory_order_relaxed);
      }
    });
    unsigned rparts = parts_for(range);
    std::vector<uint64_t> first(size_t(rparts) + 1, 0);
    parallel_slices(range, rparts, [&](size_t b, size_t e, unsigned t) {
      uint64_t c = 0;
      for (size_t k = b; k < e; ++k) c += seen[k];
      first[t + 1] = c;
    });
    for (unsigned t = 0; t < rparts; ++t) first[t + 1] += first[t];
    RowVector<uint32_t> rank(range);
    d.ints.resize(first[rparts]);
    parallel_slices(range, rparts, [&](size_t b, size_t e, unsigned t) {
      uint64_t c = first[t];
      for (size_t k = b; k < e; ++k)
        if (seen[k]) {
          rank[k] = static_cast<uint32_t>(c);
          d.ints[c++] = static_cast<int64_t>(static_cast<uint64_t>(mn) + k);
        }
    });
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i)
        d.code[i] = rank[static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(mn)];
    });
    return d;
  }
  // Each part's sorted distinct values, merged; then each row's code by binary search.
  std::vector<std::vector<int64_t>> part(parts);
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
    part[t].assign(v.begin() + static_cast<ptrdiff_t>(b), v.begin() + static_cast<ptrdiff_t>(e));
    std::sort(part[t].begin(), part[t].end());
    part[t].erase(std::unique(part[t].begin(), part[t].end()), part[t].end());
  });
  for (auto& p : part) {
    std::vector<int64_t> merged;
    merged.reserve(d.ints.size() + p.size());
    std::set_union(d.ints.begin(), d.ints.end(), p.begin(), p.end(), std::back_inserter(merged));
    d.ints = std::move(merged);
    std::vector<int64_t>().swap(p);
  }
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i)
      d.code[i] = static_cast<uint32_t>(std::lower_bound(d.ints.begin(), d.ints.end(), v[i]) -
                                        d.ints.begin());
  });
  return d;
}

Dictionary text_dictionary(const std::vector<std::string>& v) {
  Dictionary d;
  uint64_t n = v.size();
  unsigned parts = parts_for(n);
  std::vector<std::unordered_set<std::string_view>> part(parts);
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
    for (size_t i = b; i < e; ++i) part[t].insert(v[i]);
  });
  std::unordered_set<std::string_view> all;
  for (const auto& p : part) all.insert(p.begin(), p.end());
  d.texts.assign(all.begin(), all.end());
  std::sort(d.texts.begin(), d.texts.end());
  std::unordered_map<std::string_view, uint32_t> idx;
  idx.reserve(d.texts.size());
  for (uint32_t i = 0; i < d.texts.size(); ++i) idx.emplace(d.texts[i], i);
  d.code.resize(n);
  parallel_slices(n, parts, [&](size_t b, size_t e, unsigned) {
    for (size_t i = b; i < e; ++i) d.code[i] = idx.find(v[i])->second;
  });
  return d;
}

}  // namespace

const Dictionary& dictionary(PlanCache& cache, const Catalog& cat, int table, int column) {
  auto key = std::make_pair(table, column);
  if (auto it = cache.dicts.find(key); it != cache.dicts.end()) return it->second;
  const Column& c = cat.tables[size_t(table)].columns[size_t(column)];
  Dictionary d = c.type == ColType::text ? text_dictionary(c.texts) : int_dictionary(c.ints);
  return cache.dicts.emplace(key, std::move(d)).first->second;
}

const RowVector<uint32_t>& dim_rows(PlanCache& cache, const Catalog& cat, int fact, const Dim& d) {
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
  RowVector<uint32_t> rows(ft.rows);
  unsigned parts = parts_for(ft.rows);
  // Per part, the first fact row whose key has no dimension row: the error names the first.
  std::vector<uint64_t> bad(parts, std::numeric_limits<uint64_t>::max());
  // Each fact row's key looked up with `find` (kAbsent: none); a key's first dimension row wins.
  auto probe = [&](auto&& find, const auto& keys) {
    parallel_slices(ft.rows, parts, [&](size_t b, size_t e, unsigned t) {
      for (size_t r = b; r < e; ++r) {
        uint32_t i = find(keys[r]);
        if (i == kAbsent) {
          bad[t] = r;
          return;
        }
        rows[r] = i;
      }
    });
  };
  if (pk.type == ColType::text) {
    std::unordered_map<std::string_view, uint32_t> idx;
    for (uint32_t i = 0; i < dt.rows; ++i) idx.emplace(pk.texts[i], i);
    probe(
        [&](const std::string& k) {
          auto it = idx.find(k);
          return it == idx.end() ? kAbsent : it->second;
        },
        fk.texts);
  } else {
    const std::pair<int64_t, int64_t> range = min_max(pk.ints);
    const int64_t mn = range.first, mx = range.second;
    uint64_t span = static_cast<uint64_t>(mx) - static_cast<uint64_t>(mn);
    if (dt.rows && span < std::max<uint64_t>(uint64_t{1} << 20, 4 * uint64_t{dt.rows})) {
      // Dense keys (SSB's 1..N, its dates): a table indexed by the key instead of a hash map.
      std::vector<uint32_t> slot(span + 1, kAbsent);
      for (uint32_t i = 0; i < dt.rows; ++i) {
        uint32_t& s = slot[static_cast<uint64_t>(pk.ints[i]) - static_cast<uint64_t>(mn)];
        if (s == kAbsent) s = i;
      }
      probe(
          [&](int64_t k) {
            return k < mn || k > mx ? kAbsent
                                    : slot[static_cast<uint64_t>(k) - static_cast<uint64_t>(mn)];
          },
          fk.ints);
    } else {
      std::unordered_map<int64_t, uint32_t> idx;
      idx.reserve(dt.rows);
      for (uint32_t i = 0; i < dt.rows; ++i) idx.emplace(pk.ints[i], i);
      probe(
          [&](int64_t k) {
            auto it = idx.find(k);
            return it == idx.end() ? kAbsent : it->second;
          },
          fk.ints);
    }
  }
  uint64_t r = *std::min_element(bad.begin(), bad.end());
  if (r != std::numeric_limits<uint64_t>::max()) {
    std::string v = fk.type == ColType::text ? fk.texts[r] : std::to_string(fk.ints[r]);
    throw Error(Errc::invalid_argument,
                fmt::format("{} row {}: {} = {} has no row in {} ({} is not a key there)", ft.name,
                            r + 1, fk.name, v, dt.name, pk.name));
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

}  // namespace raydb::sql::detail
