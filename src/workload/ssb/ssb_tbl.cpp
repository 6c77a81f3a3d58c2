// The `.tbl` loader: dbgen's format is one row per line, fields separated by '|' with a trailing
// '|'. Every row is checked for its field count and numbers, and errors name file and line.
// Files are read and parsed on all hardware threads, in slices of whole lines.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string_view>

#include "common/capture.hpp"
#include "common/parallel.hpp"
#include "common/printable.hpp"
#include "raydb/ssb_data.hpp"

namespace raydb::ssb {

bool operator==(const LineorderColumns& a, const LineorderColumns& b) {
  return a.orderdate == b.orderdate && a.custkey == b.custkey && a.partkey == b.partkey &&
         a.suppkey == b.suppkey && a.quantity == b.quantity && a.extendedprice == b.extendedprice &&
         a.discount == b.discount && a.revenue == b.revenue && a.supplycost == b.supplycost;
}
bool operator==(const PartyColumns& a, const PartyColumns& b) {
  return a.key == b.key && a.city == b.city && a.nation == b.nation && a.region == b.region;
}
bool operator==(const PartColumns& a, const PartColumns& b) {
  return a.partkey == b.partkey && a.mfgr == b.mfgr && a.category == b.category &&
         a.brand1 == b.brand1;
}
bool operator==(const DateColumns& a, const DateColumns& b) {
  return a.datekey == b.datekey && a.year == b.year && a.yearmonthnum == b.yearmonthnum &&
         a.weeknuminyear == b.weeknuminyear && a.yearmonth == b.yearmonth;
}
bool SsbTables::operator==(const SsbTables& o) const {
  return lineorder == o.lineorder && customer == o.customer && supplier == o.supplier &&
         part == o.part && date == o.date;
}

namespace {

using detail::host_threads;
using detail::parallel_slices;

// One file's bytes, read whole and in parallel slices (a reference SF 50 lineorder.tbl is 30 GB:
// one stream copy through a string stream took minutes and twice the memory).
class TblText {
 public:
  explicit TblText(const std::filesystem::path& path) : path_(path.string()) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw Error(Errc::io, fmt::format("{} is a folder, not a .tbl file", path_));
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw Error(Errc::io, fmt::format("cannot open {}", path_));
    std::streamoff size = in.tellg();
    if (size < 0) throw Error(Errc::io, fmt::format("cannot read {}", path_));
    size_ = static_cast<size_t>(size);
    if (size_ == 0) throw Error(Errc::invalid_argument, fmt::format("{} is empty", path_));
    data_.reset(new char[size_]);  // no zero fill: every byte is read below
    std::vector<char> failed(parts(size_), 0);
    parallel_slices(size_, parts(size_), [&](size_t b, size_t e, unsigned part) {
      std::ifstream slice(path, std::ios::binary);
      slice.seekg(static_cast<std::streamoff>(b));
      slice.read(data_.get() + b, static_cast<std::streamsize>(e - b));
      failed[part] = !slice || slice.gcount() != static_cast<std::streamsize>(e - b);
    });
    if (std::find(failed.begin(), failed.end(), 1) != failed.end())
      throw Error(Errc::io, fmt::format("cannot read {}", path_));
    if (data_[size_ - 1] != '\n')
      throw Error(Errc::invalid_argument,
                  fmt::format("{} is truncated: its last line ({}) has no newline", path_,
                              std::count(data_.get(), data_.get() + size_, '\n') + 1));
  }

  // Slices of at least 1 MiB, one per hardware thread.
  static unsigned parts(size_t bytes) { return bytes < (size_t{1} << 20) ? 1 : host_threads(); }
  const std::string& path() const { return path_; }
  std::string_view text() const { return {data_.get(), size_}; }

 private:
  std::string path_;
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

// Walks the rows of whole lines of a file; each row's fields are views into the file's text.
class TblReader {
 public:
  // `lines`: whole lines of `path`, the first one being line first_line + 1.
  TblReader(const std::string& path, std::string_view lines, uint64_t first_line, size_t fields)
      : path_(path), text_(lines), fields_(fields), line_(first_line), row_(fields) {}

  // Splits the next row into row(); false at the end of the lines.
  bool next() {
    if (pos_ >= text_.size()) return false;
    ++line_;
    size_t end = text_.find('\n', pos_);
    std::string_view l(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    size_t f = 0, start = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      if (l[i] != '|') continue;
      if (f < fields_) row_[f] = l.substr(start, i - start);
      ++f;
      start = i + 1;
    }
    if (f != fields_ || start != l.size())
      throw Error(Errc::invalid_argument,
                  fmt::format("{} line {}: {} '|'-terminated fields{}, expected {}", path_, line_,
                              f, start != l.size() ? " and text after the last '|'" : "", fields_));
    return true;
  }

  std::string_view text(size_t field) const { return row_[field]; }
  uint32_t number(size_t field, const char* name) const {
    std::string_view s = row_[field];
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      throw Error(Errc::invalid_argument,
                  fmt::format("{} line {} field {} ({}): '{}' is not a 32-bit unsigned number",
                              path_, line_, field + 1, name, detail::printable(s)));
    return v;
  }

 private:
  const std::string& path_;
  std::string_view text_;
  size_t fields_;
  size_t pos_ = 0;
  uint64_t line_;
  std::vector<std::string_view> row_;
};

// Parses every row of a file on all threads, each thread a slice of whole lines. The lines are
// counted first, so that resize(rows) sizes the columns once and store(reader, row) writes row
// `row` in place. The error reported is the file's first: slices before the first failing one
// parsed without error.
template <class Resize, class Store>
void parse_rows(const std::filesystem::path& path, size_t fields, Resize&& resize, Store&& store) {
  TblText file(path);
  std::string_view text = file.text();
  // A slice [b, e) of bytes owns the lines that start in it.
  auto line_start = [text](size_t x) {
    return x == 0 ? 0 : std::min(text.find('\n', x - 1), text.size() - 1) + 1;
  };
  unsigned parts = TblText::parts(text.size());
  std::vector<uint64_t> first(parts + 1, 0);  // rows before each slice, then the total
  parallel_slices(text.size(), parts, [&](size_t b, size_t e, unsigned part) {
    size_t s = line_start(b), t = line_start(e);
    first[part + 1] = static_cast<uint64_t>(std::count(text.begin() + s, text.begin() + t, '\n'));
  });
  for (unsigned p = 0; p < parts; ++p) first[p + 1] += first[p];
  resize(first[parts]);
  std::vector<std::exception_ptr> errors(parts);
  parallel_slices(text.size(), parts, [&](size_t b, size_t e, unsigned part) {
    try {
      size_t s = line_start(b);
      TblReader r(file.path(), text.substr(s, line_start(e) - s), first[part], fields);
      for (uint64_t row = first[part]; r.next(); ++row) store(r, row);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  });
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Sizes every column of a table to n rows.
template <class... Columns>
void resize_all(uint64_t n, Columns&... columns) {
  (columns.resize(n), ...);
}

void load_party(const std::filesystem::path& path, size_t fields, PartyColumns& out) {
  parse_rows(
      path, fields, [&](uint64_t n) { resize_all(n, out.key, out.city, out.nation, out.region); },
      [&](const TblReader& r, uint64_t i) {
        out.key[i] = r.number(0, "key");
        out.city[i] = r.text(3);
        out.nation[i] = r.text(4);
        out.region[i] = r.text(5);
      });
}

}  // namespace

Result<SsbTables> load_ssb_tbl(const std::string& dir_name) {
  return detail::capture([&] {
    std::filesystem::path dir(dir_name);
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
      throw Error(Errc::io,
                  fmt::format("SSB data folder {} is a file; give the folder that holds "
                              "lineorder.tbl, customer.tbl, supplier.tbl, part.tbl and date.tbl",
                              detail::printable(dir_name)));
    if (!std::filesystem::is_directory(dir, ec))
      throw Error(Errc::io,
                  fmt::format("SSB data folder {} does not exist", detail::printable(dir_name)));
    SsbTables t;
    load_party(dir / "customer.tbl", 8, t.customer);
    load_party(dir / "supplier.tbl", 7, t.supplier);
    PartColumns& part = t.part;
    parse_rows(
        dir / "part.tbl", 9,
        [&](uint64_t n) { resize_all(n, part.partkey, part.mfgr, part.category, part.brand1); },
        [&](const TblReader& r, uint64_t i) {
          part.partkey[i] = r.number(0, "p_partkey");
          part.mfgr[i] = r.text(2);
          part.category[i] = r.text(3);
          part.brand1[i] = r.text(4);
        });
    DateColumns& date = t.date;
    parse_rows(
        dir / "date.tbl", 17,
        [&](uint64_t n) {
          resize_all(n, date.datekey, date.year, date.yearmonthnum, date.yearmonth,
                     date.weeknuminyear);
        },
        [&](const TblReader& r, uint64_t i) {
          date.datekey[i] = r.number(0, "d_datekey");
          date.year[i] = r.number(4, "d_year");
          date.yearmonthnum[i] = r.number(5, "d_yearmonthnum");
          date.yearmonth[i] = r.text(6);
          date.weeknuminyear[i] = r.number(11, "d_weeknuminyear");
        });
    LineorderColumns& lo = t.lineorder;
    parse_rows(
        dir / "lineorder.tbl", 17,
        [&](uint64_t n) {
          resize_all(n, lo.custkey, lo.partkey, lo.suppkey, lo.orderdate, lo.quantity,
                     lo.extendedprice, lo.discount, lo.revenue, lo.supplycost);
        },
        [&](const TblReader& r, uint64_t i) {
          lo.custkey[i] = r.number(2, "lo_custkey");
          lo.partkey[i] = r.number(3, "lo_partkey");
          lo.suppkey[i] = r.number(4, "lo_suppkey");
          lo.orderdate[i] = r.number(5, "lo_orderdate");
          lo.quantity[i] = r.number(8, "lo_quantity");
          lo.extendedprice[i] = r.number(9, "lo_extendedprice");
          lo.discount[i] = r.number(11, "lo_discount");
          lo.revenue[i] = r.number(12, "lo_revenue");
          lo.supplycost[i] = r.number(13, "lo_supplycost");
        });
    return t;
  });
}

}  // namespace raydb::ssb
