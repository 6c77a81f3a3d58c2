// cgRX with CgrxBuildOptions::api = optix: its absence is an answer with a reason, and where OptiX
// runs every lookup equals the Vulkan index's and the CPU reference. bench/gpu/optix.sh runs these
// on the GPU machine.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "backend/optix/optix.hpp"
#include "optix_support.hpp"
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

using namespace raydb;
using namespace raydb::test::optix;

TEST_CASE("optix: cgRX builds refuse with the reason where OptiX is unavailable") {
  test::ValidationGuard guard;
  const OptixSupport& s = optix_support(test::context());
  if (s.available) return;  // the cases below run the twin itself
  workload::KeyColumn keys;
  keys.width = KeyWidth::bits32;
  for (uint64_t k : {5, 1, 9}) keys.push_back(k);
  CgrxBuildOptions o;
  o.api = RayTracingApi::optix;
  auto twin = CgrxIndex::build(test::context(), keys.span(), {}, o);
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
      REQUIRE_MESSAGE(vulkan.ok(), std::string(vulkan.ok() ? "" : vulkan.error().what()));
      CgrxBuildOptions ox = o;
      ox.api = RayTracingApi::optix;
      auto optix = CgrxIndex::build(test::context(), keys.span(), values, ox);
      REQUIRE_MESSAGE(optix.ok(), std::string(optix.ok() ? "" : optix.error().what()));
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
      auto ranges = make_ranges(keys, 5000, max_key, rng);
      auto want =
          check_twin_lookups(*optix, *vulkan, ref, points, ranges, "cgRX ", [&](bool on_ranges) {
            CHECK(optix->last_fallbacks() == 0);
            if (!on_ranges) CHECK(vulkan->last_fallbacks() == 0);
            // the same rays
            CHECK(optix->last_stats().rays == vulkan->last_stats().rays);
          });

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

      // An empty index: every lookup misses, none fails.
      workload::KeyColumn none;
      none.width = w;
      auto empty = CgrxIndex::build(test::context(), none.span(), {}, o).value();
      auto empty_optix = CgrxIndex::build(test::context(), none.span(), {}, ox).value();
      std::vector<RxLookup> miss(points.size());
      REQUIRE(empty_optix.lookup(points.span(), miss).ok());
      for (const RxLookup& r : miss) CHECK(r == RxLookup{});
    }
}
