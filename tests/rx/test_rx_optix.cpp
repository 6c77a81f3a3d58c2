// The OptiX backend: its absence is an answer with a reason on every machine, and where OptiX runs
// (an NVIDIA GPU with the driver's libnvoptix, a build with OptiX_ROOT) every RX lookup through
// OptiX equals the Vulkan index's result and the CPU reference, whole, on fresh random data with
// the magnitude edges. bench/gpu/optix.sh runs these on the GPU machine.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "backend/optix/optix.hpp"
#include "ops/rx/optix/rx_optix.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/join.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/scan.hpp"
#include "raydb/ssb.hpp"
#include "raydb/workload.hpp"
#include "scan_data.hpp"
#include "support.hpp"

#include "optix_support.hpp"

using namespace raydb;
using namespace raydb::test::optix;

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
  auto twin = RxIndex::build(test::context(), keys.span(), {}, optix_options({}));
  REQUIRE(!twin.ok());
  CHECK(twin.error().code() == Errc::unsupported);
  CHECK(std::string(twin.error().what()).find(s.reason) != std::string::npos);
  std::vector<uint32_t> column = {5, 1, 9};
  std::vector<std::span<const uint32_t>> cols = {column};
  RtScanOptions so;
  so.api = RayTracingApi::optix;
  auto rt_twin = RtScanTable::build(test::context(), cols, so);
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
    REQUIRE_MESSAGE(vulkan.ok(), std::string(vulkan.ok() ? "" : vulkan.error().what()));
    auto optix = RxIndex::build(test::context(), keys.span(), values, optix_options(o));
    REQUIRE_MESSAGE(optix.ok(), std::string(optix.ok() ? "" : optix.error().what()));
    const RxBuildStats& bs = optix->build_stats();
    CHECK(bs.primitives == keys.size());
    CHECK(bs.bvh_bytes > 0);
    CHECK(bs.bvh_bytes <= bs.bvh_uncompacted_bytes);
    CHECK(bs.build_peak_bytes >= bs.resident_bytes);
    RxReference ref(keys.span(), values);

    auto points = make_points(keys, 20000, max_key, rng);
    auto ranges = make_ranges(keys, 5000, max_key, rng);
    auto want = check_twin_lookups(*optix, *vulkan, ref, points, ranges, "", [&](bool on_ranges) {
      // Rays as the Vulkan index counts them: one per point lookup.
      if (on_ranges)
        CHECK(optix->last_stats().rays == vulkan->last_stats().rays);
      else
        CHECK(optix->last_stats().rays == points.size());
    });

    // A rebuild from the same keys answers the same.
    REQUIRE(optix->rebuild(keys.span(), values).ok());
    std::vector<RxLookup> again(points.size());
    REQUIRE(optix->lookup(points.span(), again).ok());
    test::check_lookups(again, want, "OptiX points after a rebuild");

    // A twin made later over the Vulkan index, whose records are Vulkan's own: it reads a copy
    // shared with CUDA and answers the same.
    auto late = RxOptixIndex::build(*vulkan);
    REQUIRE_MESSAGE(late.ok(), std::string(late.ok() ? "" : late.error().what()));
    std::vector<RxLookup> twin(points.size());
    REQUIRE(late->lookup(points.span(), twin).ok());
    test::check_lookups(twin, want, "OptiX twin of a Vulkan index, points");
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
      auto optix =
          RxIndex::build(test::context(), wl.keys.span(), wl.values, optix_options(o)).value();
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
      auto empty_optix = RxIndex::build(test::context(), none.span(), {}, optix_options(o)).value();
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
  auto r = RxIndex::build(test::context(), keys.span(), {}, optix_options(o));
  REQUIRE(!r.ok());
  CHECK(r.error().code() == Errc::unsupported);
  CHECK(std::string(r.error().what()).find("partition") != std::string::npos);
  // Bad queries fail as they do in Vulkan.
  RxBuildOptions sorted;
  sorted.sort_probes = true;
  auto unsorted_only = RxIndex::build(test::context(), keys.span(), {}, optix_options(sorted));
  REQUIRE(!unsorted_only.ok());
  CHECK(unsorted_only.error().code() == Errc::unsupported);
  CHECK(std::string(unsorted_only.error().what()).find("sort_probes") != std::string::npos);
  auto optix = RxIndex::build(test::context(), keys.span(), {}, optix_options({})).value();
  // sort_probes switched on after the build: refused by the OptiX path, naming it.
  optix.set_sort_probes(true);
  std::vector<RxLookup> one(keys.size());
  auto sorted_lookup = optix.lookup(keys.span(), one);
  REQUIRE(!sorted_lookup.ok());
  CHECK(std::string(sorted_lookup.error().what()).find("sort_probes") != std::string::npos);
  optix.set_sort_probes(false);
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
  auto refused = RxIndex::build(test::context(), three.span(), {}, optix_options({}, bad));
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
      auto optix = RxIndex::build(test::context(), keys.span(), values, optix_options(o, vo));
      REQUIRE_MESSAGE(optix.ok(), std::string(optix.ok() ? "" : optix.error().what()));
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
    auto optix = RxIndex::build(test::context(), wl.keys.span(), wl.values,
                                optix_options(o, RxOptixOptions{.single_anyhit = false}))
                     .value();
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
