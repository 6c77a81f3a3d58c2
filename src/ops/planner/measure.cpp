// measure_grid: the planner's measurements. Per key count one set of fresh random unique keys,
// each index built over it (the fastest of a few builds, the indexes taking turns), then every
// lookup workload of the grid run on each: warm-up calls, the median of timed calls (again in
// turns), and the last call's results compared whole with the CPU reference. Times are the caller's
// wall clock, uploads and downloads included, since that is what choose_index minimises.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/key_index.hpp"
#include "raydb/planner.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// One workload's queries and the answers the CPU reference gives.
template <class Key>
struct Batch {
  LookupWorkload w;
  std::vector<Key> points;
  std::vector<KeyRange<Key>> ranges;
  std::vector<RxLookup> want;
};

template <class Key>
std::vector<Key> unique_keys(uint64_t n, std::mt19937_64& rng) {
  std::vector<Key> k;
  while (k.size() < n) {
    while (k.size() < n + n / 8 + 16) k.push_back(static_cast<Key>(rng()));
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
  }
  std::shuffle(k.begin(), k.end(), rng);
  k.resize(n);
  return k;
}

// Queries with round(hit_rate x lookups) hits: a hit looks up (or covers) a key of the set, a
// miss a value (or range) that holds none.
template <class Key>
Result<Batch<Key>> make_batch(const LookupWorkload& w, const std::vector<Key>& keys,
                              const std::vector<Key>& sorted, std::mt19937_64& rng) {
  Batch<Key> b;
  b.w = w;
  const uint64_t hits = static_cast<uint64_t>(std::llround(w.hit_rate * double(w.lookups)));
  const Key kmax = std::numeric_limits<Key>::max();
  const uint64_t width = w.range_width;
  if (width && width - 1 > uint64_t(kmax))
    return Error(Errc::invalid_argument,
                 fmt::format("range width {} exceeds the key range", width));
  auto empty_at = [&](Key lo, Key hi) {
    auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
    return it == sorted.end() || *it > hi;
  };
  for (uint64_t i = 0; i < w.lookups; ++i) {
    const bool hit = i < hits;
    Key lo = 0, hi = 0;
    if (hit) {
      Key k = keys[rng() % keys.size()];
      if (!width) {
        lo = hi = k;
      } else {
        Key off = static_cast<Key>(rng() % width);
        lo = k >= off ? Key(k - off) : Key(0);
        if (lo > kmax - Key(width - 1)) lo = Key(kmax - Key(width - 1));
        hi = Key(lo + Key(width - 1));
      }
    } else {
      int tries = 0;
      for (;; ++tries) {
        if (tries == 1000)
          return Error(Errc::invalid_argument,
                       fmt::format("no miss found for {} keys and range width {}: the keys are "
                                   "too dense for that hit rate",
                                   keys.size(), width));
        lo = static_cast<Key>(rng());
        if (width && lo > kmax - Key(width - 1)) continue;
        hi = width ? Key(lo + Key(width - 1)) : lo;
        if (empty_at(lo, hi)) break;
      }
    }
    if (width)
      b.ranges.push_back({lo, hi});
    else
      b.points.push_back(lo);
  }
  std::shuffle(b.points.begin(), b.points.end(), rng);
  std::shuffle(b.ranges.begin(), b.ranges.end(), rng);
  if (w.sorted_probes) {
    std::sort(b.points.begin(), b.points.end());
    std::sort(b.ranges.begin(), b.ranges.end(),
              [](const KeyRange<Key>& a, const KeyRange<Key>& c) { return a.lo < c.lo; });
  }
  return b;
}

template <class S>
uint64_t footprint_of(const S& s) {
  if constexpr (requires { s.build_peak_bytes; })
    return std::max<uint64_t>(s.build_peak_bytes, s.resident_bytes);
  else
    return s.resident_bytes;
}

// A built index of any kind, as measure_key_set drives it: lookups through closures over the
// owned index (ranges empty for the hash table).
struct AnyIndex {
  std::shared_ptr<void> owner;
  std::function<Status(KeySpan, std::span<RxLookup>)> points;
  std::function<Status(RangeSpan, std::span<RxLookup>)> ranges;
  uint64_t footprint = 0;
};

template <class Index>
Result<AnyIndex> build_any(const Context& ctx, KeySpan keys) {
  auto built = Index::build(ctx, keys);
  if (!built) return built.error();
  auto p = std::make_shared<Index>(std::move(*built));
  AnyIndex a;
  a.owner = p;
  a.footprint = footprint_of(p->build_stats());
  a.points = [p](KeySpan k, std::span<RxLookup> o) { return p->lookup(k, o); };
  if constexpr (RangeKeyLookup<Index>)
    a.ranges = [p](RangeSpan r, std::span<RxLookup> o) { return p->lookup_ranges(r, o); };
  return a;
}

Result<AnyIndex> build_kind(const Context& ctx, IndexKind k, KeySpan keys) {
  switch (k) {
    case IndexKind::rx:
      return build_any<RxIndex>(ctx, keys);
    case IndexKind::cgrx:
      return build_any<CgrxIndex>(ctx, keys);
    case IndexKind::sorted:
      return build_any<SortedIndex>(ctx, keys);
    case IndexKind::hash:
      return build_any<HashIndex>(ctx, keys);
  }
  return Error(Errc::internal, "unknown index kind");
}

// Every index over one key set, every batch on each. Builds and lookup calls go round the
// indexes in turn (index 1, 2, 3, 4, then again), not one index's repeats at once: on a shared
// machine the load changes over seconds, and taking turns spreads each change over all
// candidates instead of handing it to one.
template <class Key>
Status measure_indexes(const Context& ctx, const std::vector<IndexKind>& kinds,
                       const std::vector<Key>& keys, const std::vector<Batch<Key>>& batches,
                       const MeasureOptions& mo, std::vector<PlannerSample>& out) {
  std::vector<AnyIndex> built(kinds.size());
  std::vector<double> build_ms(kinds.size(), INFINITY);
  for (int rep = 0; rep < std::max(1, mo.build_repeats); ++rep)
    for (size_t i = 0; i < kinds.size(); ++i) {
      built[i] = AnyIndex{};  // free the last build first, so footprints do not add up
      auto t0 = Clock::now();
      auto b = build_kind(ctx, kinds[i], KeySpan(keys));
      double t = ms_since(t0);
      if (!b) return b.error();
      built[i] = std::move(*b);
      build_ms[i] = std::min(build_ms[i], t);
    }
  for (const Batch<Key>& batch : batches) {
    const bool ranges = batch.w.range_width != 0;
    std::vector<std::vector<RxLookup>> got(kinds.size(), std::vector<RxLookup>(batch.want.size()));
    std::vector<std::vector<double>> times(kinds.size());
    for (int rep = 0; rep < mo.warmup + std::max(1, mo.repeats); ++rep)
      for (size_t i = 0; i < kinds.size(); ++i) {
        if (ranges && !built[i].ranges) continue;  // the hash table: points only
        std::fill(got[i].begin(), got[i].end(), RxLookup{0, 0xDEAD, 0xDEAD});  // poisoned
        auto t0 = Clock::now();
        Status s = ranges ? built[i].ranges(RangeSpan(batch.ranges), got[i])
                          : built[i].points(KeySpan(batch.points), got[i]);
        double t = ms_since(t0);
        if (!s) return s;
        if (rep >= mo.warmup) times[i].push_back(t);
      }
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (times[i].empty()) continue;
      for (size_t q = 0; q < got[i].size(); ++q)
        if (!(got[i][q] == batch.want[q]))
          return Error(Errc::internal,
                       fmt::format("{} over {} keys: lookup {} of {} differs from the CPU "
                                   "reference",
                                   to_string(kinds[i]), keys.size(), q, got[i].size()));
      PlannerSample s;
      s.workload = batch.w;
      s.index = kinds[i];
      s.build_ms = build_ms[i];
      s.lookup_ms = median(times[i]);
      s.footprint_bytes = built[i].footprint;
      out.push_back(s);
    }
  }
  return {};
}

template <class Key>
Status measure_key_set(const Context& ctx, const PlannerGrid& g, uint64_t n,
                       const std::vector<IndexKind>& indexes, const MeasureOptions& mo,
                       std::mt19937_64& rng, std::vector<PlannerSample>& out) {
  std::vector<Key> keys = unique_keys<Key>(n, rng);
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  RxReference ref{KeySpan(keys)};
  std::vector<Batch<Key>> batches;
  for (uint64_t l : g.lookup_counts)
    for (double h : g.hit_rates)
      for (uint64_t wd : g.range_widths)
        for (bool o : g.sorted_orders) {
          LookupWorkload w{n, g.key_width, l, wd, h, o, 0};
          auto b = make_batch<Key>(w, keys, sorted, rng);
          if (!b) return b.error();
          b->want = wd ? ref.lookup_ranges(RangeSpan(b->ranges)) : ref.lookup(KeySpan(b->points));
          batches.push_back(std::move(*b));
        }
  return measure_indexes<Key>(ctx, indexes, keys, batches, mo, out);
}

std::vector<uint64_t> scaled(std::vector<uint64_t> v, int scale) {
  for (uint64_t& x : v) x = scale >= 0 ? x << scale : std::max<uint64_t>(1, x >> -scale);
  return v;
}

// Widths shrink as key counts grow, so that a range covers about as many keys at every scale
// and ranges that miss still exist (4096 wide over 2^26 random keys would hold 64 on average).
std::vector<uint64_t> scaled_widths(std::vector<uint64_t> v, int scale) {
  for (uint64_t& w : v)
    if (w) w = std::max<uint64_t>(1, w >> scale);
  v.erase(std::unique(v.begin(), v.end()), v.end());  // ascending, so equal widths are adjacent
  return v;
}

}  // namespace

PlannerGrid calibration_grid(int scale) {
  PlannerGrid g;
  g.key_counts = scaled({1u << 10, 1u << 12, 1u << 14, 1u << 16, 1u << 18}, scale);
  g.lookup_counts = scaled({1u << 10, 1u << 14}, scale);
  g.hit_rates = {0.3, 1.0};
  g.range_widths = scaled_widths({0, 16, 1024}, scale);
  g.sorted_orders = {false, true};
  return g;
}

PlannerGrid validation_grid(int scale) {
  PlannerGrid g;
  g.key_counts = scaled({1u << 11, 1u << 15, 1u << 17, 1u << 19}, scale);
  g.lookup_counts = scaled({1u << 12, 1u << 15}, scale);
  g.hit_rates = {0.1, 0.8};
  g.range_widths = scaled_widths({0, 64, 4096}, scale);
  g.sorted_orders = {false, true};
  return g;
}

Result<std::vector<PlannerSample>> measure_grid(
    const Context& ctx, const PlannerGrid& grid, const std::vector<IndexKind>& indexes,
    const MeasureOptions& options, const std::function<void(const std::string&)>& progress) {
  if (grid.key_counts.empty() || grid.lookup_counts.empty() || grid.hit_rates.empty() ||
      grid.range_widths.empty() || grid.sorted_orders.empty())
    return Error(Errc::invalid_argument, "planner grid: every list needs at least one value");
  for (double h : grid.hit_rates)
    if (!(h >= 0 && h <= 1))
      return Error(Errc::invalid_argument,
                   fmt::format("planner grid: hit rate {} not in [0, 1]", h));
  for (uint64_t n : grid.key_counts)
    if (n == 0 || n > (uint64_t{1} << 32) - 2)
      return Error(Errc::invalid_argument,
                   fmt::format("planner grid: key count {} not in [1, 2^32 - 2]", n));
  std::mt19937_64 rng(options.seed);
  std::vector<PlannerSample> out;
  for (uint64_t n : grid.key_counts) {
    auto t0 = Clock::now();
    Status s = grid.key_width == KeyWidth::bits64
                   ? measure_key_set<uint64_t>(ctx, grid, n, indexes, options, rng, out)
                   : measure_key_set<uint32_t>(ctx, grid, n, indexes, options, rng, out);
    if (!s) return s.error();
    if (progress)
      progress(fmt::format("{} keys: {} indexes measured in {:.1f} s", n, indexes.size(),
                           ms_since(t0) / 1000.0));
  }
  return out;
}

}  // namespace raydb
