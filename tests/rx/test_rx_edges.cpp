// RxIndex at the magnitude edges (2^23 +- 1, 2^24, 2^32 - 1, 2^46, 2^63, 2^64 - 1), for an empty
// index, and on bad input.
#include <doctest/doctest.h>

#include <random>

#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

template <class Key>
void run_edges(TraversalMode mode, Primitive prim, RxLookupMethod method) {
  constexpr bool wide = sizeof(Key) == 8;
  auto base = test::edge_keys(wide);
  std::vector<Key> keys;
  for (uint64_t k : base) {
    keys.push_back(static_cast<Key>(k));
    keys.push_back(static_cast<Key>(k));  // every edge key twice: duplicates at the edges
  }
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = 0xFFFFFFF0u + static_cast<uint32_t>(i % 16);  // sums pass 2^32
  RxBuildOptions o;
  o.traversal = mode;
  o.primitive = prim;
  o.method = method;
  auto index = RxIndex::build(test::context(), std::span<const Key>(keys), values, o).value();
  RxReference ref(std::span<const Key>(keys), values);

  std::vector<Key> points;
  for (uint64_t k : base)
    for (int d = -1; d <= 1; ++d)
      points.push_back(static_cast<Key>(k + d));  // wraps at 0 and max: fine
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "edge points");

  std::vector<KeyRange<Key>> ranges;
  const Key max = static_cast<Key>(~uint64_t{0});
  for (uint64_t k : base) {
    Key kk = static_cast<Key>(k);
    ranges.push_back({kk, kk});
    if (kk > 0) ranges.push_back({static_cast<Key>(kk - 1), kk});
    if (kk < max) ranges.push_back({kk, static_cast<Key>(kk + 1)});
  }
  // Crossing the 2^23 line boundary and, for 64-bit keys, the 2^46 (y -> z) boundary.
  ranges.push_back({static_cast<Key>((1ull << 23) - 3), static_cast<Key>((1ull << 23) + 3)});
  ranges.push_back({static_cast<Key>(1), static_cast<Key>((1ull << 25) + 1)});
  if constexpr (wide) {
    ranges.push_back({static_cast<Key>((1ull << 46) - 5), static_cast<Key>((1ull << 46) + 5)});
    ranges.push_back({static_cast<Key>((1ull << 46) - (1ull << 24)),
                      static_cast<Key>((1ull << 46) + (1ull << 24))});
    ranges.push_back({static_cast<Key>(~0ull - (1ull << 24)), max});
  } else {
    ranges.push_back({0, max});  // the whole 32-bit key space: 512 lines
    ranges.push_back({static_cast<Key>((1ull << 32) - (1ull << 24)), max});
  }
  test::check_lookups(index.lookup_ranges(std::span<const KeyRange<Key>>(ranges)).value(),
                      ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)), "edge ranges");
}

}  // namespace

TEST_CASE("rx: exact at the magnitude edges in every configuration") {
  test::ValidationGuard guard;
  const DeviceInfo& d = test::context().device();
  for (TraversalMode m : {TraversalMode::pipeline, TraversalMode::ray_query}) {
    if ((m == TraversalMode::pipeline && !d.ray_tracing_pipeline) ||
        (m == TraversalMode::ray_query && !d.ray_query))
      continue;
    for (Primitive p : {Primitive::triangles, Primitive::aabbs})
      for (RxLookupMethod x : {RxLookupMethod::hit_and_scan, RxLookupMethod::any_hit}) {
        std::string config = std::string(to_string(m)) + "/" + to_string(p) + "/" + to_string(x);
        CAPTURE(config);
        run_edges<uint32_t>(m, p, x);
        run_edges<uint64_t>(m, p, x);
      }
  }
}

TEST_CASE("rx: an empty index misses every lookup") {
  test::ValidationGuard guard;
  auto index = RxIndex::build(test::context(), std::vector<uint32_t>{}).value();
  CHECK(index.size() == 0);
  std::vector<uint32_t> points = {0, 1, 0xFFFFFFFFu};
  auto got = index.lookup(points).value();
  for (auto& r : got) CHECK(r == RxLookup{});
  std::vector<Range32> ranges = {{0, 0xFFFFFFFFu}};
  auto gr = index.lookup_ranges(ranges).value();
  CHECK(gr[0] == RxLookup{});
  // An empty batch is fine too.
  CHECK(index.lookup(std::vector<uint32_t>{}).value().empty());
}

TEST_CASE("rx: bad input gets a clear error") {
  test::ValidationGuard guard;
  std::vector<uint32_t> keys = {5, 6, 7};
  auto index = RxIndex::build(test::context(), keys).value();

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

  auto bad_values = RxIndex::build(test::context(), keys, std::vector<uint32_t>{1, 2});
  REQUIRE(!bad_values.ok());
  CHECK(std::string(bad_values.error().what()).find("value column has 2 entries") !=
        std::string::npos);

  RxBuildOptions row_scan;
  row_scan.key_order = false;
  row_scan.method = RxLookupMethod::hit_and_scan;
  auto scan_needs_order = RxIndex::build(test::context(), keys, {}, row_scan);
  REQUIRE(!scan_needs_order.ok());
  CHECK(scan_needs_order.error().code() == Errc::invalid_argument);

  auto no_update = index.update(keys);
  REQUIRE(!no_update.ok());
  CHECK(std::string(no_update.error().what()).find("allow_update") != std::string::npos);

  std::vector<Range64> wide = {{0, ~0ull}};
  auto index64 = RxIndex::build(test::context(), std::vector<uint64_t>{1, 2}).value();
  auto too_wide = index64.lookup_ranges(wide);
  REQUIRE(!too_wide.ok());
  CHECK(too_wide.error().code() == Errc::limit_exceeded);

  KeySpan huge;
  huge.size = 0x100000000ull;  // more keys than 32-bit row ids can name; never read
  huge.width = KeyWidth::bits32;
  auto too_many = RxIndex::build(test::context(), huge);
  REQUIRE(!too_many.ok());
  CHECK(too_many.error().code() == Errc::limit_exceeded);

  RxBuildOptions o;
  o.max_primitives_per_blas = 1;  // 3 keys -> 3 BLAS: fine; the device limit is what matters
  CHECK(RxIndex::build(test::context(), keys, {}, o).ok());
  // Validation must have stayed silent through all of the above.
}
