// The CPU reference against brute force: the reference is what every GPU result is judged by.
#include <doctest/doctest.h>

#include <random>

#include "raydb/rx_reference.hpp"
#include "support.hpp"

using namespace raydb;

TEST_CASE("reference: equals brute force on random keys with duplicates") {
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<uint64_t> keys(3000);
  std::vector<uint32_t> values(keys.size());
  for (auto& k : keys) k = rng() % 1000;  // many duplicates
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  RxReference ref(keys, values);
  std::vector<Range64> ranges(500);
  for (auto& r : ranges) {
    r.lo = rng() % 1100;
    r.hi = r.lo + rng() % 50;
  }
  auto got = ref.lookup_ranges(ranges);
  auto rows = ref.collect_rows(ranges);
  size_t total = 0;
  for (size_t q = 0; q < ranges.size(); ++q) {
    RxLookup want;
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i] >= ranges[q].lo && keys[i] <= ranges[q].hi) {
        want.count++;
        want.sum += values[i];
        want.first_row = std::min<uint32_t>(want.first_row, static_cast<uint32_t>(i));
      }
    CHECK(got[q] == want);
    total += want.count;
  }
  CHECK(rows.size() == total);
}
