// The sorted-array baseline against the CPU reference: the same checks the RX index gets.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

template <class Key>
void check_sorted_index(std::mt19937_64& rng, uint64_t key_space) {
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
  auto index = SortedIndex::build(test::context(), std::span<const Key>(keys), values).value();
  RxReference ref(std::span<const Key>(keys), values);
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
  check_sorted_index<uint32_t>(rng, 1u << 20);
  check_sorted_index<uint32_t>(rng, 0xFFFFFFFFull);
  check_sorted_index<uint64_t>(rng, ~0ull);
  check_sorted_index<uint64_t>(rng, 1ull << 40);
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
}

namespace {

// Unique keys take the one-search path (no walk); index sizes around powers of two change the
// branch-free search's trip count, and the edge keys sit at both ends of the array.
template <class Key>
void check_unique_sorted(std::mt19937_64& rng, size_t n) {
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
  auto index = SortedIndex::build(test::context(), std::span<const Key>(keys), values).value();
  RxReference ref(std::span<const Key>(keys), values);
  CHECK(index.build_stats().unique_keys);
  // The dense sorted keys, one fence key per 64 bytes of them, the 16-byte records.
  const size_t block = 64 / sizeof(Key);
  CHECK(index.build_stats().resident_bytes == (n + (n + block - 1) / block) * sizeof(Key) + n * 16);
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
  for (size_t n : {size_t{1}, size_t{2}, size_t{3}, size_t{4}, size_t{5}, size_t{63}, size_t{64},
                   size_t{65}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{100003}}) {
    CAPTURE(n);
    check_unique_sorted<uint32_t>(rng, n);
    check_unique_sorted<uint64_t>(rng, n);
  }
}

TEST_CASE("sorted index: long runs of one key and empty 64-bit index") {
  test::ValidationGuard guard;
  std::vector<uint64_t> keys(5000, 7);
  keys.push_back(~0ull);
  keys.push_back(0);
  std::vector<uint32_t> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0xFFFFFFF0u + static_cast<uint32_t>(i);
  auto index = SortedIndex::build(test::context(), keys, values).value();
  CHECK(!index.build_stats().unique_keys);
  RxReference ref(std::span<const uint64_t>(keys), values);
  std::vector<uint64_t> points{7, 0, ~0ull, 6, 8};
  test::check_lookups(index.lookup(points).value(), ref.lookup(std::span<const uint64_t>(points)),
                      "sorted run points");
  std::vector<Range64> ranges{{0, ~0ull}, {7, 7}, {8, ~0ull - 1}};
  test::check_lookups(index.lookup_ranges(ranges).value(),
                      ref.lookup_ranges(std::span<const Range64>(ranges)), "sorted run ranges");
  auto empty = SortedIndex::build(test::context(), std::vector<uint64_t>{}).value();
  CHECK(empty.build_stats().resident_bytes == 0);
  for (auto& r : empty.lookup(std::vector<uint64_t>{0, ~0ull}).value()) CHECK(r == RxLookup{});
  for (auto& r : empty.lookup_ranges(std::vector<Range64>{{0, ~0ull}}).value())
    CHECK(r == RxLookup{});
}
