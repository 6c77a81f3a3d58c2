// Column files: raw little-endian uint32, column after column.
#include <fmt/format.h>

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "common/capture.hpp"
#include "common/printable.hpp"
#include "raydb/rtscan_files.hpp"

namespace raydb::rtscan {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_or_throw(const std::string& path, const char* mode) {
  File f(std::fopen(path.c_str(), mode));
  if (!f)
    throw Error(Errc::io,
                fmt::format("cannot open column file '{}': {}", path, std::strerror(errno)));
  return f;
}

// The files are little-endian whatever the host; only a big-endian host pays for the swap.
void to_from_little_endian(std::span<uint32_t> v) {
  if constexpr (std::endian::native == std::endian::big) {
    for (uint32_t& x : v) x = (x >> 24) | ((x >> 8) & 0xFF00u) | ((x << 8) & 0xFF0000u) | (x << 24);
  }
}

constexpr size_t kChunk = size_t{1} << 20;  // values per write, bounding the swap buffer

}  // namespace

Status write_column_file(const std::string& path,
                         std::span<const std::span<const uint32_t>> columns) {
  return detail::capture([&] {
    for (auto c : columns)
      if (c.size() != columns[0].size())
        throw Error(Errc::invalid_argument,
                    fmt::format("column file '{}': columns of {} and {} rows differ in length",
                                path, columns[0].size(), c.size()));
    File f = open_or_throw(path, "wb");
    std::vector<uint32_t> buf;
    for (auto c : columns)
      for (size_t b = 0; b < c.size(); b += kChunk) {
        buf.assign(c.begin() + b, c.begin() + std::min(c.size(), b + kChunk));
        to_from_little_endian(buf);
        if (std::fwrite(buf.data(), 4, buf.size(), f.get()) != buf.size())
          throw Error(Errc::io,
                      fmt::format("cannot write column file '{}': {}", path, std::strerror(errno)));
      }
    if (std::fclose(f.release()) != 0)
      throw Error(Errc::io,
                  fmt::format("cannot write column file '{}': {}", path, std::strerror(errno)));
  });
}

Result<std::vector<std::vector<uint32_t>>> read_column_file(const std::string& path, uint64_t rows,
                                                            uint32_t columns) {
  return detail::capture([&]() -> std::vector<std::vector<uint32_t>> {
    // With no column, an empty file would match any row count, and the rows were once allocated
    // (4 GB for 2^30) before anything was read.
    if (columns == 0)
      throw Error(Errc::invalid_argument,
                  fmt::format("column file '{}': at least one column must be asked for",
                              detail::printable(path)));
    if (rows > ~uint64_t{0} / 4 / columns)
      throw Error(Errc::invalid_argument,
                  fmt::format("column file '{}': {} rows x {} columns overflow a file size", path,
                              rows, columns));
    const uint64_t want = rows * columns * 4;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw Error(Errc::io,
                  fmt::format("column file '{}' is a folder, not a file", detail::printable(path)));
    const uint64_t have = std::filesystem::file_size(path, ec);
    if (ec)
      throw Error(Errc::io, fmt::format("cannot read column file '{}': {}", path, ec.message()));
    if (have != want)
      throw Error(Errc::invalid_argument,
                  fmt::format("column file '{}' has {} bytes, but {} rows x {} columns x 4 bytes "
                              "= {} bytes were expected",
                              path, have, rows, columns, want));
    File f = open_or_throw(path, "rb");
    std::vector<std::vector<uint32_t>> out(columns);
    for (auto& c : out) {
      c.resize(rows);  // only once the file is known to hold them
      if (std::fread(c.data(), 4, c.size(), f.get()) != c.size())
        throw Error(Errc::io,
                    fmt::format("column file '{}' ended early (changed while read?)", path));
      to_from_little_endian(c);
    }
    return out;
  });
}

}  // namespace raydb::rtscan
