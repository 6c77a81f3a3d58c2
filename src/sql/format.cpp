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
// as a double; SQLite sums decimals as REAL, so 1e-9 relative (and absolute, for sums that cancel).
bool cell_equal(const std::string& got, const std::string& want) {
  if (got == want) return true;
  if (!is_number(got) || !is_number(want)) return false;
  double g = std::stod(got), w = std::stod(want);
  return std::fabs(g - w) <= std::max(1e-9 * std::max(std::fabs(g), std::fabs(w)), 1e-9);
}

bool row_less(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bool na = is_number(a[i]), nb = is_number(b[i]);
    if (na && nb) {
      double x = std::stod(a[i]), y = std::stod(b[i]);
      if (cell_equal(a[i], b[i])) continue;
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
  // The engine's rows in ORDER BY order.
  for (size_t r = 1; r < got.rows.size(); ++r)
    for (size_t i = 0; i < got.order_keys.size(); ++i) {
      auto k = static_cast<size_t>(got.order_keys[i]);
      const std::string &a = got.rows[r - 1][k], &b = got.rows[r][k];
      if (cell_equal(a, b)) continue;
      bool desc = i < got.order_desc.size() && got.order_desc[i];
      bool less = a == "NULL"                    ? true
                  : b == "NULL"                  ? false
                  : is_number(a) && is_number(b) ? std::stod(a) < std::stod(b)
                                                 : a < b;
      if (less == desc)
        return fmt::format("rows {} and {} are out of ORDER BY order on column {}", r, r + 1,
                           k + 1);
      break;
    }
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
