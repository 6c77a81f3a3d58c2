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

namespace {

// The shared geometry (rx_mapping.h: what the Vulkan shaders and the OptiX programs both use) for
// one key: primitives at exact part +- 1/2, the point ray crossing the key point at t = 1/2
// inside its extent, and each range ray of [k, k + w] naming its own line.
void check_geometry(uint64_t k) {
  const double x = rx_part_x(k), y = rx_part_y(k), z = rx_part_z(k);
  RxTriangle t = rx_key_triangle(k);
  CHECK(double(t.a.x) == x - 0.5);
  CHECK(double(t.a.y) == y + 0.5);
  CHECK(double(t.a.z) == z - 0.5);
  CHECK(double(t.b.x) == x - 0.5);
  CHECK(double(t.b.y) == y - 0.5);
  CHECK(double(t.b.z) == z - 0.5);
  CHECK(double(t.c.x) == x + 0.5);
  CHECK(double(t.c.y) == y);
  CHECK(double(t.c.z) == z + 0.5);
  RxBox b = rx_key_box(k);
  CHECK(double(b.lo.x) == x - 0.5);
  CHECK(double(b.lo.y) == y - 0.5);
  CHECK(double(b.lo.z) == z - 0.5);
  CHECK(double(b.hi.x) == x + 0.5);
  CHECK(double(b.hi.y) == y + 0.5);
  CHECK(double(b.hi.z) == z + 0.5);
  RxRay p = rx_point_ray(k);
  CHECK(p.tmax == 1.0f);
  CHECK(rx_key_t(k, p.origin, p.dir) == 0.5f);
  CHECK(double(p.origin.x) == x);
  CHECK(double(p.origin.y) == y);
  // A range starting at k: its first ray starts half a key before k and reaches k at t = 1/2.
  uint64_t hi = k > ~0ull - (3ull << 23) ? ~0ull : k + (3ull << 23);
  for (uint64_t line = rx_line(k); line <= rx_line(hi); ++line) {
    RxRay r = rx_range_ray(k, hi, line);
    CHECK(rx_key_on_line(line << 23, r.origin));
    CHECK(!rx_key_on_line((line + 1) << 23, r.origin));
    CHECK(r.tmax > 0.0f);
    if (line == rx_line(k)) CHECK(rx_key_t(k, r.origin, r.dir) == 0.5f);
    if (line == rx_line(hi)) CHECK(rx_key_t(hi, r.origin, r.dir) == r.tmax - 0.5f);
    if (line == ~0ull >> 23) break;
  }
}

}  // namespace

TEST_CASE("rx mapping: primitives and rays are exact at the magnitude edges") {
  for (uint64_t k : raydb::test::edge_keys(true)) check_geometry(k);
  std::mt19937_64 rng(raydb::test::fresh_seed());
  for (int i = 0; i < 20000; ++i) check_geometry(rng() >> (rng() % 64));
}
