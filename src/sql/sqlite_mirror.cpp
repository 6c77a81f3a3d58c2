// SqliteMirror (see sqlite_mirror.hpp): one transaction of prepared inserts per table.
#include "sql/sqlite_mirror.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include "common/sqlite_db.hpp"

namespace raydb::sql::detail {

struct SqliteMirror::Db : raydb::detail::SqliteDb {};

SqliteMirror::SqliteMirror(const Catalog& cat) : db_(std::make_unique<Db>()) {
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
    std::vector<std::string> dates(t.columns.size());
    db_->insert(t.name, fmt::format("insert into \"{}\" values ({})", t.name, marks), t.rows,
                [&](sqlite3_stmt* s, uint64_t r) {
                  for (size_t i = 0; i < t.columns.size(); ++i) {
                    const Column& c = t.columns[i];
                    int k = static_cast<int>(i + 1);
                    switch (c.type) {
                      case ColType::integer:
                        sqlite3_bind_int64(s, k, c.ints[r]);
                        break;
                      case ColType::decimal: {
                        // One division (exact operands below 2^53): the double nearest the
                        // decimal, as SQLite's parse of the same literal gives.
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
                        sqlite3_bind_text(s, k, c.texts[r].data(),
                                          static_cast<int>(c.texts[r].size()), SQLITE_STATIC);
                        break;
                    }
                  }
                });
  }
  db_->exec("commit");
}

SqliteMirror::~SqliteMirror() = default;

SqlTable SqliteMirror::run(std::string_view sql) {
  auto rows = db_->query(std::string(sql), Errc::invalid_argument, /*reals_by_fmt=*/true);
  SqlTable r;
  r.columns = std::move(rows.columns);
  r.rows = std::move(rows.rows);
  return r;
}

}  // namespace raydb::sql::detail
