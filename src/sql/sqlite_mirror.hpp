// The catalog's tables copied into an in-memory SQLite database: the reference every SQL result
// is compared with. Decimals become REAL, dates 'YYYY-MM-DD' text. Not thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "raydb/sql.hpp"
#include "sql/catalog.hpp"

namespace raydb::sql::detail {

class SqliteMirror {
 public:
  explicit SqliteMirror(const Catalog& cat);
  ~SqliteMirror();
  SqlTable run(std::string_view sql);

 private:
  struct Db;
  std::unique_ptr<Db> db_;
};

}  // namespace raydb::sql::detail
