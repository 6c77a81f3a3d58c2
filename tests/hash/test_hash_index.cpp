// The hash-table baseline against the CPU reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "raydb/hash_index.hpp"
#include "raydb/rx_reference.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

template <class Key>
void check_hash_index(std::mt19937_64& rng, uint64_t key_space, size_t distinct) {
  std::vector<Key> keys;
  for (size_t i = 0; i < distinct; ++i) {
    Key k = static_cast<Key>(rng() % key_space);
    for (int r = 0, reps = 1 + static_cast<int>(rng() % 3); r < reps; ++r) keys.push_back(k);
  }
  // Keys that look like sentinels elsewhere are ordinary keys here.
  const uint64_t edges[] = {0, 1ull << 23, 0xFFFFFFFFull, ~0ull};
  for (uint64_t e : edges) keys.push_back(static_cast<Key>(e));
  std::shuffle(keys.begin(), keys.end(), rng);
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto index = HashIndex::build(test::context(), std::span<const Key>(keys), values).value();
  CHECK(index.build_stats().table_slots >= 2 * keys.size());
  RxReference ref(std::span<const Key>(keys), values);
  std::vector<Key> points;
  for (int i = 0; i < 5000; ++i)
    points.push_back(i % 2 ? keys[rng() % keys.size()] : static_cast<Key>(rng() % key_space));
  for (uint64_t e : edges) points.push_back(static_cast<Key>(e));
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "hash points");
}

}  // namespace

TEST_CASE("hash index: point lookups equal the CPU reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  check_hash_index<uint32_t>(rng, 1u << 14, 3000);  // dense: long probe chains and many duplicates
  check_hash_index<uint32_t>(rng, 0xFFFFFFFFull, 20000);
  check_hash_index<uint64_t>(rng, ~0ull, 20000);
}

TEST_CASE("hash index: empty index, ranges refused and bad input") {
  test::ValidationGuard guard;
  auto empty = HashIndex::build(test::context(), std::vector<uint64_t>{}).value();
  for (auto& r : empty.lookup(std::vector<uint64_t>{0, ~0ull}).value()) CHECK(r == RxLookup{});
  auto index = HashIndex::build(test::context(), std::vector<uint32_t>{4, 4, 9}).value();
  auto got = index.lookup(std::vector<uint32_t>{4, 9, 5}).value();
  CHECK(got[0].count == 2);
  CHECK(got[0].first_row == 0);
  CHECK(got[1].count == 1);
  CHECK(got[2] == RxLookup{});
  CHECK(index.lookup(std::vector<uint64_t>{4}).error().code() == Errc::invalid_argument);
  std::vector<RxLookup> small(1);
  CHECK(index.lookup(std::vector<uint32_t>{1, 2}, small).error().code() == Errc::output_too_small);
}

namespace {

// Unique keys: the slots hold row and value inline and the records are dropped after the build.
template <class Key>
void check_unique_hash(std::mt19937_64& rng, size_t n) {
  std::vector<Key> keys;
  const Key edges[] = {0, static_cast<Key>(0xFFFFFFFFull), static_cast<Key>(~0ull)};
  for (Key e : edges)
    if (std::find(keys.begin(), keys.end(), e) == keys.end()) keys.push_back(e);
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
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto index = HashIndex::build(test::context(), std::span<const Key>(keys), values).value();
  const auto& bs = index.build_stats();
  CHECK(bs.unique_keys);
  CHECK(bs.table_slots >= 2 * keys.size());
  CHECK(bs.resident_bytes == bs.table_slots * 16);  // the table alone
  RxReference ref(std::span<const Key>(keys), values);
  std::vector<Key> points(std::begin(edges), std::end(edges));
  points.push_back(1);
  points.push_back(static_cast<Key>(~Key{0} - 1));
  for (int i = 0; i < 5000; ++i) points.push_back(i % 2 ? keys[rng() % keys.size()] : Key(rng()));
  test::check_lookups(index.lookup(std::span<const Key>(points)).value(),
                      ref.lookup(std::span<const Key>(points)), "hash unique points");
}

}  // namespace

TEST_CASE("hash index: unique keys keep row and value in the slot") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t n : {size_t{3}, size_t{8}, size_t{9}, size_t{20000}}) {
    CAPTURE(n);
    check_unique_hash<uint32_t>(rng, n);
    check_unique_hash<uint64_t>(rng, n);
  }
  // Sequential keys: a weak hash would cluster them into long linear-probing chains.
  std::vector<uint32_t> seq(50000);
  for (uint32_t i = 0; i < seq.size(); ++i) seq[i] = i;
  auto index = HashIndex::build(test::context(), seq).value();
  RxReference ref(std::span<const uint32_t>(seq), {});
  std::vector<uint32_t> points{0, 49999, 50000, 0xFFFFFFFFu, 12345};
  test::check_lookups(index.lookup(points).value(), ref.lookup(std::span<const uint32_t>(points)),
                      "hash sequential");
}

TEST_CASE("hash index: long runs get their count, sum and first row precomputed") {
  test::ValidationGuard guard;
  for (bool wide : {false, true}) {
    CAPTURE(wide);
    // A run of 3000 equal keys, singletons between, the edge keys repeated; values near 2^32 so
    // the sums need 64 bits.
    std::vector<uint64_t> k64;
    for (int i = 0; i < 3000; ++i) k64.push_back(42);
    for (uint64_t i = 0; i < 1000; ++i) k64.push_back(1000 + i);
    for (uint64_t e : {0ull, 0xFFFFFFFFull, ~0ull})
      for (int r = 0; r < 3; ++r) k64.push_back(e);
    std::mt19937_64 rng(test::fresh_seed());
    std::shuffle(k64.begin(), k64.end(), rng);
    std::vector<uint32_t> k32(k64.begin(), k64.end());
    std::vector<uint32_t> values(k64.size());
    for (auto& v : values) v = 0xFFFFFF00u | static_cast<uint32_t>(rng() & 0xFF);
    KeySpan keys = wide ? KeySpan(k64) : KeySpan(k32);
    auto index = HashIndex::build(test::context(), keys, values).value();
    const auto& bs = index.build_stats();
    CHECK(!bs.unique_keys);
    CHECK(bs.resident_bytes == bs.table_slots * 16 + k64.size() * 16);  // table + payloads
    std::vector<uint64_t> p64{42, 0, 0xFFFFFFFFull, ~0ull, 1000, 1999, 2000, 41, 43};
    std::vector<uint32_t> p32(p64.begin(), p64.end());
    KeySpan points = wide ? KeySpan(p64) : KeySpan(p32);
    test::check_lookups(index.lookup(points).value(), RxReference(keys, values).lookup(points),
                        "hash runs");
  }
}
