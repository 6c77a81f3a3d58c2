// The hash-table baseline against the CPU reference.
#include <doctest/doctest.h>

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
