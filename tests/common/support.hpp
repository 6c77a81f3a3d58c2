// Shared by the tests: one validated Vulkan context per process, fresh random seeds, and
// comparison helpers that report the first differing element.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/rx_index.hpp"

namespace raydb::test {

// The context every GPU test uses: validation on, every message counted. Created on first use.
Context& context();
// A seed for fresh random data, printed so a failure can be replayed (RAYDB_TEST_SEED fixes it).
uint64_t fresh_seed();

// Fails the current test if any validation message was seen since construction.
struct ValidationGuard {
  uint64_t before = context().validation_messages();
  ~ValidationGuard() {
    CHECK_MESSAGE(context().validation_messages() == before, "Vulkan validation messages");
  }
};

template <class T>
void check_equal_whole(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  REQUIRE_MESSAGE(got.size() == want.size(),
                  what << ": size " << got.size() << " vs " << want.size());
  size_t bad = 0, first = got.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i])) {
      if (bad++ == 0) first = i;
    }
  CHECK_MESSAGE(bad == 0,
                what << ": " << bad << " of " << got.size() << " differ, first at " << first);
}

inline void check_lookups(const std::vector<RxLookup>& got, const std::vector<RxLookup>& want,
                          const char* what) {
  REQUIRE_MESSAGE(got.size() == want.size(), what);
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (bad++ < 3)
      MESSAGE(what << " query " << i << ": got (row " << got[i].first_row << ", count "
                   << got[i].count << ", sum " << got[i].sum << ") want (row " << want[i].first_row
                   << ", count " << want[i].count << ", sum " << want[i].sum << ")");
  }
  CHECK_MESSAGE(bad == 0, what << ": " << bad << " of " << got.size() << " lookups differ");
}

// Keys at the mapping's magnitude edges (parts of 23 bits, 2^32, 2^46, 2^64): every index is
// tested on them. `wide` adds the 64-bit ones.
inline std::vector<uint64_t> edge_keys(bool wide) {
  std::vector<uint64_t> k = {0,
                             1,
                             (1ull << 23) - 1,
                             1ull << 23,
                             (1ull << 23) + 1,
                             1ull << 24,
                             (1ull << 24) + 1,
                             (1ull << 31),
                             (1ull << 32) - 2,
                             (1ull << 32) - 1};
  if (wide) {
    std::vector<uint64_t> w = {1ull << 32,
                               (1ull << 46) - 1,
                               1ull << 46,
                               (1ull << 46) + 1,
                               (1ull << 46) + (1ull << 23),
                               (1ull << 63) - 1,
                               1ull << 63,
                               ~0ull - 1,
                               ~0ull};
    k.insert(k.end(), w.begin(), w.end());
  }
  return k;
}

}  // namespace raydb::test
