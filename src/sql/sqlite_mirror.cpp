// SqliteMirror (see sqlite_mirror.hpp): one transaction of prepared inserts per table.
#include "sql/sqlite_mirror.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

namespace raydb::sql::detail {

struct SqliteMirror::Db {
  sqlite3* db = nullptr;
  ~Db() {
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
};

SqliteMirror::SqliteMirror(const Catalog& cat) : db_(std::make_unique<Db>()) {
  if (sqlite3_open(":memory:", &db_->db) != SQLITE_OK)
    throw Error(Errc::internal, "SQLite: cannot open an in-memory database");
  db_->exec("begin");
  for (const Table& t : cat.tables) {
    std::string cols, marks;
    for (const Column& c : t.columns) {
      cols += fmt::format("{}\"{}\" {}", cols.empty() ? "" : ", ", c.name,
                          c.type == ColType::integer   ? "integer"
                          : c.type == ColType::decimal ? "real"
                                                       : "text");
      marks += marks.empty() ? "?" : ", ?";
    }
    db_->exec(fmt::format("create table \"{}\" ({})", t.name, cols));
    sqlite3_stmt* s = nullptr;
    std::string ins = fmt::format("insert into \"{}\" values ({})", t.name, marks);
    if (sqlite3_prepare_v2(db_->db, ins.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw Error(Errc::internal, fmt::format("SQLite: {}", sqlite3_errmsg(db_->db)));
    std::vector<std::string> dates(t.columns.size());
    for (uint64_t r = 0; r < t.rows; ++r) {
      for (size_t i = 0; i < t.columns.size(); ++i) {
        const Column& c = t.columns[i];
        int k = static_cast<int>(i + 1);
        switch (c.type) {
          case ColType::integer:
            sqlite3_bind_int64(s, k, c.ints[r]);
            break;
          case ColType::decimal: {
            // One division (exact operands below 2^53): the double nearest the decimal, as
            // SQLite's parse of the same literal gives.
            double p = 1;
            for (int j = 0; j < c.scale; ++j) p *= 10;
            sqlite3_bind_double(s, k, double(c.ints[r]) / p);
            break;
          }
          case ColType::date:
            dates[i] = format_date(c.ints[r]);
            sqlite3_bind_text(s, k, dates[i].data(), static_cast<int>(dates[i].size()),
                              SQLITE_STATIC);
            break;
          case ColType::text:
            sqlite3_bind_text(s, k, c.texts[r].data(), static_cast<int>(c.texts[r].size()),
                              SQLITE_STATIC);
            break;
        }
      }
      if (sqlite3_step(s) != SQLITE_DONE) {
        std::string m = sqlite3_errmsg(db_->db);
        sqlite3_finalize(s);
        throw Error(Errc::internal, fmt::format("SQLite insert into {}: {}", t.name, m));
      }
      sqlite3_reset(s);
    }
    sqlite3_finalize(s);
  }
  db_->exec("commit");
}

SqliteMirror::~SqliteMirror() = default;

SqlTable SqliteMirror::run(std::string_view sql) {
  sqlite3_stmt* s = nullptr;
  std::string text(sql);
  if (sqlite3_prepare_v2(db_->db, text.c_str(), -1, &s, nullptr) != SQLITE_OK)
    throw Error(Errc::invalid_argument, fmt::format("SQLite: {}", sqlite3_errmsg(db_->db)));
  SqlTable r;
  int n = sqlite3_column_count(s);
  for (int c = 0; c < n; ++c) r.columns.emplace_back(sqlite3_column_name(s, c));
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < n; ++c) {
      int type = sqlite3_column_type(s, c);
      if (type == SQLITE_NULL) {
        row.emplace_back("NULL");
      } else if (type == SQLITE_FLOAT) {
        row.push_back(fmt::format("{}", sqlite3_column_double(s, c)));
      } else {
        const auto* v = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
        row.emplace_back(v, static_cast<size_t>(sqlite3_column_bytes(s, c)));
      }
    }
    r.rows.push_back(std::move(row));
  }
  std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_->db);
  sqlite3_finalize(s);
  if (!err.empty()) throw Error(Errc::internal, fmt::format("SQLite: {} in: {}", err, text));
  return r;
}

}  // namespace raydb::sql::detail
