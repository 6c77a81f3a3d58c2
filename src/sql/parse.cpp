// libpg_query (PostgreSQL's own grammar) to a JSON tree, and positions as line and column.
#include <fmt/format.h>
#include <pg_query.h>

#include "sql/catalog.hpp"

namespace raydb::sql::detail {

Parsed parse_sql(std::string_view text, std::string_view source) {
  Parsed p;
  p.text = std::string(text);
  p.source = std::string(source);
  PgQueryParseResult r = pg_query_parse(p.text.c_str());
  if (r.error) {
    std::string msg = r.error->message ? r.error->message : "syntax error";
    int pos = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : -1;  // 1-based
    pg_query_free_parse_result(r);
    throw Error(Errc::invalid_argument, msg + where(p, pos));
  }
  p.tree = Json::parse(r.parse_tree);
  pg_query_free_parse_result(r);
  return p;
}

std::string where(const Parsed& p, int64_t location) {
  if (location < 0 || static_cast<size_t>(location) > p.text.size())
    return p.source.empty() || p.source[0] == '<' ? "" : fmt::format(" ({})", p.source);
  int line = 1, col = 1;
  for (int64_t i = 0; i < location; ++i) {
    if (p.text[static_cast<size_t>(i)] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  if (p.source.empty() || p.source[0] == '<')
    return fmt::format(" (line {}, column {})", line, col);
  return fmt::format(" ({}: line {}, column {})", p.source, line, col);
}

void unsupported(const Parsed& p, const std::string& what, int64_t location) {
  throw Error(Errc::invalid_argument,
              fmt::format("{} is not supported{}", what, where(p, location)));
}

int64_t location_of(const Json& node) {
  if (node.is_object()) {
    if (auto it = node.find("location"); it != node.end() && it->is_number()) {
      int64_t v = it->get<int64_t>();
      if (v >= 0) return v;
    }
    for (const auto& [k, v] : node.items()) {
      int64_t l = location_of(v);
      if (l >= 0) return l;
    }
  } else if (node.is_array()) {
    for (const auto& v : node) {
      int64_t l = location_of(v);
      if (l >= 0) return l;
    }
  }
  return -1;
}

std::string node_kind(const Json& node) {
  if (!node.is_object() || node.empty()) return "";
  return node.begin().key();
}

}  // namespace raydb::sql::detail
