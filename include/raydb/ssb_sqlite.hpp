// The SSB queries' reference answers from SQLite, in its own library (raydb_sqlite_reference), so
// the core library does not link SQLite: the tests and the CLI check the engine against it.
#pragma once

#include <memory>
#include <string_view>

#include "raydb/ssb.hpp"

namespace raydb::ssb {

/// SQLite (through its C library) holding the tables in an in-memory database. Not thread-safe.
class SqliteReference {
 public:
  /// Loads the tables (copied) into a new in-memory database.
  static Result<SqliteReference> load(const SsbTables& tables);
  /// Moves; the source is left empty (only destruction or assignment).
  SqliteReference(SqliteReference&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SqliteReference& operator=(SqliteReference&&) noexcept;
  /// Closes the database.
  ~SqliteReference();
  /// Runs SSB query `query` ("1.1" .. "4.3") as the specification's SQL.
  Result<ResultTable> run(std::string_view query);

  struct Db;  ///< the open database (ssb_sqlite.cpp)

 private:
  explicit SqliteReference(std::unique_ptr<Db> db);
  std::unique_ptr<Db> db_;
};

}  // namespace raydb::ssb
