// libpg_query (PostgreSQL's own grammar) to a JSON tree, and positions as line and column.
#include <fmt/format.h>
#include <pg_query.h>

#include "sql/catalog.hpp"

namespace raydb::sql::detail {

namespace {
// The offset of the first byte that does not belong to well-formed UTF-8 (no overlong forms,
// surrogates or code points past U+10FFFF), or of a NUL byte; npos when there is none.
// libpg_query reads a C string (a NUL would silently end the query) and copies identifiers'
// bytes into its JSON, which the JSON reader then rejects.
size_t first_bad_byte(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b == 0) return i;
    if (b < 0x80) {
      ++i;
      continue;
    }
    size_t len = b >= 0xC2 && b <= 0xDF   ? 2
                 : b >= 0xE0 && b <= 0xEF ? 3
                 : b >= 0xF0 && b <= 0xF4 ? 4
                                          : 0;
    if (len == 0 || i + len > s.size()) return i;
    auto b1 = static_cast<unsigned char>(s[i + 1]);
    unsigned lo = 0x80, hi = 0xBF;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
    if (b1 < lo || b1 > hi) return i;
    for (size_t k = 2; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    i += len;
  }
  return std::string_view::npos;
}
}  // namespace

Parsed parse_sql(std::string_view text, std::string_view source) {
  Parsed p;
  p.text = std::string(text);
  p.source = std::string(source);
  if (size_t bad = first_bad_byte(text); bad != std::string_view::npos)
    throw Error(Errc::invalid_argument,
                fmt::format("{} (byte 0x{:02x}){}",
                            text[bad] == '\0' ? "a NUL byte in the SQL text"
                                              : "the SQL text is not valid UTF-8",
                            static_cast<unsigned char>(text[bad]), where(p, int64_t(bad))));
  PgQueryParseResult r = pg_query_parse(p.text.c_str());
  if (r.error) {
    std::string msg = r.error->message ? r.error->message : "syntax error";
    int pos = r.error->cursorpos > 0 ? r.error->cursorpos - 1 : -1;  // 1-based
    pg_query_free_parse_result(r);
    throw Error(Errc::invalid_argument, msg + where(p, pos));
  }
  // The UTF-8 check above keeps libpg_query's JSON well-formed; should it still not parse, the
  // error is named rather than escaping as a JSON exception.
  p.tree = Json::parse(r.parse_tree, nullptr, false);
  pg_query_free_parse_result(r);
  if (p.tree.is_discarded())
    throw Error(Errc::internal,
                fmt::format("libpg_query returned a parse tree that is not JSON{}", where(p, -1)));
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
