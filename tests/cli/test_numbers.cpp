// The command line's one parser for counts and reals (src/cli/numbers.hpp), including every input
// of issue 20 that it once got wrong: '1^-1' spun forever, '1^4294967296' took seconds, text after
// '^' was ignored, '2^' and 'abc^2' failed with a bare "stoull".
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "cli/numbers.hpp"
#include "common/printable.hpp"
#include "raydb/error.hpp"

using raydb::Errc;
using raydb::Error;
using raydb::cli::kNoMax;
using raydb::cli::parse_count;
using raydb::cli::parse_fraction;
using raydb::cli::parse_real;

namespace {

// The message of the error parse_count throws for `text`, or "" when it parses.
std::string count_error(const std::string& text, uint64_t min = 0, uint64_t max = kNoMax) {
  try {
    (void)parse_count("--keys", text, min, max);
  } catch (const Error& e) {
    CHECK(e.code() == Errc::invalid_argument);
    return e.what();
  }
  return "";
}

std::string real_error(const std::string& text, double min, double max) {
  try {
    (void)parse_real("--hit-rate", text, min, max);
  } catch (const Error& e) {
    CHECK(e.code() == Errc::invalid_argument);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cli counts: the forms a count may take") {
  CHECK(parse_count("--keys", "0") == 0);
  CHECK(parse_count("--keys", "1048576") == 1048576);
  CHECK(parse_count("--keys", "2^20") == 1u << 20);
  CHECK(parse_count("--keys", "2^63") == 1ull << 63);
  CHECK(parse_count("--keys", "3^40") == 12157665459056928801ull);
  CHECK(parse_count("--keys", "0^0") == 1);
  CHECK(parse_count("--keys", "0^5") == 0);
  CHECK(parse_count("--keys", "1e8") == 100000000);
  CHECK(parse_count("--keys", "2.5e6") == 2500000);
  CHECK(parse_count("--keys", "1E3") == 1000);
  CHECK(parse_count("--keys", "1e+3") == 1000);
  CHECK(parse_count("--keys", "64M") == 64ull << 20);
  CHECK(parse_count("--keys", "1.5K") == 1536);
  CHECK(parse_count("--keys", "2G") == 2ull << 30);
  CHECK(parse_count("--keys", "1T") == 1ull << 40);
  CHECK(parse_count("--keys", "18446744073709551615") == kNoMax);
  CHECK(parse_count("--keys", "000123") == 123);
  CHECK(parse_count("--keys", "1.0") == 1);
  CHECK(parse_count("--keys", "0.5K") == 512);
  CHECK(parse_count("--keys", "0.25e1K") == 2560);
  CHECK(parse_count("--keys", "0.00000000000000000000000000000000000000000") == 0);
}

TEST_CASE("cli counts: negatives, trailing text and overflow are named, never wrapped") {
  for (const char* text : {"1^-1",
                           "0^-1",
                           "-1",
                           "-0",
                           "2^10abc",
                           "2^1.5",
                           "2^20^2",
                           "2^",
                           "^2",
                           "abc^2",
                           "",
                           " 5",
                           "5 ",
                           "+5",
                           "1e",
                           "1e-3",
                           "1.5",
                           "0.3K",
                           "1.0000000000000000000000000001",
                           "abc",
                           "1x",
                           "1MB",
                           "18446744073709551616",
                           "2^64",
                           "1e20",
                           "99999999999999999999999",
                           "1^4294967296",
                           "2^99999999999999999999",
                           "1e99999999999",
                           "0x10",
                           "nan",
                           "inf",
                           "1,2",
                           "2^ 3",
                           ".",
                           "e5",
                           "1..2"}) {
    const std::string t = text;
    CAPTURE(t);
    std::string m = count_error(t);
    CHECK_MESSAGE(m.starts_with("--keys '"), m);
  }
  CHECK(count_error("1^-1").find("negative") == std::string::npos);  // the exponent's fault
  CHECK(count_error("1^-1").find("exponent '-1'") != std::string::npos);
  CHECK(count_error("-1").find("negative") != std::string::npos);
  CHECK(count_error("2^10abc").find("'10abc'") != std::string::npos);
  CHECK(count_error("2^20^2").find("one '^' at most") != std::string::npos);
  CHECK(count_error("2^").find("exponent after '^' is missing") != std::string::npos);
  CHECK(count_error("abc^2").find("base 'abc'") != std::string::npos);
  CHECK(count_error("2^64").find("larger than 2^64 - 1") != std::string::npos);
  CHECK(count_error("1^4294967296").find("exponent is larger than 64") != std::string::npos);
  CHECK(parse_count("--keys", "1^64") == 1);
  CHECK(parse_count("--keys", "2^10") == 1024);
  CHECK(count_error("1x").find("trailing text 'x'") != std::string::npos);
}

TEST_CASE("cli counts: huge exponents answer at once") {
  auto t0 = std::chrono::steady_clock::now();
  CHECK(!count_error("1^4294967296").empty());
  CHECK(!count_error("1^18446744073709551615").empty());
  CHECK(!count_error("2^18446744073709551615").empty());
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(100));
}

TEST_CASE("cli counts: the range is checked and named") {
  CHECK(parse_count("--keys", "1", 1, 8) == 1);
  CHECK(parse_count("--keys", "2^3", 1, 8) == 8);
  CHECK(count_error("0", 1, 8).find("outside the allowed range 1 to 8") != std::string::npos);
  CHECK(count_error("9", 1, 8).find("outside the allowed range") != std::string::npos);
  CHECK(count_error("0", 1).find("less than the smallest allowed, 1") != std::string::npos);
}

TEST_CASE("cli reals: finite decimals in range, nothing else") {
  CHECK(parse_fraction("--hit-rate", "0") == 0);
  CHECK(parse_fraction("--hit-rate", "1") == 1);
  CHECK(parse_fraction("--hit-rate", "0.25") == 0.25);
  CHECK(parse_fraction("--hit-rate", "1e-3") == 0.001);
  CHECK(parse_real("--zipf", "1.3", 0, 10) == 1.3);
  for (const char* text : {"7", "-0.1", "1.0001", "nan", "inf", "-inf", "", "0.5x", " 0.5", "+0.5",
                           "0.5 ", "0,5", "1e400", "abc", "."}) {
    const std::string t = text;
    CAPTURE(t);
    std::string m = real_error(t, 0, 1);
    CHECK_MESSAGE(m.starts_with("--hit-rate '"), m);
  }
  CHECK(real_error("7", 0, 1).find("outside the allowed range 0 to 1") != std::string::npos);
}

TEST_CASE("cli errors escape bytes that are not printable") {
  std::string m = count_error(std::string("2^\x01\xff\x1b[31m", 9));
  CHECK(m.find('\x1b') == std::string::npos);
  CHECK(m.find('\xff') == std::string::npos);
  CHECK(m.find("\\x01\\xff\\x1b[31m") != std::string::npos);
  CHECK(raydb::detail::printable(std::string(200, 'a')).size() < 100);
  // Whole messages: lines and well-formed UTF-8 kept, control and stray bytes escaped.
  using raydb::detail::printable_message;
  CHECK(printable_message("a\nb\tc") == "a\nb\tc");
  CHECK(printable_message("\xc3\xa9 \xe2\x89\xa5") == "\xc3\xa9 \xe2\x89\xa5");
  CHECK(printable_message(std::string("x\x1b[2J\xff\xc3\x01\x7f", 9)) ==
        "x\\x1b[2J\\xff\\xc3\\x01\\x7f");
}

TEST_CASE("cli host memory: a count past this machine's memory is refused, naming it") {
  try {
    raydb::cli::check_host_memory("--lookups", 1ull << 40, 8, "lookups");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == Errc::limit_exceeded);
    std::string m = e.what();
    CHECK(m.find("--lookups 2^40") != std::string::npos);
    CHECK(m.find("GiB of host memory") != std::string::npos);
  }
  raydb::cli::check_host_memory("--lookups", 1u << 10, 8, "lookups");  // fits
}
