// Text from a user or a file, made safe to put in an error message: control and non-ASCII bytes
// become \xNN escapes, so a binary file or a stray escape sequence never reaches the terminal raw.
// Long text is cut (with "...") so a whole binary line does not flood the message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace raydb::detail {

inline std::string printable(std::string_view s, size_t max_chars = 80) {
  static const char* const kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace raydb::detail
