// SsbTblDir (see ssb_tbl.hpp).
#include "cli/ssb_tbl.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "raydb/error.hpp"

#ifdef RAYDB_HAS_ZLIB
#include <zlib.h>
#endif

namespace raydb::cli {

namespace fs = std::filesystem;

namespace {

std::string make_temp() {
  fs::path p = fs::temp_directory_path() /
               fmt::format("raydb-ssb-{}-{}", static_cast<long>(::getpid()),
                           std::chrono::steady_clock::now().time_since_epoch().count());
  fs::create_directories(p);
  return p.string();
}

void gunzip(const fs::path& from, const fs::path& to) {
#ifdef RAYDB_HAS_ZLIB
  gzFile in = gzopen(from.c_str(), "rb");
  if (!in) throw Error(Errc::io, fmt::format("{}: cannot open", from.string()));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(to.c_str(), "wb"), std::fclose);
  if (!out) {
    gzclose(in);
    throw Error(Errc::io, fmt::format("{}: cannot write", to.string()));
  }
  std::vector<char> buf(1 << 20);
  for (;;) {
    int n = gzread(in, buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(in, &code);
      gzclose(in);
      throw Error(Errc::io, fmt::format("{}: {}", from.string(), why));
    }
    if (n == 0) break;
    if (std::fwrite(buf.data(), 1, size_t(n), out.get()) != size_t(n)) {
      gzclose(in);
      throw Error(Errc::io, fmt::format("{}: write failed (disk full?)", to.string()));
    }
  }
  gzclose(in);
#else
  (void)to;
  throw Error(Errc::unsupported,
              fmt::format("{}: reading .gz needs zlib (built without RAYDB_SQL)", from.string()));
#endif
}

}  // namespace

SsbTblDir::SsbTblDir() : temp_(make_temp()) {
  original_ = plain_ = temp_;
}

SsbTblDir::SsbTblDir(const std::string& dir) : original_(dir), plain_(dir) {
  if (!fs::is_directory(dir)) throw Error(Errc::io, fmt::format("{}: not a directory", dir));
  for (const char* t : {"lineorder", "customer", "supplier", "part", "date"}) {
    fs::path tbl = fs::path(dir) / (std::string(t) + ".tbl");
    if (fs::exists(tbl)) continue;
    fs::path gz = fs::path(dir) / (std::string(t) + ".tbl.gz");
    if (!fs::exists(gz))
      throw Error(Errc::io, fmt::format("{}: no {}.tbl or {}.tbl.gz", dir, t, t));
    if (temp_.empty()) temp_ = make_temp();
    gunzip(gz, fs::path(temp_) / (std::string(t) + ".tbl"));
  }
  if (!temp_.empty()) {
    // The plain tables side by side: copy (link where possible) the ones that were not .gz.
    for (const char* t : {"lineorder", "customer", "supplier", "part", "date"}) {
      fs::path tbl = fs::path(dir) / (std::string(t) + ".tbl"),
               to = fs::path(temp_) / tbl.filename();
      if (!fs::exists(tbl) || fs::exists(to)) continue;
      std::error_code ec;
      fs::create_symlink(fs::absolute(tbl), to, ec);
      if (ec) fs::copy_file(tbl, to);
    }
    plain_ = temp_;
  }
}

SsbTblDir::~SsbTblDir() {
  if (temp_.empty()) return;
  std::error_code ec;
  fs::remove_all(temp_, ec);
}

}  // namespace raydb::cli
