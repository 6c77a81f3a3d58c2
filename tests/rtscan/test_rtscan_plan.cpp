// RTScan selections planned on the device (GPU encoding): the mapping table and the sieving
// borders stay on the device, rtscan_plan.comp rewrites the predicates and lays the refine
// lattices. Every bitmap is compared whole with the CPU full scan, and the plan with the host's
// (the same table encoded on the CPU): refine boxes equal, rays equal where the lattice constants
// are exact in the planner's fixed point and never fewer elsewhere.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "device_host.hpp"
#include "ops/rtscan/rtscan_impl.hpp"
#include "raydb/rtscan.hpp"
#include "scan_data.hpp"
#include "support.hpp"
#include "traversals.hpp"

using namespace raydb;

namespace {

using test::traversals;

// Predicates on the edges: constants just off the column's range, 0 and 2^32 - 1, values the
// column holds many times, crossed between bounds, and a column's own values at random.
std::vector<Predicate> edge_predicates(std::mt19937_64& rng,
                                       const std::vector<std::vector<uint32_t>>& cols) {
  std::vector<Predicate> preds;
  const auto k = static_cast<uint32_t>(rng() % cols.size());
  const auto [lo, hi] = std::minmax_element(cols[k].begin(), cols[k].end());
  const uint32_t some = cols[k][rng() % cols[k].size()];
  switch (rng() % 12) {
    case 0:  // nothing below the smallest value
      preds.push_back({k, CompareOp::lt, *lo});
      break;
    case 1:  // every row
      preds.push_back({k, CompareOp::ge, *lo});
      preds.push_back({k, CompareOp::le, *hi});
      break;
    case 2:  // the extremes of uint32
      preds.push_back({k, rng() % 2 ? CompareOp::le : CompareOp::gt, 0u});
      preds.push_back({k, rng() % 2 ? CompareOp::ge : CompareOp::lt, 0xFFFFFFFFu});
      break;
    case 3:  // one value, held by many rows or by none
      preds.push_back({k, CompareOp::eq, rng() % 2 ? some : some + 1});
      break;
    case 4:  // crossed bounds select nothing
      preds.push_back({k, CompareOp::between, some + 1, some});
      break;
    case 5:  // one value as a range, and past the largest
      preds.push_back({k, CompareOp::between, some, some});
      preds.push_back({k, CompareOp::gt, *hi});
      break;
    default:
      for (uint32_t m = 1 + rng() % 4; m > 0; --m) {
        auto c = static_cast<uint32_t>(rng() % cols.size());
        preds.push_back(test::random_column_predicate(rng, cols[c], c));
      }
  }
  return preds;
}

}  // namespace

TEST_CASE("rtscan plan on the device: bitmaps equal the CPU scan, the plan equals the host's") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const std::vector<std::vector<std::vector<uint32_t>>> groupings = {
      {}, {{0, 1}, {2, 3}}, {{0}, {1}, {2}, {3}}, {{0, 1, 2}, {3}}};
  uint64_t boxes = 0;  // over all tables: the rays had work, not only the sieve
  for (int round = 0; round < 4; ++round) {
    // Rows not a multiple of 32; one column per kind (uniform, one value in 40%, 2^6 values, the
    // edges 0 and 2^32 - 1), or every column one value.
    const size_t rows = 1 + rng() % 3000;
    std::vector<std::vector<uint32_t>> cols;
    for (int kind = 0; kind < 4; ++kind)
      cols.push_back(round == 3 ? std::vector<uint32_t>(rows, static_cast<uint32_t>(rng()))
                                : test::column(rng, rows, kind));
    std::vector<std::span<const uint32_t>> views(cols.begin(), cols.end());
    for (TraversalMode tm : traversals()) {
      RtScanOptions o;
      o.plan_on_device = true;
      o.traversal = tm;
      o.bins = 1 + static_cast<uint32_t>(rng() % 100);
      o.groups = groupings[round];
      // Even rounds: integer pitches, exact in the planner's fixed point (then rays must equal
      // the host plan's); odd rounds: fractional ones.
      const bool exact = round % 2 == 0;
      o.interval = exact ? std::max(1.0, std::floor(double(rows) / 40)) : double(rows) / 37.3 + 0.1;
      o.segment = exact ? std::floor(double(rows) / 3) + 1 : double(rows) / 2.9;
      CAPTURE(rows);
      CAPTURE(round);
      CAPTURE(to_string(tm));
      CAPTURE(o.bins);
      auto device = RtScanTable::build(test::context(), views, o).value();
      RtScanOptions on_host = o;
      on_host.gpu_encoding = false;
      auto host = RtScanTable::build(test::context(), views, on_host).value();
      detail::RtScanImpl& impl = detail::rtscan_impl(device);
      CHECK(impl.device_plan);
      RtScanOptions host_plan = o;  // GPU encoding, planned on the host (the default)
      host_plan.plan_on_device = false;
      auto gpu_host_plan = RtScanTable::build(test::context(), views, host_plan).value();
      CHECK_FALSE(detail::rtscan_impl(gpu_host_plan).device_plan);
      CHECK(device.build_stats().bins_used == host.build_stats().bins_used);
      CHECK(device.build_stats().sieve_bytes == host.build_stats().sieve_bytes);
      for (int q = 0; q < 12; ++q) {
        std::vector<Predicate> preds =
            q == 0 ? std::vector<Predicate>{} : edge_predicates(rng, cols);
        CAPTURE(q);
        auto got = device.select(preds).value().words().value();
        test::check_equal_whole(got, full_scan_reference(views, preds), "device-planned bitmap");
        auto want = host.select(preds).value().words().value();
        test::check_equal_whole(got, want, "host-planned bitmap");
        test::check_equal_whole(gpu_host_plan.select(preds).value().words().value(), want,
                                "GPU-encoded, host-planned bitmap");
        const RtScanQueryStats& d = device.last_stats();
        const RtScanQueryStats& h = host.last_stats();
        CHECK(d.refine_boxes == h.refine_boxes);
        boxes += d.refine_boxes;
        if (exact)
          CHECK(d.rays == h.rays);
        else
          CHECK(d.rays >= h.rays);
      }
      // Nothing but counts came back: no host copy of a mapping table or of the borders.
      CHECK(impl.encoded.empty());
      for (const auto& s : impl.sieves) CHECK(s.borders.empty());
    }
  }
  CHECK(boxes > 0);
}

TEST_CASE(
    "rtscan plan on the device: too many rays are refused, the host plan is kept where needed") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const size_t rows = 500;
  std::vector<std::vector<uint32_t>> cols;
  for (int kind = 0; kind < 3; ++kind) cols.push_back(test::column(rng, rows, kind));
  std::vector<std::span<const uint32_t>> views(cols.begin(), cols.end());
  // A pitch of 2^-20 code units and one bin: refining half the rows of column 0 over the whole
  // range of the others needs far more than 2^32 rays.
  RtScanOptions o;
  o.plan_on_device = true;
  o.interval = 0x1p-20;
  o.bins = 1;
  auto fine = RtScanTable::build(test::context(), views, o).value();
  CHECK(detail::rtscan_impl(fine).device_plan);
  std::vector<uint32_t> sorted = cols[0];
  std::sort(sorted.begin(), sorted.end());
  std::vector<Predicate> wide = {{0, CompareOp::lt, sorted[rows / 2]}};
  test::expect_error(fine.select(wide), Errc::limit_exceeded, "2^32 - 1 rays");
  // A query the sieve answers alone still runs.
  auto all = fine.select({}).value().words().value();
  test::check_equal_whole(all, full_scan_reference(views, {}), "every row");

  // Counting intersections needs the host plan: the table comes back once, results agree.
  RtScanOptions counted;
  counted.plan_on_device = true;
  counted.interval = std::max(1.0, double(rows) / 40);
  counted.segment = double(rows) / 3;
  auto table = RtScanTable::build(test::context(), views, counted).value();
  std::vector<Predicate> preds = {{0, CompareOp::lt, cols[0][0]}, {2, CompareOp::ge, cols[2][1]}};
  auto planned = table.select(preds).value().words().value();
  // More predicates than fit inline in a command buffer (4096) go through a buffer of the call's:
  // ge constants from each column's first quarter, le ones from its last, about rows / 8 kept.
  std::vector<std::vector<uint32_t>> sorted_cols = cols;
  for (auto& c : sorted_cols) std::sort(c.begin(), c.end());
  std::vector<Predicate> many;
  for (int i = 0; i < 5000; ++i) {
    auto col = static_cast<uint32_t>(rng() % cols.size());
    const bool lower = rng() % 2;
    const size_t at = (lower ? 0 : rows * 3 / 4) + rng() % (rows / 4);
    many.push_back({col, lower ? CompareOp::ge : CompareOp::le, sorted_cols[col][at]});
  }
  auto many_bits = table.select(many).value().words().value();
  auto many_want = full_scan_reference(views, many);
  test::check_equal_whole(many_bits, many_want, "5000 predicates");
  CHECK(std::any_of(many_want.begin(), many_want.end(), [](uint32_t w) { return w != 0; }));
  table.set_count_intersections(true);
  auto counted_bits = table.select(preds).value().words().value();
  test::check_equal_whole(planned, full_scan_reference(views, preds), "device plan");
  test::check_equal_whole(counted_bits, planned, "host plan over the fetched table");
  CHECK(!detail::rtscan_impl(table).encoded.empty());
}

TEST_CASE("rtscan plan on the device: tables of many distinct values (several search rounds)") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // 64-way searches narrow 65-fold a round: 20,000 distinct values take three rounds.
  const size_t rows = 20000 + rng() % 5000;
  std::vector<std::vector<uint32_t>> cols = {
      test::column(rng, rows, 0), std::vector<uint32_t>(rows), test::column(rng, rows, 1)};
  for (size_t r = 0; r < rows; ++r) cols[1][r] = static_cast<uint32_t>(r * 7);
  std::shuffle(cols[1].begin(), cols[1].end(), rng);
  std::vector<std::span<const uint32_t>> views(cols.begin(), cols.end());
  RtScanOptions o;
  o.plan_on_device = true;
  o.interval = std::floor(double(rows) / 40);
  o.segment = std::floor(double(rows) / 3);
  o.traversal = traversals().front();
  CAPTURE(rows);
  auto device = RtScanTable::build(test::context(), views, o).value();
  RtScanOptions on_host = o;
  on_host.gpu_encoding = false;
  auto host = RtScanTable::build(test::context(), views, on_host).value();
  for (int q = 0; q < 16; ++q) {
    std::vector<Predicate> preds;
    for (uint32_t k = 0; k < 3; ++k)
      if (rng() % 3) preds.push_back(test::random_column_predicate(rng, cols[k], k));
    if (q == 0) preds = {{1, CompareOp::eq, cols[1][rng() % rows]}};  // one row of the permutation
    if (q == 1) preds = {{1, CompareOp::eq, cols[1][0] + 1}};         // a value it lacks
    CAPTURE(q);
    auto got = device.select(preds).value().words().value();
    test::check_equal_whole(got, full_scan_reference(views, preds), "device-planned bitmap");
    host.select(preds).value();
    CHECK(device.last_stats().refine_boxes == host.last_stats().refine_boxes);
    CHECK(device.last_stats().rays == host.last_stats().rays);
  }
}
