// Predicate files: `<op> <value> [<value2>]` per line, `columns` lines per query, `exit` at the
// end.
#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/capture.hpp"
#include "common/printable.hpp"
#include "raydb/rtscan_files.hpp"

namespace raydb::rtscan {

namespace {

struct FileOp {
  const char* word;
  CompareOp op;
};
// The artifact's words: ours, except that BETWEEN is `bt`.
constexpr FileOp kFileOps[] = {{"lt", CompareOp::lt}, {"le", CompareOp::le},
                               {"gt", CompareOp::gt}, {"ge", CompareOp::ge},
                               {"eq", CompareOp::eq}, {"bt", CompareOp::between}};

const char* file_word(CompareOp op) {
  for (const FileOp& f : kFileOps)
    if (f.op == op) return f.word;
  return "?";
}

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

uint32_t parse_value(std::string_view v, const std::string& name, size_t line) {
  // The artifact reads comma lists as a sweep of one column; a Query has one constant per column.
  if (v.find(',') != std::string_view::npos)
    bad_line(name, line,
             fmt::format("value list '{}' is not supported: one value per predicate",
                         detail::printable(v)));
  uint64_t value = 0;
  // from_chars alone would accept a numeric prefix ("12abc"); the whole word must be digits.
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
  if (v.empty() || v[0] < '0' || v[0] > '9' || end != v.data() + v.size())
    bad_line(name, line, fmt::format("value '{}' is not a decimal uint32", detail::printable(v)));
  if (ec == std::errc::result_out_of_range || value > 0xFFFFFFFFull)
    bad_line(name, line, fmt::format("value {} is larger than 2^32 - 1", detail::printable(v)));
  return static_cast<uint32_t>(value);
}

Predicate parse_line(const std::vector<std::string_view>& words, uint32_t column,
                     const std::string& name, size_t line) {
  Predicate p;
  p.column = column;
  bool known = false;
  for (const FileOp& f : kFileOps)
    if (words[0] == f.word) {
      p.op = f.op;
      known = true;
    }
  if (!known)
    bad_line(name, line,
             fmt::format("unknown operator '{}' (lt, le, gt, ge, eq, bt, exit)",
                         detail::printable(words[0])));
  const size_t values = p.op == CompareOp::between ? 2 : 1;
  if (words.size() < 1 + values)
    bad_line(name, line, values == 2 ? "bt needs two values" : "missing value after the operator");
  if (words.size() > 1 + values)
    bad_line(
        name, line,
        fmt::format("trailing text '{}' after the value", detail::printable(words[1 + values])));
  p.value = parse_value(words[1], name, line);
  if (values == 2) {
    p.value2 = parse_value(words[2], name, line);
    // The artifact runs `bt a b` with a > b as `bt b a`; swapping keeps the rows it selects.
    if (p.value > p.value2) std::swap(p.value, p.value2);
  }
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
        if (p.op == CompareOp::between && p.value > p.value2)
          throw Error(Errc::invalid_argument,
                      fmt::format("query {}: empty between {} {} on column {} would be read back "
                                  "swapped (the artifact's bt orders its bounds)",
                                  q, p.value, p.value2, c));
        out += p.op == CompareOp::between ? fmt::format("bt {} {}\n", p.value, p.value2)
                                          : fmt::format("{} {}\n", file_word(p.op), p.value);
      }
    }
    out += "exit\n";  // the artifact reads queries until this line
    return out;
  });
}

Result<std::vector<Query>> parse_queries(std::string_view text, uint32_t columns,
                                         const std::string& name) {
  return detail::capture([&]() -> std::vector<Query> {
    if (columns == 0) throw Error(Errc::invalid_argument, name + ": a query needs a column");
    std::vector<Query> queries;
    Query current;
    size_t line = 0, last = 0, exit_line = 0;
    for (size_t b = 0; b < text.size();) {
      // A line ends at LF, CRLF (Windows) or a lone CR (classic Mac OS); a lone CR was once read
      // as a space inside one long line.
      size_t e = text.find_first_of("\r\n", b);
      if (e == std::string_view::npos) e = text.size();
      std::string_view l = text.substr(b, e - b);
      b = e + (e + 1 < text.size() && text[e] == '\r' && text[e + 1] == '\n' ? 2 : 1);
      ++line;
      auto words = split_words(l);
      if (words.empty()) continue;
      if (exit_line) bad_line(name, line, fmt::format("text after the exit on line {}", exit_line));
      last = line;
      if (words[0] == "exit") {
        if (words.size() > 1)
          bad_line(name, line,
                   fmt::format("trailing text '{}' after exit", detail::printable(words[1])));
        exit_line = line;
        if (!current.empty()) break;  // reported below as an incomplete query
        continue;
      }
      current.push_back(parse_line(words, static_cast<uint32_t>(current.size()), name, line));
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
  // An ifstream opens a folder and reads it as empty: zero queries, no error.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error(Errc::io, fmt::format("predicate file '{}' is a folder, not a file",
                                       detail::printable(path)));
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error(Errc::io, fmt::format("cannot open predicate file '{}'", path));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) return Error(Errc::io, fmt::format("cannot read predicate file '{}'", path));
  return parse_queries(s.str(), columns, path);
}

}  // namespace raydb::rtscan
