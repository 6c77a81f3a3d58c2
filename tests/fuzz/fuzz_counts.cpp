// libFuzzer target: the command line's count and real parsers (src/cli/numbers.hpp). Any input
// must give a value or an Error naming the option; a value must lie in the asked range and, for
// the plain decimal form, equal what the digits say.
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cli/numbers.hpp"
#include "raydb/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    uint64_t v = raydb::cli::parse_count("--keys", text, 3, uint64_t{1} << 40);
    if (v < 3 || v > (uint64_t{1} << 40)) std::abort();
    uint64_t plain = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), plain);
    if (ec == std::errc() && end == text.data() + text.size() && plain != v) std::abort();
  } catch (const raydb::Error& e) {
    if (std::string_view(e.what()).substr(0, 8) != "--keys '") std::abort();
  }
  try {
    double r = raydb::cli::parse_fraction("--hit-rate", text);
    if (!(r >= 0 && r <= 1)) std::abort();
  } catch (const raydb::Error&) {
  }
  return 0;
}
