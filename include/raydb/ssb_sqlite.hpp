// The SSB queries' reference answers from SQLite, in its own library (raydb_sqlite_reference), so
// the core library does not link SQLite: the tests and the CLI check the engine against it.
#pragma once

#include <memory>
#include <string_view>

#include "raydb/ssb.hpp"

namespace raydb::ssb {

// SQLite (through its C library) holding the tables in an in-memory database. Not thread-safe.
class SqliteReference {
 public:
  static Result<SqliteReference> load(const SsbTables& tables);
  SqliteReference(SqliteReference&&) noexcept;
  SqliteReference& operator=(SqliteReference&&) noexcept;
  ~SqliteReference();
  Result<ResultTable> run(std::string_view query);

  struct Db;  // the open database (ssb_sqlite.cpp)

 private:
  explicit SqliteReference(std::unique_ptr<Db> db);
  std::unique_ptr<Db> db_;
};

}  // namespace raydb::ssb
