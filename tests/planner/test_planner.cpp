// The key-lookup planner (raydb/planner.hpp): the fit recovers a known model, the rules (no
// ranges on the hash table, the memory budget, a missing calibration), the calibration file's
// round trip, and a tiny calibration on the test device whose pick is then run and checked.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/planner.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

// A model with known coefficients: per index build = b0 + b1 n, footprint = 64 + f n, lookups
// over the four features.
PlannerModel known_model() {
  PlannerModel m;
  m.device = "test device";
  m.driver = "test driver 1.0";
  const double lookup[4][4] = {{0.5, 2e-3, 1e-5, 0},  // rx
                               {0.8, 1e-3, 3e-5, 0},  // cgrx
                               {0.1, 1e-4, 2e-5, 0},  // sorted
                               {0.1, 5e-4, 0, 0}};    // hash: flat in the key count
  for (int k = 0; k < 4; ++k) {
    m.index[k].build = {{1.0 + k, 1e-3 / (k + 1)}};
    m.index[k].footprint = {{64, 16.0 + 8 * k}};
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o) {
        if (k == 3 && r) continue;  // a hash table has no range model
        std::vector<double> c(lookup[k], lookup[k] + 4);
        c[1] *= o ? 0.5 : 1.0;  // sorted probes cost half per lookup
        c[3] = r ? 2e-4 : 0.0;  // ranges pay per matching row
        m.index[k].lookup[r][o] = {c};
      }
  }
  return m;
}

std::vector<PlannerSample> samples_of(const PlannerModel& m) {
  std::vector<PlannerSample> out;
  for (uint64_t n : {1u << 10, 1u << 14, 1u << 18})
    for (uint64_t l : {1u << 8, 1u << 12, 1u << 16})
      for (double h : {0.2, 1.0})
        for (uint64_t w : {0u, 16u, 1u << 20})
          for (bool o : {false, true})
            for (IndexKind k : all_index_kinds()) {
              LookupWorkload wl{n, KeyWidth::bits32, l, w, h, o, 0};
              if (k == IndexKind::hash && w) continue;
              auto c = choose_index(m, wl, false);
              REQUIRE(c);
              const auto& e = c->candidates[static_cast<int>(k)];
              out.push_back({wl, k, e.build_ms, e.lookup_ms, e.footprint_bytes});
            }
  return out;
}

std::string temp_file(const char* name) {
  auto p = std::filesystem::temp_directory_path() /
           (std::string("raydb_planner_") + std::to_string(test::fresh_seed()) + name);
  return p.string();
}

}  // namespace

TEST_CASE("planner: the fit recovers the model that made the measurements") {
  PlannerModel truth = known_model();
  auto fit = fit_planner_model(samples_of(truth), truth.device, truth.driver);
  REQUIRE(fit);
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < 2; ++i) {
      CHECK(fit->index[k].build.coef[i] == doctest::Approx(truth.index[k].build.coef[i]));
      CHECK(fit->index[k].footprint.coef[i] == doctest::Approx(truth.index[k].footprint.coef[i]));
    }
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o) {
        const auto& want = truth.index[k].lookup[r][o].coef;
        const auto& got = fit->index[k].lookup[r][o].coef;
        REQUIRE(got.size() == want.size());
        for (size_t i = 0; i < want.size(); ++i)
          CHECK_MESSAGE(std::fabs(got[i] - want[i]) <= 1e-4 * std::fabs(want[i]) + 1e-9,
                        "index " << k << " shape " << r << o << " coefficient " << i << ": "
                                 << got[i] << " vs " << want[i]);
      }
  }
  // Noise of +-5% still gives predictions within 10% of the truth.
  std::mt19937_64 rng(test::fresh_seed());
  std::uniform_real_distribution<double> noise(0.95, 1.05);
  auto noisy = samples_of(truth);
  for (auto& s : noisy) s.lookup_ms *= noise(rng), s.build_ms *= noise(rng);
  auto fit2 = fit_planner_model(noisy, truth.device, truth.driver);
  REQUIRE(fit2);
  for (const auto& s : samples_of(truth)) {
    auto c = choose_index(*fit2, s.workload, false);
    REQUIRE(c);
    CHECK(c->candidates[static_cast<int>(s.index)].lookup_ms ==
          doctest::Approx(s.lookup_ms).epsilon(0.10));
  }
  // Too few distinct workloads for four features is refused, naming the shape.
  std::vector<PlannerSample> few = samples_of(truth);
  few.resize(3);
  auto bad = fit_planner_model(few, "d", "v");
  REQUIRE_FALSE(bad);
  CHECK(std::string(bad.error().what()).find("distinct workloads") != std::string::npos);
}

TEST_CASE("planner: the grids are held out from each other and can make misses at every scale") {
  for (int scale = 0; scale <= 12; ++scale) {
    PlannerGrid cal = calibration_grid(scale), val = validation_grid(scale);
    for (const PlannerGrid* g : {&cal, &val}) {
      for (uint64_t n : g->key_counts) {
        CHECK(n <= (uint64_t{1} << 32) - 2);
        // Expected keys in a range of the widest width: misses must stay possible.
        for (uint64_t w : g->range_widths)
          CHECK_MESSAGE(double(n) * double(w) / 4294967296.0 <= 1.0,
                        "scale " << scale << ": " << n << " keys, width " << w);
      }
    }
    for (uint64_t n : val.key_counts)
      CHECK(std::find(cal.key_counts.begin(), cal.key_counts.end(), n) == cal.key_counts.end());
    for (uint64_t l : val.lookup_counts)
      CHECK(std::find(cal.lookup_counts.begin(), cal.lookup_counts.end(), l) ==
            cal.lookup_counts.end());
    for (double h : val.hit_rates)
      CHECK(std::find(cal.hit_rates.begin(), cal.hit_rates.end(), h) == cal.hit_rates.end());
  }
}

TEST_CASE("planner: the hash table never serves ranges and the memory budget rules out") {
  PlannerModel m = known_model();
  // Make the hash table the cheapest on everything, so only the rule can keep it out.
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o) m.index[3].lookup[r][o] = {{0, 0, 0, 0}};
  m.index[3].build = {{0, 0}};
  LookupWorkload points{1u << 20, KeyWidth::bits32, 1u << 16, 0, 0.5, false, 0};
  auto c = choose_index(m, points);
  REQUIRE(c);
  CHECK(c->index == IndexKind::hash);
  LookupWorkload ranges = points;
  ranges.range_width = 64;
  c = choose_index(m, ranges);
  REQUIRE(c);
  CHECK(c->index != IndexKind::hash);
  const auto& h = c->candidates[static_cast<int>(IndexKind::hash)];
  CHECK_FALSE(h.eligible);
  CHECK(h.ruled_out.find("point lookups only") != std::string::npos);
  CHECK(explain(*c).find("ruled out: a hash table") != std::string::npos);

  // A budget below the hash table's footprint (64 + 40 n) but above the rest's (<= 64 + 32 n).
  LookupWorkload tight = points;
  tight.memory_budget_bytes = 64 + 36 * points.keys;
  c = choose_index(m, tight);
  REQUIRE(c);
  CHECK(c->index != IndexKind::hash);
  CHECK(c->candidates[3].ruled_out.find("memory budget") != std::string::npos);
  for (const auto& e : c->candidates)
    if (e.eligible) CHECK(e.footprint_bytes <= tight.memory_budget_bytes);
  // Nothing fits: an error naming the budget and the smallest footprint.
  tight.memory_budget_bytes = 1024;
  auto none = choose_index(m, tight);
  REQUIRE_FALSE(none);
  CHECK(none.error().code() == Errc::limit_exceeded);
  CHECK(std::string(none.error().what()).find("memory budget") != std::string::npos);
  // Bad workloads are named.
  LookupWorkload bad = points;
  bad.hit_rate = 1.5;
  CHECK_FALSE(choose_index(m, bad));
  bad = points;
  bad.lookups = 0;
  CHECK_FALSE(choose_index(m, bad));
}

TEST_CASE("planner: calibration file round trip and a missing calibration names the command") {
  PlannerModel m = known_model();
  auto back = planner_model_from_json(planner_model_to_json(m));
  REQUIRE(back);
  CHECK(back->key() == m.key());
  for (int k = 0; k < 4; ++k)
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o)
        CHECK(back->index[k].lookup[r][o].coef == m.index[k].lookup[r][o].coef);
  CHECK(back->index[3].lookup[1][0].coef.empty());

  const std::string path = temp_file(".json");
  PlannerModel other = m;
  other.driver = "test driver 2.0";
  REQUIRE(save_planner_model(path, m));
  REQUIRE(save_planner_model(path, other));  // a second device and driver in the same file
  auto loaded = load_planner_model(path, m.device, m.driver);
  REQUIRE(loaded);
  CHECK(loaded->index[0].build.coef == m.index[0].build.coef);
  CHECK(load_planner_model(path, other.device, other.driver));

  auto missing = load_planner_model(path, "another GPU", "9.9");
  REQUIRE_FALSE(missing);
  std::string msg = missing.error().what();
  CHECK(msg.find("raydb calibrate") != std::string::npos);
  CHECK(msg.find("test device | test driver 1.0") != std::string::npos);  // what the file has
  auto absent = load_planner_model(path + ".absent", m.device, m.driver);
  REQUIRE_FALSE(absent);
  CHECK(std::string(absent.error().what()).find("raydb calibrate") != std::string::npos);
  auto empty = load_planner_model("", m.device, m.driver);
  REQUIRE_FALSE(empty);
  CHECK(std::string(empty.error().what()).find("raydb calibrate") != std::string::npos);

  // A corrupt entry is named by its field.
  {
    std::ofstream f(path, std::ios::trunc);
    f << R"({"models": {"test device | test driver 1.0": {"device": "test device",
         "driver": "test driver 1.0", "indexes": {"rx": {"build_ms": [1, -2],
         "footprint_bytes": [0, 16]}}}}})";
  }
  auto corrupt = load_planner_model(path, m.device, m.driver);
  REQUIRE_FALSE(corrupt);
  CHECK(std::string(corrupt.error().what()).find("indexes.rx.build_ms") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("planner: a tiny calibration on this device whose pick runs and equals the reference") {
  test::ValidationGuard guard;
  Context& ctx = test::context();
  PlannerGrid g;
  g.key_counts = {1u << 8, 1u << 10, 1u << 12};
  g.lookup_counts = {1u << 8, 1u << 10};
  g.hit_rates = {0.5};
  g.range_widths = {0, 8};
  g.sorted_orders = {false};
  MeasureOptions mo;
  mo.warmup = 0;
  mo.repeats = 1;
  mo.build_repeats = 1;
  mo.seed = test::fresh_seed();
  auto samples = measure_grid(ctx, g, all_index_kinds(), mo);  // each checked against the CPU
  REQUIRE(samples);
  CHECK(samples->size() == 3 * 2 * (2 * 3 + 1));  // hash has no ranges
  for (const auto& s : *samples) CHECK((s.lookup_ms > 0 && s.build_ms > 0));
  auto model = fit_planner_model(*samples, ctx.device().name, planner_driver(ctx.device()));
  REQUIRE(model);
  const std::string path = temp_file(".json");
  REQUIRE(save_planner_model(path, *model));

  std::mt19937_64 rng(test::fresh_seed());
  for (uint64_t width : {0u, 5u}) {
    LookupWorkload w{2000, KeyWidth::bits32, 700, width, 0.5, false, 0};
    auto c = choose_index(ctx, w, PlannerOptions{path, true});
    REQUIRE(c);
    MESSAGE(explain(*c));
    // Random keys with the mapping's magnitude edges; queries around them.
    std::vector<uint32_t> keys;
    for (uint64_t e : test::edge_keys(false)) keys.push_back(static_cast<uint32_t>(e));
    while (keys.size() < w.keys) keys.push_back(static_cast<uint32_t>(rng()));
    std::vector<uint32_t> points;
    std::vector<Range32> ranges;
    for (uint64_t i = 0; i < w.lookups; ++i) {
      uint32_t q = i % 2 ? keys[rng() % keys.size()] : static_cast<uint32_t>(rng());
      points.push_back(q);
      ranges.push_back({q, q > UINT32_MAX - 4 ? UINT32_MAX : q + 4});
    }
    RxReference ref{KeySpan(keys)};
    auto want = width ? ref.lookup_ranges(RangeSpan(ranges)) : ref.lookup(KeySpan(points));
    std::vector<RxLookup> got;
    switch (c->index) {
      case IndexKind::rx: {
        auto i = RxIndex::build(ctx, KeySpan(keys)).value();
        got = (width ? i.lookup_ranges(RangeSpan(ranges)) : i.lookup(KeySpan(points))).value();
        break;
      }
      case IndexKind::cgrx: {
        auto i = CgrxIndex::build(ctx, KeySpan(keys)).value();
        got = (width ? i.lookup_ranges(RangeSpan(ranges)) : i.lookup(KeySpan(points))).value();
        break;
      }
      case IndexKind::sorted: {
        auto i = SortedIndex::build(ctx, KeySpan(keys)).value();
        got = (width ? i.lookup_ranges(RangeSpan(ranges)) : i.lookup(KeySpan(points))).value();
        break;
      }
      case IndexKind::hash: {
        REQUIRE(width == 0);  // the rule, on a real model
        auto i = HashIndex::build(ctx, KeySpan(keys)).value();
        got = i.lookup(KeySpan(points)).value();
        break;
      }
    }
    test::check_lookups(got, want, to_string(c->index));
  }
  std::filesystem::remove(path);
}
