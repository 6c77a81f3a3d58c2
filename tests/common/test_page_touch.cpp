// detail::PageTouch (common/page_touch.hpp): maps a build's lookup slots page by page on a thread
// of its own. It must touch every page of every range and nothing else, and be done before
// wait(), a move onto it or its end returns.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/page_touch.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

// Byte i of each range is zero exactly where i is a multiple of 4096 (the pages' first bytes).
void check_touched(const std::vector<uint8_t>& v, size_t begin, size_t bytes, const char* what) {
  CAPTURE(what);
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i)
    if ((v[begin + i] == 0) != (i % 4096 == 0)) ++wrong;
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("page touch: one byte per page of every range, done before wait, move or end") {
  std::mt19937 rng(static_cast<uint32_t>(test::fresh_seed()));
  // Not zero anywhere, so that a touched byte shows.
  std::vector<uint8_t> a(3 * 4096 + 17), b(5 * 4096), c(100);
  for (auto* v : {&a, &b, &c})
    for (auto& x : *v) x = static_cast<uint8_t>(1 + rng() % 255);
  const std::vector<uint8_t> b_before = b;
  {
    detail::PageTouch touch({{a.data() + 5, a.size() - 5}, {c.data(), c.size()}});
    touch.wait();
    check_touched(a, 5, a.size() - 5, "a from byte 5");
    check_touched(c, 0, c.size(), "c, less than a page");
    CHECK(b == b_before);  // not given

    touch = detail::PageTouch({{b.data(), b.size()}});  // waits for nothing left, starts anew
    detail::PageTouch moved = std::move(touch);
    touch.wait();  // moved from: returns at once
  }                // `moved` ends: waits
  check_touched(b, 0, b.size(), "b, after a move and the end");
  detail::PageTouch none;
  none.wait();
}
