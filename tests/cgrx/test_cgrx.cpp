// CgrxIndex against the CPU reference: both traversal modes the device has, 32- and 64-bit keys,
// bucket sizes 2, 32 and 256, over key sets chosen so that every ray of a lookup is needed (small
// universes with long duplicate runs; sparse full-range keys whose lines and planes are mostly
// empty; the magnitude edges), points and ranges; plus the empty index, bad input and the
// host-side layout of representatives and markers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "ops/cgrx/cgrx_layout.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

enum class KeySet { small_universe, sparse, edges };

const char* name(KeySet s) {
  switch (s) {
    case KeySet::small_universe:
      return "small_universe";
    case KeySet::sparse:
      return "sparse";
    default:
      return "edges";
  }
}

template <class Key>
std::vector<Key> make_keys(KeySet set, std::mt19937_64& rng) {
  constexpr bool wide = sizeof(Key) == 8;
  std::vector<Key> keys;
  if (set == KeySet::small_universe) {
    // 4096 keys from 700 values: runs of ~6, and one run of 600 that fills several buckets.
    std::uniform_int_distribution<uint64_t> v(0, 699);
    for (int i = 0; i < 3496; ++i) keys.push_back(static_cast<Key>(v(rng) * 3));
    for (int i = 0; i < 600; ++i) keys.push_back(static_cast<Key>(1000));
  } else if (set == KeySet::sparse) {
    // Full-range keys: most lines (and, for 64-bit keys, planes) hold no representative, so
    // lookups need the marker rays. A few lines and planes hold clusters.
    std::uniform_int_distribution<uint64_t> any(0, wide ? ~0ull : 0xFFFFFFFFull);
    std::uniform_int_distribution<uint64_t> x(0, (1ull << 23) - 1);
    for (int i = 0; i < 2048; ++i) keys.push_back(static_cast<Key>(any(rng)));
    for (int c = 0; c < 8; ++c) {
      uint64_t line = any(rng) >> 23;
      for (int i = 0; i < 256; ++i) keys.push_back(static_cast<Key>((line << 23) | x(rng)));
    }
  } else {
    for (uint64_t k : test::edge_keys(wide))
      for (int d = 0; d < 3; ++d) keys.push_back(static_cast<Key>(k));  // runs at the edges
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  return keys;
}

template <class Key>
std::vector<Key> make_points(const std::vector<Key>& keys, std::mt19937_64& rng) {
  constexpr bool wide = sizeof(Key) == 8;
  std::vector<Key> p;
  std::uniform_int_distribution<size_t> pick(0, keys.size() - 1);
  std::uniform_int_distribution<uint64_t> any(0, wide ? ~0ull : 0xFFFFFFFFull);
  for (int i = 0; i < 512; ++i) {
    Key k = keys[pick(rng)];
    p.push_back(k);
    p.push_back(static_cast<Key>(k + 1));  // wraps at the maximum: fine
    p.push_back(static_cast<Key>(k - 1));
    p.push_back(static_cast<Key>(any(rng)));
  }
  for (uint64_t k : test::edge_keys(wide)) p.push_back(static_cast<Key>(k));
  return p;
}

template <class Key>
std::vector<KeyRange<Key>> make_ranges(const std::vector<Key>& keys, std::mt19937_64& rng) {
  constexpr bool wide = sizeof(Key) == 8;
  const Key max = static_cast<Key>(~0ull);
  std::vector<KeyRange<Key>> r;
  std::uniform_int_distribution<size_t> pick(0, keys.size() - 1);
  std::uniform_int_distribution<uint64_t> any(0, wide ? ~0ull : 0xFFFFFFFFull);
  std::uniform_int_distribution<uint64_t> width(0, 1ull << 26);  // up to 8 lines
  for (int i = 0; i < 256; ++i) {
    Key a = keys[pick(rng)], b = keys[pick(rng)];
    r.push_back({std::min(a, b), std::max(a, b)});  // spanning many buckets
    Key lo = static_cast<Key>(any(rng));
    Key w = static_cast<Key>(width(rng));
    r.push_back({lo, static_cast<Key>(lo > max - w ? max : lo + w)});
    r.push_back({a, a});
  }
  r.push_back({0, max});
  r.push_back({max, max});
  r.push_back({0, 0});
  r.push_back({static_cast<Key>((1ull << 23) - 3), static_cast<Key>((1ull << 23) + 3)});
  if constexpr (wide)
    r.push_back({static_cast<Key>((1ull << 46) - 5), static_cast<Key>((1ull << 46) + 5)});
  return r;
}

template <class Key>
void run_config(TraversalMode mode, uint32_t bucket, KeySet set) {
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = make_keys<Key>(set, rng);
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = 0xFFFFFF00u + static_cast<uint32_t>(rng() & 0xFF);  // sums pass 2^32
  CgrxBuildOptions o;
  o.bucket_size = bucket;
  o.traversal = mode;
  auto index = CgrxIndex::build(test::context(), std::span<const Key>(keys), values, o).value();
  RxReference ref(std::span<const Key>(keys), values);
  CHECK(index.traversal() == mode);
  CHECK(index.size() == keys.size());
  const CgrxBuildStats& st = index.build_stats();
  CHECK(st.buckets == (keys.size() + bucket - 1) / bucket);
  CHECK(st.representatives >= 1);
  CHECK(st.representatives <= st.buckets);
  CHECK(st.row_markers >= 1);
  CHECK(st.row_markers <= st.representatives);
  CHECK(st.plane_markers <= st.row_markers);
  CHECK(st.bvh_bytes > 0);

  auto points = make_points(keys, rng);
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "points");
  CHECK(index.last_fallbacks() == 0);
  CHECK(index.last_stats().rays >= points.size());
  CHECK(index.last_stats().rays <= 4 * points.size());

  auto ranges = make_ranges(keys, rng);
  test::check_lookups(index.lookup_ranges(std::span<const KeyRange<Key>>(ranges)).value(),
                      ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)), "ranges");
  CHECK(index.last_fallbacks() == 0);
}

std::vector<TraversalMode> device_modes() {
  const DeviceInfo& d = test::context().device();
  std::vector<TraversalMode> m;
  if (d.ray_tracing_pipeline) m.push_back(TraversalMode::pipeline);
  if (d.ray_query) m.push_back(TraversalMode::ray_query);
  return m;
}

}  // namespace

TEST_CASE("cgrx: exact against the reference in every configuration") {
  test::ValidationGuard guard;
  for (TraversalMode m : device_modes())
    for (uint32_t bucket : {2u, 32u, 256u})
      for (KeySet set : {KeySet::small_universe, KeySet::sparse, KeySet::edges}) {
        std::string config =
            std::string(to_string(m)) + "/b" + std::to_string(bucket) + "/" + name(set);
        CAPTURE(config);
        run_config<uint32_t>(m, bucket, set);
        run_config<uint64_t>(m, bucket, set);
      }
}

TEST_CASE("cgrx: sparse keys need marker rays and still take at most four") {
  test::ValidationGuard guard;
  // One key per plane, far apart: a lookup between them misses its line and its plane's rows.
  std::vector<uint64_t> keys = {5, 1ull << 50, (1ull << 60) + 7, ~0ull};
  for (TraversalMode m : device_modes()) {
    CAPTURE(to_string(m));
    CgrxBuildOptions o;
    o.bucket_size = 2;
    o.traversal = m;
    auto index = CgrxIndex::build(test::context(), keys, {}, o).value();
    CHECK(index.build_stats().representatives == 2);  // 1ull << 50 and ~0ull
    CHECK(index.build_stats().plane_markers == 2);
    // (1 << 46) - 1 sits at the last row of plane 0 (no row ray is possible); ~0 - 1 in the last
    // plane (no plane ray is possible).
    std::vector<uint64_t> points = {
        6, 1ull << 40, (1ull << 50) + 1, ~0ull, (1ull << 46) - 1, ~0ull - 1, 0};
    auto got = index.lookup(points).value();
    test::check_lookups(got, RxReference(keys).lookup(points), "sparse points");
    CHECK(index.last_stats().rays > points.size());
    CHECK(index.last_stats().rays <= 4 * points.size());
    CHECK(index.last_fallbacks() == 0);
    // Above the last key: every ray misses, and the miss is confirmed against the largest key.
    std::vector<uint64_t> low = {5, 1ull << 50};
    auto low_index = CgrxIndex::build(test::context(), low, {}, o).value();
    std::vector<uint64_t> above = {(1ull << 50) + 1, ~0ull - 5, ~0ull, (1ull << 46) - 1};
    test::check_lookups(low_index.lookup(above).value(), RxReference(low).lookup(above),
                        "above the last key");
    CHECK(low_index.last_fallbacks() == 0);
  }
}

TEST_CASE("cgrx: an empty index misses every lookup") {
  test::ValidationGuard guard;
  for (TraversalMode m : device_modes()) {
    CgrxBuildOptions o;
    o.traversal = m;
    auto index = CgrxIndex::build(test::context(), std::vector<uint64_t>{}, {}, o).value();
    CHECK(index.size() == 0);
    std::vector<uint64_t> points = {0, 1, ~0ull};
    for (auto& r : index.lookup(points).value()) CHECK(r == RxLookup{});
    std::vector<Range64> ranges = {{0, ~0ull}};
    CHECK(index.lookup_ranges(ranges).value()[0] == RxLookup{});
    CHECK(index.lookup(std::vector<uint64_t>{}).value().empty());
  }
}

TEST_CASE("cgrx: bad input gets a clear error") {
  test::ValidationGuard guard;
  std::vector<uint32_t> keys = {5, 6, 7};
  auto index = CgrxIndex::build(test::context(), keys).value();
  CHECK(index.bucket_size() == 32);

  auto wrong_width = index.lookup(std::vector<uint64_t>{5});
  REQUIRE(!wrong_width.ok());
  CHECK(wrong_width.error().code() == Errc::invalid_argument);
  CHECK(std::string(wrong_width.error().what()).find("64-bit") != std::string::npos);

  auto inverted = index.lookup_ranges(std::vector<Range32>{{1, 2}, {9, 3}});
  REQUIRE(!inverted.ok());
  CHECK(std::string(inverted.error().what()).find("lo 9 > hi 3") != std::string::npos);

  std::vector<RxLookup> small(1);
  auto too_small = index.lookup(std::vector<uint32_t>{1, 2}, small);
  REQUIRE(!too_small.ok());
  CHECK(too_small.error().code() == Errc::output_too_small);

  auto bad_values = CgrxIndex::build(test::context(), keys, std::vector<uint32_t>{1, 2});
  REQUIRE(!bad_values.ok());
  CHECK(std::string(bad_values.error().what()).find("value column has 2 entries") !=
        std::string::npos);

  for (uint32_t b : {0u, 1u, 3u, 48u}) {
    CgrxBuildOptions o;
    o.bucket_size = b;
    auto bad_bucket = CgrxIndex::build(test::context(), keys, {}, o);
    REQUIRE(!bad_bucket.ok());
    CHECK(bad_bucket.error().code() == Errc::invalid_argument);
    CHECK(std::string(bad_bucket.error().what()).find("power of two") != std::string::npos);
  }

  for (double bad : {-1.0, 2.0, std::nan("")}) {
    CgrxBuildOptions o;
    o.compact_min_saving = bad;
    auto refused = CgrxIndex::build(test::context(), keys, {}, o);
    REQUIRE(!refused.ok());
    CHECK(refused.error().code() == Errc::invalid_argument);
    CHECK(std::string(refused.error().what()).find("compact_min_saving") != std::string::npos);
  }
}

TEST_CASE("cgrx: compaction forced or skipped changes no result") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = make_keys<uint32_t>(KeySet::sparse, rng);
  RxReference ref(std::span<const uint32_t>(keys), {});
  auto points = make_points(keys, rng);
  auto want = ref.lookup(std::span<const uint32_t>(points));
  for (double min_saving : {0.0, 1.0}) {
    CAPTURE(min_saving);
    CgrxBuildOptions o;
    o.compact_min_saving = min_saving;
    auto index = CgrxIndex::build(test::context(), keys, {}, o).value();
    const CgrxBuildStats& st = index.build_stats();
    CHECK(st.bvh_bytes <= st.bvh_uncompacted_bytes);
    if (min_saving == 1.0) {
      CHECK(st.bvh_bytes == st.bvh_uncompacted_bytes);  // kept as built
      CHECK(st.compact_ms == 0);
    }
    test::check_lookups(index.lookup(std::span<const uint32_t>(points)).value(), want,
                        "compaction");
  }
}

TEST_CASE("cgrx: layout maps each distinct bucket maximum once and marks lines and planes") {
  // Buckets' maxima: two buckets share 9 (only the first is mapped); 9 and 2^23 + 1 are on
  // different lines; 2^46 opens a new plane.
  std::vector<uint64_t> reps = {3, 9, 9, (1ull << 23) + 1, 1ull << 46};
  auto s = detail::cgrx_scene(reps);
  CHECK(s.representatives == 4);
  CHECK(s.row_markers == 3);
  CHECK(s.plane_markers == 2);
  REQUIRE(s.primitives() == 9);
  CHECK(s.triangles.size() == 9 * 9);
  std::vector<uint32_t> want = {0, 1, 3, 4,  // representatives: bucket 2 repeats bucket 1
                                0, 3, 4,     // row markers: first bucket of each line
                                0, 4};       // plane markers: first bucket of each plane
  CHECK(s.bucket == want);
  // Markers lie left of every key triangle (x <= -1/2).
  for (size_t p = 4; p < 9; ++p)
    for (int v = 0; v < 3; ++v) CHECK(s.triangles[p * 9 + v * 3] <= -0.5f);
  CHECK(detail::cgrx_scene({}).primitives() == 0);
  // First-ray lengths: 3 + 1 (first on its line), 9 - 3, (2^23 + 1) -> 1 + 1, 2^46 -> 0 + 1; the
  // window is the 0.999 quantile of {1, 2, 4, 6}, the element at floor(0.999 * 3) = 2.
  CHECK(s.ray_window == 4);
  CHECK(detail::cgrx_scene({{(1ull << 23) - 1}}).ray_window == 0);  // a whole line: no window
}

TEST_CASE("cgrx: a windowed first ray extends along its line only on a miss") {
  test::ValidationGuard guard;
  // One line: keys 0 .. 1999 (gaps of 2 between the maxima of buckets of 2), then one bucket
  // whose maximum lies 2^22 further on: lookups in that gap miss the window and cast the rest.
  std::vector<uint32_t> keys(2000);
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = i;
  keys.push_back(1u << 22);
  keys.push_back((1u << 22) + 1);
  std::vector<uint32_t> points = {0,
                                  5,
                                  1999,
                                  2000,
                                  123456,
                                  1u << 22,
                                  (1u << 22) + 1,
                                  (1u << 22) + 2,
                                  (1u << 23) - 1,
                                  1u << 23,
                                  0xFFFFFFFFu};
  RxReference ref{std::span<const uint32_t>(keys)};
  for (TraversalMode m : device_modes())
    for (bool window : {true, false}) {
      CAPTURE(to_string(m));
      CAPTURE(window);
      CgrxBuildOptions o;
      o.bucket_size = 2;
      o.traversal = m;
      o.window_first_ray = window;
      auto index = CgrxIndex::build(test::context(), keys, {}, o).value();
      CHECK(index.build_stats().ray_window == (window ? 2u : 0u));
      test::check_lookups(index.lookup(points).value(), ref.lookup(points), "points");
      CHECK(index.last_fallbacks() == 0);
      // Rays per point. Whole-line rays: one, plus the row ray for the four past the last key
      // (2^22 + 2, 2^23 - 1, 2^23 on the empty line 1, 2^32 - 1): 15. Windowed: 2000, 123456
      // and 2^22 + 2 and 2^23 (an empty line) need the rest of their line too; 2^23 - 1 and
      // 2^32 - 1 sit one key before the line's end, inside the window: 19.
      CHECK(index.last_stats().rays == (window ? 19u : 15u));
    }
}

TEST_CASE("cgrx: the diagnostics find the bucket without rays or trace alone") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<uint32_t> keys(3000);
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = 3 * i + 1;  // in order: bucket = i / 32
  std::vector<uint32_t> points(500);
  for (auto& p : points) p = keys[rng() % keys.size()];
  for (TraversalMode m : device_modes()) {
    CAPTURE(to_string(m));
    CgrxBuildOptions o;
    o.traversal = m;
    auto index = CgrxIndex::build(test::context(), keys, {}, o).value();
    // no_trace: a binary search over the representatives instead of rays, still exact.
    index.set_diagnostic(RxDiagnostic::no_trace);
    test::check_lookups(index.lookup(points).value(),
                        RxReference(std::span<const uint32_t>(keys)).lookup(points), "no_trace");
    // trace_only: the bucket the rays name, and one ray per present key (all on line 0).
    index.set_diagnostic(RxDiagnostic::trace_only);
    auto traced = index.lookup(points).value();
    for (size_t i = 0; i < points.size(); ++i) {
      CHECK(traced[i].first_row == (points[i] - 1) / 3 / 32);
      CHECK(traced[i].count == 1);
    }
    index.set_diagnostic(RxDiagnostic::none);
    test::check_lookups(index.lookup(points).value(),
                        RxReference(std::span<const uint32_t>(keys)).lookup(points), "none");
  }
}
