// The sorted-array baseline against the CPU reference: the same checks the RX index gets.
#include <doctest/doctest.h>

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
