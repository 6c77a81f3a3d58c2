// Counts and reals of the command line: exact integer arithmetic (no stoull, whose "-1" wraps to
// 2^64 - 1, and no pow loop, which spun for 2^32 exponents).
#include "cli/numbers.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "common/printable.hpp"
#include "raydb/error.hpp"

namespace raydb::cli {

namespace {

constexpr const char* kCountForms = "a count such as 1048576, 2^20, 1e6 or 64M";

[[noreturn]] void bad(std::string_view option, std::string_view text, std::string_view why) {
  throw Error(Errc::invalid_argument,
              fmt::format("{} '{}': {}", option, detail::printable(text), why));
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// A decimal integer of digits only; nullopt when it overflows 64 bits.
std::optional<uint64_t> digits_value(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// base^exp (exp <= 64), or nullopt past 2^64 - 1.
std::optional<uint64_t> power(uint64_t base, uint64_t exp) {
  if (base == 0) return exp == 0 ? 1 : 0;  // the loop below divides by the base
  uint64_t r = 1;
  for (uint64_t i = 0; i < exp; ++i) {
    if (r > kNoMax / base) return std::nullopt;
    r *= base;
  }
  return r;
}

uint64_t parse_power(std::string_view option, std::string_view text, size_t caret) {
  std::string_view b = text.substr(0, caret), e = text.substr(caret + 1);
  if (b.empty()) bad(option, text, fmt::format("the base before '^' is missing ({})", kCountForms));
  if (e.empty())
    bad(option, text, fmt::format("the exponent after '^' is missing ({})", kCountForms));
  if (!all_digits(b))
    bad(option, text,
        fmt::format("the base '{}' is not a decimal integer ({})", detail::printable(b),
                    kCountForms));
  if (!all_digits(e))
    bad(option, text,
        fmt::format("the exponent '{}' is not a decimal integer{} ({})", detail::printable(e),
                    e.find('^') != std::string_view::npos ? " (one '^' at most)" : "",
                    kCountForms));
  auto base = digits_value(b), exp = digits_value(e);
  if (!base) bad(option, text, "the base is larger than 2^64 - 1");
  // Past 64 only 0 and 1 have a power that fits, and no option wants 1^4294967296 for 1 (it once
  // took 12 s to multiply out).
  if (!exp || *exp > 64) bad(option, text, "the exponent is larger than 64");
  auto v = power(*base, *exp);
  if (!v) bad(option, text, "the value is larger than 2^64 - 1");
  return *v;
}

// digits[.digits][e[+]digits][K|M|G|T], whose value must be a whole number below 2^64.
uint64_t parse_decimal(std::string_view option, std::string_view text) {
  std::string_view s = text;
  unsigned shift = 0;
  switch (s.empty() ? '\0' : s.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    case 'T':
    case 't':
      shift = 40;
      break;
    default:
      break;
  }
  if (shift) s.remove_suffix(1);
  size_t i = 0;
  std::string mantissa;  // the significant digits, point removed
  int64_t scale = 0;     // value = mantissa * 10^scale
  while (i < s.size() && is_digit(s[i])) mantissa += s[i++];
  bool any = !mantissa.empty();
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) mantissa += s[i++], --scale, any = true;
  }
  if (!any) bad(option, text, fmt::format("not {}", kCountForms));
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && s[i] == '+') ++i;
    if (i < s.size() && s[i] == '-')
      bad(option, text, "a negative exponent does not give a count (write 0.001 as a fraction)");
    size_t b = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    auto e = digits_value(s.substr(b, i - b));
    if (b == i)
      bad(option, text, fmt::format("the exponent after 'e' is missing ({})", kCountForms));
    if (!e || *e > 1000) bad(option, text, "the value is larger than 2^64 - 1");
    scale += static_cast<int64_t>(*e);
  }
  if (i != s.size())
    bad(option, text,
        fmt::format("trailing text '{}' ({})", detail::printable(text.substr(i)), kCountForms));
  // Drop leading zeros, then trailing zeros into the scale, so the digits left are significant.
  size_t lead = mantissa.find_first_not_of('0');
  if (lead == std::string::npos) return 0;
  mantissa.erase(0, lead);
  while (mantissa.size() > 1 && mantissa.back() == '0') mantissa.pop_back(), ++scale;
  // 26 significant digits (under 2^87) shifted by at most 2^40 stay inside 128 bits; no count
  // needs more. Past 38 places after the point (10^38, near 2^127) nothing can be whole.
  if (mantissa.size() > 26) bad(option, text, "more than 26 significant digits");
  if (scale > 0 && mantissa.size() + static_cast<size_t>(scale) > 20)
    bad(option, text, "the value is larger than 2^64 - 1");
  if (scale < -38) bad(option, text, "not a whole number");
  unsigned __int128 v = 0;
  for (char c : mantissa) v = v * 10 + static_cast<unsigned>(c - '0');
  for (int64_t k = 0; k < scale; ++k) v *= 10;
  v <<= shift;  // exact: at most 2^87 * 2^40 here
  if (scale < 0) {
    unsigned __int128 ten = 1;
    for (int64_t k = 0; k < -scale; ++k) ten *= 10;
    if (v % ten != 0) bad(option, text, "not a whole number");
    v /= ten;
  }
  if (v > kNoMax) bad(option, text, "the value is larger than 2^64 - 1");
  return static_cast<uint64_t>(v);
}

std::string limit_name(uint64_t v) {
  return v == kNoMax ? "2^64 - 1" : std::to_string(v);
}

}  // namespace

std::string count_name(uint64_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) return fmt::format("2^{}", __builtin_ctzll(n));
  return std::to_string(n);
}

uint64_t parse_count(std::string_view option, std::string_view text, uint64_t min, uint64_t max) {
  if (text.empty()) bad(option, text, fmt::format("empty; expected {}", kCountForms));
  if (text[0] == '-') bad(option, text, "a count cannot be negative");
  size_t caret = text.find('^');
  uint64_t v = caret == std::string_view::npos ? parse_decimal(option, text)
                                               : parse_power(option, text, caret);
  if (v < min || v > max)
    bad(option, text,
        max == kNoMax ? fmt::format("{} is less than the smallest allowed, {}", count_name(v),
                                    limit_name(min))
                      : fmt::format("{} is outside the allowed range {} to {}", count_name(v),
                                    limit_name(min), limit_name(max)));
  return v;
}

double parse_real(std::string_view option, std::string_view text, double min, double max) {
  if (text.empty()) bad(option, text, "empty; expected a number such as 0.5");
  double v = 0;
  // from_chars takes no leading '+' or spaces, and reads "nan" and "inf", refused below.
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) bad(option, text, "out of the range of a double");
  if (ec != std::errc() || end == text.data())
    bad(option, text, "not a number (such as 0.5 or 1e-3)");
  if (end != text.data() + text.size())
    bad(option, text,
        fmt::format("trailing text '{}' after the number",
                    detail::printable(text.substr(static_cast<size_t>(end - text.data())))));
  if (!std::isfinite(v)) bad(option, text, "not a finite number");
  if (v < min || v > max)
    bad(option, text, fmt::format("{} is outside the allowed range {} to {}", v, min, max));
  return v;
}

double parse_fraction(std::string_view option, std::string_view text) {
  return parse_real(option, text, 0, 1);
}

void check_host_memory(std::string_view option, uint64_t count, uint64_t bytes_each,
                       std::string_view what) {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: let the allocation decide
  const unsigned __int128 want = static_cast<unsigned __int128>(count) * bytes_each;
  const uint64_t have = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  if (want > have)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} {}: {} {} need {:.1f} GiB of host memory ({} bytes each); this "
                            "machine has {:.1f} GiB",
                            option, count_name(count), count_name(count), what,
                            static_cast<double>(want) / (1ull << 30), bytes_each,
                            static_cast<double>(have) / (1ull << 30)));
}

}  // namespace raydb::cli
