// The sorted-array baseline against the CPU reference: the same checks the RX index gets.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

constexpr SortedLayout kLayouts[] = {SortedLayout::fences, SortedLayout::lines};

template <class Key>
void check_sorted_index(std::mt19937_64& rng, uint64_t key_space, SortedLayout layout) {
  std::vector<Key> keys;
  for (int i = 0; i < 3000; ++i) {
    Key k = static_cast<Key>(rng() % key_space);
    for (int r = 0, reps = 1 + static_cast<int>(rng() % 3); r < reps; ++r) keys.push_back(k);
  }
  // The magnitude edges, twice each.
  const uint64_t edges[] = {0,          (1ull << 23) - 1, 1ull << 23, (1ull << 23) + 1,
                            1ull << 24, 0xFFFFFFFFull,    ~0ull};
  for (uint64_t e : edges) {
    keys.push_back(static_cast<Key>(e));
    keys.push_back(static_cast<Key>(e));
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto index =
      SortedIndex::build(test::context(), std::span<const Key>(keys), values, {layout}).value();
  RxReference ref(std::span<const Key>(keys), values);
  CHECK(index.build_stats().layout == layout);
  CHECK(!index.build_stats().unique_keys);
  CHECK(index.build_stats().resident_bytes >= keys.size() * 16);

  std::vector<Key> points;
  std::vector<KeyRange<Key>> ranges;
  for (int i = 0; i < 4000; ++i) {
    Key p = i % 2 ? keys[rng() % keys.size()] : static_cast<Key>(rng() % key_space);
    points.push_back(p);
    Key w = static_cast<Key>(1 + rng() % (uint64_t{1} << (rng() % 28)));
    Key hi =
        p > static_cast<Key>(~Key{0} - w) ? static_cast<Key>(~Key{0}) : static_cast<Key>(p + w);
    ranges.push_back({p, hi});
  }
  ranges.push_back({0, static_cast<Key>(~Key{0})});
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "sorted points");
  test::check_lookups(index.lookup_ranges(std::span<const KeyRange<Key>>(ranges)).value(),
                      ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)), "sorted ranges");
}

}  // namespace

TEST_CASE("sorted index: point and range lookups equal the CPU reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (SortedLayout layout : kLayouts) {
    CAPTURE(to_string(layout));
    check_sorted_index<uint32_t>(rng, 1u << 20, layout);
    check_sorted_index<uint32_t>(rng, 0xFFFFFFFFull, layout);
    check_sorted_index<uint64_t>(rng, ~0ull, layout);
    check_sorted_index<uint64_t>(rng, 1ull << 40, layout);
  }
}

TEST_CASE("sorted index: empty index and bad input") {
  test::ValidationGuard guard;
  auto empty = SortedIndex::build(test::context(), std::vector<uint32_t>{}).value();
  auto misses = empty.lookup(std::vector<uint32_t>{0, 7, 0xFFFFFFFFu}).value();
  for (auto& r : misses) CHECK(r == RxLookup{});
  auto index = SortedIndex::build(test::context(), std::vector<uint32_t>{3, 1, 2}).value();
  CHECK(index.lookup(std::vector<uint64_t>{1}).error().code() == Errc::invalid_argument);
  CHECK(index.lookup_ranges(std::vector<Range32>{{5, 4}}).error().code() == Errc::invalid_argument);
  std::vector<RxLookup> small(1);
  CHECK(index.lookup(std::vector<uint32_t>{1, 2}, small).error().code() == Errc::output_too_small);
  CHECK(SortedIndex::build(test::context(), std::vector<uint32_t>{1, 2}, std::vector<uint32_t>{1})
            .error()
            .code() == Errc::invalid_argument);
  CHECK(parse_sorted_layout("lines").value() == SortedLayout::lines);
  CHECK(parse_sorted_layout("fences").value() == SortedLayout::fences);
  CHECK(parse_sorted_layout("tree").error().code() == Errc::invalid_argument);
  CHECK(SortedIndex::build(test::context(), std::vector<uint32_t>{1}, {},
                           {static_cast<SortedLayout>(7)})
            .error()
            .code() == Errc::invalid_argument);
  auto empty_lines =
      SortedIndex::build(test::context(), std::vector<uint32_t>{}, {}, {SortedLayout::lines})
          .value();
  for (auto& r : empty_lines.lookup(std::vector<uint32_t>{0, 0xFFFFFFFFu}).value())
    CHECK(r == RxLookup{});
  for (auto& r : empty_lines.lookup_ranges(std::vector<Range32>{{0, 0xFFFFFFFFu}}).value())
    CHECK(r == RxLookup{});
}

namespace {

// Unique keys take the one-search path (no walk); index sizes around powers of two change the
// branch-free search's trip count, and the edge keys sit at both ends of the array.
template <class Key>
void check_unique_sorted(std::mt19937_64& rng, size_t n, SortedLayout layout) {
  std::vector<Key> keys;
  const Key edges[] = {0, 1, static_cast<Key>(0xFFFFFFFFull), static_cast<Key>(~0ull)};
  for (Key e : edges)
    if (std::find(keys.begin(), keys.end(), e) == keys.end() && keys.size() < n) keys.push_back(e);
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  while (keys.size() < n) {
    Key k = static_cast<Key>(rng());
    if (!std::binary_search(sorted.begin(), sorted.end(), k)) {
      keys.push_back(k);
      sorted.insert(std::lower_bound(sorted.begin(), sorted.end(), k), k);
    }
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<uint32_t> values(n);
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto index =
      SortedIndex::build(test::context(), std::span<const Key>(keys), values, {layout}).value();
  RxReference ref(std::span<const Key>(keys), values);
  CHECK(index.build_stats().unique_keys);
  // The dense sorted keys, one fence key per 64 bytes of them or the sampled levels (every 32nd
  // key of the level below, down to <= 256 keys), the 16-byte records.
  size_t index_keys = n, levels = 0;
  if (layout == SortedLayout::fences) {
    const size_t block = 64 / sizeof(Key);
    index_keys += (n + block - 1) / block;
  } else {
    for (size_t size = n; size > 256; ++levels) {
      size = (size + 31) / 32;
      index_keys += size;
    }
  }
  CHECK(index.build_stats().sampled_levels == levels);
  CHECK(index.build_stats().resident_bytes == index_keys * sizeof(Key) + n * 16);
  std::vector<Key> points;
  std::vector<KeyRange<Key>> ranges;
  for (Key e : edges) points.push_back(e);
  for (Key e : {Key{2}, static_cast<Key>(~Key{0} - 1), static_cast<Key>(0x100000000ull)})
    points.push_back(e);
  for (size_t i = 0; i < 3000; ++i) {
    Key p = i % 2 ? keys[rng() % n] : static_cast<Key>(rng());
    // Neighbours of index keys: misses just below and above a hit.
    if (i % 5 == 0) p = static_cast<Key>(p + (i % 3 == 0 ? 1 : -1));
    points.push_back(p);
    Key hi = static_cast<Key>(p + rng() % 1024);
    ranges.push_back({p, hi < p ? static_cast<Key>(~Key{0}) : hi});
  }
  ranges.push_back({0, 0});
  ranges.push_back({static_cast<Key>(~Key{0}), static_cast<Key>(~Key{0})});
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "sorted unique points");
  test::check_lookups(index.lookup_ranges(std::span<const KeyRange<Key>>(ranges)).value(),
                      ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)),
                      "sorted unique ranges");
}

}  // namespace

TEST_CASE("sorted index: unique keys, 32- and 64-bit, index sizes around powers of two") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // 256 / 257 and 8192 / 8193: the lines layout's top level alone, one and two levels.
  for (SortedLayout layout : kLayouts)
    for (size_t n :
         {size_t{1},     size_t{2},     size_t{3},     size_t{4},    size_t{5},    size_t{31},
          size_t{32},    size_t{33},    size_t{63},    size_t{64},   size_t{65},   size_t{256},
          size_t{257},   size_t{8192},  size_t{8193},  size_t{4095}, size_t{4096}, size_t{4097},
          size_t{65536}, size_t{65537}, size_t{100003}}) {
      CAPTURE(to_string(layout));
      CAPTURE(n);
      check_unique_sorted<uint32_t>(rng, n, layout);
      check_unique_sorted<uint64_t>(rng, n, layout);
    }
}

TEST_CASE("sorted index: long runs of one key and empty 64-bit index") {
  test::ValidationGuard guard;
  for (SortedLayout layout : kLayouts) {
    CAPTURE(to_string(layout));
    std::vector<uint64_t> keys(5000, 7);
    keys.push_back(~0ull);
    keys.push_back(0);
    std::vector<uint32_t> values(keys.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = 0xFFFFFFF0u + static_cast<uint32_t>(i);
    auto index = SortedIndex::build(test::context(), keys, values, {layout}).value();
    CHECK(!index.build_stats().unique_keys);
    RxReference ref(std::span<const uint64_t>(keys), values);
    std::vector<uint64_t> points{7, 0, ~0ull, 6, 8};
    test::check_lookups(index.lookup(points).value(), ref.lookup(std::span<const uint64_t>(points)),
                        "sorted run points");
    std::vector<Range64> ranges{{0, ~0ull}, {7, 7}, {8, ~0ull - 1}};
    test::check_lookups(index.lookup_ranges(ranges).value(),
                        ref.lookup_ranges(std::span<const Range64>(ranges)), "sorted run ranges");
    auto empty = SortedIndex::build(test::context(), std::vector<uint64_t>{}, {}, {layout}).value();
    CHECK(empty.build_stats().resident_bytes == 0);
    for (auto& r : empty.lookup(std::vector<uint64_t>{0, ~0ull}).value()) CHECK(r == RxLookup{});
    for (auto& r : empty.lookup_ranges(std::vector<Range64>{{0, ~0ull}}).value())
      CHECK(r == RxLookup{});
  }
}

namespace {

// Runs of one key that start just before a 32-key node (and a 16/8-key fence block) border and
// cross it, many nodes and three sampled levels (2^21 + 3 keys: levels of 65537, 2049 and 65 keys);
// probes unsorted and sorted (one node for the whole subgroup), duplicates, misses and the edges.
template <class Key>
void check_large_with_runs(std::mt19937_64& rng, SortedLayout layout) {
  const size_t n = (size_t{1} << 21) + 3;
  std::vector<Key> keys;
  keys.reserve(n);
  for (uint64_t e : test::edge_keys(sizeof(Key) == 8)) keys.push_back(static_cast<Key>(e));
  // Every kept key is a multiple of 4 below 2^30: k + 1 .. k + 3 are misses between hits.
  while (keys.size() < n) {
    Key k = static_cast<Key>((rng() % (uint64_t{1} << 28)) * 4);
    size_t run = rng() % 16 == 0 ? 1 + rng() % 70 : 1;
    for (size_t r = 0; r < run && keys.size() < n; ++r) keys.push_back(k);
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<uint32_t> values(n);
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto index =
      SortedIndex::build(test::context(), std::span<const Key>(keys), values, {layout}).value();
  CHECK(index.build_stats().sampled_levels == (layout == SortedLayout::lines ? 3u : 0u));
  RxReference ref(std::span<const Key>(keys), values);
  std::vector<Key> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::vector<Key> points;
  for (uint64_t e : test::edge_keys(sizeof(Key) == 8)) points.push_back(static_cast<Key>(e));
  // The keys at and around node borders, where runs cross them.
  for (size_t i = 32; i < n; i += 32 * 997) {
    points.push_back(sorted[i - 1]);
    points.push_back(sorted[i]);
    points.push_back(static_cast<Key>(sorted[i] - 1));
  }
  while (points.size() < 30000) {
    Key p = rng() % 2 ? keys[rng() % n] : static_cast<Key>(rng() % (uint64_t{1} << 30));
    points.push_back(p);
  }
  std::vector<KeyRange<Key>> ranges;
  for (size_t i = 0; i < 8000; ++i) {
    Key lo = points[rng() % points.size()];
    Key hi = lo > static_cast<Key>(~Key{0} - 4096) ? static_cast<Key>(~Key{0})
                                                   : static_cast<Key>(lo + rng() % 4096);
    ranges.push_back({lo, hi});
  }
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "sorted large points");
  test::check_lookups(index.lookup_ranges(std::span<const KeyRange<Key>>(ranges)).value(),
                      ref.lookup_ranges(std::span<const KeyRange<Key>>(ranges)),
                      "sorted large ranges");
  std::sort(points.begin(), points.end());
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "sorted large sorted points");
}

}  // namespace

TEST_CASE("sorted index: runs across node borders and three sampled levels") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (SortedLayout layout : kLayouts) {
    CAPTURE(to_string(layout));
    check_large_with_runs<uint32_t>(rng, layout);
    check_large_with_runs<uint64_t>(rng, layout);
  }
}
