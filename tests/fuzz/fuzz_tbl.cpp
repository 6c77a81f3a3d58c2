// libFuzzer target: the SSB .tbl loader (ssb::load_ssb_tbl). The input is split at 0xFE bytes into
// up to five files - lineorder, customer, supplier, part, date - written into a folder that is
// then loaded; a missing part leaves its file absent. Any input loads or gives an Error.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "raydb/ssb_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  static const fs::path dir = [] {
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(fs::temp_directory_path() / ("raydb_fuzz_tbl_" + std::to_string(::getpid())),
                     ec);
    });
    return fs::temp_directory_path() / ("raydb_fuzz_tbl_" + std::to_string(::getpid()));
  }();
  static const char* const kFiles[] = {"lineorder.tbl", "customer.tbl", "supplier.tbl", "part.tbl",
                                       "date.tbl"};
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string_view in(reinterpret_cast<const char*>(data), size);
  for (const char* name : kFiles) {
    size_t cut = in.find('\xFE');
    std::ofstream(dir / name, std::ios::binary) << in.substr(0, cut);
    if (cut == std::string_view::npos) break;
    in.remove_prefix(cut + 1);
  }
  auto r = raydb::ssb::load_ssb_tbl(dir.string());
  if (r.ok()) {
    const auto& t = *r;
    if (t.lineorder.orderdate.size() != t.lineorder.revenue.size()) std::abort();
    if (t.customer.key.size() != t.customer.region.size()) std::abort();
    if (t.part.partkey.size() != t.part.brand1.size()) std::abort();
    if (t.date.datekey.size() != t.date.yearmonth.size()) std::abort();
  }
  return 0;
}
