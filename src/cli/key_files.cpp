#include "cli/key_files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/printable.hpp"
#include "raydb/error.hpp"

namespace raydb::cli {

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(Errc::invalid_argument, fmt::format("{}: {}", detail::printable(path), what));
}

std::string slurp(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(Errc::io, path + ": is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::io, fmt::format("{}: cannot open ({})", path, std::strerror(errno)));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool ends_with(const std::string& s, const char* tail) {
  size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

KeyFile read_binary(const std::string& path, const std::string& bytes, int width) {
  if (bytes.size() % width)
    bad(path, fmt::format("{} bytes is not a whole number of {}-byte keys (u{})", bytes.size(),
                          width, width * 8));
  KeyFile f;
  f.wide = width == 8;
  f.values.resize(bytes.size() / width);
  for (size_t i = 0; i < f.values.size(); ++i) {
    uint64_t v = 0;
    for (int b = width - 1; b >= 0; --b)  // little-endian whatever the host
      v = v << 8 | static_cast<unsigned char>(bytes[i * width + b]);
    f.values[i] = v;
  }
  return f;
}

KeyFile read_text(const std::string& path, const std::string& text) {
  KeyFile f;
  size_t line = 0, at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string s = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (s.empty()) bad(path, fmt::format("line {} is empty; expected one key a line", line));
    // One field: a decimal unsigned integer, nothing else (a second CSV column is a mistake
    // here, not something to drop silently).
    bool digits = s.find_first_not_of("0123456789") == std::string::npos && s.size() <= 20;
    uint64_t v = 0;
    bool overflow = false;
    if (digits)
      for (char c : s) {
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) overflow = true;
        v = v * 10 + d;
      }
    if (!digits || overflow)
      bad(path, fmt::format("line {}: '{}' is not an unsigned 64-bit decimal integer", line,
                            detail::printable(s.substr(0, 40))));
    f.wide |= v > UINT32_MAX;
    f.values.push_back(v);
  }
  return f;
}

// The value of `field` in a .npy header dict ("{'descr': '<u4', 'fortran_order': False,
// 'shape': (3,), }"): the text up to the next top-level comma or brace.
std::string npy_field(const std::string& path, const std::string& header, const char* field) {
  std::string key = fmt::format("'{}':", field);
  size_t at = header.find(key);
  if (at == std::string::npos) bad(path, fmt::format(".npy header has no '{}' field", field));
  at += key.size();
  while (at < header.size() && header[at] == ' ') ++at;
  size_t end = at;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth == 0 && (c == ',' || c == '}')) break;
  }
  return header.substr(at, end - at);
}

KeyFile read_npy(const std::string& path, const std::string& bytes) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.compare(0, 6, magic, 6) != 0)
    bad(path, "not a .npy file (no \\x93NUMPY magic at its start)");
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) bad(path, ".npy header is truncated");
    for (int b = 3; b >= 0; --b)
      header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + b]);
    header_at = 12;
  } else {
    bad(path, fmt::format(".npy format version {} is not 1, 2 or 3", major));
  }
  if (header_at + header_len > bytes.size())
    bad(path, fmt::format(".npy header says {} bytes; the file ends first", header_len));
  std::string header = bytes.substr(header_at, header_len);
  std::string descr = npy_field(path, header, "descr");
  int width = 0;
  bool is_signed = false;
  if (descr == "'<u4'" || descr == "'|u4'") {
    width = 4;
  } else if (descr == "'<u8'" || descr == "'|u8'") {
    width = 8;
  } else if (descr == "'<i4'" || descr == "'|i4'") {
    width = 4, is_signed = true;
  } else if (descr == "'<i8'" || descr == "'|i8'") {
    width = 8, is_signed = true;
  } else {
    bad(path, fmt::format(".npy header field 'descr' is {}; expected '<u4', '<u8', '<i4' or '<i8' "
                          "(little-endian 32- or 64-bit integers)",
                          detail::printable(descr)));
  }
  std::string shape = npy_field(path, header, "shape");
  // (n,) or (n, 1): one column of keys.
  uint64_t n = 0;
  {
    std::string s;
    for (char c : shape)
      if (c != ' ') s += c;
    size_t close = s.find(')');
    if (s.size() < 3 || s[0] != '(' || close == std::string::npos)
      bad(path, fmt::format(".npy header field 'shape' is {}; expected (n,) or (n, 1)",
                            detail::printable(shape)));
    std::string inner = s.substr(1, close - 1);
    size_t comma = inner.find(',');
    std::string first = inner.substr(0, comma);
    std::string rest = comma == std::string::npos ? "" : inner.substr(comma + 1);
    if (first.empty() || first.find_first_not_of("0123456789") != std::string::npos ||
        first.size() > 18 || !(rest.empty() || rest == "1" || rest == "1,"))
      bad(path, fmt::format(".npy header field 'shape' is {}; expected (n,) or (n, 1)",
                            detail::printable(shape)));
    n = std::stoull(first);
  }
  size_t data_at = header_at + header_len;
  if (bytes.size() - data_at != n * width)
    bad(path, fmt::format(".npy header field 'shape' says {} values of {} bytes ({} bytes); the "
                          "file holds {} bytes of data",
                          n, width, n * width, bytes.size() - data_at));
  KeyFile f = read_binary(path, bytes.substr(data_at), width);
  if (is_signed)
    for (size_t i = 0; i < f.values.size(); ++i) {
      int64_t v = width == 8 ? static_cast<int64_t>(f.values[i])
                             : static_cast<int32_t>(static_cast<uint32_t>(f.values[i]));
      if (v < 0)
        bad(path, fmt::format("element {} is {}; keys are unsigned (descr {})", i, v, descr));
    }
  return f;
}

}  // namespace

KeyFileType parse_key_file_type(const std::string& option, const std::string& s) {
  if (s == "auto") return KeyFileType::automatic;
  if (s == "u32") return KeyFileType::u32;
  if (s == "u64") return KeyFileType::u64;
  if (s == "text" || s == "csv") return KeyFileType::text;
  if (s == "npy") return KeyFileType::npy;
  throw Error(Errc::invalid_argument,
              fmt::format("{} '{}': expected auto, u32, u64, text, csv or npy", option,
                          detail::printable(s)));
}

KeyFile read_key_file(const std::string& path, KeyFileType type) {
  if (type == KeyFileType::automatic) {
    if (ends_with(path, ".npy"))
      type = KeyFileType::npy;
    else if (ends_with(path, ".csv") || ends_with(path, ".txt"))
      type = KeyFileType::text;
    else if (ends_with(path, ".u32"))
      type = KeyFileType::u32;
    else if (ends_with(path, ".u64"))
      type = KeyFileType::u64;
    else
      bad(path,
          "cannot tell the file's type from its name (.npy, .csv, .txt, .u32, .u64); give "
          "--keys-type or --queries-type (u32, u64, text, npy)");
  }
  std::string bytes = slurp(path);
  switch (type) {
    case KeyFileType::u32:
      return read_binary(path, bytes, 4);
    case KeyFileType::u64:
      return read_binary(path, bytes, 8);
    case KeyFileType::npy:
      return read_npy(path, bytes);
    default:
      return read_text(path, bytes);
  }
}

}  // namespace raydb::cli
