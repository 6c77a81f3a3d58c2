// The OptiX backend: its absence is an answer with a reason on every machine, and where OptiX runs
// (an NVIDIA GPU with the driver's libnvoptix, a build with OptiX_ROOT) every RX lookup through
// OptiX equals the Vulkan index's result and the CPU reference, whole, on fresh random data with
// the magnitude edges. bench/gpu/optix.sh runs these on the GPU machine.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "backend/optix/optix.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/cgrx_optix.hpp"
#include "raydb/join.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rtscan_optix.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_optix.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/scan.hpp"
#include "raydb/ssb.hpp"
#include "raydb/workload.hpp"
#include "scan_data.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

// Whether the OptiX path can be exercised; otherwise says why, in the words bench/gpu/optix.sh
// looks for. Never a pass: the caller returns without checking anything.
bool optix_or_skip() {
  const OptixSupport& s = optix_support(test::context());
  if (!s.available) MESSAGE("skipped: no OptiX device (" << s.reason << ")");
  return s.available;
}

struct Config {
  Primitive primitive;
  KeyWidth width;
  RxLookupMethod method;
  bool opaque;
  bool key_order;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  for (Primitive p : {Primitive::triangles, Primitive::aabbs})
    for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
      out.push_back({p, w, RxLookupMethod::hit_and_scan, true, true});
      if (p == Primitive::triangles)
        out.push_back({p, w, RxLookupMethod::hit_and_scan, false, true});
      out.push_back({p, w, RxLookupMethod::any_hit, true, true});
      out.push_back({p, w, RxLookupMethod::any_hit, true, false});  // row-order primitives
    }
  return out;
}

std::string name(const Config& c) {
  return std::string(to_string(c.primitive)) + "/" + to_string(c.width) + "-bit/" +
         to_string(c.method) + (c.opaque ? "" : "/any-hit-calls") +
         (c.key_order ? "" : "/row-order");
}

// Random keys with duplicates (1-3 copies) and the magnitude edges, in random row order.
workload::KeyColumn make_keys(KeyWidth w, size_t distinct, uint64_t max_key, std::mt19937_64& rng) {
  std::vector<uint64_t> ks;
  for (size_t i = 0; i < distinct; ++i) {
    uint64_t k = rng() % max_key;
    for (uint64_t r = 0, reps = 1 + rng() % 3; r < reps; ++r) ks.push_back(k);
  }
  for (uint64_t e : test::edge_keys(w == KeyWidth::bits64)) ks.push_back(e);
  std::shuffle(ks.begin(), ks.end(), rng);
  workload::KeyColumn c;
  c.width = w;
  for (uint64_t k : ks) c.push_back(k);
  return c;
}

// Half present keys (edges included), half random ones.
workload::KeyColumn make_points(const workload::KeyColumn& keys, size_t n, uint64_t max_key,
                                std::mt19937_64& rng) {
  workload::KeyColumn p;
  p.width = keys.width;
  for (uint64_t e : test::edge_keys(keys.width == KeyWidth::bits64)) p.push_back(e);
  for (size_t i = 0; i < n; ++i)
    p.push_back(i % 2 == 0 && keys.size() ? keys[rng() % keys.size()] : rng() % max_key);
  return p;
}

// Ranges of 1 to 2^26 keys (up to 9 lines of 2^23), from present and random keys, and ranges at
// the top of the key space.
workload::RangeColumn make_ranges(const workload::KeyColumn& keys, size_t n, uint64_t max_key,
                                  std::mt19937_64& rng) {
  workload::RangeColumn r;
  r.width = keys.width;
  auto add = [&](uint64_t lo, uint64_t hi) {
    if (r.width == KeyWidth::bits64)
      r.r64.push_back({lo, hi});
    else
      r.r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
  };
  uint64_t top = r.width == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
  add(top - 5, top);
  add(0, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t lo = i % 2 == 0 && keys.size() ? keys[rng() % keys.size()] : rng() % max_key;
    uint64_t width = 1 + rng() % (uint64_t{1} << (rng() % 27));
    add(lo, lo > top - width ? top : lo + width - 1);
  }
  return r;
}

}  // namespace

TEST_CASE("optix: availability is an answer with a reason and never a crash") {
  test::ValidationGuard guard;
  const OptixSupport& s = optix_support(test::context());
  MESSAGE("OptiX " << (s.available ? "available (headers " + s.version + ")"
                                   : "unavailable: " + s.reason)
                   << " (backend compiled in: "
                   << std::string(detail::optix::built() ? "yes" : "no") << ")");
  CHECK(&s == &optix_support(test::context()));  // probed once
  if (!detail::optix::built()) {
    CHECK(!s.available);
    CHECK(s.reason.find("built without OptiX") != std::string::npos);
    CHECK(s.version.empty());
  } else {
    CHECK(!s.version.empty());
  }
  if (s.available) return;
  CHECK(!s.reason.empty());
  // Every build refuses cleanly, naming the reason.
  workload::KeyColumn keys;
  keys.width = KeyWidth::bits32;
  for (uint64_t k : {5, 1, 9}) keys.push_back(k);
  auto index = RxIndex::build(test::context(), keys.span()).value();
  auto twin = RxOptixIndex::build(index);
  REQUIRE(!twin.ok());
  CHECK(twin.error().code() == Errc::unsupported);
  CHECK(std::string(twin.error().what()).find(s.reason) != std::string::npos);
  std::vector<uint32_t> column = {5, 1, 9};
  std::vector<std::span<const uint32_t>> cols = {column};
  auto table = RtScanTable::build(test::context(), cols).value();
  auto rt_twin = RtScanOptix::build(table);
  REQUIRE(!rt_twin.ok());
  CHECK(rt_twin.error().code() == Errc::unsupported);
  CHECK(std::string(rt_twin.error().what()).find(s.reason) != std::string::npos);
}

TEST_CASE("optix: RX lookups equal the Vulkan index and the CPU reference") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  const uint64_t seed = test::fresh_seed();
  for (const Config& c : configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(seed);
    // Small enough that random ranges hold keys, large enough to span several lines.
    uint64_t max_key = c.width == KeyWidth::bits64 ? (uint64_t{1} << 36) : 0xFFFFFFFFull;
    auto keys = make_keys(c.width, 20000, max_key, rng);
    std::vector<uint32_t> values(keys.size());
    for (auto& v : values) v = static_cast<uint32_t>(rng());
    RxBuildOptions o;
    o.primitive = c.primitive;
    o.method = c.method;
    o.opaque_triangles = c.opaque;
    o.key_order = c.key_order;
    o.preference = BuildPreference::fast_trace;
    auto vulkan = RxIndex::build(test::context(), keys.span(), values, o);
    REQUIRE_MESSAGE(vulkan.ok(), (vulkan.ok() ? "" : vulkan.error().what()));
    auto optix = RxOptixIndex::build(*vulkan);
    REQUIRE_MESSAGE(optix.ok(), (optix.ok() ? "" : optix.error().what()));
    const RxBuildStats& bs = optix->build_stats();
    CHECK(bs.primitives == keys.size());
    CHECK(bs.bvh_bytes > 0);
    CHECK(bs.bvh_bytes <= bs.bvh_uncompacted_bytes);
    CHECK(bs.build_peak_bytes >= bs.resident_bytes);
    RxReference ref(keys.span(), values);

    auto points = make_points(keys, 20000, max_key, rng);
    std::vector<RxLookup> got(points.size()), twin(points.size());
    REQUIRE(optix->lookup(points.span(), got).ok());
    REQUIRE(vulkan->lookup(points.span(), twin).ok());
    auto want = ref.lookup(points.span());
    test::check_lookups(got, want, "OptiX points vs the CPU reference");
    test::check_lookups(got, twin, "OptiX points vs Vulkan");
    CHECK(optix->last_probe().rays == points.size());

    auto ranges = make_ranges(keys, 5000, max_key, rng);
    std::vector<RxLookup> got_r(ranges.size()), twin_r(ranges.size());
    auto st = optix->lookup_ranges(ranges.span(), got_r);
    REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().what()));
    REQUIRE(vulkan->lookup_ranges(ranges.span(), twin_r).ok());
    test::check_lookups(got_r, ref.lookup_ranges(ranges.span()),
                        "OptiX ranges vs the CPU reference");
    test::check_lookups(got_r, twin_r, "OptiX ranges vs Vulkan");
    CHECK(optix->last_probe().rays == vulkan->last_probe().rays);

    // A rebuild over the same records answers the same.
    REQUIRE(optix->rebuild().ok());
    std::vector<RxLookup> again(points.size());
    REQUIRE(optix->lookup(points.span(), again).ok());
    test::check_lookups(again, want, "OptiX points after a rebuild");
  }
}

TEST_CASE("optix: unique keys all-hit and all-miss and an empty index") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64})
    for (Primitive p : {Primitive::triangles, Primitive::aabbs}) {
      CAPTURE(to_string(w));
      CAPTURE(to_string(p));
      workload::KeyOptions ko;
      ko.count = 50000;
      ko.width = w;
      ko.seed = test::fresh_seed();
      auto wl = workload::make_keys(ko).value();
      RxBuildOptions o;
      o.primitive = p;
      auto vulkan = RxIndex::build(test::context(), wl.keys.span(), wl.values, o).value();
      auto optix = RxOptixIndex::build(vulkan).value();
      RxReference ref(wl.keys.span(), wl.values);
      for (double h : {1.0, 0.0}) {
        workload::ProbeOptions po;
        po.count = 40000;
        po.hit_rate = h;
        po.seed = ko.seed + 7;
        auto probes = workload::make_point_probes(wl.universe, po).value();
        std::vector<RxLookup> got(probes.size()), twin(probes.size());
        REQUIRE(optix.lookup(probes.span(), got).ok());
        REQUIRE(vulkan.lookup(probes.span(), twin).ok());
        test::check_lookups(got, ref.lookup(probes.span()), "OptiX unique points");
        test::check_lookups(got, twin, "OptiX unique points vs Vulkan");
        auto hits =
            std::count_if(got.begin(), got.end(), [](const RxLookup& r) { return r.hit(); });
        CHECK(static_cast<size_t>(hits) == (h == 1.0 ? probes.size() : 0u));
      }
      // An empty index: every lookup misses, none fails.
      workload::KeyColumn none;
      none.width = w;
      auto empty = RxIndex::build(test::context(), none.span(), {}, o).value();
      auto empty_optix = RxOptixIndex::build(empty).value();
      workload::KeyColumn some;
      some.width = w;
      for (uint64_t k : test::edge_keys(w == KeyWidth::bits64)) some.push_back(k);
      std::vector<RxLookup> got(some.size());
      REQUIRE(empty_optix.lookup(some.span(), got).ok());
      for (const RxLookup& r : got) CHECK(r == RxLookup{});
    }
}

TEST_CASE("optix: refused configurations name their cause") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  workload::KeyColumn keys;
  keys.width = KeyWidth::bits32;
  for (uint64_t k : {5, 1, 9, 1}) keys.push_back(k);
  RxBuildOptions o;
  o.partitions = 2;
  auto parted = RxIndex::build(test::context(), keys.span(), {}, o).value();
  auto r = RxOptixIndex::build(parted);
  REQUIRE(!r.ok());
  CHECK(r.error().code() == Errc::unsupported);
  CHECK(std::string(r.error().what()).find("partition") != std::string::npos);
  // Bad queries fail as they do in Vulkan.
  auto index = RxIndex::build(test::context(), keys.span()).value();
  auto optix = RxOptixIndex::build(index).value();
  workload::KeyColumn wide;
  wide.width = KeyWidth::bits64;
  wide.push_back(1);
  std::vector<RxLookup> out(1);
  auto st = optix.lookup(wide.span(), out);
  REQUIRE(!st.ok());
  CHECK(st.error().code() == Errc::invalid_argument);
}

// bench rx --optix-variant: every switch of RxOptixOptions answers as the CPU reference and the
// Vulkan index. launch2d over counts that are not whole rows of 1024 (the last row is partial);
// multi_anyhit only where a match ends the ray (unique keys, hit-and-scan points), the only use
// the bench makes of it.
TEST_CASE("optix: each RxOptixOptions variant equals the Vulkan index and the CPU reference") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  const uint64_t seed = test::fresh_seed();
  RxOptixOptions bad;
  bad.opt_level = 4;
  workload::KeyColumn three;
  three.width = KeyWidth::bits32;
  for (uint64_t k : {5, 1, 9}) three.push_back(k);
  auto small = RxIndex::build(test::context(), three.span()).value();
  auto refused = RxOptixIndex::build(small, bad);
  REQUIRE(!refused.ok());
  CHECK(refused.error().code() == Errc::invalid_argument);
  CHECK(std::string(refused.error().what()).find("opt_level") != std::string::npos);

  std::vector<std::pair<std::string, RxOptixOptions>> variants;
  variants.push_back({"launch2d", RxOptixOptions{.launch_2d = true}});
  variants.push_back({"o0", RxOptixOptions{.opt_level = 0}});
  variants.push_back({"o3", RxOptixOptions{.opt_level = 3}});
  variants.push_back({"ias", RxOptixOptions{.two_level = true}});
  for (const Config& c : configs()) {
    std::string config = name(c);
    CAPTURE(config);
    std::mt19937_64 rng(seed);
    uint64_t max_key = c.width == KeyWidth::bits64 ? (uint64_t{1} << 36) : 0xFFFFFFFFull;
    auto keys = make_keys(c.width, 5000, max_key, rng);
    std::vector<uint32_t> values(keys.size());
    for (auto& v : values) v = static_cast<uint32_t>(rng());
    RxBuildOptions o;
    o.primitive = c.primitive;
    o.method = c.method;
    o.opaque_triangles = c.opaque;
    o.key_order = c.key_order;
    auto vulkan = RxIndex::build(test::context(), keys.span(), values, o).value();
    RxReference ref(keys.span(), values);
    auto points = make_points(keys, 5000, max_key, rng);
    auto ranges = make_ranges(keys, 1500, max_key, rng);
    std::vector<RxLookup> twin(points.size()), twin_r(ranges.size());
    REQUIRE(vulkan.lookup(points.span(), twin).ok());
    REQUIRE(vulkan.lookup_ranges(ranges.span(), twin_r).ok());
    test::check_lookups(twin, ref.lookup(points.span()), "Vulkan points");
    test::check_lookups(twin_r, ref.lookup_ranges(ranges.span()), "Vulkan ranges");
    for (const auto& [variant, vo] : variants) {
      CAPTURE(variant);
      auto optix = RxOptixIndex::build(vulkan, vo);
      REQUIRE_MESSAGE(optix.ok(), (optix.ok() ? "" : optix.error().what()));
      std::vector<RxLookup> got(points.size()), got_r(ranges.size());
      REQUIRE(optix->lookup(points.span(), got).ok());
      REQUIRE(optix->lookup_ranges(ranges.span(), got_r).ok());
      test::check_lookups(got, twin, "OptiX variant points vs Vulkan and the reference");
      test::check_lookups(got_r, twin_r, "OptiX variant ranges vs Vulkan and the reference");
    }
  }

  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
    CAPTURE(to_string(w));
    workload::KeyOptions ko;
    ko.count = 30000;
    ko.width = w;
    ko.seed = seed + 11;
    auto wl = workload::make_keys(ko).value();
    RxBuildOptions o;
    o.method = RxLookupMethod::hit_and_scan;
    auto vulkan = RxIndex::build(test::context(), wl.keys.span(), wl.values, o).value();
    auto optix = RxOptixIndex::build(vulkan, RxOptixOptions{.single_anyhit = false}).value();
    RxReference ref(wl.keys.span(), wl.values);
    for (double h : {1.0, 0.5}) {
      workload::ProbeOptions po;
      po.count = 25000;
      po.hit_rate = h;
      po.seed = ko.seed + 7;
      auto probes = workload::make_point_probes(wl.universe, po).value();
      std::vector<RxLookup> got(probes.size());
      REQUIRE(optix.lookup(probes.span(), got).ok());
      test::check_lookups(got, ref.lookup(probes.span()), "OptiX multi_anyhit unique points");
    }
  }
}

TEST_CASE("optix: RTScan bitmaps equal the Vulkan table and the CPU scan") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  std::mt19937_64 rng(test::fresh_seed());
  struct Config {
    RtScanMode mode;
    std::vector<std::vector<uint32_t>> groups;
    const char* name;
    // A coarser lattice (I = range / 48, L = range / 3) for three-column groups, whose default
    // casts up to 1200 x 1200 x 90 rays per box; the others run the default lattice.
    bool coarse;
  };
  const std::vector<Config> configs = {
      {RtScanMode::rtscan, {{0, 1, 2}, {3}}, "rtscan 3+1", true},
      {RtScanMode::rtscan, {{0, 1}, {2, 3}}, "rtscan 2+2", false},
      {RtScanMode::rtscan, {{0}, {1}, {2}, {3}}, "rtscan 1+1+1+1", false},
      {RtScanMode::rtc3, {}, "rtc3", true},
      {RtScanMode::rtc1, {}, "rtc1", false},
      {RtScanMode::rtindex, {}, "rtindex (triangles, any-hit)", false}};
  for (auto dist : {workload::ScanDistribution::permutation, workload::ScanDistribution::zipf,
                    workload::ScanDistribution::uniform}) {
    workload::ScanColumnOptions co;
    co.rows = 100000;
    co.distribution = dist;
    co.zipf = 1.1;
    co.seed = rng();
    auto data = workload::make_scan_table(co, 4).value();
    // The magnitude edges in every column (raw values in rtc3 and rtc1 become float coordinates).
    const uint32_t edges[] = {0,           1,          (1u << 23) + 1, 1u << 24, (1u << 24) + 1,
                              0xFFFFFFFEu, 0xFFFFFFFFu};
    for (auto& column : data)
      for (uint32_t e : edges) column[rng() % column.size()] = e;
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    std::vector<std::vector<Predicate>> queries = {
        {},                                                              // every row
        {{0, CompareOp::gt, 0xFFFFFFFFu, 0}},                            // none
        {{1, CompareOp::ge, 0, 0}, {2, CompareOp::le, 0xFFFFFFFFu, 0}},  // all, constrained
        {{3, CompareOp::eq, 0xFFFFFFFFu, 0}},
        {{0, CompareOp::between, 1u << 24, 0xFFFFFFFEu}, {3, CompareOp::lt, 1u << 31, 0}}};
    for (int q = 0; q < 12; ++q) {  // 1 to 4 random predicates
      std::vector<uint32_t> which = {0, 1, 2, 3};
      std::shuffle(which.begin(), which.end(), rng);
      std::vector<Predicate> preds;
      for (int k = 0; k < 1 + q % 4; ++k)
        preds.push_back(test::random_column_predicate(rng, data[which[k]], which[k]));
      queries.push_back(preds);
    }
    for (const Config& cfg : configs) {
      CAPTURE(cfg.name);
      CAPTURE(workload::to_string(dist));
      RtScanOptions o;
      o.mode = cfg.mode;
      o.groups = cfg.groups;
      o.bins = 64;
      if (cfg.coarse) {
        double range = cfg.mode == RtScanMode::rtscan ? double(co.rows) : 4294967296.0;
        o.interval = range / 48;
        o.segment = range / 3;
      }
      auto table = RtScanTable::build(test::context(), cols, o);
      REQUIRE_MESSAGE(table.ok(), (table.ok() ? "" : table.error().what()));
      auto optix = RtScanOptix::build(*table);
      REQUIRE_MESSAGE(optix.ok(), (optix.ok() ? "" : optix.error().what()));
      const RtScanOptixBuildStats& bs = optix->build_stats();
      CHECK(bs.bvh_bytes > 0);
      CHECK(bs.bvh_bytes <= bs.bvh_uncompacted_bytes);
      for (size_t q = 0; q < queries.size(); ++q) {
        CAPTURE(q);
        auto want = full_scan_reference(cols, queries[q]);
        auto got = optix->select(queries[q]);
        REQUIRE_MESSAGE(got.ok(), (got.ok() ? "" : got.error().what()));
        auto optix_words = got->words().value();
        uint64_t optix_rays = optix->last_query().rays;
        auto vulkan_words = table->select(queries[q]).value().words().value();
        test::check_equal_whole(optix_words, want, "OptiX RTScan bitmap vs the CPU scan");
        test::check_equal_whole(optix_words, vulkan_words, "OptiX RTScan bitmap vs Vulkan");
        CHECK(optix_rays == table->last_query().rays);  // the same lattice
      }
    }
  }
}

TEST_CASE("optix: SSB engine tables equal the Vulkan engine's and SQLite") {
  uint64_t seed = test::fresh_seed();
  ssb::SsbTables plain = ssb::generate_ssb(0.01, seed).value();
  if (!optix_support(test::context()).available) {
    // What bench ssb --api optix reports too: the cause, named.
    ssb::SsbEngineOptions o;
    o.api = RayTracingApi::optix;
    auto r = ssb::SsbEngine::create(test::context(), plain, o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == Errc::unsupported);
    CHECK(std::string(r.error().what()).find("OptiX") != std::string::npos);
  }
  if (!optix_or_skip()) return;
  // Edge values: past 2^24 (not exact in float32, so in the side array), 2^32 - 1.
  ssb::SsbTables edge = ssb::generate_ssb(0.01, seed + 1).value();
  for (size_t i = 0; i < edge.lineorder.size(); i += 89) {
    edge.lineorder.revenue[i] = 0xFFFFFFFFu - static_cast<uint32_t>(i);
    edge.lineorder.supplycost[i + 1 < edge.lineorder.size() ? i + 1 : i] = 0xFFFFFFFFu;
    edge.lineorder.extendedprice[i] = (1u << 24) + 1;
  }
  ssb::SsbTables tiny = ssb::generate_ssb(0.00001, seed).value();  // empty results, NULL sums
  struct Variant {
    const char* name;
    const ssb::SsbTables* tables;
    bool force_side, per_row_atomics;
    uint32_t max_lanes;
  };
  for (const Variant& v :
       {Variant{"plain", &plain, false, false, 1024},
        Variant{"edge values", &edge, false, false, 1},
        Variant{"edge values, side array, per-row atomics", &edge, true, true, 1024},
        Variant{"tiny", &tiny, false, false, 1024}}) {
    ssb::SsbEngineOptions o;
    o.target_rays = 512;
    o.max_lanes = v.max_lanes;
    o.force_side_values = v.force_side;
    o.per_row_atomics = v.per_row_atomics;
    ssb::SsbEngine vulkan = ssb::SsbEngine::create(test::context(), *v.tables, o).value();
    o.api = RayTracingApi::optix;
    ssb::SsbEngine optix = ssb::SsbEngine::create(test::context(), *v.tables, o).value();
    ssb::SqliteReference ref = ssb::SqliteReference::load(*v.tables).value();
    int non_empty = 0;
    for (const auto& q : ssb::query_names()) {
      ssb::ResultTable want = ref.run(q).value();
      ssb::ResultTable got_vk = vulkan.run(q).value();
      ssb::ResultTable got_ox = optix.run(q).value();
      CHECK_MESSAGE(got_ox == want, v.name << " Q" << q << ": OptiX differs from SQLite\n"
                                           << got_ox.format() << "SQLite:\n"
                                           << want.format());
      CHECK_MESSAGE(got_ox == got_vk, v.name << " Q" << q << ": OptiX differs from Vulkan");
      CHECK(optix.last_stats().rows_hit == vulkan.last_stats().rows_hit);
      CHECK(optix.last_stats().rays == vulkan.last_stats().rays);
      CHECK(optix.rerun().value() == got_ox);
      non_empty += !want.rows.empty() && want.rows[0][0] != "NULL";
    }
    MESSAGE(v.name << ": " << non_empty << " of 13 queries non-empty");
  }
}

TEST_CASE("optix: collect_rows and the RX and cgRX joins equal Vulkan's and the CPU join") {
  std::mt19937_64 rng(test::fresh_seed());
  workload::KeyColumn build_keys = make_keys(KeyWidth::bits32, 3000, 1u << 14, rng);
  workload::KeyColumn probe_keys = make_points(build_keys, 4000, 1u << 14, rng);
  std::vector<uint32_t> values(build_keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  JoinOptions jo;
  jo.api = RayTracingApi::optix;
  if (!optix_support(test::context()).available) {
    // What bench join --api optix reports too: the cause, named.
    auto r = rx_join(test::context(), build_keys.span(), probe_keys.span(), jo);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code() == Errc::unsupported);
    CHECK(std::string(r.error().what()).find("OptiX") != std::string::npos);
    jo.kind = JoinIndex::cgrx;
    auto cg = rx_join(test::context(), build_keys.span(), probe_keys.span(), jo);
    REQUIRE_FALSE(cg.ok());
    CHECK(cg.error().code() == Errc::unsupported);
    jo.kind = JoinIndex::rx;
  }
  if (!optix_or_skip()) return;

  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
    uint64_t max_key = w == KeyWidth::bits64 ? ~uint64_t{0} : 0xFFFFFFFFull;
    workload::KeyColumn keys = make_keys(w, 3000, max_key, rng);
    workload::KeyColumn points = make_points(keys, 4000, max_key, rng);
    workload::RangeColumn ranges = make_ranges(keys, 500, max_key, rng);
    RxIndex vulkan = RxIndex::build(test::context(), keys.span()).value();
    RxOptixIndex optix = RxOptixIndex::build(vulkan).value();
    auto collect = [](auto& index, auto queries, uint64_t capacity) {
      std::vector<RxRowMatch> found(capacity);
      RxCollectResult r = index.collect_rows(queries, found).value();
      found.resize(r.written);
      std::sort(found.begin(), found.end());
      return std::make_pair(r, found);
    };
    auto [vr, vp] = collect(vulkan, points.span(), 20000);
    auto [orr, op] = collect(optix, points.span(), 20000);
    CHECK(orr.total == vr.total);
    CHECK(orr.complete());
    CHECK(op == vp);
    auto [vr2, vp2] = collect(vulkan, ranges.span(), 1u << 22);
    auto [or2, op2] = collect(optix, ranges.span(), 1u << 22);
    CHECK(or2.total == vr2.total);
    CHECK(op2 == vp2);
    // A capacity smaller than the matches: the total is still counted, only `capacity` written.
    auto [or3, op3] = collect(optix, points.span(), 7);
    CHECK(or3.total == vr.total);
    CHECK(or3.written == std::min<uint64_t>(7, vr.total));
  }

  const auto want_pairs = join_pairs_reference(build_keys.span(), probe_keys.span());
  const auto want_agg = join_aggregate_reference(build_keys.span(), values, probe_keys.span());
  // The cgRX join's pairs copy the runs its OptiX lookups name: buckets of 32 and 256.
  for (JoinIndex kind : {JoinIndex::rx, JoinIndex::cgrx})
    for (uint32_t bucket : {32u, 256u}) {
      if (kind == JoinIndex::rx && bucket != 32u) continue;
      jo.kind = kind;
      jo.cgrx.bucket_size = bucket;
      for (JoinSide side : {JoinSide::build, JoinSide::probe}) {
        CAPTURE(kind == JoinIndex::rx ? "rx" : "cgrx");
        CAPTURE(bucket);
        CAPTURE(to_string(side));
        jo.indexed = side;
        JoinStats st;
        auto pairs =
            rx_join(test::context(), build_keys.span(), probe_keys.span(), jo, &st).value();
        std::sort(pairs.begin(), pairs.end());
        CHECK(pairs == want_pairs);
        CHECK(st.indexed == side);
        auto agg =
            rx_join_aggregate(test::context(), build_keys.span(), values, probe_keys.span(), jo)
                .value();
        CHECK(agg == want_agg);
      }
    }
}

// ---- cgRX through OptiX (CgrxOptixIndex). ----

TEST_CASE("optix: cgRX builds refuse with the reason where OptiX is unavailable") {
  test::ValidationGuard guard;
  const OptixSupport& s = optix_support(test::context());
  if (s.available) return;  // the cases below run the twin itself
  workload::KeyColumn keys;
  keys.width = KeyWidth::bits32;
  for (uint64_t k : {5, 1, 9}) keys.push_back(k);
  auto index = CgrxIndex::build(test::context(), keys.span()).value();
  auto twin = CgrxOptixIndex::build(index);
  REQUIRE(!twin.ok());
  CHECK(twin.error().code() == Errc::unsupported);
  CHECK(std::string(twin.error().what()).find(s.reason) != std::string::npos);
}

TEST_CASE("optix: cgRX lookups equal the Vulkan index and the CPU reference") {
  test::ValidationGuard guard;
  if (!optix_or_skip()) return;
  const uint64_t seed = test::fresh_seed();
  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64})
    for (uint32_t bucket : {32u, 256u}) {
      CAPTURE(to_string(w));
      CAPTURE(bucket);
      std::mt19937_64 rng(seed + bucket);
      // 64-bit keys up to 2^56 fall into many planes, so the plane-marker rays run too.
      uint64_t max_key = w == KeyWidth::bits64 ? (uint64_t{1} << 56) : 0xFFFFFFFFull;
      auto keys = make_keys(w, 20000, max_key, rng);
      std::vector<uint32_t> values(keys.size());
      for (auto& v : values) v = 0xFFFFFF00u + static_cast<uint32_t>(rng() & 0xFF);  // sums > 2^32
      CgrxBuildOptions o;
      o.bucket_size = bucket;
      auto vulkan = CgrxIndex::build(test::context(), keys.span(), values, o);
      REQUIRE_MESSAGE(vulkan.ok(), (vulkan.ok() ? "" : vulkan.error().what()));
      auto optix = CgrxOptixIndex::build(*vulkan);
      REQUIRE_MESSAGE(optix.ok(), (optix.ok() ? "" : optix.error().what()));
      const CgrxBuildStats& bs = optix->build_stats();
      const CgrxBuildStats& vs = vulkan->build_stats();
      CHECK(bs.buckets == vs.buckets);
      CHECK(bs.representatives == vs.representatives);
      CHECK(bs.row_markers == vs.row_markers);
      CHECK(bs.plane_markers == vs.plane_markers);
      CHECK(bs.ray_window == vs.ray_window);
      CHECK(bs.bvh_bytes > 0);
      CHECK(bs.bvh_bytes <= bs.bvh_uncompacted_bytes);
      CHECK(bs.build_peak_bytes >= bs.resident_bytes);
      RxReference ref(keys.span(), values);

      auto points = make_points(keys, 20000, max_key, rng);
      std::vector<RxLookup> got(points.size()), twin(points.size());
      REQUIRE(optix->lookup(points.span(), got).ok());
      REQUIRE(vulkan->lookup(points.span(), twin).ok());
      auto want = ref.lookup(points.span());
      test::check_lookups(got, want, "OptiX cgRX points vs the CPU reference");
      test::check_lookups(got, twin, "OptiX cgRX points vs Vulkan");
      CHECK(optix->last_fallbacks() == 0);
      CHECK(vulkan->last_fallbacks() == 0);
      CHECK(optix->last_probe().rays == vulkan->last_probe().rays);  // the same rays

      auto ranges = make_ranges(keys, 5000, max_key, rng);
      std::vector<RxLookup> got_r(ranges.size()), twin_r(ranges.size());
      auto st = optix->lookup_ranges(ranges.span(), got_r);
      REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().what()));
      REQUIRE(vulkan->lookup_ranges(ranges.span(), twin_r).ok());
      test::check_lookups(got_r, ref.lookup_ranges(ranges.span()),
                          "OptiX cgRX ranges vs the CPU reference");
      test::check_lookups(got_r, twin_r, "OptiX cgRX ranges vs Vulkan");
      CHECK(optix->last_fallbacks() == 0);
      CHECK(optix->last_probe().rays == vulkan->last_probe().rays);

      // The diagnostics through the same flags: no_trace stays exact; trace_only returns the
      // bucket the rays name and the rays cast, the same in both APIs.
      for (RxDiagnostic d : {RxDiagnostic::no_trace, RxDiagnostic::trace_only}) {
        vulkan->set_diagnostic(d);
        optix->set_diagnostic(d);
        std::vector<RxLookup> od(points.size()), vd(points.size());
        REQUIRE(optix->lookup(points.span(), od).ok());
        REQUIRE(vulkan->lookup(points.span(), vd).ok());
        test::check_lookups(od, vd, "OptiX cgRX diagnostic vs Vulkan");
        if (d == RxDiagnostic::no_trace) test::check_lookups(od, want, "OptiX cgRX no_trace");
      }
      vulkan->set_diagnostic(RxDiagnostic::none);
      optix->set_diagnostic(RxDiagnostic::none);

      // A rebuild from the same index answers the same.
      REQUIRE(optix->rebuild().ok());
      std::vector<RxLookup> again(points.size());
      REQUIRE(optix->lookup(points.span(), again).ok());
      test::check_lookups(again, want, "OptiX cgRX points after a rebuild");

      // An empty index: every lookup misses, none fails.
      workload::KeyColumn none;
      none.width = w;
      auto empty = CgrxIndex::build(test::context(), none.span(), {}, o).value();
      auto empty_optix = CgrxOptixIndex::build(empty).value();
      std::vector<RxLookup> miss(points.size());
      REQUIRE(empty_optix.lookup(points.span(), miss).ok());
      for (const RxLookup& r : miss) CHECK(r == RxLookup{});
    }
}
