// RTScan against the CPU brute-force scan: every predicate kind, the paper's distributions, 1 to 4
// predicates in both 4-column groupings, both traversal modes and the three RT variants; constants
// below the minimum, above the maximum and on sieving borders; empty and full results; keys near
// 2^24 and 2^32 - 1. Also the host-side planning (refine boxes, ray lattice) on its own.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "common/shared_types.h"
#include "ops/rtscan/gpu_encoding.hpp"
#include "ops/rtscan/refine_plan.hpp"
#include "ops/scan/scan_impl.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/scan.hpp"
#include "raydb/tpch_scans.hpp"
#include "raydb/uniform_encoding.hpp"
#include "scan_data.hpp"
#include "support.hpp"
#include "traversals.hpp"

// rtscan_refine.h on the host, over plain arrays: the hooks it needs, then the header itself.
namespace host_refine {
struct State {
  const uint32_t* keys[3] = {nullptr, nullptr, nullptr};
  uint32_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  std::vector<uint32_t> words;
  uint32_t calls = 0;
};
State* state = nullptr;
bool rtscan_has_axis(uint32_t d) {
  return state->keys[d] != nullptr;
}
uint32_t rtscan_key(uint32_t d, uint32_t row) {
  return state->keys[d][row];
}
uint32_t rtscan_lo(uint32_t d) {
  return state->lo[d];
}
uint32_t rtscan_hi(uint32_t d) {
  return state->hi[d];
}
void rtscan_bits_or(uint32_t word, uint32_t bits) {
  state->words[word] |= bits;
}
void rtscan_bits_and(uint32_t word, uint32_t bits) {
  state->words[word] &= bits;
}
void rtscan_count_call() {
  ++state->calls;
}
#include "rtscan/rtscan_refine.h"
}  // namespace host_refine

using namespace raydb;
namespace plan = raydb::detail::rtscan;

namespace {

using test::traversals;

// Lattice parameters that keep lavapipe's ray counts small on a few thousand rows.
RtScanOptions small_lattice(uint64_t rows, RtScanMode mode) {
  RtScanOptions o;
  o.mode = mode;
  double range = mode == RtScanMode::rtscan ? double(rows) : 4294967296.0;
  o.interval = std::max(1.0, range / 48);
  o.segment = range / 3;
  o.count_intersections = true;
  return o;
}

void check_select(RtScanTable& table, const std::vector<std::span<const uint32_t>>& cols,
                  const std::vector<Predicate>& preds, const char* what) {
  auto got = table.select(preds).value().words().value();
  test::check_equal_whole(got, full_scan_reference(cols, preds), what);
}

}  // namespace

TEST_CASE("rtscan plan: refine boxes cover exactly the rows the approximation gets wrong") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 300; ++trial) {
    size_t g = 1 + rng() % 3;
    auto interval = [&] {
      int64_t a = rng() % 12, b = rng() % 12;
      return rng() % 8 == 0 ? plan::KeyInterval{1, 0}
                            : plan::KeyInterval{std::min(a, b), std::max(a, b)};
    };
    std::vector<plan::KeyInterval> t, a;
    for (size_t d = 0; d < g; ++d) t.push_back(interval()), a.push_back(interval());
    auto boxes = plan::refine_boxes(t, a);
    CHECK(boxes.size() <= 2 * g);
    // Every point of the 12^g grid in (T XOR A) lies in some box.
    int points = 1;
    for (size_t d = 0; d < g; ++d) points *= 12;
    for (int p = 0; p < points; ++p) {
      int64_t x[3] = {0, 0, 0};
      for (size_t d = 0, q = p; d < g; ++d, q /= 12) x[d] = q % 12;
      bool in_t = true, in_a = true;
      for (size_t d = 0; d < g; ++d) {
        in_t = in_t && x[d] >= t[d].lo && x[d] <= t[d].hi;
        in_a = in_a && x[d] >= a[d].lo && x[d] <= a[d].hi;
      }
      if (in_t == in_a) continue;
      bool covered = false;
      for (const auto& b : boxes) {
        bool in = true;
        for (size_t d = 0; d < g; ++d) in = in && x[d] >= b.axis[d].lo && x[d] <= b.axis[d].hi;
        covered = covered || in;
      }
      CHECK_MESSAGE(covered, "trial " << trial << " point " << p);
    }
  }
}

TEST_CASE("rtscan plan: the ray lattice crosses every cube centred in the box") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 200; ++trial) {
    double interval = 1 + rng() % 50, eps = 0.5, stride_gap = rng() % (int(interval) + 1);
    double segment = 1 + rng() % 300, half = (interval + eps) / 2;
    plan::Box box;
    for (int d = 0; d < 3; ++d) {
      int64_t lo = rng() % 1000, len = rng() % 3 == 0 ? 0 : rng() % 800;
      box.axis[d] = {lo, lo + len};
    }
    auto l = plan::make_lattice(box, 3, interval, segment + stride_gap, half);
    for (int k = 0; k < 200; ++k) {
      double c[3];
      for (int d = 0; d < 3; ++d)
        c[d] = double(box.axis[d].lo + int64_t(rng() % (box.axis[d].hi - box.axis[d].lo + 1)));
      // Lattice point across the rays inside the cube's cross-section, on each cross axis.
      bool ok = true;
      for (uint32_t ax : {l.cross0, l.cross1}) {
        uint64_t count = ax == l.cross0 ? l.n_cross0 : l.n_cross1;
        bool hit = false;
        for (uint64_t i = 0; i < count && !hit; ++i) {
          double x = l.origin[ax] + double(i) * interval;
          hit = x > c[ax] - half && x < c[ax] + half;
        }
        ok = ok && hit;
      }
      bool along = false;
      for (uint64_t s = 0; s < l.n_segments && !along; ++s) {
        double a = l.origin[l.axis] + double(s) * (segment + stride_gap), b = a + segment;
        along = b > c[l.axis] - half && a < c[l.axis] + half;
      }
      CHECK_MESSAGE((ok && along), "trial " << trial);
    }
  }
}

TEST_CASE("rtscan plan: the shared lattice rays and exact re-check (rtscan_refine.h on the host)") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 100; ++trial) {
    CAPTURE(trial);
    plan::Box box;
    for (int d = 0; d < 3; ++d) {
      int64_t lo = rng() % 1000, len = rng() % 3 == 0 ? 0 : rng() % 800;
      box.axis[d] = {lo, lo + len};
    }
    double interval = 1 + rng() % 50, stride = 1 + rng() % 300, half = (interval + 0.5) / 2;
    auto l = plan::make_lattice(box, rng() % 4, interval, stride, half);  // 3: longest side
    float first[3] = {float(l.origin[0]), float(l.origin[1]), float(l.origin[2])};
    RdbVec3 f = rdb_make_vec3(first[0], first[1], first[2]);
    // Ray id = (j * n_cross0 + i) * n_segments + k, each coordinate moved on its own axis only.
    REQUIRE(l.rays() <= 0xFFFFFFFFull);
    for (int sample = 0; sample < 2000; ++sample) {
      uint64_t id = sample == 0 ? 0 : sample == 1 ? l.rays() - 1 : rng() % l.rays();
      uint64_t k = id % l.n_segments, i = (id / l.n_segments) % l.n_cross0,
               j = id / l.n_segments / l.n_cross0;
      float want[3];
      for (int d = 0; d < 3; ++d) want[d] = first[d];
      want[l.axis] = first[l.axis] + float(k) * float(stride);
      want[l.cross0] = first[l.cross0] + float(i) * float(interval);
      want[l.cross1] = first[l.cross1] + float(j) * float(interval);
      RdbVec3 o = host_refine::rtscan_lattice_origin(uint32_t(id), f, uint32_t(l.n_segments),
                                                     uint32_t(l.n_cross0), l.axis, l.cross0,
                                                     float(interval), float(stride));
      REQUIRE(o.x == want[0]);
      REQUIRE(o.y == want[1]);
      REQUIRE(o.z == want[2]);
    }
    RdbVec3 dir = host_refine::rtscan_lattice_dir(l.axis);
    CHECK(dir.x == (l.axis == 0 ? 1.0f : 0.0f));
    CHECK(dir.y == (l.axis == 1 ? 1.0f : 0.0f));
    CHECK(dir.z == (l.axis == 2 ? 1.0f : 0.0f));
  }
  // The re-check sets exactly the rows whose keys lie in every accepted range and clears the rest,
  // whatever the bit was before; axes without a column do not constrain.
  host_refine::State s;
  host_refine::state = &s;
  std::vector<uint32_t> a(300), b(300);
  for (auto& v : a) v = static_cast<uint32_t>(rng() % 20);
  for (auto& v : b) v = rng() % 2 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
  s.keys[0] = a.data();
  s.keys[2] = b.data();
  s.lo[0] = 5, s.hi[0] = 12, s.lo[2] = 0x80000000u, s.hi[2] = 0xFFFFFFFFu;
  s.words.assign(10, 0);
  for (size_t w = 0; w < s.words.size(); ++w) s.words[w] = static_cast<uint32_t>(rng());
  std::vector<uint32_t> want = s.words;
  for (uint32_t row = 0; row < 300; ++row) {
    host_refine::rtscan_refine_row(row);
    bool in = a[row] >= 5 && a[row] <= 12 && b[row] >= 0x80000000u;
    uint32_t bit = 1u << (row & 31);
    want[row >> 5] = in ? want[row >> 5] | bit : want[row >> 5] & ~bit;
  }
  host_refine::rtscan_refine_row(7);  // idempotent
  test::check_equal_whole(s.words, want, "re-check bits");
  CHECK(s.calls == 301);
  host_refine::state = nullptr;
}

TEST_CASE("rtscan plan: sieving borders never split a value and nearest borders") {
  // Column {5, 9, 1, 6, 5, 5}: codes of 1 -> 1, 5 -> 2..4, 6 -> 5, 9 -> 6.
  std::vector<uint32_t> lo_codes = {1, 2, 5, 6};
  auto b = plan::sieve_borders(lo_codes, 6, 3);  // ranks 0, 2, 4 -> codes 1, 3 -> 2, 5
  CHECK(b == std::vector<int64_t>{1, 2, 5, 7});
  auto one = plan::sieve_borders(lo_codes, 6, 1);
  CHECK(one == std::vector<int64_t>{1, 7});
  // x < 4 (codes 1..3): upper end 4 is nearer border 5 (negative selection), lower end 1.
  CHECK(plan::nearest_borders(b, {1, 3}) == std::pair<uint32_t, uint32_t>{0, 2});
  CHECK(plan::nearest_borders(b, {1, 2}) == std::pair<uint32_t, uint32_t>{0, 1});  // tie: down
  CHECK(plan::nearest_borders(b, {5, 6}) == std::pair<uint32_t, uint32_t>{2, 3});
}

TEST_CASE("rtscan: Uniform Encoding on the GPU equals the CPU one") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto& vk = *test::context().shared();
  for (uint64_t rows : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{70001}})
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<uint32_t> col(rows);
      const uint32_t one_value = static_cast<uint32_t>(rng());
      for (auto& v : col)
        v = kind == 0   ? static_cast<uint32_t>(rng())
            : kind == 1 ? static_cast<uint32_t>(rng() % 7)  // many duplicates
            : kind == 2 ? std::vector<uint32_t>{0u, 1u << 24, 0xFFFFFFFFu}[rng() % 3]
                        : one_value;  // a single distinct value
      std::vector<std::span<const uint32_t>> cols = {col};
      auto table = ColumnTable::upload(test::context(), cols).value();
      const uint32_t bins = 1 + static_cast<uint32_t>(rng() % 300);
      auto gpu = detail::rtscan::encode_on_gpu(vk, table.impl()->columns[0], rows, bins);
      auto cpu = rtscan::EncodedColumn::encode(col).value();
      CAPTURE(rows);
      CAPTURE(kind);
      CAPTURE(bins);
      test::check_equal_whole(detail::rtscan::download_words(vk, gpu.codes, rows), cpu.codes(),
                              "GPU codes");
      auto gpu_table = detail::rtscan::download_table(vk, gpu, rows);
      test::check_equal_whole(gpu_table.distinct_values(), cpu.distinct_values(),
                              "GPU table values");
      test::check_equal_whole(gpu_table.lo_codes(), cpu.lo_codes(), "GPU table codes");
      CHECK(gpu_table.rows() == rows);
      // The sieving borders, found on the device, equal the host's from the CPU table.
      auto want = detail::rtscan::sieve_borders(cpu.lo_codes(), rows, bins);
      CHECK(gpu.border_count == want.size());
      std::vector<uint32_t> w = detail::rtscan::download_words(vk, gpu.borders, want.size() * 2);
      std::vector<int64_t> got(want.size());
      if (!got.empty()) std::memcpy(got.data(), w.data(), got.size() * 8);
      test::check_equal_whole(got, want, "GPU sieving borders");
    }
  std::vector<uint32_t> unsorted = {2, 1};
  CHECK(rtscan::EncodedColumn::from_sorted_values(unsorted).error().code() ==
        Errc::invalid_argument);
  auto bad_table = [](uint64_t rows, std::vector<uint32_t> v, std::vector<uint32_t> lo) {
    auto r = rtscan::EncodedColumn::from_table(rows, std::move(v), std::move(lo));
    return !r.ok() && r.error().code() == Errc::invalid_argument;
  };
  CHECK(bad_table(3, {1, 2}, {1}));     // sizes differ
  CHECK(bad_table(3, {}, {}));          // rows without values
  CHECK(bad_table(0, {1}, {1}));        // values without rows
  CHECK(bad_table(3, {1, 2}, {2, 3}));  // first code not 1
  CHECK(bad_table(3, {1, 2}, {1, 4}));  // a code past the rows
  CHECK(bad_table(1, {1, 2}, {1, 1}));  // more values than rows
  auto good = rtscan::EncodedColumn::from_table(4, {5, 9}, {1, 3}).value();
  CHECK(good.count_less(9) == 2);
  CHECK(good.codes_of(9) == rtscan::CodeRange{3, 4});
}

TEST_CASE("rtscan: random predicates on every distribution equal the CPU scan") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  using workload::ScanDistribution;
  for (ScanDistribution dist :
       {ScanDistribution::uniform, ScanDistribution::zipf, ScanDistribution::normal,
        ScanDistribution::small_range, ScanDistribution::permutation}) {
    workload::ScanColumnOptions co;
    co.rows = 1500 + rng() % 1000;
    co.distribution = dist;
    co.zipf = 1.3;
    co.normal_sd = 40;
    co.seed = rng();
    auto data = workload::make_scan_table(co, 3).value();
    std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
    for (TraversalMode tm : traversals()) {
      RtScanOptions o = small_lattice(co.rows, RtScanMode::rtscan);
      o.traversal = tm;
      o.bins = 1 + static_cast<uint32_t>(rng() % 64);
      o.gpu_encoding = rng() % 2 == 0;
      CAPTURE(o.gpu_encoding);
      auto table = RtScanTable::build(test::context(), cols, o).value();
      for (int trial = 0; trial < 8; ++trial) {
        std::vector<Predicate> preds;
        for (uint32_t c = 0; c < 3; ++c)
          if (trial % 4 == 3 || rng() % 3)
            preds.push_back(test::random_column_predicate(rng, data[c], c));
        CAPTURE(to_string(dist));
        CAPTURE(to_string(tm));
        CAPTURE(o.bins);
        CAPTURE(trial);
        check_select(table, cols, preds, "rtscan bitmap");
      }
      CHECK(table.last_stats().refined_rows <= co.rows);
      // The refine boxes of a query on every column hold rows, and the rays meet them.
      check_select(table, cols,
                   {{0, CompareOp::gt, data[0][0]},
                    {1, CompareOp::lt, data[1][1]},
                    {2, CompareOp::ge, data[2][2]}},
                   "rtscan bitmap");
      if (table.last_stats().refined_rows > 0) CHECK(table.last_stats().intersections > 0);
    }
  }
}

TEST_CASE("rtscan: 1 to 4 predicates in the 3+1 and 2+2 groupings and the RT variants") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  workload::ScanColumnOptions co;
  co.rows = 2000;
  co.distribution = workload::ScanDistribution::zipf;
  co.zipf = 1.1;
  co.seed = rng();
  auto data = workload::make_scan_table(co, 4).value();
  std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
  struct Config {
    RtScanMode mode;
    std::vector<std::vector<uint32_t>> groups;
  };
  std::vector<Config> configs = {{RtScanMode::rtscan, {{0, 1, 2}, {3}}},
                                 {RtScanMode::rtscan, {{0, 1}, {2, 3}}},
                                 {RtScanMode::rtc3, {}},
                                 {RtScanMode::rtc1, {}},
                                 {RtScanMode::rtindex, {}}};
  for (TraversalMode tm : traversals()) {
    std::vector<RtScanTable> tables;
    for (const Config& cfg : configs) {
      RtScanOptions o = small_lattice(co.rows, cfg.mode);
      o.traversal = tm;
      o.bins = 32;
      o.groups = cfg.groups;
      tables.push_back(RtScanTable::build(test::context(), cols, o).value());
    }
    for (int trial = 0; trial < 8; ++trial) {
      uint32_t count = 1 + trial % 4;
      std::vector<uint32_t> which = {0, 1, 2, 3};
      std::shuffle(which.begin(), which.end(), rng);
      std::vector<Predicate> preds;
      for (uint32_t k = 0; k < count; ++k)
        preds.push_back(test::random_column_predicate(rng, data[which[k]], which[k]));
      for (size_t t = 0; t < tables.size(); ++t) {
        CAPTURE(to_string(tm));
        CAPTURE(t);
        CAPTURE(trial);
        check_select(tables[t], cols, preds, "rtscan bitmap");
      }
    }
    // Without sieving (rtc3, rtc1, rtindex) every selected row comes from the rays.
    for (size_t t = 2; t < tables.size(); ++t) {
      std::vector<Predicate> all = {{1, CompareOp::ge, 0}};
      CHECK(tables[t].select(all).value().count().value() == co.rows);
      CHECK(tables[t].last_stats().intersections >= co.rows);
    }
  }
}

TEST_CASE("rtscan: constants off the range and on sieving borders, empty and full results") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t rows = 3000;
  const uint32_t bins = 16;
  std::vector<std::vector<uint32_t>> data(3, std::vector<uint32_t>(rows));
  for (auto& col : data)
    for (auto& v : col) v = 1000 + static_cast<uint32_t>(rng() % 500);  // duplicates
  std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
  for (TraversalMode tm : traversals()) {
    RtScanOptions o = small_lattice(rows, RtScanMode::rtscan);
    o.traversal = tm;
    o.bins = bins;
    auto table = RtScanTable::build(test::context(), cols, o).value();
    // The values at the sieving ranks are the borders' values.
    std::vector<uint32_t> sorted = data[0];
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> constants = {0, 999, 1000, 1499, 1500, 0xFFFFFFFFu};
    for (uint32_t i = 1; i < bins; ++i) {
      uint32_t v = sorted[i * rows / bins];
      constants.insert(constants.end(), {v - 1, v, v + 1});
    }
    for (uint32_t v : constants)
      for (int op = 0; op < 6; ++op) {
        Predicate p{0, static_cast<CompareOp>(op), v, v + 37};
        Predicate q = test::random_column_predicate(rng, data[1], 1);
        CAPTURE(v);
        CAPTURE(op);
        check_select(table, cols, {p}, "rtscan bitmap, one predicate");
        check_select(table, cols, {p, q}, "rtscan bitmap, two predicates");
      }
    CHECK(table.select(std::vector<Predicate>{{0, CompareOp::lt, 1000}}).value().count().value() ==
          0);
    CHECK(table.select(std::vector<Predicate>{{0, CompareOp::ge, 1000}, {2, CompareOp::le, 1499}})
              .value()
              .count()
              .value() == rows);
    CHECK(table.select({}).value().count().value() == rows);
    // Two predicates on one column intersect.
    std::vector<Predicate> both = {{1, CompareOp::gt, 1100}, {1, CompareOp::lt, 1200}};
    check_select(table, cols, both, "rtscan bitmap, same column twice");
  }
}

TEST_CASE("rtscan: keys near 2^24 and 2^32 - 1, encoded and raw") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const uint64_t rows = 2048;
  std::vector<uint32_t> edges = {0u,
                                 1u,
                                 (1u << 23) - 1,
                                 1u << 23,
                                 (1u << 23) + 1,
                                 (1u << 24) - 1,
                                 1u << 24,
                                 (1u << 24) + 1,
                                 0xFFFFFFFDu,
                                 0xFFFFFFFEu,
                                 0xFFFFFFFFu};
  std::vector<std::vector<uint32_t>> data(3, std::vector<uint32_t>(rows));
  for (auto& col : data)
    for (auto& v : col) v = edges[rng() % edges.size()];
  std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
  for (RtScanMode mode :
       {RtScanMode::rtscan, RtScanMode::rtc3, RtScanMode::rtc1, RtScanMode::rtindex})
    for (TraversalMode tm : traversals()) {
      RtScanOptions o = small_lattice(rows, mode);
      o.traversal = tm;
      o.bins = 8;
      if (mode != RtScanMode::rtscan) o.interval = 1 << 26, o.segment = 1u << 30;
      auto table = RtScanTable::build(test::context(), cols, o).value();
      for (uint32_t v : edges)
        for (int op = 0; op < 6; ++op) {
          std::vector<Predicate> preds = {
              {0, static_cast<CompareOp>(op), v, v},
              {2, static_cast<CompareOp>((op + 3) % 6), v, 0xFFFFFFFFu}};
          CAPTURE(to_string(mode));
          CAPTURE(v);
          CAPTURE(op);
          check_select(table, cols, preds, "rtscan bitmap at magnitude edges");
        }
    }
}

TEST_CASE("rtscan: default lattice, row ids and counts") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  workload::ScanColumnOptions co;
  co.rows = 700;
  co.distribution = workload::ScanDistribution::permutation;
  co.seed = rng();
  auto data = workload::make_scan_table(co, 2).value();
  std::vector<std::span<const uint32_t>> cols(data.begin(), data.end());
  for (TraversalMode tm : traversals()) {
    RtScanOptions o;
    o.traversal = tm;
    auto table = RtScanTable::build(test::context(), cols, o).value();
    std::vector<Predicate> preds = {{0, CompareOp::lt, 350}, {1, CompareOp::ge, 100}};
    auto bitmap = table.select(preds).value();
    auto want = full_scan_reference(cols, preds);
    test::check_equal_whole(bitmap.words().value(), want, "rtscan bitmap, default lattice");
    std::vector<uint32_t> rows;
    for (uint32_t r = 0; r < co.rows; ++r)
      if (want[r / 32] >> (r % 32) & 1) rows.push_back(r);
    test::check_equal_whole(bitmap.row_ids().value(), rows, "rtscan row ids");
    CHECK(bitmap.count().value() == rows.size());
    CHECK(table.last_stats().rays > 0);
  }
}

TEST_CASE("rtscan: TPC-H Q3 Q6 and Q17 predicates equal the CPU scan") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // SF 0.0005: 750 orders, about 3,000 lines; the specification's distributions (few distinct
  // values, many duplicates) and its between, eq, lt and gt predicates.
  auto scans = workload::tpch_scans(0.0005, rng()).value();
  REQUIRE(scans.size() == 3);
  BitmapReader reader(test::context());
  std::vector<uint32_t> got;
  for (const auto& scan : scans) {
    std::vector<std::span<const uint32_t>> cols(scan.columns.begin(), scan.columns.end());
    auto want = full_scan_reference(cols, scan.predicates);
    uint64_t bits = 0;
    for (uint32_t w : want) bits += static_cast<uint64_t>(__builtin_popcount(w));
    for (RtScanMode mode : {RtScanMode::rtscan, RtScanMode::rtc3}) {
      INFO(scan.query << " " << std::string(to_string(mode)));
      RtScanOptions o;  // the default lattice: I from the keys' range, which is small here
      o.mode = mode;
      auto table = RtScanTable::build(test::context(), cols, o).value();
      auto bitmap = table.select(scan.predicates).value();
      REQUIRE(reader.read(bitmap, got).ok());
      test::check_equal_whole(got, want, "rtscan TPC-H bitmap through the reader");
      CHECK(bitmap.count().value() == bits);
    }
  }
}

TEST_CASE("rtscan: bad input gets a clear error") {
  test::ValidationGuard guard;
  std::vector<uint32_t> a = {3, 1, 2, 3, 3}, b = {1, 2};
  std::vector<std::span<const uint32_t>> cols = {a, a};
  auto table = RtScanTable::build(test::context(), cols).value();
  auto bad = table.select(std::vector<Predicate>{{2, CompareOp::eq, 3}});
  REQUIRE(!bad.ok());
  CHECK(std::string(bad.error().what()).find("column 2") != std::string::npos);
  std::vector<std::span<const uint32_t>> uneven = {a, b};
  CHECK(RtScanTable::build(test::context(), uneven).error().code() == Errc::invalid_argument);
  RtScanOptions groups;
  groups.groups = {{0}, {0, 1}};
  CHECK(RtScanTable::build(test::context(), cols, groups).error().code() == Errc::invalid_argument);
  groups.groups = {{0, 1, 1}};
  CHECK(RtScanTable::build(test::context(), cols, groups).error().code() == Errc::invalid_argument);
  groups.groups = {{0}};
  auto missing = RtScanTable::build(test::context(), cols, groups);
  REQUIRE(!missing.ok());
  CHECK(std::string(missing.error().what()).find("column 1") != std::string::npos);
  RtScanOptions gap;
  gap.interval = 4;
  gap.spacing = 8;
  CHECK(RtScanTable::build(test::context(), cols, gap).error().code() == Errc::invalid_argument);
  RtScanOptions bins;
  bins.bins = 0;
  CHECK(RtScanTable::build(test::context(), cols, bins).error().code() == Errc::invalid_argument);
  CHECK(parse_rtscan_mode("rtc2").error().code() == Errc::invalid_argument);
  std::vector<std::span<const uint32_t>> none = {std::span<const uint32_t>{}};
  auto empty = RtScanTable::build(test::context(), none).value();
  CHECK(empty.select(std::vector<Predicate>{{0, CompareOp::ge, 0}}).value().count().value() == 0);
}
