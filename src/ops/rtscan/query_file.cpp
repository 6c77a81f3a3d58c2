// Predicate files: `<op> <value>` per line, `columns` lines per query.
#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "common/capture.hpp"
#include "raydb/rtscan_files.hpp"

namespace raydb::rtscan {

namespace {

// The artifact's operators only: `between` is two predicates there, never one line.
constexpr CompareOp kFileOps[] = {CompareOp::lt, CompareOp::le, CompareOp::gt, CompareOp::ge,
                                  CompareOp::eq};

bool is_space(char c) {
  return c == ' ' || c == '\t';
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t b = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > b) words.push_back(line.substr(b, i - b));
  }
  return words;
}

[[noreturn]] void bad_line(const std::string& name, size_t line, const std::string& why) {
  throw Error(Errc::invalid_argument, fmt::format("{}:{}: {}", name, line, why));
}

Predicate parse_line(std::string_view text, uint32_t column, const std::string& name, size_t line) {
  auto words = split_words(text);
  Predicate p;
  p.column = column;
  bool known = false;
  for (CompareOp op : kFileOps)
    if (!words.empty() && words[0] == to_string(op)) {
      p.op = op;
      known = true;
    }
  if (!known)
    bad_line(name, line,
             fmt::format("unknown operator '{}' (lt, le, gt, ge, eq)", std::string(words[0])));
  if (words.size() < 2) bad_line(name, line, "missing value after the operator");
  if (words.size() > 2)
    bad_line(name, line, fmt::format("trailing text '{}' after the value", std::string(words[2])));
  std::string_view v = words[1];
  uint64_t value = 0;
  // from_chars alone would accept a numeric prefix ("12abc"); the whole word must be digits.
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || v[0] < '0' || v[0] > '9' || end != v.data() + v.size())
    bad_line(name, line, fmt::format("value '{}' is not a decimal uint32", std::string(v)));
  if (ec == std::errc::result_out_of_range || value > 0xFFFFFFFFull)
    bad_line(name, line, fmt::format("value {} is larger than 2^32 - 1", std::string(v)));
  p.value = static_cast<uint32_t>(value);
  return p;
}

}  // namespace

Result<std::string> format_queries(std::span<const Query> queries, uint32_t columns) {
  return detail::capture([&]() -> std::string {
    std::string out;
    for (size_t q = 0; q < queries.size(); ++q) {
      if (queries[q].size() != columns)
        throw Error(Errc::invalid_argument,
                    fmt::format("query {} has {} predicates; the file needs one per column ({})", q,
                                queries[q].size(), columns));
      for (uint32_t c = 0; c < columns; ++c) {
        const Predicate& p = queries[q][c];
        if (p.column != c)
          throw Error(Errc::invalid_argument,
                      fmt::format("query {}: predicate {} is on column {}; the file orders them "
                                  "by column",
                                  q, c, p.column));
        if (p.op == CompareOp::between)
          throw Error(Errc::invalid_argument,
                      fmt::format("query {}: between on column {} has no form in a predicate "
                                  "file (one lt, le, gt, ge or eq per column)",
                                  q, c));
        out += fmt::format("{} {}\n", to_string(p.op), p.value);
      }
    }
    return out;
  });
}

Result<std::vector<Query>> parse_queries(std::string_view text, uint32_t columns,
                                         const std::string& name) {
  return detail::capture([&]() -> std::vector<Query> {
    if (columns == 0) throw Error(Errc::invalid_argument, name + ": a query needs a column");
    std::vector<Query> queries;
    Query current;
    size_t line = 0, last = 0;
    for (size_t b = 0; b < text.size();) {
      size_t e = text.find('\n', b);
      if (e == std::string_view::npos) e = text.size();
      std::string_view l = text.substr(b, e - b);
      b = e + 1;
      ++line;
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);  // files written on Windows
      if (split_words(l).empty()) continue;
      last = line;
      current.push_back(parse_line(l, static_cast<uint32_t>(current.size()), name, line));
      if (current.size() == columns) queries.push_back(std::move(current)), current.clear();
    }
    if (!current.empty())
      bad_line(name, last,
               fmt::format("the last query has {} of {} predicates (one line per column)",
                           current.size(), columns));
    return queries;
  });
}

Status write_query_file(const std::string& path, std::span<const Query> queries, uint32_t columns) {
  auto text = format_queries(queries, columns);
  if (!text) return text.error();
  std::ofstream f(path, std::ios::binary);
  f << *text;
  f.close();
  if (!f) return Error(Errc::io, fmt::format("cannot write predicate file '{}'", path));
  return {};
}

Result<std::vector<Query>> read_query_file(const std::string& path, uint32_t columns) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error(Errc::io, fmt::format("cannot open predicate file '{}'", path));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) return Error(Errc::io, fmt::format("cannot read predicate file '{}'", path));
  return parse_queries(s.str(), columns, path);
}

}  // namespace raydb::rtscan
