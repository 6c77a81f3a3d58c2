// libFuzzer target: the RTScan column-file reader. The first 8 bytes give the rows asked for (any
// 64-bit value: the reader must refuse a size mismatch before allocating), the 9th the columns
// (0..7); the rest is the file. What reads back must be the file's bytes, column after column.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "raydb/rtscan_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  uint64_t rows = 0;
  std::memcpy(&rows, data, 8);
  if (data[0] & 1) rows &= 0xFF;  // half the inputs ask for few rows, so reads succeed too
  const uint32_t columns = data[8] % 8;
  static const std::string path = [] {
    std::atexit([] {
      std::remove(("/tmp/raydb_fuzz_column_" + std::to_string(::getpid()) + ".bin").c_str());
    });
    return "/tmp/raydb_fuzz_column_" + std::to_string(::getpid()) + ".bin";
  }();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  std::fwrite(data + 9, 1, size - 9, f);
  std::fclose(f);
  auto r = raydb::rtscan::read_column_file(path, rows, columns);
  if (r.ok()) {
    if (r->size() != columns) std::abort();
    const uint8_t* p = data + 9;
    for (const auto& c : *r) {
      if (c.size() != rows) std::abort();
      if (!c.empty() && std::memcmp(c.data(), p, c.size() * 4) != 0) std::abort();  // x86: LE
      p += c.size() * 4;
    }
    if (p != data + size) std::abort();
  }
  return 0;
}
