// The Star Schema Benchmark (SSB) tables: a deterministic generator following the SSB
// specification (O'Neil et al.), a writer of dbgen-compatible `.tbl` files, and a loader of `.tbl`
// files (from this generator or from the reference SSB dbgen).
//
// In memory, SsbTables keeps only the columns the 13 standard SSB queries read (plus the keys);
// the `.tbl` files hold every column of the specification. Money is in cents (as dbgen writes it),
// dates as yyyymmdd integers (d_datekey, lo_orderdate). Strings keep dbgen's padding (a city is
// 10 characters, such as "UNITED KI1").
//
// Row counts at scale factor SF (fractions allowed): customer 30,000 x SF, supplier 2,000 x SF,
// part 200,000 x SF below SF 1 and 200,000 x floor(1 + log2 SF) from SF 1, lineorder 1 to 7 lines
// for each of 1,500,000 x SF orders (about 6,000,000 x SF), date always 2,556 days
// (1992-01-01 .. 1998-12-30) whatever the scale factor. Every count is at least 1.
//
// Thread-safety: the functions share no state; results are returned by value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "raydb/error.hpp"

namespace raydb::ssb {

/// The SSB lineorder table, column by column.
struct LineorderColumns {
  std::vector<uint32_t> orderdate;  ///< yyyymmdd, a d_datekey
  ///@{
  /// Foreign keys into customer, part and supplier.
  std::vector<uint32_t> custkey, partkey, suppkey;
  ///@}
  std::vector<uint32_t> quantity;       ///< 1..50
  std::vector<uint32_t> extendedprice;  ///< cents
  std::vector<uint32_t> discount;       ///< percent, 0..10
  std::vector<uint32_t> revenue;        ///< cents
  std::vector<uint32_t> supplycost;     ///< cents
  /// Rows.
  size_t size() const { return orderdate.size(); }
};

/// customer and supplier have the same query columns.
struct PartyColumns {
  /// C_custkey or s_suppkey (1-based).
  std::vector<uint32_t> key;
  ///@{
  /// Location columns, as dbgen writes them.
  std::vector<std::string> city, nation, region;
  ///@}
  /// Rows.
  size_t size() const { return key.size(); }
};

/// The SSB part table, column by column.
struct PartColumns {
  /// P_partkey (1-based).
  std::vector<uint32_t> partkey;
  ///@{
  /// P_mfgr, p_category and p_brand1, as dbgen writes them.
  std::vector<std::string> mfgr, category, brand1;
  ///@}
  /// Rows.
  size_t size() const { return partkey.size(); }
};

/// The SSB date table, column by column.
struct DateColumns {
  std::vector<uint32_t> datekey;  ///< yyyymmdd
  ///@{
  /// D_year, d_yearmonthnum (yyyymm) and d_weeknuminyear.
  std::vector<uint32_t> year, yearmonthnum, weeknuminyear;
  ///@}
  std::vector<std::string> yearmonth;  ///< "Jan1992"
  /// Rows.
  size_t size() const { return datekey.size(); }
};

/// The five SSB tables in host memory (owned).
struct SsbTables {
  /// The fact table.
  LineorderColumns lineorder;
  ///@{
  /// The customer and supplier dimensions.
  PartyColumns customer, supplier;
  ///@}
  /// The part dimension.
  PartColumns part;
  /// The date dimension.
  DateColumns date;
  /// Every table equal, column by column.
  bool operator==(const SsbTables&) const;
};

bool operator==(const LineorderColumns&, const LineorderColumns&);
bool operator==(const PartyColumns&, const PartyColumns&);
bool operator==(const PartColumns&, const PartColumns&);
bool operator==(const DateColumns&, const DateColumns&);

/// Rows per table at `scale_factor` (see the top of this file). Errc::invalid_argument for a scale
/// factor that is not positive and finite or above 1000.
struct SsbRowCounts {
  ///@{
  /// Rows of customer, supplier, part, orders (lineorder has about 4 per order) and date.
  uint64_t customer, supplier, part, orders, date;
  ///@}
};
Result<SsbRowCounts> ssb_row_counts(double scale_factor);

/// Generates the five tables. With a non-empty `out_dir`, also writes lineorder.tbl, customer.tbl,
/// supplier.tbl, part.tbl and date.tbl there (the folder is created). Deterministic in
/// (scale_factor, seed).
Result<SsbTables> generate_ssb(double scale_factor, uint64_t seed = 1,
                               const std::string& out_dir = "");

/// Reads the five `.tbl` files of `dir`. A missing or unreadable file, a file whose last line has
/// no newline (truncated), a row with the wrong number of fields or a field that is not a number
/// where one is expected: Errc::io or Errc::invalid_argument naming the file and line.
Result<SsbTables> load_ssb_tbl(const std::string& dir);

}  // namespace raydb::ssb
