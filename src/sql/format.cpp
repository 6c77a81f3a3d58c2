// SqlTable output formats and the comparison with SQLite's answer.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "raydb/sql.hpp"

namespace raydb::sql {

std::string SqlTable::format_table() const {
  std::vector<size_t> w(columns.size());
  for (size_t i = 0; i < columns.size(); ++i) w[i] = columns[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string s;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i)
      s += fmt::format("{}{:<{}}", i ? " | " : "", cells[i], w[i]);
    s += "\n";
  };
  line(columns);
  for (size_t i = 0; i < w.size(); ++i) {
    if (i) s += "-+-";
    s.append(w[i], '-');
  }
  s += "\n";
  for (const auto& r : rows) line(r);
  s += fmt::format("({} row{})\n", rows.size(), rows.size() == 1 ? "" : "s");
  return s;
}

namespace {
bool is_number(const std::string& s) {
  double d;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}
std::string csv_cell(const std::string& c) {
  if (c.find_first_of(",\"\n") == std::string::npos) return c;
  std::string q(1, '"');
  for (char ch : c) {
    if (ch == '"') q += '"';
    q += ch;
  }
  q += '"';
  return q;
}
std::string json_string(const std::string& c) {
  std::string q(1, '"');
  for (char ch : c) {
    if (ch == '"' || ch == '\\') q += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      q += fmt::format("\\u{:04x}", int(ch));
      continue;
    }
    q += ch;
  }
  q += '"';
  return q;
}
}  // namespace

std::string SqlTable::format_csv() const {
  std::string s;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) s += ',';
    s += csv_cell(columns[i]);
  }
  s += "\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (i) s += ',';
      s += csv_cell(r[i]);
    }
    s += "\n";
  }
  return s;
}

std::string SqlTable::format_json() const {
  std::string s = "[";
  for (size_t k = 0; k < rows.size(); ++k) {
    s += k ? ",\n {" : "{";
    for (size_t i = 0; i < rows[k].size(); ++i) {
      const std::string& c = rows[k][i];
      std::string v = c == "NULL" ? "null" : is_number(c) ? c : json_string(c);
      s += fmt::format("{}{}: {}", i ? ", " : "", json_string(columns[i]), v);
    }
    s += "}";
  }
  s += "]\n";
  return s;
}

namespace {

// Cells equal as text, or as numbers: the engine prints decimals exactly at their scale and AVG
// as a double; SQLite sums REALs, so allow 1e-9 relative (and half a unit of the printed digits).
bool cell_equal(const std::string& got, const std::string& want) {
  if (got == want) return true;
  if (!is_number(got) || !is_number(want)) return false;
  double g = std::stod(got), w = std::stod(want);
  size_t dot = got.find('.');
  double unit = dot == std::string::npos ? 0 : std::pow(10.0, -double(got.size() - dot - 1)) / 2;
  return std::fabs(g - w) <= std::max(1e-9 * std::max(std::fabs(g), std::fabs(w)), unit);
}

bool row_less(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bool na = is_number(a[i]), nb = is_number(b[i]);
    if (na && nb) {
      double x = std::stod(a[i]), y = std::stod(b[i]);
      if (cell_equal(a[i], b[i]) || cell_equal(b[i], a[i])) continue;
      return x < y;
    }
    if (a[i] != b[i]) return a[i] < b[i];
  }
  return false;
}

}  // namespace

std::string compare_with_sqlite(const SqlTable& got, const SqlTable& want) {
  if (got.columns.size() != want.columns.size())
    return fmt::format("{} columns, SQLite {}", got.columns.size(), want.columns.size());
  if (got.rows.size() != want.rows.size())
    return fmt::format("{} rows, SQLite {}", got.rows.size(), want.rows.size());
  // The ORDER BY keys in the same sequence.
  for (size_t r = 0; r < got.rows.size(); ++r)
    for (int k : got.order_keys)
      if (!cell_equal(got.rows[r][size_t(k)], want.rows[r][size_t(k)]))
        return fmt::format("row {}: order key column {} is {}, SQLite {}", r + 1, k + 1,
                           got.rows[r][size_t(k)], want.rows[r][size_t(k)]);
  auto a = got.rows, b = want.rows;
  std::sort(a.begin(), a.end(), row_less);
  std::sort(b.begin(), b.end(), row_less);
  for (size_t r = 0; r < a.size(); ++r)
    for (size_t c = 0; c < a[r].size(); ++c)
      if (!cell_equal(a[r][c], b[r][c]))
        return fmt::format("sorted row {} column {}: {} vs SQLite {}", r + 1, c + 1, a[r][c],
                           b[r][c]);
  return "";
}

}  // namespace raydb::sql
