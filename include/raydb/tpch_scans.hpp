// The column predicates of TPC-H Q3, Q6 and Q17 over columns generated with the TPC-H
// specification's value distributions (clause 4.2.3), for the RTScan experiments: each scan is one
// query's three predicate columns over LINEITEM's rows (the parent tables' columns joined to each
// line through its order, customer and part, as the paper scanned them) and the query's
// conjunctive predicates on them.
//
// Encodings (all uint32, order-preserving): dates as days since 1992-01-01; L_DISCOUNT in
// hundredths (0..10); L_QUANTITY as is (1..50); strings as their rank in the sorted list of the
// values the specification allows (C_MKTSEGMENT, P_BRAND, P_CONTAINER), so equality predicates
// become equality on codes. Row counts follow the scale factor: CUSTOMER 150,000 x SF, ORDERS
// 1,500,000 x SF, PART 200,000 x SF, LINEITEM 1 to 7 lines per order (about 6,000,000 x SF).
//
// Deterministic in the seed. Results are returned by value; the functions share no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb::workload {

/// One TPC-H scan workload (its columns and predicates).
struct TpchScan {
  std::string query;                      ///< "Q3", "Q6", "Q17"
  std::string table;                      ///< "lineitem": one row per line
  std::vector<std::string> column_names;  ///< e.g. "l_shipdate"
  /// The predicate columns, encoded as uint32.
  std::vector<std::vector<uint32_t>> columns;
  std::vector<Predicate> predicates;  ///< conjunctive, Predicate::column indexes `columns`
};

/// Q3 (l_shipdate > 1995-03-15, o_orderdate < 1995-03-15, c_mktsegment = BUILDING), Q6
/// (l_shipdate in 1994, l_discount 0.05..0.07, l_quantity < 24) and Q17 (p_brand = Brand#23,
/// p_container = MED BOX, l_quantity < 6: the paper's constant for 0.2 x the part's average
/// quantity), in that order, each over the same LINEITEM rows. Scale factor > 0 (fractions such as
/// 0.01 allowed).
Result<std::vector<TpchScan>> tpch_scans(double scale_factor, uint64_t seed = 1);

/// Days since 1992-01-01 of a date of the TPC-H calendar (years 1992 to 1998).
uint32_t tpch_day(int year, int month, int day);

}  // namespace raydb::workload
