// The SSB engine through OptiX: where OptiX runs, every table equals the Vulkan engine's and
// SQLite's. bench/gpu/optix.sh runs these on the GPU machine.
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
#include "raydb/ssb_sqlite.hpp"
#include "raydb/workload.hpp"
#include "scan_data.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::test::optix;

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
    StarGeometry geometry = StarGeometry::filter_only;
  };
  for (const Variant& v :
       {Variant{"plain", &plain, false, false, 1024},
        Variant{"plain, value_group", &plain, false, false, 1024, StarGeometry::value_group},
        Variant{"edge values", &edge, false, false, 1},
        Variant{"edge values, value_group", &edge, false, false, 1, StarGeometry::value_group},
        Variant{"edge values, side array, per-row atomics", &edge, true, true, 1024},
        Variant{"tiny", &tiny, false, false, 1024}}) {
    ssb::SsbEngineOptions o;
    o.geometry = v.geometry;
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
