// libFuzzer target: the SQL engine's DDL reader (load_ddl) and data loader (load_table_file: .tbl
// and CSV, through zlib, which also reads plain files). The input is <selector byte><DDL>0xFE<data
// file bytes>: the selector's low two bits pick .tbl, .csv, .tbl.gz or .csv.gz as the file's name
// (the bytes are written as they are, so a .gz name gets corrupt or truncated gzip as often as
// plain text). The data is loaded into the DDL's first table. Any input ends loaded or as
// raydb::Error; a loaded table has every column the same length.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "raydb/error.hpp"
#include "sql/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace raydb::sql::detail;
  namespace fs = std::filesystem;
  if (size == 0) return 0;
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("raydb_fuzz_sql_load_" + std::to_string(::getpid()));
    fs::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(
          fs::temp_directory_path() / ("raydb_fuzz_sql_load_" + std::to_string(::getpid())), ec);
    });
    return d;
  }();
  static const char* const kNames[] = {"t.tbl", "t.csv", "t.tbl.gz", "t.csv.gz"};
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t cut = in.find('\xFE');
  std::string_view ddl = in.substr(0, cut);
  std::string_view file = cut == std::string_view::npos ? std::string_view{} : in.substr(cut + 1);
  fs::path path = dir / kNames[data[0] & 3];
  try {
    Catalog cat;
    load_ddl(cat, ddl, "<ddl>");
    if (cat.tables.empty()) return 0;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << file;
    Table& t = cat.tables[0];
    load_table_file(t, path.string(), ',');
    for (const Column& c : t.columns)
      if ((c.type == ColType::text ? c.texts.size() : c.ints.size()) != t.rows) std::abort();
  } catch (const raydb::Error& e) {
    // A named refusal is the expected end of most inputs; Errc::internal is what the SQL code
    // turns an unexpected parse-tree shape into, a bug to fix.
    if (e.code() == raydb::Errc::internal) {
      std::fprintf(stderr, "internal error: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
