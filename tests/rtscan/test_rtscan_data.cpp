// The data layer of RTScan: the paper's column generators and query constants, the artifact's
// file formats, and Uniform Encoding (a predicate rewritten over codes selects the same rows).
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>

#include "raydb/rtscan_files.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/scan.hpp"
#include "raydb/uniform_encoding.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::workload;
using raydb::rtscan::EncodedColumn;
using raydb::rtscan::Query;

namespace {

// The process id keeps parallel ctest runs apart even when RAYDB_TEST_SEED fixes the seed.
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("raydb_rtscan_" + std::to_string(::getpid()) + "_" + std::to_string(test::fresh_seed()) +
           "_" + name))
      .string();
}

std::vector<std::span<const uint32_t>> spans(const std::vector<std::vector<uint32_t>>& cols) {
  return {cols.begin(), cols.end()};
}

ScanColumnOptions options(ScanDistribution d, uint64_t rows, uint64_t seed) {
  ScanColumnOptions o;
  o.distribution = d;
  o.rows = rows;
  o.seed = seed;
  return o;
}

void check_error(const Error& e, Errc code, std::initializer_list<std::string> mentions) {
  CHECK(e.code() == code);
  for (const auto& m : mentions)
    CHECK_MESSAGE(std::string(e.what()).find(m) != std::string::npos,
                  "'" << e.what() << "' does not mention '" << m << "'");
}

}  // namespace

TEST_CASE("rtscan data: generators are reproducible and keep their exact properties") {
  const uint64_t seed = test::fresh_seed();
  for (auto d : {ScanDistribution::uniform, ScanDistribution::zipf, ScanDistribution::normal,
                 ScanDistribution::small_range, ScanDistribution::permutation}) {
    CAPTURE(to_string(d));
    CHECK(parse_scan_distribution(to_string(d)).value() == d);
    // Past one 65536-row slice, so the parallel path is the one checked.
    auto a = make_scan_column(options(d, 200000, seed)).value();
    auto b = make_scan_column(options(d, 200000, seed)).value();
    CHECK(a.size() == 200000);
    CHECK(a == b);
    if (d != ScanDistribution::normal && d != ScanDistribution::small_range)
      CHECK(a != make_scan_column(options(d, 200000, seed + 1)).value());
    if (d == ScanDistribution::small_range)
      CHECK(std::all_of(a.begin(), a.end(), [](uint32_t v) { return v < 64; }));
    if (d == ScanDistribution::zipf)
      CHECK(std::all_of(a.begin(), a.end(), [](uint32_t v) { return v >= 1; }));
    if (d == ScanDistribution::permutation) {
      std::sort(a.begin(), a.end());
      std::vector<uint32_t> iota(a.size());
      std::iota(iota.begin(), iota.end(), 0u);
      CHECK(a == iota);
    }
  }
  CHECK(!parse_scan_distribution("gaussian"));
  for (double z : {1.1, 1.3, 1.5, 0.5, 1.0}) {
    auto o = options(ScanDistribution::zipf, 1000, seed);
    o.zipf = z;
    CHECK(make_scan_column(o));
  }
  auto bad = options(ScanDistribution::zipf, 10, seed);
  bad.zipf = 0;
  check_error(make_scan_column(bad).error(), Errc::invalid_argument, {"Zipf"});
  auto bits = options(ScanDistribution::small_range, 10, seed);
  for (uint32_t b : {0u, 33u}) {
    bits.small_range_bits = b;
    CHECK(make_scan_column(bits).error().code() == Errc::invalid_argument);
  }
  auto narrow = options(ScanDistribution::normal, 10, seed);
  narrow.normal_sd = 0;
  CHECK(make_scan_column(narrow).error().code() == Errc::invalid_argument);
  auto table = make_scan_table(options(ScanDistribution::uniform, 1000, seed), 3).value();
  REQUIRE(table.size() == 3);
  CHECK(table[0] != table[1]);
  CHECK(table[1] == make_scan_column(options(ScanDistribution::uniform, 1000, seed + 1)).value());
}

TEST_CASE("rtscan data: lt constants select the counted share of the column") {
  const uint64_t seed = test::fresh_seed();
  // A permutation of 0..n-1 has no duplicates: `lt C` selects exactly round(s * n) rows.
  auto perm = make_scan_column(options(ScanDistribution::permutation, 1000, seed)).value();
  auto sweep = lt_constants_sweep(perm).value();
  REQUIRE(sweep.size() == 11);
  for (size_t i = 0; i < sweep.size(); ++i) {
    CHECK(sweep[i].value == i * 100);
    CHECK(sweep[i].selected == i * 100);
  }
  for (auto d : {ScanDistribution::zipf, ScanDistribution::small_range, ScanDistribution::normal}) {
    auto col = make_scan_column(options(d, 5000, seed)).value();
    for (const auto& c : lt_constants_sweep(col).value()) {
      auto n = static_cast<uint64_t>(
          std::count_if(col.begin(), col.end(), [&](uint32_t v) { return v < c.value; }));
      CHECK(c.selected == n);
      CHECK(c.selected <= static_cast<uint64_t>(std::llround(c.selectivity * 5000)));
    }
  }
  std::vector<uint32_t> top = {0xFFFFFFFFu, 0xFFFFFFFFu, 7};
  auto all = lt_constants(top, std::vector<double>{1.0}).value();
  CHECK(all[0].value == 0xFFFFFFFFu);
  CHECK(all[0].selected == 1);
  CHECK(lt_constants(std::vector<uint32_t>{}, std::vector<double>{0.5}).value()[0].selected == 0);
  CHECK(lt_constants(top, std::vector<double>{1.5}).error().code() == Errc::invalid_argument);
}

TEST_CASE("rtscan data: column files round trip and reject a wrong size") {
  auto table =
      make_scan_table(options(ScanDistribution::uniform, 3000, test::fresh_seed()), 3).value();
  std::string path = temp_path("columns.bin");
  REQUIRE(rtscan::write_column_file(path, spans(table)));
  CHECK(std::filesystem::file_size(path) == 3000 * 3 * 4);
  CHECK(rtscan::read_column_file(path, 3000, 3).value() == table);
  // Little-endian, column after column.
  {
    std::ifstream f(path, std::ios::binary);
    f.seekg(3000 * 4);
    unsigned char b[4];
    f.read(reinterpret_cast<char*>(b), 4);
    CHECK((b[0] | b[1] << 8 | b[2] << 16 | uint32_t{b[3]} << 24) == table[1][0]);
  }
  check_error(rtscan::read_column_file(path, 3000, 4).error(), Errc::invalid_argument,
              {path, "36000", "48000"});
  check_error(rtscan::read_column_file(path, 2999, 3).error(), Errc::invalid_argument, {path});
  std::filesystem::remove(path);
  check_error(rtscan::read_column_file(path, 1, 1).error(), Errc::io, {path});
  std::vector<std::vector<uint32_t>> ragged = {{1, 2}, {3}};
  CHECK(rtscan::write_column_file(path, spans(ragged)).error().code() == Errc::invalid_argument);
  std::vector<std::vector<uint32_t>> none;
  REQUIRE(rtscan::write_column_file(path, spans(none)));
  // An empty file holds no column, and asking for none is refused rather than read as a table.
  check_error(rtscan::read_column_file(path, 0, 0).error(), Errc::invalid_argument, {path});
  std::filesystem::remove(path);
}

TEST_CASE("rtscan data: predicate files round trip") {
  std::mt19937_64 rng(test::fresh_seed());
  const CompareOp ops[] = {CompareOp::lt, CompareOp::le, CompareOp::gt,
                           CompareOp::ge, CompareOp::eq, CompareOp::between};
  std::vector<Query> queries(11);
  for (auto& q : queries)
    for (uint32_t c = 0; c < 3; ++c) {
      Predicate p{c, ops[rng() % 6], static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng())};
      if (p.op != CompareOp::between)
        p.value2 = 0;
      else if (p.value > p.value2)
        std::swap(p.value, p.value2);
      q.push_back(p);
    }
  queries[0][0].value = 0;
  queries[0][1].value = 0xFFFFFFFFu;
  // A between must stay non-empty (value <= value2), or it cannot be written.
  if (queries[0][1].op == CompareOp::between) queries[0][1].value2 = 0xFFFFFFFFu;
  std::string path = temp_path("queries.txt");
  REQUIRE(rtscan::write_query_file(path, queries, 3));
  auto back = rtscan::read_query_file(path, 3).value();
  REQUIRE(back.size() == queries.size());
  for (size_t i = 0; i < back.size(); ++i)
    for (size_t c = 0; c < 3; ++c) {
      CHECK(back[i][c].column == c);
      CHECK(back[i][c].op == queries[i][c].op);
      CHECK(back[i][c].value == queries[i][c].value);
      CHECK(back[i][c].value2 == queries[i][c].value2);
    }
  {
    std::ifstream f(path);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CHECK(text.ends_with("\nexit\n"));
  }
  std::filesystem::remove(path);
  CHECK(rtscan::read_query_file(path, 3).error().code() == Errc::io);
  // Blank lines between queries, CRLF endings and spacing are tolerated.
  auto loose = rtscan::parse_queries("lt 5\r\n  ge\t7 \n\neq 0\nle 4294967295\n", 2, "q").value();
  REQUIRE(loose.size() == 2);
  CHECK(loose[0][1].op == CompareOp::ge);
  CHECK(loose[0][1].value == 7);
  CHECK(loose[1][1].value == 0xFFFFFFFFu);
  CHECK(rtscan::parse_queries("", 3, "q").value().empty());
  CHECK(rtscan::parse_queries("exit\n", 3, "q").value().empty());
  // The artifact's bt orders its bounds.
  auto bt = rtscan::parse_queries("bt 9 4\nexit\n\n", 1, "q").value();
  REQUIRE(bt.size() == 1);
  CHECK((bt[0][0].op == CompareOp::between && bt[0][0].value == 4 && bt[0][0].value2 == 9));
}

TEST_CASE("rtscan data: bad predicate files name the file and line") {
  struct Bad {
    const char* text;
    const char* why;
    const char* line;
    uint32_t columns = 1;
  };
  const Bad bad[] = {
      {"lt 1\nne 5\n", "unknown operator", "f.txt:2"},
      {"LT 1\n", "unknown operator", "f.txt:1"},
      {"lt 1\nge\n", "missing value", "f.txt:2"},
      {"lt 4294967296\n", "larger than 2^32 - 1", "f.txt:1"},
      {"lt 99999999999999999999999\n", "larger than 2^32 - 1", "f.txt:1"},
      {"lt 5 6\n", "trailing", "f.txt:1"},
      {"lt 5 # note\n", "trailing", "f.txt:1"},
      {"lt 12abc\n", "not a decimal", "f.txt:1"},
      {"lt -1\n", "not a decimal", "f.txt:1"},
      {"lt +1\n", "not a decimal", "f.txt:1"},
      {"lt 0x10\n", "not a decimal", "f.txt:1"},
      {"lt 1\nlt 2\nlt 3\n\nlt 4\nlt 5\n", "2 of 3", "f.txt:6", 3},
      {"lt 1\nexit\n", "1 of 2", "f.txt:2", 2},
      {"lt 1\nexit\nlt 2\n", "after the exit", "f.txt:3"},
      {"exit now\n", "trailing", "f.txt:1"},
      {"bt 1\n", "two values", "f.txt:1"},
      {"bt 1 2 3\n", "trailing", "f.txt:1"},
      {"bt 1 4294967296\n", "larger than 2^32 - 1", "f.txt:1"},
      {"lt 1,2,3\n", "value list", "f.txt:1"},
      {"between 1 2\n", "unknown operator", "f.txt:1"},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.text);
    auto r = rtscan::parse_queries(b.text, b.columns, "f.txt");
    REQUIRE(!r);
    check_error(r.error(), Errc::invalid_argument, {b.why, b.line});
  }
  std::vector<Query> between = {{{0, CompareOp::between, 2, 1}}};
  CHECK(rtscan::format_queries(between, 1).error().code() == Errc::invalid_argument);
  std::vector<Query> short_query = {{{0, CompareOp::lt, 1, 0}}};
  CHECK(rtscan::format_queries(short_query, 2).error().code() == Errc::invalid_argument);
  std::vector<Query> swapped = {{{1, CompareOp::lt, 1, 0}, {0, CompareOp::lt, 1, 0}}};
  CHECK(rtscan::format_queries(swapped, 2).error().code() == Errc::invalid_argument);
}

TEST_CASE("rtscan data: Uniform Encoding follows the paper's examples") {
  // Section 4.2: {5, 9, 1, 6} -> {2, 4, 1, 3}.
  std::vector<uint32_t> col = {5, 9, 1, 6};
  auto e = EncodedColumn::encode(col).value();
  CHECK(e.codes() == std::vector<uint32_t>{2, 4, 1, 3});
  // Figure 8's table: 1 -> 1, 3 -> [2, 3], 5 -> [4, 9]; duplicates numbered in row order.
  std::vector<uint32_t> dup = {5, 3, 5, 1, 5, 5, 3, 5, 5};
  auto f = EncodedColumn::encode(dup).value();
  CHECK(f.codes() == std::vector<uint32_t>{4, 2, 5, 1, 6, 7, 3, 8, 9});
  CHECK(f.distinct_values() == std::vector<uint32_t>{1, 3, 5});
  CHECK(f.lo_codes() == std::vector<uint32_t>{1, 2, 4});
  CHECK(f.codes_of(1) == rtscan::CodeRange{1, 1});
  CHECK(f.codes_of(3) == rtscan::CodeRange{2, 3});
  CHECK(f.codes_of(5) == rtscan::CodeRange{4, 9});
  CHECK(!f.codes_of(4));
  // The rewrites of section 4.2: x < v -> x < lo(v), x > v -> x > hi(v), x = v -> [lo, hi].
  auto lt = f.rewrite({0, CompareOp::lt, 5, 0});
  CHECK((lt.op == CompareOp::lt && lt.value == 4));
  auto gt = f.rewrite({0, CompareOp::gt, 3, 0});
  CHECK((gt.op == CompareOp::gt && gt.value == 3));
  auto eq = f.rewrite({0, CompareOp::eq, 5, 0});
  CHECK((eq.op == CompareOp::between && eq.value == 4 && eq.value2 == 9));
  CHECK(EncodedColumn::encode({}).value().rows() == 0);
}

namespace {

// Constants that probe every edge: present values, their neighbours, 0, 2^32 - 1, below the
// minimum and above the maximum.
uint32_t pick_constant(std::mt19937_64& rng, const std::vector<uint32_t>& col) {
  switch (rng() % 6) {
    case 0:
      return 0;
    case 1:
      return 0xFFFFFFFFu;
    case 2:
      return static_cast<uint32_t>(rng());
    default: {
      if (col.empty()) return static_cast<uint32_t>(rng());
      uint32_t v = col[rng() % col.size()];
      int d = static_cast<int>(rng() % 3) - 1;
      return static_cast<uint32_t>(v + d);  // wraps at 0 and 2^32 - 1 on purpose
    }
  }
}

std::vector<uint32_t> random_column(std::mt19937_64& rng, int shape) {
  size_t n = rng() % 3000;
  std::vector<uint32_t> col(n);
  switch (shape) {
    case 0:  // empty
      col.clear();
      break;
    case 1:  // single row
      col.assign(1, static_cast<uint32_t>(rng()));
      break;
    case 2:  // all equal
      std::fill(col.begin(), col.end(), static_cast<uint32_t>(rng()));
      break;
    case 3:  // heavy duplicates, including the extremes of uint32
      for (auto& v : col) {
        uint32_t pool[] = {0, 1, 2, 7, 100, 0xFFFFFFFEu, 0xFFFFFFFFu};
        v = pool[rng() % 7];
      }
      break;
    default: {  // few distinct values spread over uint32
      uint32_t base = static_cast<uint32_t>(rng()), step = static_cast<uint32_t>(rng() % 1000 + 1);
      for (auto& v : col) v = base + step * static_cast<uint32_t>(rng() % 40);
      break;
    }
  }
  return col;
}

}  // namespace

TEST_CASE("rtscan data: predicates rewritten over codes select the rows they select over values") {
  std::mt19937_64 rng(test::fresh_seed());
  const CompareOp ops[] = {CompareOp::lt, CompareOp::le, CompareOp::gt,
                           CompareOp::ge, CompareOp::eq, CompareOp::between};
  for (int round = 0; round < 60; ++round) {
    int shape = round % 6;
    CAPTURE(shape);
    auto col = random_column(rng, shape);
    auto e = EncodedColumn::encode(col).value();
    REQUIRE(e.rows() == col.size());
    // Codes are a permutation of 1..N that keeps value order, ties in row order.
    std::vector<uint32_t> by_code(col.size());
    for (size_t r = 0; r < col.size(); ++r) by_code[e.codes()[r] - 1] = static_cast<uint32_t>(r);
    for (size_t i = 1; i < by_code.size(); ++i) {
      CHECK(col[by_code[i - 1]] <= col[by_code[i]]);
      if (col[by_code[i - 1]] == col[by_code[i]]) CHECK(by_code[i - 1] < by_code[i]);
    }
    std::vector<std::span<const uint32_t>> values = {col}, codes = {e.codes()};
    for (int k = 0; k < 200; ++k) {
      Predicate p{0, ops[rng() % 6], pick_constant(rng, col), pick_constant(rng, col)};
      if (p.op == CompareOp::between && rng() % 2 && p.value > p.value2)
        std::swap(p.value, p.value2);
      Predicate q = e.rewrite(p);
      CAPTURE(to_string(p.op));
      CAPTURE(p.value);
      CAPTURE(p.value2);
      auto want = full_scan_reference(values, std::span<const Predicate>(&p, 1));
      auto got = full_scan_reference(codes, std::span<const Predicate>(&q, 1));
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("rtscan data: conjunctions over encoded columns equal those over values") {
  const uint64_t seed = test::fresh_seed();
  std::mt19937_64 rng(seed);
  for (auto d : {ScanDistribution::zipf, ScanDistribution::small_range, ScanDistribution::normal,
                 ScanDistribution::uniform}) {
    auto table = make_scan_table(options(d, 20000, seed), 3).value();
    auto encoded = rtscan::encode_columns(spans(table)).value();
    std::vector<std::vector<uint32_t>> code_table;
    for (const auto& e : encoded) code_table.push_back(e.codes());
    const CompareOp ops[] = {CompareOp::lt, CompareOp::le, CompareOp::gt,
                             CompareOp::ge, CompareOp::eq, CompareOp::between};
    for (int k = 0; k < 30; ++k) {
      std::vector<Predicate> preds;
      for (uint32_t c = 0; c < 3; ++c)
        preds.push_back(
            {c, ops[rng() % 6], pick_constant(rng, table[c]), pick_constant(rng, table[c])});
      auto rewritten = rtscan::rewrite_predicates(encoded, preds).value();
      CHECK(full_scan_reference(spans(code_table), rewritten) ==
            full_scan_reference(spans(table), preds));
    }
    std::vector<Predicate> off = {{3, CompareOp::lt, 1, 0}};
    CHECK(rtscan::rewrite_predicates(encoded, off).error().code() == Errc::invalid_argument);
  }
}
