// RxIndex against the CPU reference on fresh random data: both traversal modes, both primitive
// types, both key widths, duplicates, misses, ranges over several lines, split BLAS, collection
// of row ids with overflow, in-place update and rebuild.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>

#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/workload.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

struct Config {
  TraversalMode mode;
  Primitive primitive;
  KeyWidth width;
  RxLookupMethod method;
  bool opaque = true;  // RxBuildOptions::opaque_triangles
};

std::vector<Config> all_configs() {
  std::vector<Config> out;
  const DeviceInfo& d = test::context().device();
  for (TraversalMode m : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if ((m == TraversalMode::pipeline && !d.ray_tracing_pipeline) ||
        (m == TraversalMode::ray_query && !d.ray_query)) {
      MESSAGE("skipped: device has no " << std::string(to_string(m)));
      continue;
    }
    for (Primitive p : {Primitive::triangles, Primitive::aabbs})
      for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64})
        for (RxLookupMethod x : {RxLookupMethod::hit_and_scan, RxLookupMethod::any_hit}) {
          out.push_back({m, p, w, x});
          // hit_and_scan over triangles: opaque rays by default, any-hit calls when off.
          if (p == Primitive::triangles && x == RxLookupMethod::hit_and_scan)
            out.push_back({m, p, w, x, false});
        }
  }
  return out;
}

RxBuildOptions options_of(const Config& c) {
  RxBuildOptions o;
  o.traversal = c.mode;
  o.primitive = c.primitive;
  o.method = c.method;
  o.opaque_triangles = c.opaque;
  return o;
}

std::string name(const Config& c) {
  return std::string(to_string(c.mode)) + "/" + to_string(c.primitive) + "/" + to_string(c.width) +
         "-bit/" + to_string(c.method) + (c.opaque ? "" : "/any-hit-calls");
}

// Keys with duplicates: `distinct` random keys, each repeated 1-4 times, in random row order.
workload::KeyColumn random_keys(KeyWidth w, size_t distinct, std::mt19937_64& rng,
                                uint64_t max_key) {
  workload::KeyColumn c;
  c.width = w;
  std::vector<uint64_t> ks;
  for (size_t i = 0; i < distinct; ++i) {
    uint64_t k = rng() % max_key;
    int reps = 1 + static_cast<int>(rng() % 4);
    for (int r = 0; r < reps; ++r) ks.push_back(k);
  }
  std::shuffle(ks.begin(), ks.end(), rng);
  for (uint64_t k : ks) c.push_back(k);
  return c;
}

workload::KeyColumn probes_for(const workload::KeyColumn& keys, size_t count, std::mt19937_64& rng,
                               uint64_t max_key) {
  workload::KeyColumn p;
  p.width = keys.width;
  for (size_t i = 0; i < count; ++i) {
    uint64_t k = (i % 2 == 0 && keys.size() > 0) ? keys[rng() % keys.size()] : rng() % max_key;
    p.push_back(k);
  }
  return p;
}

workload::RangeColumn ranges_for(const workload::KeyColumn& keys, size_t count,
                                 std::mt19937_64& rng, uint64_t max_key) {
  workload::RangeColumn r;
  r.width = keys.width;
  for (size_t i = 0; i < count; ++i) {
    uint64_t lo = (i % 2 == 0 && keys.size() > 0) ? keys[rng() % keys.size()] : rng() % max_key;
    // Widths from 1 to 2^26: up to 9 lines of 2^23 keys per range.
    uint64_t width = uint64_t{1} << (rng() % 27);
    width = 1 + rng() % width;
    uint64_t hi = lo > max_key - width ? max_key : lo + width - 1;
    if (r.width == KeyWidth::bits64)
      r.r64.push_back({lo, hi});
    else
      r.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  }
  return r;
}

std::vector<uint32_t> random_values(size_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = static_cast<uint32_t>(rng());
  return v;
}

uint64_t max_key_of(KeyWidth w) {
  return w == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
}

}  // namespace

TEST_CASE("rx: point and range lookups equal the CPU reference in every configuration") {
  test::ValidationGuard guard;
  uint64_t seed = test::fresh_seed();
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(seed);
    // A key space small enough that random ranges contain keys, large enough to span lines.
    uint64_t max_key = c.width == KeyWidth::bits64 ? (uint64_t{1} << 36) : 0xFFFFFFFFull;
    auto keys = random_keys(c.width, 1500, rng, max_key);
    auto values = random_values(keys.size(), rng);
    RxBuildOptions o = options_of(c);
    auto index = RxIndex::build(test::context(), keys.span(), values, o);
    REQUIRE_MESSAGE(index.ok(), std::string(index.ok() ? "" : index.error().what()));
    RxReference ref(keys.span(), values);
    CHECK(!index->build_stats().unique_keys);

    auto points = probes_for(keys, 2000, rng, max_key);
    auto got = index->lookup(points.span());
    REQUIRE(got.ok());
    test::check_lookups(*got, ref.lookup(points.span()), "points");

    auto ranges = ranges_for(keys, 1000, rng, max_key);
    auto got_r = index->lookup_ranges(ranges.span());
    REQUIRE_MESSAGE(got_r.ok(), std::string(got_r.ok() ? "" : got_r.error().what()));
    test::check_lookups(*got_r, ref.lookup_ranges(ranges.span()), "ranges");
    CHECK(index->last_stats().rays >= ranges.size());
  }
}

TEST_CASE("rx: unique keys take the first-hit path and stay exact") {
  test::ValidationGuard guard;
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    workload::KeyOptions ko;
    ko.count = 4000;
    ko.width = c.width;
    ko.seed = test::fresh_seed();
    auto wl = workload::make_keys(ko).value();
    RxBuildOptions o = options_of(c);
    auto index = RxIndex::build(test::context(), wl.keys.span(), wl.values, o).value();
    CHECK(index.build_stats().unique_keys);
    RxReference ref(wl.keys.span(), wl.values);
    for (double h : {1.0, 0.5, 0.0}) {
      workload::ProbeOptions po;
      po.count = 3000;
      po.hit_rate = h;
      po.seed = ko.seed + 17;
      auto probes = workload::make_point_probes(wl.universe, po).value();
      auto got = index.lookup(probes.span()).value();
      test::check_lookups(got, ref.lookup(probes.span()), "unique points");
      size_t hits =
          std::count_if(got.begin(), got.end(), [](const RxLookup& r) { return r.hit(); });
      if (h == 1.0) CHECK(hits == probes.size());  // all-hit
      if (h == 0.0) CHECK(hits == 0);
    }
  }
}

TEST_CASE("rx: inputs above the per-BLAS primitive limit are split and never truncated") {
  test::ValidationGuard guard;
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(test::fresh_seed());
    auto keys = random_keys(c.width, 2000, rng, max_key_of(c.width));
    auto values = random_values(keys.size(), rng);
    RxBuildOptions o = options_of(c);
    o.max_primitives_per_blas = 777;  // a lower split limit keeps the test small
    auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
    CHECK(index.build_stats().blas_count == (keys.size() + 776) / 777);
    RxReference ref(keys.span(), values);
    auto points = probes_for(keys, 2000, rng, max_key_of(c.width));
    test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                        "split points");
    auto ranges = ranges_for(keys, 500, rng, max_key_of(c.width));
    test::check_lookups(index.lookup_ranges(ranges.span()).value(),
                        ref.lookup_ranges(ranges.span()), "split ranges");
  }
}

TEST_CASE("rx: collect_rows returns every matching row and reports overflow") {
  test::ValidationGuard guard;
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(test::fresh_seed());
    uint64_t max_key = 1u << 20;  // dense enough for many matches per range
    auto keys = random_keys(c.width, 1000, rng, max_key);
    RxBuildOptions o = options_of(c);
    auto index = RxIndex::build(test::context(), keys.span(), {}, o).value();
    RxReference ref(keys.span());
    auto points = probes_for(keys, 500, rng, max_key);
    auto want_p = ref.collect_rows(points.span());
    std::vector<RxRowMatch> out_p(want_p.size());
    auto rp = index.collect_rows(points.span(), out_p).value();
    CHECK(rp.total == want_p.size());
    std::sort(out_p.begin(), out_p.end());
    test::check_equal_whole(out_p, want_p, "collected point rows");

    auto ranges = ranges_for(keys, 300, rng, max_key);
    auto want = ref.collect_rows(ranges.span());
    REQUIRE(want.size() > 10);

    std::vector<RxRowMatch> out(want.size() + 5);
    auto r = index.collect_rows(ranges.span(), out).value();
    CHECK(r.total == want.size());
    CHECK(r.complete());
    out.resize(r.written);
    std::sort(out.begin(), out.end());
    test::check_equal_whole(out, want, "collected rows");

    std::vector<RxRowMatch> small(want.size() / 3);
    auto s = index.collect_rows(ranges.span(), small).value();
    CHECK(s.total == want.size());
    CHECK(s.written == small.size());
    CHECK(!s.complete());
    for (auto& m : small) CHECK(std::binary_search(want.begin(), want.end(), m));
  }
}

TEST_CASE("rx: lookups sorted on the GPU answer in the caller's order") {
  test::ValidationGuard guard;
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(test::fresh_seed());
    uint64_t max_key = max_key_of(c.width);
    auto keys = random_keys(c.width, 1500, rng, max_key);
    auto values = random_values(keys.size(), rng);
    RxBuildOptions o = options_of(c);
    o.sort_probes = true;
    auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
    RxReference ref(keys.span(), values);
    // Unsorted, with repeated probes and misses; plus one batch of a single lookup.
    auto points = probes_for(keys, 3000, rng, max_key);
    test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                        "gpu-sorted points");
    CHECK(index.last_stats().sort_ms > 0);
    auto one = probes_for(keys, 1, rng, max_key);
    test::check_lookups(index.lookup(one.span()).value(), ref.lookup(one.span()), "one point");
    // Collected pairs name the caller's query, not its sorted position.
    auto want = ref.collect_rows(points.span());
    std::vector<RxRowMatch> out(want.size());
    CHECK(index.collect_rows(points.span(), out).value().complete());
    std::sort(out.begin(), out.end());
    test::check_equal_whole(out, want, "gpu-sorted collected rows");
    // Ranges are sorted by lo (spatially close query mapping); pairs still name the caller's
    // range. Switching the sort off needs no rebuild.
    auto ranges = ranges_for(keys, 500, rng, max_key);
    test::check_lookups(index.lookup_ranges(ranges.span()).value(),
                        ref.lookup_ranges(ranges.span()), "ranges with sort_probes");
    CHECK(index.last_stats().sort_ms > 0);
    auto want_r = ref.collect_rows(ranges.span());
    std::vector<RxRowMatch> out_r(want_r.size());
    CHECK(index.collect_rows(ranges.span(), out_r).value().complete());
    std::sort(out_r.begin(), out_r.end());
    test::check_equal_whole(out_r, want_r, "gpu-sorted collected range rows");
    index.set_sort_probes(false);
    test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                        "points, sort off");
    CHECK(index.last_stats().sort_ms == 0);
  }
}

TEST_CASE("rx: in-place update and rebuild stay exact") {
  test::ValidationGuard guard;
  for (const Config& c : all_configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(test::fresh_seed());
    auto keys = random_keys(c.width, 1500, rng, max_key_of(c.width));
    auto values = random_values(keys.size(), rng);
    RxBuildOptions o = options_of(c);
    o.allow_update = true;
    auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
    // Move some keys: swap positions and replace others.
    auto moved = keys;
    for (int i = 0; i < 200; ++i) {
      size_t a = rng() % moved.size(), b = rng() % moved.size();
      uint64_t ka = moved[a], kb = moved[b];
      workload::KeyColumn tmp;
      if (moved.width == KeyWidth::bits64) {
        moved.k64[a] = kb;
        moved.k64[b] = (i % 2) ? ka : rng();
      } else {
        moved.k32[a] = static_cast<uint32_t>(kb);
        moved.k32[b] = static_cast<uint32_t>((i % 2) ? ka : rng());
      }
    }
    REQUIRE(index.update(moved.span()).ok());
    RxReference ref(moved.span(), values);
    auto points = probes_for(moved, 2000, rng, max_key_of(c.width));
    test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                        "after update");

    auto fresh = random_keys(c.width, 800, rng, max_key_of(c.width));
    REQUIRE(index.rebuild(fresh.span()).ok());
    RxReference ref2(fresh.span());
    auto p2 = probes_for(fresh, 1000, rng, max_key_of(c.width));
    test::check_lookups(index.lookup(p2.span()).value(), ref2.lookup(p2.span()), "after rebuild");
    CHECK(index.size() == fresh.size());
  }
}

TEST_CASE("rx: compaction and row-order layout change no result") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 1000, rng, 0xFFFFFFFFull);
  auto values = random_values(keys.size(), rng);
  RxReference ref(keys.span(), values);
  auto points = probes_for(keys, 1500, rng, 0xFFFFFFFFull);
  auto want = ref.lookup(points.span());
  // min_saving 0: compaction runs whenever allowed; 1: it never saves enough, so the BLAS stays
  // as built; 0.1: the default, whichever the driver's compacted size decides.
  for (bool compact : {true, false})
    for (double min_saving : {0.0, 1.0, 0.1})
      for (bool key_order : {true, false}) {
        if (!compact && min_saving != 0.0) continue;  // nothing to decide
        CAPTURE(compact);
        CAPTURE(min_saving);
        CAPTURE(key_order);
        RxBuildOptions o;
        o.compact = compact;
        o.compact_min_saving = min_saving;
        o.key_order = key_order;
        auto index = RxIndex::build(test::context(), keys.span(), values, o).value();
        const auto& s = index.build_stats();
        CHECK(s.bvh_bytes <= s.bvh_uncompacted_bytes);
        CHECK(s.build_peak_bytes >= s.resident_bytes);
        CHECK(s.resident_bytes >= s.bvh_bytes);
        if (!compact) {
          CHECK(s.bvh_compacted_bytes == 0);
          CHECK(s.compact_ms == 0);
          CHECK(s.bvh_bytes == s.bvh_uncompacted_bytes);
        } else {
          REQUIRE(s.bvh_compacted_bytes > 0);
          CHECK(s.bvh_compacted_bytes <= s.bvh_uncompacted_bytes);
          if (min_saving == 0.0) CHECK(s.bvh_bytes == s.bvh_compacted_bytes);
          if (min_saving == 1.0) {
            CHECK(s.bvh_bytes == s.bvh_uncompacted_bytes);
            CHECK(s.compact_ms == 0);
          }
          if (min_saving == 0.1)
            CHECK((s.bvh_bytes == s.bvh_compacted_bytes || s.bvh_bytes == s.bvh_uncompacted_bytes));
        }
        test::check_lookups(index.lookup(points.span()).value(), want, "layout/compaction");
      }
}

TEST_CASE("rx: a compaction threshold outside [0, 1] is refused, naming the option") {
  test::ValidationGuard guard;
  std::vector<uint32_t> keys{1, 2, 3}, values{4, 5, 6};
  for (double bad : {-0.1, 1.5, std::nan("")}) {
    CAPTURE(bad);
    RxBuildOptions o;
    o.compact_min_saving = bad;
    auto r = RxIndex::build(test::context(), KeySpan(std::span<const uint32_t>(keys)), values, o);
    REQUIRE(!r.ok());
    CHECK(r.error().code() == Errc::invalid_argument);
    CHECK(std::string(r.error().what()).find("compact_min_saving") != std::string::npos);
  }
}

TEST_CASE("rx: build preferences give the same results") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits64, 1000, rng, ~uint64_t{0});
  RxReference ref(keys.span());
  auto points = probes_for(keys, 1000, rng, ~uint64_t{0});
  auto want = ref.lookup(points.span());
  for (BuildPreference p : {BuildPreference::fast_trace, BuildPreference::fast_build}) {
    RxBuildOptions o;
    o.preference = p;
    auto index = RxIndex::build(test::context(), keys.span(), {}, o).value();
    test::check_lookups(index.lookup(points.span()).value(), want, to_string(p));
  }
}

TEST_CASE("rx: every pipeline shape gives the same results, and a bad shape is named") {
  if (!test::context().device().ray_tracing_pipeline) {
    MESSAGE("skipped: device has no pipeline");
    return;
  }
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 1000, rng, uint64_t{1} << 32);
  RxReference ref(keys.span());
  auto points = probes_for(keys, 1000, rng, uint64_t{1} << 32);
  auto want = ref.lookup(points.span());
  // Diagnostics::vk_rt_pipeline (docs/optix.md) shapes every pipeline of its context.
  const std::pair<VkRtPipelineShape, const char*> shapes[] = {
      {VkRtPipelineShape::generic, "generic"},
      {VkRtPipelineShape::lean, "lean"},
      {VkRtPipelineShape::culled, "culled"}};
  for (auto [shape, name] : shapes) {
    ContextOptions co;
    co.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
    co.diagnostics.vk_rt_pipeline = shape;
    Context ctx = Context::create(co).value();
    for (Primitive p : {Primitive::triangles, Primitive::aabbs}) {
      RxBuildOptions o;
      o.traversal = TraversalMode::pipeline;
      o.primitive = p;
      auto index = RxIndex::build(ctx, keys.span(), {}, o).value();
      auto got = index.lookup(points.span());
      REQUIRE_MESSAGE(got.ok(), std::string(got.ok() ? "" : got.error().what()));
      std::string what = std::string(name) + " " + to_string(p);
      test::check_lookups(got.value(), want, what.c_str());
    }
    CHECK_MESSAGE(ctx.validation_messages() == 0, "Vulkan validation messages");
  }
  Diagnostics d;
  Status bad = set_diagnostic(d, "RAYDB_VK_RT_PIPELINE", "fitted");
  REQUIRE(!bad.ok());
  CHECK(bad.error().code() == Errc::invalid_argument);
  CHECK(std::string(bad.error().what()).find("RAYDB_VK_RT_PIPELINE='fitted'") != std::string::npos);
}

namespace {

// Few distinct keys, each repeated 1-12 times, plus the magnitude edges of the width (0, 1, the
// x-line boundary 2^23 - 1 / 2^23, the largest keys), some of them repeated too.
workload::KeyColumn duplicate_heavy_keys(KeyWidth w, size_t distinct, std::mt19937_64& rng,
                                         uint64_t max_key) {
  workload::KeyColumn c;
  c.width = w;
  std::vector<uint64_t> ks;
  for (size_t i = 0; i < distinct; ++i) {
    uint64_t k = rng() % max_key;
    int reps = 1 + static_cast<int>(rng() % 12);
    for (int r = 0; r < reps; ++r) ks.push_back(k);
  }
  uint64_t top = max_key_of(w);
  for (uint64_t k : {uint64_t{0}, uint64_t{1}, (uint64_t{1} << 23) - 1, uint64_t{1} << 23, top,
                     top - 1, top, uint64_t{0}})
    ks.push_back(k);
  std::shuffle(ks.begin(), ks.end(), rng);
  for (uint64_t k : ks) c.push_back(k);
  return c;
}

size_t distinct_count(const workload::KeyColumn& keys) {
  std::vector<uint64_t> ks;
  for (size_t i = 0; i < keys.size(); ++i) ks.push_back(keys[i]);
  std::sort(ks.begin(), ks.end());
  return static_cast<size_t>(std::unique(ks.begin(), ks.end()) - ks.begin());
}

// Small ranges around the magnitude edges, on top of the random ones.
void add_edge_ranges(workload::RangeColumn& r) {
  uint64_t top = max_key_of(r.width);
  std::pair<uint64_t, uint64_t> edges[] = {
      {0, 0},         {0, 5},     {(uint64_t{1} << 23) - 2, (uint64_t{1} << 23) + 1},
      {top - 1, top}, {top, top}, {top - 100, top - 2}};
  for (auto [lo, hi] : edges) {
    if (r.width == KeyWidth::bits64)
      r.r64.push_back({lo, hi});
    else
      r.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  }
}

}  // namespace

TEST_CASE("rx: partitioned and duplicate-compressed builds equal the CPU reference") {
  test::ValidationGuard guard;
  uint64_t seed = test::fresh_seed();
  for (const Config& c : all_configs()) {
    std::mt19937_64 rng(seed);
    uint64_t max_key = c.width == KeyWidth::bits64 ? (uint64_t{1} << 36) : (uint64_t{1} << 26);
    auto keys = duplicate_heavy_keys(c.width, 250, rng, max_key);
    auto values = random_values(keys.size(), rng);
    RxReference ref(keys.span(), values);
    size_t distinct = distinct_count(keys);
    auto points = probes_for(keys, 800, rng, max_key);
    for (uint64_t k : {uint64_t{0}, max_key_of(c.width), uint64_t{1} << 23}) points.push_back(k);
    // Random ranges start at keys, the edge keys among them: bounded by the width's maximum.
    auto ranges = ranges_for(keys, 300, rng, max_key_of(c.width));
    add_edge_ranges(ranges);
    auto want_p = ref.lookup(points.span());
    auto want_r = ref.lookup_ranges(ranges.span());
    auto want_cp = ref.collect_rows(points.span());
    auto want_cr = ref.collect_rows(ranges.span());
    for (uint32_t parts : {1u, 3u, 7u})
      for (bool compress : {false, true}) {
        if (compress && c.method == RxLookupMethod::any_hit) continue;  // rejected, tested below
        std::string config =
            name(c) + "/P=" + std::to_string(parts) + (compress ? "/compressed" : "");
        CAPTURE(config);
        RxBuildOptions o = options_of(c);
        o.partitions = parts;
        o.compress_duplicates = compress;
        // With 7 parts, BLAS of at most 60 primitives: parts of several BLAS of unequal size.
        if (parts == 7) o.max_primitives_per_blas = 60;
        auto index = RxIndex::build(test::context(), keys.span(), values, o);
        REQUIRE_MESSAGE(index.ok(), std::string(index.ok() ? "" : index.error().what()));
        const auto& s = index->build_stats();
        CHECK(s.partitions == parts);
        CHECK(s.primitives == (compress ? distinct : keys.size()));
        CHECK(s.blas_count >= parts);
        test::check_lookups(index->lookup(points.span()).value(), want_p, "points");
        test::check_lookups(index->lookup_ranges(ranges.span()).value(), want_r, "ranges");
        std::vector<RxRowMatch> out(want_cp.size());
        CHECK(index->collect_rows(points.span(), out).value().complete());
        std::sort(out.begin(), out.end());
        test::check_equal_whole(out, want_cp, "collected point rows");
        out.assign(want_cr.size(), {});
        CHECK(index->collect_rows(ranges.span(), out).value().complete());
        std::sort(out.begin(), out.end());
        test::check_equal_whole(out, want_cr, "collected range rows");
      }
  }
}

TEST_CASE("rx: partitions with unique keys, tiny inputs and in-place update stay exact") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // More parts than keys: one part per key. Unique keys: compression changes nothing.
  for (size_t count : {size_t{1}, size_t{5}, size_t{3000}}) {
    CAPTURE(count);
    workload::KeyOptions ko;
    ko.count = count;
    ko.width = KeyWidth::bits64;
    ko.seed = rng();
    auto wl = workload::make_keys(ko).value();
    RxReference ref(wl.keys.span(), wl.values);
    auto points = probes_for(wl.keys, 500, rng, max_key_of(KeyWidth::bits64));
    RxBuildOptions o;
    o.partitions = 7;
    o.compress_duplicates = true;
    auto index = RxIndex::build(test::context(), wl.keys.span(), wl.values, o).value();
    CHECK(index.build_stats().partitions == std::min<size_t>(7, count));
    CHECK(index.build_stats().primitives == count);
    test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                        "unique keys");
  }
  auto empty = RxIndex::build(test::context(), KeySpan{}, {}, RxBuildOptions{.partitions = 4});
  REQUIRE(empty.ok());
  CHECK(empty->build_stats().partitions == 0);

  auto keys = random_keys(KeyWidth::bits32, 800, rng, max_key_of(KeyWidth::bits32));
  RxBuildOptions o;
  o.partitions = 5;
  o.allow_update = true;
  auto index = RxIndex::build(test::context(), keys.span(), {}, o).value();
  auto moved = keys;
  for (int i = 0; i < 100; ++i) moved.k32[rng() % moved.size()] = static_cast<uint32_t>(rng());
  REQUIRE(index.update(moved.span()).ok());
  RxReference ref(moved.span());
  auto points = probes_for(moved, 1000, rng, max_key_of(KeyWidth::bits32));
  test::check_lookups(index.lookup(points.span()).value(), ref.lookup(points.span()),
                      "partitioned update");
}

TEST_CASE("rx: building in parts lowers the peak build memory") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // Enough keys that the parts' BVHs outweigh the build's fixed-size buffers: at 4096 keys the
  // H100's peak was the same either way (6,373,680 bytes), set by those alone.
  auto keys = random_keys(KeyWidth::bits64, 1u << 17, rng, max_key_of(KeyWidth::bits64));
  auto peak = [&](uint32_t parts) {
    RxBuildOptions o;
    o.partitions = parts;
    auto index = RxIndex::build(test::context(), keys.span(), {}, o).value();
    return index.build_stats();
  };
  auto one = peak(1), four = peak(4);
  MESSAGE("build peak, 2^17 keys: " << one.build_peak_bytes << " bytes in one part, "
                                    << four.build_peak_bytes << " in four");
  // Allocation sizes depend only on the keys and the options: the same build peaks the same.
  CHECK(peak(4).build_peak_bytes == four.build_peak_bytes);
  CHECK(four.build_peak_bytes < one.build_peak_bytes);
  CHECK(four.build_peak_bytes >= four.resident_bytes);
  CHECK(four.blas_count == 4);

  // Compression builds one primitive per distinct key: a smaller BVH for the same rows.
  auto dup = duplicate_heavy_keys(KeyWidth::bits64, 500, rng, uint64_t{1} << 40);
  RxBuildOptions o;
  auto plain = RxIndex::build(test::context(), dup.span(), {}, o).value();
  o.compress_duplicates = true;
  auto packed = RxIndex::build(test::context(), dup.span(), {}, o).value();
  CHECK(packed.build_stats().primitives < plain.build_stats().primitives);
  CHECK(packed.build_stats().bvh_uncompacted_bytes < plain.build_stats().bvh_uncompacted_bytes);
}

TEST_CASE("rx: bad partitioning and compression options are refused clearly") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(KeyWidth::bits32, 100, rng, 1000);
  auto expect_invalid = [&](const RxBuildOptions& o, const char* word) {
    auto r = RxIndex::build(test::context(), keys.span(), {}, o);
    REQUIRE(!r.ok());
    CHECK(r.error().code() == Errc::invalid_argument);
    CHECK_MESSAGE(std::string(r.error().what()).find(word) != std::string::npos, r.error().what());
  };
  expect_invalid(RxBuildOptions{.partitions = 0}, "partitions");
  RxBuildOptions o;
  o.compress_duplicates = true;
  o.method = RxLookupMethod::any_hit;
  expect_invalid(o, "hit_and_scan");
  o.method = RxLookupMethod::automatic;
  o.key_order = false;  // automatic then means any_hit
  expect_invalid(o, "hit_and_scan");
  o.key_order = true;
  o.allow_update = true;
  expect_invalid(o, "allow_update");
}

TEST_CASE("rx: diagnostics run part of a lookup and refuse what they cannot time") {
  test::ValidationGuard guard;
  if (!test::context().device().ray_tracing_pipeline) {
    MESSAGE("skipped: device has no ray-tracing pipeline");
    return;
  }
  std::vector<uint32_t> keys(500);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<uint32_t>(i * 7919);
  RxBuildOptions o;
  o.traversal = TraversalMode::pipeline;
  auto index = RxIndex::build(test::context(), keys, {}, o).value();
  index.set_diagnostic(RxDiagnostic::trace_only);  // every key's ray commits its triangle
  for (const RxLookup& r : index.lookup(keys).value()) CHECK(r.count == 1);
  index.set_diagnostic(RxDiagnostic::no_trace);  // no ray: nothing found
  for (const RxLookup& r : index.lookup(keys).value()) CHECK(r.count == 0);
  std::vector<Range32> ranges{{0, 100}};
  auto refused = index.lookup_ranges(ranges);
  REQUIRE(!refused.ok());
  CHECK(refused.error().code() == Errc::invalid_argument);
  index.set_diagnostic(RxDiagnostic::none);
  RxReference ref(keys);
  test::check_lookups(index.lookup(keys).value(), ref.lookup(keys), "after diagnostics");
}
