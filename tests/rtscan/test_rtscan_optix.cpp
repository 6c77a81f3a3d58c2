// RTScan through OptiX: where OptiX runs, every bitmap equals the Vulkan table's and the CPU
// scan's. bench/gpu/optix.sh runs these on the GPU machine.
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
      REQUIRE_MESSAGE(table.ok(), std::string(table.ok() ? "" : table.error().what()));
      RtScanOptions ox = o;
      ox.api = RayTracingApi::optix;
      auto optix = RtScanTable::build(test::context(), cols, ox);
      REQUIRE_MESSAGE(optix.ok(), std::string(optix.ok() ? "" : optix.error().what()));
      const RtScanOptixBuildStats& bs = optix->build_stats().optix;
      CHECK(bs.bvh_bytes > 0);
      CHECK(bs.bvh_bytes <= bs.bvh_uncompacted_bytes);
      for (size_t q = 0; q < queries.size(); ++q) {
        CAPTURE(q);
        auto want = full_scan_reference(cols, queries[q]);
        auto got = optix->select(queries[q]);
        REQUIRE_MESSAGE(got.ok(), std::string(got.ok() ? "" : got.error().what()));
        auto optix_words = got->words().value();
        uint64_t optix_rays = optix->last_stats().rays;
        auto vulkan_words = table->select(queries[q]).value().words().value();
        test::check_equal_whole(optix_words, want, "OptiX RTScan bitmap vs the CPU scan");
        test::check_equal_whole(optix_words, vulkan_words, "OptiX RTScan bitmap vs Vulkan");
        CHECK(optix_rays == table->last_stats().rays);  // the same lattice
      }
    }
  }
}
