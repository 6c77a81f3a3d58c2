// The key -> coordinate decomposition shared by GLSL and C++ (shaders/common/rx_mapping.h).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "common/rx_mapping.h"
#include "ops/rx/rx_params.hpp"
#include "support.hpp"

namespace {

void check_exact(uint64_t k) {
  uint32_t x = rx_part_x(k), y = rx_part_y(k), z = rx_part_z(k);
  CHECK(x < (1u << 23));
  CHECK(y < (1u << 23));
  CHECK(z < (1u << 18));
  // Round trip: the parts rebuild the key.
  CHECK(((uint64_t{z} << 46) | (uint64_t{y} << 23) | x) == k);
  // Each part and part +- 0.5 is an exact float32 (what the triangles and rays use).
  for (uint32_t p : {x, y, z}) {
    float f = static_cast<float>(p);
    CHECK(static_cast<double>(f) == static_cast<double>(p));
    CHECK(static_cast<double>(f + 0.5f) == static_cast<double>(p) + 0.5);
    CHECK(static_cast<double>(f - 0.5f) == static_cast<double>(p) - 0.5);
  }
  CHECK(rx_line_y(rx_line(k)) == y);
  CHECK(rx_line_z(rx_line(k)) == z);
}

}  // namespace

TEST_CASE("rx mapping: parts are exact and round-trip at the magnitude edges") {
  const uint64_t edges[] = {0,
                            1,
                            (1ull << 23) - 1,
                            1ull << 23,
                            (1ull << 23) + 1,
                            1ull << 24,
                            (1ull << 32) - 1,
                            1ull << 32,
                            (1ull << 46) - 1,
                            1ull << 46,
                            (1ull << 46) + 1,
                            1ull << 63,
                            ~0ull - 1,
                            ~0ull};
  for (uint64_t k : edges) check_exact(k);
  std::mt19937_64 rng(raydb::test::fresh_seed());
  for (int i = 0; i < 100000; ++i) check_exact(rng());
}

TEST_CASE("rx mapping: key order is line order then x order") {
  std::mt19937_64 rng(raydb::test::fresh_seed());
  for (int i = 0; i < 100000; ++i) {
    uint64_t a = rng(), b = rng() >> (rng() % 64);
    if (a > b) std::swap(a, b);
    bool line_le =
        rx_line(a) < rx_line(b) || (rx_line(a) == rx_line(b) && rx_part_x(a) <= rx_part_x(b));
    CHECK(line_le);
  }
  CHECK(rx_line(0xFFFFFFFFu) == 511);  // a 32-bit key space is 512 lines
}

TEST_CASE("rx probe flags: each lookup method and case sets its bits") {
  using raydb::KeyWidth;
  using raydb::RxLookupMethod;
  using raydb::detail::rx_probe_flags;
  // hit_and_scan must reach the shaders: a flag lost here silently runs the any_hit path.
  CHECK((rx_probe_flags(KeyWidth::bits32, false, false, false, RxLookupMethod::hit_and_scan) &
         RX_FLAG_SCAN) != 0);
  CHECK((rx_probe_flags(KeyWidth::bits32, true, false, true, RxLookupMethod::hit_and_scan) &
         RX_FLAG_SCAN) != 0);
  CHECK((rx_probe_flags(KeyWidth::bits32, false, false, false, RxLookupMethod::any_hit) &
         RX_FLAG_SCAN) == 0);
  CHECK(rx_probe_flags(KeyWidth::bits64, true, true, true, RxLookupMethod::any_hit) ==
        (RX_FLAG_KEY64 | RX_FLAG_RANGES | RX_FLAG_WRITE_MATCHES));
  // Only unique-key point lookups may stop at their first hit.
  CHECK((rx_probe_flags(KeyWidth::bits32, false, true, false, RxLookupMethod::any_hit) &
         RX_FLAG_FIRST_HIT_ONLY) != 0);
  CHECK((rx_probe_flags(KeyWidth::bits32, true, true, false, RxLookupMethod::any_hit) &
         RX_FLAG_FIRST_HIT_ONLY) == 0);
  CHECK((rx_probe_flags(KeyWidth::bits32, false, false, false, RxLookupMethod::any_hit) &
         RX_FLAG_FIRST_HIT_ONLY) == 0);
}
