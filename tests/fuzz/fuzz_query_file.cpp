// libFuzzer target: the RTScan predicate-file parser. The first byte picks the column count
// (1..8); the rest is the file's text. Any input gives queries of that many predicates, in column
// order, with bt bounds ordered - or an Error.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "raydb/rtscan_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint32_t columns = 1 + data[0] % 8;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  auto r = raydb::rtscan::parse_queries(text, columns, "fuzz.txt");
  if (!r.ok()) return 0;
  for (const auto& q : *r) {
    if (q.size() != columns) std::abort();
    for (uint32_t c = 0; c < columns; ++c) {
      if (q[c].column != c) std::abort();
      if (q[c].op == raydb::CompareOp::between && q[c].value > q[c].value2) std::abort();
    }
  }
  // What parses must format and parse back to itself.
  auto text2 = raydb::rtscan::format_queries(*r, columns);
  if (!text2.ok()) std::abort();
  auto back = raydb::rtscan::parse_queries(*text2, columns, "fuzz2.txt");
  if (!back.ok() || *back != *r) std::abort();
  return 0;
}
