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

// A whole message, any length, lines kept: control bytes (but newline and tab), DEL and bytes
// that are not part of well-formed UTF-8 become \xNN; well-formed UTF-8 passes unchanged.
inline std::string printable_message(std::string_view s) {
  static const char* const kHex = "0123456789abcdef";
  auto escape = [&](std::string& out, unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    // The length of a UTF-8 sequence led by c (0: not a lead byte), then its continuation bytes.
    const size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
    bool ok = n != 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      escape(out, c);
      ++i;
    }
  }
  return out;
}

}  // namespace raydb::detail
