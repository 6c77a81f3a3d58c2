// The planner: a bound query to RTCUDB's encoding. Every attribute gets an order-preserving
// dictionary; filters become a mixed-radix Z code (fewest selected codes most significant, so
// the selection is few Z intervals), filters that do not fit the 2^23 exact Z codes are checked in
// the any-hit shader instead; the group tuple becomes Y (a dictionary of the tuples, in value
// order); X holds one aggregate's value where float32 holds every row's exactly. Triangles are in
// Z order. Z digits, lanes and triangle order are the SSB engine's (docs/sql.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "raydb/star_geometry.hpp"

#include "common/parallel.hpp"
#include "sql/bind.hpp"

namespace raydb::sql::detail {

// A per-row array (fact rows or triangles), left unwritten on resize: the parallel passes write
// it whole, and a zero fill first would be one more serial pass over the rows, with all its page
// faults taken on one thread.
template <class T>
using RowVector = raydb::detail::FillLaterVector<T>;

// Sorted distinct values of one column, and each table row's code (code order = value order).
struct Dictionary {
  std::vector<int64_t> ints;
  std::vector<std::string> texts;
  RowVector<uint32_t> code;  // per table row
  uint32_t size() const { return static_cast<uint32_t>(ints.empty() ? texts.size() : ints.size()); }
};

// What the engine keeps between queries (the offline part of RTCUDB): dictionaries and the
// fact rows' dimension rows. Cleared when a table is reloaded.
struct PlanCache {
  std::map<std::pair<int, int>, Dictionary> dicts;                      // (table, column)
  std::map<std::tuple<int, int, int, int>, RowVector<uint32_t>> joins;  // fact->dim rows
  void clear() {
    dicts.clear();
    joins.clear();
  }
};

const Dictionary& dictionary(PlanCache& cache, const Catalog& cat, int table, int column);

struct ZAttr {
  std::string name;
  uint32_t domain = 0, selected = 0, runs = 0;
  uint64_t stride = 0;
};

struct SideFilter {
  std::string name;
  RowVector<uint32_t> codes;   // per triangle (RtPlan::order)
  std::vector<uint32_t> mask;  // one bit per code: selected
};

struct RtPlan {
  uint64_t rows = 0;
  bool empty = false;  // a filter selects nothing: no ray is cast
  std::vector<ZAttr> z;
  std::vector<SideFilter> side;
  uint64_t z_codes = 1;  // including the lanes
  uint32_t lanes = 1;    // the least significant Z digit: row number modulo lanes
  std::vector<std::pair<uint32_t, uint32_t>> intervals;  // inclusive Z ranges
  StarGeometry geometry = StarGeometry::filter_only;
  RowVector<float> vertices;  // 9 per fact row, in Z order (a triangle's primitive index)
  // filter_only with more than one group: the group code per triangle (Y holds it otherwise).
  RowVector<uint32_t> row_groups;
  RowVector<uint32_t> order;  // primitive index -> fact row (side codes are already in it)
  float ray_x = 0, ray_y = 0;
  std::vector<std::vector<uint32_t>> group_tuples;  // Y code -> attribute codes
  std::vector<const Dictionary*> group_dicts;
  int x_agg = -1;                 // the aggregate X holds, or -1
  std::vector<int> fact_columns;  // fact columns the shader reads (slot order)
  std::string explain_notes;      // why attributes went where
  // plan_rt's phases in order, host wall and CPU (all threads) milliseconds (EXPLAIN prints them).
  struct Phase {
    std::string name;
    double wall_ms = 0, cpu_ms = 0;
  };
  std::vector<Phase> host_ms;
};

RtPlan plan_rt(const BoundQuery& q, const Catalog& cat, PlanCache& cache, StarGeometry geometry);

// The dimension row of every fact row (every foreign key must resolve; cached).
const RowVector<uint32_t>& dim_rows(PlanCache& cache, const Catalog& cat, int fact, const Dim& d);
// Per dictionary code: whether the filter selects it.
std::vector<bool> selected_codes(const Filter& f, const Column& col, const Dictionary& d);

// Evaluates an expression of fact columns on one row (exact, wrapping int64).
int64_t eval_expr(const Expr& e, const Table& fact, uint64_t row);
// eval_expr on rows [first, first + n) into out[0, n), operator by operator over the block.
void eval_rows(const Expr& e, const Table& fact, uint64_t first, uint64_t n, int64_t* out);

// The stable order of rows by key (every key below `codes`), in parallel passes: order[k] is the
// row at position k, pos[r] the position of row r; rows of one key stay in row order.
void stable_order(const RowVector<uint32_t>& keys, uint64_t codes, RowVector<uint32_t>& order,
                  RowVector<uint32_t>& pos);

}  // namespace raydb::sql::detail
