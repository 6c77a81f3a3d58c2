// Host side of the RTCUDB mapping: the flat (denormalized) table with order-preserving dictionary
// codes, each query's plan (filter, group and aggregate columns), and its encoding into triangles
// (X = aggregated value, Y = group code, Z = mixed-radix filter code) and Z intervals.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/parallel.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb::detail {

// The flat table's coded columns. Dimension columns are coded per dimension row; the flat row's
// code is a gather through its foreign key (the join done once, offline).
enum class Attr : uint8_t {
  d_year,
  d_yearmonthnum,
  d_yearmonth,
  d_weeknuminyear,
  day,  // the order date itself, as a rank in the date table
  lo_discount,
  lo_quantity,
  c_city,
  c_nation,
  c_region,
  s_city,
  s_nation,
  s_region,
  p_mfgr,
  p_category,
  p_brand1,
};
inline constexpr size_t kAttrs = 16;

// The table an attribute comes from (the order is the star-join baseline's dimension order).
enum class Dim { date, customer, supplier, part, lineorder };
Dim dim_of(Attr a);

// Sorted distinct values (numbers sorted as numbers, text as bytes): code = index, so code order
// is value order and ranges and ORDER BY carry over to codes.
struct Dictionary {
  std::vector<std::string> values;
};

struct FlatTable {
  const SsbTables* tables = nullptr;
  uint64_t n = 0;
  // Per lineorder row: the row of its date, customer, supplier and part.
  std::vector<uint32_t> date_row, cust_row, supp_row, part_row;
  std::vector<uint32_t> day_date_row;  // Attr::day code -> date table row
  std::array<Dictionary, kAttrs> dict;
  // Per attribute: the code of each dimension row (lineorder attributes: of each value).
  std::array<std::vector<uint32_t>, kAttrs> codes;

  uint32_t code(Attr a, uint64_t row) const;
  uint32_t domain(Attr a) const { return static_cast<uint32_t>(dict[size_t(a)].values.size()); }
  const std::string& value(Attr a, uint32_t code) const { return dict[size_t(a)].values[code]; }
};

// Every foreign key must resolve (Errc::invalid_argument names the lineorder row otherwise).
FlatTable make_flat(const SsbTables& tables);

enum class Aggregate {
  extprice_times_discount,  // Q1.x: X = lo_extendedprice, lo_discount from a side array
  revenue,                  // Q2.x, Q3.x
  profit,                   // Q4.x: lo_revenue - lo_supplycost, precomputed
};

struct Filter {
  Attr attr;
  std::vector<bool> selected;  // per code
};

struct OutputColumn {
  std::string name;
  int group = -1;  // index into QueryPlan::group, or -1 for the aggregate
};

struct QueryPlan {
  std::string name;
  std::vector<Filter> filters;
  std::vector<Attr> group;  // the group code orders tuples by these, in this order
  Aggregate aggregate = Aggregate::revenue;
  // Q3.x: ORDER BY the first group column, then the aggregate descending, then the rest.
  bool order_by_value_desc = false;
  std::vector<OutputColumn> output;
};

QueryPlan plan_query(const std::string& canonical_name, const FlatTable& flat);

struct EncodedQuery {
  uint64_t rows = 0;
  // Written whole by the encoding's parallel passes (no zero fill first).
  raydb::detail::FillLaterVector<float> vertices;        // 9 floats per triangle, in Z order
  raydb::detail::FillLaterVector<uint32_t> multipliers;  // Q1.x: lo_discount per triangle
  raydb::detail::FillLaterVector<int64_t> side_values;   // the value X cannot hold exactly
  raydb::detail::FillLaterVector<uint32_t> row_groups;   // filter_only: the group code per triangle
  bool hits_read_vertices = true;  // value_group: value and group come from the triangle's X, Y
  std::vector<std::vector<uint32_t>> group_tuples;       // group code -> attribute codes
  std::vector<std::pair<uint32_t, uint32_t>> intervals;  // inclusive Z ranges, ascending
  uint32_t z_codes = 1;                                  // size of the Z code space
  uint32_t lanes = 1;          // the least significant Z digit: row number modulo lanes
  float ray_x = 0, ray_y = 0;  // the lattice point every ray starts at
};

// Largest Z code space: half-integers below it are exact in float32, so rays start and end half
// a code away from the triangles they must (not) hit.
inline constexpr uint32_t kMaxZCodes = 1u << 23;

// `max_lanes`: the most rows of one filter code spread over separate Z codes (a power of two is
// used, as large as fits below kMaxZCodes and no larger than needed for the average rows per
// filter code).
EncodedQuery encode_query(const QueryPlan& plan, const FlatTable& flat, bool force_side_values,
                          uint32_t max_lanes, StarGeometry geometry);

// Cuts the intervals into rays of at most ceil(total / target_rays) codes each.
std::vector<std::pair<uint32_t, uint32_t>> split_rays(
    const std::vector<std::pair<uint32_t, uint32_t>>& intervals, uint32_t target_rays);

// The result table from per-group sums and counts (groups with no row are left out; a query
// without GROUP BY gives one row, NULL when nothing matched).
ResultTable finish_query(const QueryPlan& plan, const FlatTable& flat, const EncodedQuery& enc,
                         const std::vector<int64_t>& sums, const std::vector<uint32_t>& counts);

}  // namespace raydb::ssb::detail
