// detail::host_copies and its streaming copies (common/host_copy.hpp): the pipelined lookups'
// staging copies. Each streaming copy this host can run is checked alone, over heads and tails of
// many alignments, since host_copies itself only runs the widest one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/host_copy.hpp"

using namespace raydb;

namespace {

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

}  // namespace

TEST_CASE("host copy: every streaming copy copies exactly its bytes at any alignment") {
  constexpr size_t kGuard = 80;
  const std::vector<uint8_t> src = random_bytes(4096 + 2 * kGuard, 1);
  const auto copies = detail::stream_copies();
  REQUIRE(!copies.empty());
  for (const detail::StreamCopy& c : copies) {
    CAPTURE(std::string(c.name));
    for (size_t bytes : {0, 1, 15, 16, 31, 63, 64, 65, 127, 128, 200, 1000, 4096})
      for (size_t dst_at : {0, 1, 8, 17, 32, 63})
        for (size_t src_at : {0, 3, 16, 64}) {
          CAPTURE(bytes);
          CAPTURE(dst_at);
          CAPTURE(src_at);
          std::vector<uint8_t> dst(bytes + 2 * kGuard, 0xEE);
          c.copy(dst.data() + dst_at, src.data() + src_at, bytes);
          CHECK(std::memcmp(dst.data() + dst_at, src.data() + src_at, bytes) == 0);
          size_t touched = 0;
          for (size_t i = 0; i < dst.size(); ++i)
            touched += (i < dst_at || i >= dst_at + bytes) && dst[i] != 0xEE;
          CHECK(touched == 0);
        }
  }
}

TEST_CASE("host copy: copies and fills split over threads equal one plain copy") {
  // Above the 4 MiB below which one thread copies, at sizes no thread count divides evenly.
  const size_t n = (size_t{5} << 20) + 4093, m = (size_t{3} << 20) + 7;
  const std::vector<uint8_t> a = random_bytes(n, 2), b = random_bytes(m, 3);
  std::vector<uint8_t> a_out(n + 3, 0), b_out(m, 0), fill_out(n, 0);
  detail::host_copies({{a_out.data() + 3, a.data(), n}, {b_out.data(), b.data(), m}});
  CHECK(std::memcmp(a_out.data() + 3, a.data(), n) == 0);
  CHECK(std::memcmp(b_out.data(), b.data(), m) == 0);
  detail::host_copies({{fill_out.data(), nullptr, n, 0x5A}});
  CHECK(std::count(fill_out.begin(), fill_out.end(), uint8_t{0x5A}) == static_cast<long>(n));
  // Many blocks (64 MiB and more), an empty copy among them, destinations off cache lines.
  const size_t big = (size_t{64} << 20) + 5;
  const std::vector<uint8_t> c = random_bytes(big, 4);
  std::vector<uint8_t> c_out(big + 9, 0), d_out(n + 1, 0);
  detail::host_copies({{c_out.data() + 9, c.data(), big},
                       {d_out.data(), a.data(), 0},
                       {d_out.data() + 1, a.data(), n}});
  CHECK(std::memcmp(c_out.data() + 9, c.data(), big) == 0);
  CHECK(std::count(c_out.begin(), c_out.begin() + 9, uint8_t{0}) == 9);
  CHECK(d_out[0] == 0);
  CHECK(std::memcmp(d_out.data() + 1, a.data(), n) == 0);
}
