// Ad-hoc SQL over a star schema, run as RTCUDB ray-tracing jobs (docs: issue 17, DESIGN.md's
// parse -> plan -> generated GLSL -> operator layer).
//
// A schema comes from a DDL file (CREATE TABLE with INTEGER/BIGINT, DECIMAL(p,s), CHAR/VARCHAR/
// TEXT and DATE columns, PRIMARY KEY and FOREIGN KEY ... REFERENCES); data from `.tbl` files
// (`|`-separated with a trailing `|`, as SSB/TPC dbgen writes them) or CSV with a header, either
// possibly gzip-compressed. Queries are parsed with PostgreSQL's grammar (libpg_query).
//
// The query class: one fact table joined to dimensions on key equality; WHERE conjuncts on one
// attribute each (= <> < <= > >=, BETWEEN, IN, OR within the attribute); GROUP BY attributes;
// SUM/COUNT/MIN/MAX/AVG over + - * expressions of fact columns; HAVING, ORDER BY, LIMIT.
// Everything else is refused with an error naming the construct, line and column.
//
// Values: integers as int64, decimals as int64 scaled by 10^scale, dates as yyyymmdd. Sums are
// exact 64-bit (two's complement wrap past 2^63, as in the SSB engine); AVG is sum / count in
// double precision.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/star_geometry.hpp"

namespace raydb::sql {

/// A query's result: column names and rows of text (owned), with table, CSV and JSON output.
struct SqlTable {
  /// The result's column names.
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  ///< text cells; SQL NULL as "NULL"
  /// The output columns the query's ORDER BY sorts on, in key order (empty: no ORDER BY, or the
  /// keys are not all output columns). Set by SqlEngine::query.
  std::vector<int> order_keys;
  std::vector<bool> order_desc;  ///< per order key: descending
  /// Like sqlite3/psql: a header, a rule, the rows, "(N rows)".
  std::string format_table() const;
  /// RFC 4180 CSV with a header line.
  std::string format_csv() const;
  std::string format_json() const;  ///< an array of objects, numbers unquoted
};

/// Which operator runs a query: the ray-tracing star join (RTCUDB), the compute star join
/// (Crystal-style, no BVH), or automatic: compute where the ray-tracing plan cannot express the
/// query (a limit it names) or where the measured cost model says compute is faster on this
/// device; EXPLAIN says which and why. The answer is the same either way.
enum class SqlPath {
  automatic,  ///< the cost model's choice (and compute where the RT plan cannot express it)
  rt,         ///< the ray-tracing star join
  compute     ///< the compute star join
};
/// "auto", "rt" or "compute".
const char* to_string(SqlPath path);

/// How an SqlEngine plans and runs queries.
struct SqlOptions {
  /// Where compiled SPIR-V (and the cost model's calibration) is kept between runs, keyed by a
  /// hash of the GLSL (created when missing). Empty or "-": no disk cache, only the engine's
  /// memory. The library reads no environment for it; `raydb sql` passes $XDG_CACHE_HOME/raydb
  /// (or ~/.cache/raydb).
  std::string cache_dir;
  /// Automatic: the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  /// Field separator of .csv data files.
  char csv_delimiter = ',';
  /// Long Z intervals are cut into rays of at most ceil(total Z length / target_rays) codes.
  uint32_t target_rays = 262144;
  /// The operator queries run on (SqlEngine::set_path changes it later).
  SqlPath path = SqlPath::automatic;
  /// The ray-tracing plan's triangles (filter_only: Z alone; value_group: RTCUDB's X = an
  /// aggregate, Y = the group code). EXPLAIN names it.
  StarGeometry geometry = StarGeometry::filter_only;
};

/// Per query, milliseconds. compile_ms is apart from the query itself (0 when the SPIR-V was in
/// the memory or disk cache).
struct SqlStats {
  ///@{
  /// Milliseconds of each phase: parse, plan, shader compile, upload, BVH build, trace, host
  /// post-processing.
  double parse_ms = 0, plan_ms = 0, compile_ms = 0, upload_ms = 0, bvh_build_ms = 0, trace_ms = 0,
         post_ms = 0;
  ///@}
  /// Host milliseconds writing the ray-tracing plan's arrays into upload buffers, before the
  /// device copies them (upload_ms is that copy, on the device's clock).
  double stage_ms = 0;
  /// Whether the SPIR-V came from the memory or disk cache.
  bool shader_cached = false;
  /// The operator that ran (rt or compute).
  SqlPath path = SqlPath::rt;
  /// Why that operator, as EXPLAIN prints it.
  std::string path_reason;
  ///@{
  /// Device memory each operator would need for the query (estimated before any work), and what
  /// was left of the budget (ContextOptions::memory_budget_bytes, else the device-local heap).
  uint64_t rt_device_bytes = 0, compute_device_bytes = 0, device_bytes_left = 0;
  ///@}
  ///@{
  /// Fact rows, rays cast, filter intervals, result groups, BVH bytes and rows that passed the
  /// filter.
  uint64_t rows = 0, rays = 0, intervals = 0, groups = 0, bvh_bytes = 0, rows_hit = 0;
  ///@}
};

/// One schema, its loaded tables and one Vulkan context. Not thread-safe.
class SqlEngine {
 public:
  /// An engine on `ctx` with no tables yet.
  static Result<SqlEngine> create(const Context& ctx, const SqlOptions& options = {});
  /// Moves; the source is left empty (only destruction or assignment).
  SqlEngine(SqlEngine&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SqlEngine& operator=(SqlEngine&&) noexcept;
  /// Frees what it holds (device memory included).
  ~SqlEngine();

  /// CREATE TABLE statements (other statements are refused, naming line and column).
  Status load_schema_file(const std::string& ddl_path);
  /// As load_schema, from DDL text; `source_name` names it in errors.
  Status load_schema_text(std::string_view ddl, std::string_view source_name = "<ddl>");
  /// Loads every table of the schema from `dir`: `<table>.tbl`, `.csv`, `.tbl.gz` or `.csv.gz`.
  Status load_data_dir(const std::string& dir);
  /// Loads one table of the schema from a .tbl or .csv file (.gz accepted).
  Status load_table(std::string_view table, const std::string& path);

  /// A SELECT, or EXPLAIN SELECT (the plan as a one-column table). A ray-traced query's BVH and
  /// arrays stay on the device until the next query() or load (for rerun()).
  Result<SqlTable> query(std::string_view sql);
  /// The last SELECT that query() ran, again, on the same tables. On the ray-tracing operator it
  /// traces the BVH that query() built, without planning or building again (as SsbEngine::rerun;
  /// benchmarks time repeats this way); last_stats() then keeps that query()'s parse, plan,
  /// upload and BVH figures, with this call's trace and post-processing. On the compute operator
  /// it runs the query from the start. Errc::invalid_argument when no query has run since the
  /// engine was created or a table loaded.
  Result<SqlTable> rerun();
  /// The plan of a SELECT as text (what EXPLAIN prints), without running it.
  Result<std::string> explain(std::string_view sql);
  /// The same SELECT through SQLite on the same rows (decimals as REAL, dates as 'YYYY-MM-DD'):
  /// the reference for tests and `raydb sql --check`.
  Result<SqlTable> sqlite(std::string_view sql);

  /// The schema's tables, in declaration order.
  std::vector<std::string> table_names() const;
  /// The CREATE TABLE of `table`, as the schema declared it.
  Result<std::string> table_ddl(std::string_view table) const;
  /// Rows loaded into `table` (0 when not loaded).
  uint64_t table_rows(std::string_view table) const;
  /// Statistics of the most recent call (times in ms).
  const SqlStats& last_stats() const;
  /// The operator later queries use (SqlOptions::path).
  void set_path(SqlPath path);

  struct Impl;

 private:
  explicit SqlEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Compares an engine result with SQLite's: same columns count, same rows as multisets, numbers
/// compared as numbers (decimals to the engine's printed digits, AVG to 1e-9 relative), and `got`
/// sorted by its ORDER BY keys (got.order_keys / order_desc; SQLite's REAL arithmetic on decimals
/// may break near-ties differently, so its sequence is not compared). Empty when equal, else what
/// differs.
std::string compare_with_sqlite(const SqlTable& got, const SqlTable& want);

}  // namespace raydb::sql
