// The file readers' answers to the inputs issue 20 found them getting wrong: an empty column file
// asked for no columns (4 GB allocated, then OK), a folder as a predicate file (0 queries), CR-only
// line ends, a file given as the SSB data folder ("does not exist"), binary bytes echoed raw, and
// a range wider than the 32-bit key space (lo > hi).
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "raydb/rtscan_files.hpp"
#include "raydb/ssb_data.hpp"
#include "raydb/workload.hpp"

using namespace raydb;

namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() /
           ("raydb_cli_readers_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("cli readers: a column file with no column asked for is refused, not allocated") {
  auto d = fresh_dir("empty_columns");
  write(d / "empty.bin", "");
  auto r = rtscan::read_column_file((d / "empty.bin").string(), uint64_t{1} << 30, 0);
  REQUIRE(!r.ok());
  CHECK(r.error().code() == Errc::invalid_argument);
  CHECK(std::string(r.error().what()).find("at least one column") != std::string::npos);
  auto folder = rtscan::read_column_file(d.string(), 4, 1);
  REQUIRE(!folder.ok());
  CHECK(std::string(folder.error().what()).find("is a folder") != std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli readers: a folder given as a predicate file is an error, not 0 queries") {
  auto d = fresh_dir("query_folder");
  auto r = rtscan::read_query_file(d.string(), 2);
  REQUIRE(!r.ok());
  CHECK(r.error().code() == Errc::io);
  CHECK(std::string(r.error().what()).find("is a folder") != std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli readers: predicate files with CR-only, CRLF and LF line ends read alike") {
  for (const char* eol : {"\n", "\r\n", "\r"}) {
    std::string text =
        std::string("lt 5") + eol + "bt 1 9" + eol + "ge 7" + eol + "eq 3" + eol + "exit" + eol;
    auto q = rtscan::parse_queries(text, 2, "q.txt");
    const std::string why = q.ok() ? std::string() : std::string(q.error().what());
    INFO(why);
    REQUIRE(q.ok());
    REQUIRE(q->size() == 2);
    CHECK((*q)[0][0].op == CompareOp::lt);
    CHECK((*q)[0][1].value2 == 9);
    CHECK((*q)[1][1].value == 3);
  }
  // Line numbers count CR-only lines too.
  auto bad = rtscan::parse_queries("lt 5\rxx 1\r", 1, "q.txt");
  REQUIRE(!bad.ok());
  CHECK(std::string(bad.error().what()).find("q.txt:2:") != std::string::npos);
}

TEST_CASE("cli readers: binary bytes in a bad line are escaped in the message") {
  auto q = rtscan::parse_queries(std::string("lt \x1b[2J\xff\n", 9), 1, "q.txt");
  REQUIRE(!q.ok());
  std::string m = q.error().what();
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK(m.find('\xff') == std::string::npos);
  CHECK(m.find("\\x1b[2J\\xff") != std::string::npos);
}

TEST_CASE("cli readers: a file given as the SSB data folder is named as a file") {
  auto d = fresh_dir("ssb_file");
  write(d / "lineorder.tbl", "1|\n");
  auto r = ssb::load_ssb_tbl((d / "lineorder.tbl").string());
  REQUIRE(!r.ok());
  std::string m = r.error().what();
  CHECK(m.find("is a file") != std::string::npos);
  CHECK(m.find("does not exist") == std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli readers: a range wider than the 32-bit key space saturates, never lo > hi") {
  workload::KeyUniverse u(KeyWidth::bits32, workload::Distribution::uniform, 1000, 7);
  workload::ProbeOptions po;
  po.count = 64;
  po.range_width = uint64_t{1} << 40;
  auto r = workload::make_range_probes(u, po);
  REQUIRE(r.ok());
  for (const auto& range : r->r32) CHECK(range.lo <= range.hi);
}
