// Data files into the catalog's columns: `.tbl` (dbgen: `|` after every field) or CSV with a
// header line, each optionally gzip-compressed (zlib reads plain files too).
#include <fmt/format.h>
#include <zlib.h>

#include <charconv>
#include <cstring>
#include <memory>

#include "sql/catalog.hpp"

namespace raydb::sql::detail {

int64_t parse_integer(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
    throw Error(Errc::invalid_argument, fmt::format("'{}' is not an integer", s));
  return v;
}

int64_t parse_decimal(std::string_view s, int scale) {
  bool neg = !s.empty() && s[0] == '-';
  std::string_view body = neg || (!s.empty() && s[0] == '+') ? s.substr(1) : s;
  size_t dot = body.find('.');
  std::string_view ip = body.substr(0, dot), fp = dot == body.npos ? "" : body.substr(dot + 1);
  bool ok = !(ip.empty() && fp.empty()) && static_cast<int>(fp.size()) <= scale && ip.size() <= 18;
  for (char c : ip) ok = ok && c >= '0' && c <= '9';
  for (char c : fp) ok = ok && c >= '0' && c <= '9';
  if (!ok)
    throw Error(
        Errc::invalid_argument,
        fmt::format("'{}' is not a decimal with at most {} digits after the point", s, scale));
  // Scaled to an integer: 18 integer digits at scale 9 would need 27, so every step is checked.
  int64_t v = 0;
  auto push = [&](int digit) {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, digit, &v))
      throw Error(
          Errc::invalid_argument,
          fmt::format("'{}' is out of range: at scale {} it exceeds a 64-bit integer", s, scale));
  };
  for (char c : ip) push(c - '0');
  for (int i = 0; i < scale; ++i)
    push(static_cast<size_t>(i) < fp.size() ? fp[size_t(i)] - '0' : 0);
  return neg ? -v : v;
}

int64_t parse_date(std::string_view s) {
  auto digits = [&](size_t at, size_t n) {
    int64_t v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (i >= s.size() || s[i] < '0' || s[i] > '9')
        throw Error(Errc::invalid_argument, fmt::format("'{}' is not a date (YYYY-MM-DD)", s));
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  int64_t y, m, d;
  if (s.size() == 10 && s[4] == '-' && s[7] == '-') {
    y = digits(0, 4), m = digits(5, 2), d = digits(8, 2);
  } else if (s.size() == 8) {
    y = digits(0, 4), m = digits(4, 2), d = digits(6, 2);
  } else {
    throw Error(Errc::invalid_argument, fmt::format("'{}' is not a date (YYYY-MM-DD)", s));
  }
  if (m < 1 || m > 12 || d < 1 || d > 31)
    throw Error(Errc::invalid_argument, fmt::format("'{}' is not a valid date", s));
  return y * 10000 + m * 100 + d;
}

std::string format_decimal(int64_t v, int scale) {
  if (scale == 0) return std::to_string(v);
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  uint64_t p = 1;
  for (int i = 0; i < scale; ++i) p *= 10;
  return fmt::format("{}{}.{:0{}}", v < 0 ? "-" : "", u / p, u % p, scale);
}

std::string format_date(int64_t v) {
  return fmt::format("{:04}-{:02}-{:02}", v / 10000, v / 100 % 100, v % 100);
}

namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void load_table_file(Table& t, const std::string& path, char csv_delimiter) {
  std::string base = ends_with(path, ".gz") ? path.substr(0, path.size() - 3) : path;
  bool tbl = ends_with(base, ".tbl");
  if (!tbl && !ends_with(base, ".csv"))
    throw Error(Errc::invalid_argument,
                fmt::format("{}: expected a .tbl or .csv file (optionally .gz)", path));
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) throw Error(Errc::io, fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  gzbuffer(f.get(), 1 << 20);
  char delim = tbl ? '|' : csv_delimiter;
  for (Column& c : t.columns) {
    c.ints.clear();
    c.texts.clear();
  }
  t.rows = 0;
  std::string line;
  std::vector<char> buf(1 << 16);
  uint64_t line_no = 0;
  std::vector<std::string_view> fields;
  bool header = !tbl;
  for (;;) {
    line.clear();
    bool got = false;
    while (gzgets(f.get(), buf.data(), static_cast<int>(buf.size()))) {
      got = true;
      line += buf.data();
      if (!line.empty() && line.back() == '\n') break;
    }
    if (!got) break;
    ++line_no;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (line.empty()) continue;
    fields.clear();
    size_t start = 0;
    for (;;) {
      size_t d = line.find(delim, start);
      if (d == line.npos) {
        if (!tbl || start < line.size())
          fields.emplace_back(line.data() + start, line.size() - start);
        break;
      }
      fields.emplace_back(line.data() + start, d - start);
      start = d + 1;
      if (tbl && start == line.size()) break;  // dbgen's trailing '|'
    }
    if (fields.size() != t.columns.size())
      throw Error(Errc::invalid_argument,
                  fmt::format("{}: line {}: {} fields, table {} has {} columns", path, line_no,
                              fields.size(), t.name, t.columns.size()));
    if (header) {
      for (size_t i = 0; i < fields.size(); ++i)
        if (fields[i] != t.columns[i].name)
          throw Error(Errc::invalid_argument,
                      fmt::format("{}: line 1: header field {} is '{}', expected column {}", path,
                                  i + 1, fields[i], t.columns[i].name));
      header = false;
      continue;
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      Column& c = t.columns[i];
      try {
        switch (c.type) {
          case ColType::integer:
            c.ints.push_back(parse_integer(fields[i]));
            break;
          case ColType::decimal:
            c.ints.push_back(parse_decimal(fields[i], c.scale));
            break;
          case ColType::date:
            c.ints.push_back(parse_date(fields[i]));
            break;
          case ColType::text:
            c.texts.emplace_back(fields[i]);
            break;
        }
      } catch (const Error& e) {
        throw Error(Errc::invalid_argument, fmt::format("{}: line {}, field {} ({}): {}", path,
                                                        line_no, i + 1, c.name, e.what()));
      }
    }
    ++t.rows;
  }
  int err = 0;
  const char* msg = gzerror(f.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END)
    throw Error(Errc::io, fmt::format("{}: line {}: read error: {}", path, line_no + 1, msg));
}

}  // namespace raydb::sql::detail
