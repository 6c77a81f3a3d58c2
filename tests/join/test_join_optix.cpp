// collect_rows and the RX and cgRX joins through OptiX: where OptiX runs, they equal Vulkan's and
// the CPU join. bench/gpu/optix.sh runs these on the GPU machine.
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

TEST_CASE("optix: collect_rows and the RX and cgRX joins equal Vulkan's and the CPU join") {
  std::mt19937_64 rng(test::fresh_seed());
  workload::KeyColumn build_keys = make_keys(KeyWidth::bits32, 3000, 1u << 14, rng);
  workload::KeyColumn probe_keys = make_points(build_keys, 4000, 1u << 14, rng);
  std::vector<uint32_t> values(build_keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  JoinOptions jo;
  jo.index.api = RayTracingApi::optix;  // the tracing API is the index's option
  jo.cgrx.api = RayTracingApi::optix;
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
    RxBuildOptions through_optix;
    through_optix.api = RayTracingApi::optix;
    RxIndex optix = RxIndex::build(test::context(), keys.span(), {}, through_optix).value();
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
