// Shared by the SQL tests: temporary folders, the SSB queries of share/ssb, paths in the source.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace raydb::sql::test {

namespace fs = std::filesystem;

struct SqlTempDir {
  fs::path path;
  explicit SqlTempDir(const char* tag) {
    static int counter = 0;
    path = fs::temp_directory_path() / fmt::format("raydb_{}_{}_{}", tag, getpid(), counter++);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~SqlTempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

inline std::string source_path(const std::string& rel) {
  return std::string(RAYDB_SOURCE_DIR) + "/" + rel;
}

inline std::string dbgen_dir() {
  if (const char* d = std::getenv("RAYDB_SSB_DBGEN_DIR")) return d;
  return RAYDB_SSB_DBGEN_DIR;
}

// ("Q1.1", text) for each query of share/ssb/queries.sql ("-- Qx.y" heads each).
inline std::vector<std::pair<std::string, std::string>> ssb_queries() {
  std::ifstream in(source_path("share/ssb/queries.sql"));
  std::vector<std::pair<std::string, std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("-- Q", 0) == 0) {
      out.push_back({line.substr(3), ""});
      continue;
    }
    if (out.empty()) continue;
    if (!line.empty() && line.back() == ';') line.pop_back();
    out.back().second += line + "\n";
  }
  return out;
}

}  // namespace raydb::sql::test
