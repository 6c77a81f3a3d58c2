// An in-memory SQLite database, as both SQLite references use it (the SSB queries' in
// src/workload/ssb/ssb_sqlite.cpp, the SQL engine's mirror in src/sql/sqlite_mirror.cpp): opened
// empty, filled through prepared inserts in one transaction, queried with every value read back
// as text. Only targets that link SQLite include it. Not thread-safe.
#pragma once

#include <fmt/format.h>
#include <sqlite3.h>

#include <string>
#include <string_view>
#include <vector>

#include "raydb/error.hpp"

namespace raydb::detail {

struct SqliteDb {
  sqlite3* db = nullptr;

  SqliteDb() {
    if (sqlite3_open(":memory:", &db) != SQLITE_OK)
      throw Error(Errc::internal, "SQLite: cannot open an in-memory database");
  }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb() {
    if (db) sqlite3_close(db);
  }

  void exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "unknown";
      sqlite3_free(msg);
      throw Error(Errc::internal, fmt::format("SQLite: {} in: {}", m, sql));
    }
  }

  // `code` is the error's when SQLite refuses the statement: internal for raydb's own SQL,
  // invalid_argument for a caller's.
  sqlite3_stmt* prepare(const std::string& sql, Errc code = Errc::internal) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw Error(code, fmt::format("SQLite: {} in: {}", sqlite3_errmsg(db), sql));
    return s;
  }

  // Inserts `rows` rows into `table` through `sql`; `bind(stmt, i)` binds row i's values.
  template <class Bind>
  void insert(std::string_view table, const std::string& sql, size_t rows, Bind bind) {
    sqlite3_stmt* s = prepare(sql);
    for (size_t i = 0; i < rows; ++i) {
      bind(s, i);
      if (sqlite3_step(s) != SQLITE_DONE) {
        std::string m = sqlite3_errmsg(db);
        sqlite3_finalize(s);
        throw Error(Errc::internal, fmt::format("SQLite insert into {}: {}", table, m));
      }
      sqlite3_reset(s);
    }
    sqlite3_finalize(s);
  }

  // A query's column names and rows, each value as text; NULL is "NULL".
  struct Rows {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
  };
  // Runs `sql` (refused: an error of `code`). REAL values are written by fmt when `reals_by_fmt`
  // (the shortest text that reads back the same double), else as SQLite's own text.
  Rows query(const std::string& sql, Errc code, bool reals_by_fmt) {
    sqlite3_stmt* s = prepare(sql, code);
    Rows r;
    int n = sqlite3_column_count(s);
    for (int c = 0; c < n; ++c) r.columns.emplace_back(sqlite3_column_name(s, c));
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < n; ++c) {
        int type = sqlite3_column_type(s, c);
        if (type == SQLITE_NULL) {
          row.emplace_back("NULL");
        } else if (type == SQLITE_FLOAT && reals_by_fmt) {
          row.push_back(fmt::format("{}", sqlite3_column_double(s, c)));
        } else {
          const auto* v = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
          row.emplace_back(v, static_cast<size_t>(sqlite3_column_bytes(s, c)));
        }
      }
      r.rows.push_back(std::move(row));
    }
    std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(s);
    if (!err.empty()) throw Error(Errc::internal, fmt::format("SQLite: {} in: {}", err, sql));
    return r;
  }
};

}  // namespace raydb::detail
