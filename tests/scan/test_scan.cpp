// The full-scan baseline and bitmap algebra against the CPU reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "ops/scan/scan_impl.hpp"
#include "raydb/scan.hpp"
#include "support.hpp"

using namespace raydb;

namespace {

std::vector<std::vector<uint32_t>> random_columns(std::mt19937_64& rng, size_t columns,
                                                  size_t rows) {
  std::vector<std::vector<uint32_t>> out(columns, std::vector<uint32_t>(rows));
  for (size_t c = 0; c < columns; ++c)
    for (auto& v : out[c]) {
      switch (rng() % 4) {  // mix small values, the edges and the full range
        case 0:
          v = static_cast<uint32_t>(rng() % 100);
          break;
        case 1:
          v = rng() % 2 ? 0u : 0xFFFFFFFFu;
          break;
        case 2:
          v = static_cast<uint32_t>((1u << 24) - 2 + rng() % 4);
          break;
        default:
          v = static_cast<uint32_t>(rng());
      }
    }
  return out;
}

std::vector<std::span<const uint32_t>> spans(const std::vector<std::vector<uint32_t>>& cols) {
  return {cols.begin(), cols.end()};
}

Predicate random_predicate(std::mt19937_64& rng, uint32_t columns) {
  Predicate p;
  p.column = static_cast<uint32_t>(rng() % columns);
  p.op = static_cast<CompareOp>(rng() % 6);
  const uint32_t picks[] = {0u, 1u, 50u, 99u, (1u << 24) - 1, 1u << 24, 0xFFFFFFFEu, 0xFFFFFFFFu};
  p.value = rng() % 2 ? picks[rng() % 8] : static_cast<uint32_t>(rng());
  p.value2 = rng() % 2 ? picks[rng() % 8] : static_cast<uint32_t>(rng());
  return p;
}

std::vector<uint32_t> rows_of(const std::vector<uint32_t>& words, uint64_t rows) {
  std::vector<uint32_t> out;
  for (uint64_t r = 0; r < rows; ++r)
    if (words[r / 32] >> (r % 32) & 1u) out.push_back(static_cast<uint32_t>(r));
  return out;
}

}  // namespace

TEST_CASE("full scan: 0 to 4 predicates of every kind equal the CPU reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t rows : {size_t{0}, size_t{1}, size_t{31}, size_t{2048}, size_t{100003}}) {
    auto cols = random_columns(rng, 3, rows);
    auto table = ColumnTable::upload(test::context(), spans(cols)).value();
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<Predicate> preds;
      for (int k = 0, n = trial % 5; k < n; ++k) preds.push_back(random_predicate(rng, 3));
      CAPTURE(rows);
      CAPTURE(trial);
      auto bm = full_scan(table, preds).value();
      auto want = full_scan_reference(spans(cols), preds);
      test::check_equal_whole(bm.words().value(), want, "bitmap");
      auto want_rows = rows_of(want, rows);
      CHECK(bm.count().value() == want_rows.size());
      test::check_equal_whole(bm.row_ids().value(), want_rows, "row ids");
    }
  }
}

// full_scan.comp reads 4 rows at a time and a workgroup owns 8192 rows: row counts around 4, 32
// (a bitmap word), 128 and 8192 reach the row-by-row tail, partial words and partial workgroups.
TEST_CASE("full scan: every operator at row counts around the kernel's chunks and groups") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  const size_t sizes[] = {0,   1,   3,    4,    5,    31,    32,    33,    127,
                          128, 129, 8191, 8192, 8193, 16387, 24580, 262147};
  for (size_t rows : sizes) {
    auto cols = random_columns(rng, 2, rows);
    auto table = ColumnTable::upload(test::context(), spans(cols)).value();
    for (int op = 0; op < 6; ++op) {
      for (int trial = 0; trial < 3; ++trial) {
        Predicate p = random_predicate(rng, 2);
        p.op = static_cast<CompareOp>(op);
        if (trial == 0 && rows > 0) {  // a constant taken from the data, so some rows match
          p.value = cols[p.column][rng() % rows];
          p.value2 = p.value + static_cast<uint32_t>(rng() % 1000);
        }
        std::vector<Predicate> preds = {p};
        if (trial == 2) preds.push_back(random_predicate(rng, 2));  // a conjunction
        CAPTURE(rows);
        CAPTURE(op);
        CAPTURE(trial);
        auto bm = full_scan(table, preds).value();
        auto want = full_scan_reference(spans(cols), preds);
        test::check_equal_whole(bm.words().value(), want, "bitmap");
      }
    }
    // No predicate: every row, and no bit past the last one.
    auto all = full_scan(table, std::vector<Predicate>{}).value();
    test::check_equal_whole(all.words().value(),
                            full_scan_reference(spans(cols), std::vector<Predicate>{}), "all rows");
  }
}

TEST_CASE("full scan: empty and full results and constants outside the data") {
  test::ValidationGuard guard;
  std::vector<uint32_t> a = {5, 6, 7, 0xFFFFFFFFu, 0}, b = {1, 1, 1, 1, 1};
  std::vector<std::span<const uint32_t>> cols = {a, b};
  auto table = ColumnTable::upload(test::context(), cols).value();
  auto count = [&](std::vector<Predicate> p) {
    return full_scan(table, p).value().count().value();
  };
  CHECK(count({{0, CompareOp::lt, 0}}) == 0);            // below the minimum: nothing
  CHECK(count({{0, CompareOp::gt, 0xFFFFFFFFu}}) == 0);  // above the maximum: nothing
  CHECK(count({{0, CompareOp::ge, 0}}) == 5);            // everything
  CHECK(count({{0, CompareOp::le, 0xFFFFFFFFu}}) == 5);
  CHECK(count({{0, CompareOp::between, 7, 5}}) == 0);  // inverted between
  CHECK(count({{0, CompareOp::eq, 0xFFFFFFFFu}, {1, CompareOp::eq, 1}}) == 1);
  CHECK(count({}) == 5);
}

TEST_CASE("bitmap: and, or, not equal word-wise CPU results") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  // 2188, 2, 5, 7 and 126 words: every word count modulo 4 (the kernel moves 4 words at once and
  // the last ones word by word), with a partial last word.
  for (size_t rows : {size_t{70001}, size_t{33}, size_t{129}, size_t{193}, size_t{4001}}) {
    CAPTURE(rows);
    auto cols = random_columns(rng, 2, rows);
    auto table = ColumnTable::upload(test::context(), spans(cols)).value();
    Predicate p1{0, CompareOp::lt, 1u << 31}, p2{1, CompareOp::ge, 50};
    auto x = full_scan(table, std::vector<Predicate>{p1}).value();
    auto y = full_scan(table, std::vector<Predicate>{p2}).value();
    auto wx = full_scan_reference(spans(cols), std::vector<Predicate>{p1});
    auto wy = full_scan_reference(spans(cols), std::vector<Predicate>{p2});
    REQUIRE(x.or_with(y).ok());
    std::vector<uint32_t> want(wx.size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = wx[i] | wy[i];
    test::check_equal_whole(x.words().value(), want, "or");
    REQUIRE(x.and_with(y).ok());
    for (size_t i = 0; i < want.size(); ++i) want[i] &= wy[i];
    test::check_equal_whole(x.words().value(), want, "and");
    REQUIRE(x.invert().ok());
    for (size_t i = 0; i < want.size(); ++i) want[i] = ~want[i];
    want.back() &= (1u << (rows % 32)) - 1;  // bits past the last row stay 0
    test::check_equal_whole(x.words().value(), want, "not");
    std::vector<uint32_t> want_rows;  // row ids come from the per-word popcounts
    for (uint32_t r = 0; r < rows; ++r)
      if (want[r / 32] >> (r % 32) & 1u) want_rows.push_back(r);
    test::check_equal_whole(x.row_ids().value(), want_rows, "row ids");
  }
}

TEST_CASE("scan: bad input gets a clear error") {
  test::ValidationGuard guard;
  std::vector<uint32_t> a = {1, 2, 3}, b = {1, 2};
  std::vector<std::span<const uint32_t>> uneven = {a, b};
  auto t = ColumnTable::upload(test::context(), uneven);
  REQUIRE(!t.ok());
  CHECK(std::string(t.error().what()).find("column 1 has 2 rows") != std::string::npos);
  std::vector<std::span<const uint32_t>> one = {a};
  auto table = ColumnTable::upload(test::context(), one).value();
  auto missing = full_scan(table, std::vector<Predicate>{{3, CompareOp::eq, 1}});
  REQUIRE(!missing.ok());
  CHECK(std::string(missing.error().what()).find("column 3") != std::string::npos);
  CHECK(parse_compare_op("ne").error().code() == Errc::invalid_argument);
  auto other =
      ColumnTable::upload(test::context(), std::vector<std::span<const uint32_t>>{b}).value();
  auto x = full_scan(table, std::vector<Predicate>{}).value();
  auto y = full_scan(other, std::vector<Predicate>{}).value();
  CHECK(x.and_with(y).error().code() == Errc::invalid_argument);
}

// The pool DP-BIS keeps query bitmaps in (a CUDA-shared bitmap costs an allocation and a CUDA
// import): dead bitmaps give their words back up to the limit, new ones take them, and a bitmap
// that outlives its pool frees its words itself.
TEST_CASE("bitmap pool: words come back, are reused, and outliving the pool is safe") {
  test::ValidationGuard guard;
  using namespace raydb::detail;
  auto ctx = test::context().shared();
  auto pool = std::make_shared<BitmapPool>(2);
  std::vector<VkBuffer> made;
  {
    std::vector<std::shared_ptr<BitmapImpl>> live;
    for (int i = 0; i < 3; ++i) {
      live.push_back(new_bitmap(ctx, 1000, false, pool));
      made.push_back(live.back()->words.handle());
    }
    CHECK(pool->free.empty());
  }
  REQUIRE(pool->free.size() == 2);  // the third went back to the device
  auto again = new_bitmap(ctx, 1000, false, pool);
  CHECK(std::find(made.begin(), made.end(), again->words.handle()) != made.end());
  CHECK(pool->free.size() == 1);
  pool.reset();  // `again` now frees its own words
  again.reset();
}

TEST_CASE("bitmap reader: reads equal the CPU reference and reuse one staging buffer") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  BitmapReader reader(test::context());
  CHECK(reader.staging_bytes() == 0);
  std::vector<uint32_t> got = {1, 2, 3};  // stale contents must not survive a read
  // Row counts around word and 16-byte edges, the largest first so later reads reuse its staging.
  for (uint64_t rows :
       {4099ull, 0ull, 1ull, 31ull, 32ull, 33ull, 127ull, 128ull, 129ull, 4096ull}) {
    auto cols = random_columns(rng, 2, rows);
    auto table = ColumnTable::upload(test::context(), spans(cols)).value();
    for (int k = 0; k < 3; ++k) {
      std::vector<Predicate> preds;
      if (k == 1) preds = {{0, CompareOp::gt, 0xFFFFFFFFu, 0}};  // empty result
      if (k == 2) preds = {random_predicate(rng, 2), random_predicate(rng, 2)};
      auto want = full_scan_reference(spans(cols), preds);  // k == 0: every row
      auto bitmap = full_scan(table, preds).value();
      REQUIRE(reader.read(bitmap, got).ok());
      test::check_equal_whole(got, want, "bitmap reader words");
      const BitmapReadStats& s = reader.last_read();
      CHECK(s.bytes == want.size() * 4);
      CHECK(s.device_copy_ms >= 0);
      CHECK(s.host_copy_ms >= 0);
      CHECK(s.wall_ms >= s.host_copy_ms);
      uint64_t bits = 0;
      for (uint32_t w : want) bits += static_cast<uint64_t>(__builtin_popcount(w));
      CHECK(bitmap.count().value() == bits);  // counted on the device
      CHECK(bitmap.words().value() == want);
    }
    CHECK(reader.staging_bytes() == (4099 + 31) / 32 * 4);  // grown once, never shrunk
  }
  // Bigger bitmaps grow the staging buffer.
  std::vector<uint32_t> col(100000);
  for (auto& v : col) v = static_cast<uint32_t>(rng());
  std::vector<std::span<const uint32_t>> one = {col};
  auto table = ColumnTable::upload(test::context(), one).value();
  std::vector<Predicate> preds = {{0, CompareOp::lt, 1u << 31, 0}};
  REQUIRE(reader.read(full_scan(table, preds).value(), got).ok());
  test::check_equal_whole(got, full_scan_reference(one, preds), "bitmap reader, grown");
  CHECK(reader.staging_bytes() == (100000 + 31) / 32 * 4);
}
