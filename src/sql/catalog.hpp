// The SQL engine's catalog: tables, typed columns held in memory, keys; DDL parsing; data loading;
// and the libpg_query helpers every SQL stage uses (JSON parse tree, positions as line/column).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/error.hpp"

namespace raydb::sql::detail {

using Json = nlohmann::json;

enum class ColType { integer, decimal, text, date };
const char* type_name(ColType t);

struct Column {
  std::string name;
  ColType type = ColType::integer;
  int scale = 0;                   // decimal digits after the point (decimal only)
  std::vector<int64_t> ints;       // integer, decimal (scaled), date (yyyymmdd)
  std::vector<std::string> texts;  // text
};

struct ForeignKey {
  int column = -1;
  std::string ref_table, ref_column;
};

struct Table {
  std::string name;
  std::vector<Column> columns;
  int primary_key = -1;  // single-column primary key, or -1
  std::vector<ForeignKey> foreign_keys;
  uint64_t rows = 0;
  std::string ddl;  // the CREATE TABLE text
  int find(std::string_view column) const;
};

struct Catalog {
  std::vector<Table> tables;
  int find(std::string_view table) const;
};

// A parsed statement list (libpg_query's JSON) plus the text, for error positions.
struct Parsed {
  std::string text, source;  // source: a file name or "<query>"
  Json tree;
};
// Errc::invalid_argument "syntax error at or near "x" (line L, column C)" on a syntax error.
Parsed parse_sql(std::string_view text, std::string_view source);
// " (line L, column C)" for a byte offset into `text` (libpg_query's locations); with `source`
// when it is a file.
std::string where(const Parsed& p, int64_t location);
// Errc::invalid_argument "<what> is not supported<where>".
[[noreturn]] void unsupported(const Parsed& p, const std::string& what, int64_t location);
// The location of a node (its "location" member, or its first child's), -1 when none.
int64_t location_of(const Json& node);
// The single key of a node object ("SelectStmt", "A_Expr", ...).
std::string node_kind(const Json& node);

// Adds the CREATE TABLE statements of `ddl` to the catalog.
void load_ddl(Catalog& cat, std::string_view ddl, std::string_view source);

// Parses one cell; Errc::invalid_argument names the problem (the caller adds file and line).
int64_t parse_integer(std::string_view s);
int64_t parse_decimal(std::string_view s, int scale);  // exact: more digits than scale refused
int64_t parse_date(std::string_view s);                // YYYY-MM-DD or YYYYMMDD -> yyyymmdd
std::string format_decimal(int64_t v, int scale);
std::string format_date(int64_t yyyymmdd);

// Loads `path` (.tbl or .csv, optionally .gz) into `t`, replacing its rows. Errors name the file,
// line and field.
void load_table_file(Table& t, const std::string& path, char csv_delimiter);

}  // namespace raydb::sql::detail
