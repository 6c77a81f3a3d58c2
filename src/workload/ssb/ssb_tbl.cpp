// The `.tbl` loader: dbgen's format is one row per line, fields separated by '|' with a trailing
// '|'. Every row is checked for its field count and numbers, and errors name file and line.
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "common/capture.hpp"
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

// Walks the rows of one file; each row's fields are views into the file's text.
class TblReader {
 public:
  TblReader(const std::filesystem::path& path, size_t fields)
      : path_(path.string()), fields_(fields) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw Error(Errc::io, fmt::format("{} is a folder, not a .tbl file", path_));
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(Errc::io, fmt::format("cannot open {}", path_));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) throw Error(Errc::io, fmt::format("cannot read {}", path_));
    text_ = std::move(ss).str();
    if (text_.empty()) throw Error(Errc::invalid_argument, fmt::format("{} is empty", path_));
    if (text_.back() != '\n')
      throw Error(Errc::invalid_argument,
                  fmt::format("{} is truncated: its last line ({}) has no newline", path_,
                              std::count(text_.begin(), text_.end(), '\n') + 1));
    row_.resize(fields);
  }

  // Splits the next row into row(); false at the end of the file.
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
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  size_t fields_;
  std::string text_;
  size_t pos_ = 0;
  uint64_t line_ = 0;
  std::vector<std::string_view> row_;
};

void load_party(const std::filesystem::path& path, size_t fields, PartyColumns& out) {
  TblReader r(path, fields);
  while (r.next()) {
    out.key.push_back(r.number(0, "key"));
    out.city.emplace_back(r.text(3));
    out.nation.emplace_back(r.text(4));
    out.region.emplace_back(r.text(5));
  }
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
    {
      TblReader r(dir / "part.tbl", 9);
      while (r.next()) {
        t.part.partkey.push_back(r.number(0, "p_partkey"));
        t.part.mfgr.emplace_back(r.text(2));
        t.part.category.emplace_back(r.text(3));
        t.part.brand1.emplace_back(r.text(4));
      }
    }
    {
      TblReader r(dir / "date.tbl", 17);
      while (r.next()) {
        t.date.datekey.push_back(r.number(0, "d_datekey"));
        t.date.year.push_back(r.number(4, "d_year"));
        t.date.yearmonthnum.push_back(r.number(5, "d_yearmonthnum"));
        t.date.yearmonth.emplace_back(r.text(6));
        t.date.weeknuminyear.push_back(r.number(11, "d_weeknuminyear"));
      }
    }
    {
      TblReader r(dir / "lineorder.tbl", 17);
      LineorderColumns& lo = t.lineorder;
      while (r.next()) {
        lo.custkey.push_back(r.number(2, "lo_custkey"));
        lo.partkey.push_back(r.number(3, "lo_partkey"));
        lo.suppkey.push_back(r.number(4, "lo_suppkey"));
        lo.orderdate.push_back(r.number(5, "lo_orderdate"));
        lo.quantity.push_back(r.number(8, "lo_quantity"));
        lo.extendedprice.push_back(r.number(9, "lo_extendedprice"));
        lo.discount.push_back(r.number(11, "lo_discount"));
        lo.revenue.push_back(r.number(12, "lo_revenue"));
        lo.supplycost.push_back(r.number(13, "lo_supplycost"));
      }
    }
    return t;
  });
}

}  // namespace raydb::ssb
