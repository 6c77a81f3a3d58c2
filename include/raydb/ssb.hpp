// The 13 standard Star Schema Benchmark queries (Q1.1 .. Q4.3) two ways: as SQL on SQLite (the
// reference) and as ray-tracing jobs in the manner of RTCUDB (Shi et al.): the denormalized table
// becomes one triangle per row with X = the aggregated value, Y = the group code and Z = the
// filter code, and each query is a set of rays along Z over the filter's intervals whose any-hit
// shader sums each hit row once into its group (docs/ssb.md).
//
// Results are tables of text cells, integers in decimal and SQL NULL as "NULL", in the query's
// ORDER BY order, so the two engines' answers compare cell for cell.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/lookup.hpp"  // BuildPreference
#include "raydb/ssb_data.hpp"
#include "raydb/star_geometry.hpp"

namespace raydb::ssb {

/// An SSB query's result: column names and rows of text (owned).
struct ResultTable {
  /// The result's column names.
  std::vector<std::string> columns;
  /// The rows, as text, in the query's ORDER BY.
  std::vector<std::vector<std::string>> rows;
  /// Equal columns and rows (results are compared whole).
  bool operator==(const ResultTable&) const = default;
  /// Like a SQL shell: a header, a rule, the rows, and "(N rows)".
  std::string format() const;
};

/// "1.1", "1.2", ... "4.3".
const std::vector<std::string>& query_names();
/// Accepts "1.1", "Q1.1" or "q1.1"; Errc::invalid_argument names the known queries otherwise.
Result<std::string> canonical_query_name(std::string_view name);
/// The query's SQL: the SSB specification's text; Q3.x add their group columns as the last ORDER
/// BY keys so that ties in revenue have one order (the standard order is a prefix of it).
Result<std::string> query_sql(std::string_view name);

/// How the SSB engine plans its rays.
struct SsbEngineOptions {
  /// Automatic: the context's mode.
  TraversalMode traversal = TraversalMode::automatic;
  /// Each filter interval is cut into rays of at most ceil(total Z length / target_rays) codes,
  /// so the launch has about this many rays (plus one per interval).
  /// 2^18: an H100 holds 270,336 resident threads (132 SMs x 2,048); fewer rays leave it idle.
  uint32_t target_rays = 262144;
  /// Rows that share a filter code are spread over up to this many Z codes (a power of two, as
  /// many as fit the 2^23 Z codes and no more than the average rows per filter code), so even a
  /// one-code selection is traced by parallel rays.
  uint32_t max_lanes = 65536;
  /// The paper's two atomics per counted row instead of one pair per run of one group along a
  /// ray (benchmarks: measures what the runs save; results are the same).
  bool per_row_atomics = false;
  /// Tests: keep every aggregated value in the side array even where float32 holds it exactly.
  bool force_side_values = false;
  /// optix: the same encoding, triangles and rays traced through OptiX (docs/optix.md, "SSB
  /// through OptiX"); create() fails with Errc::unsupported, naming why, where OptiX is not
  /// available. `traversal` is then not used.
  RayTracingApi api = RayTracingApi::vulkan;
  /// The BVH's build preference in either API (compacted in both). fast_trace is the paper's;
  /// the others are there to measure what the tree's shape costs the long Z rays (docs/optix.md).
  BuildPreference preference = BuildPreference::fast_trace;
  /// The triangles' placement.
  StarGeometry geometry = StarGeometry::filter_only;
};

/// Per query run: times in milliseconds (GPU timestamps), bytes of device memory.
struct SsbQueryStats {
  double encode_ms = 0;     ///< host: coordinates, group dictionary, sort by Z (wall clock)
  double upload_ms = 0;     ///< triangles and side arrays to the device
  double bvh_build_ms = 0;  ///< BLAS + TLAS build (OptiX: the GAS), with compaction
  double trace_ms = 0;      ///< the ray launch (the query itself; OptiX: CUDA events)
  double clear_ms = 0;      ///< the part of trace_ms that clears row flags and group sums
  double post_ms = 0;       ///< host: having / order by / decode (wall clock)
  ///@{
  /// Lineorder rows, filter intervals, rays, result groups, Z codes and parallel lanes of the
  /// query.
  uint64_t rows = 0, intervals = 0, rays = 0, groups = 0, z_codes = 0, lanes = 0;
  ///@}
  ///@{
  /// Device bytes of the BVH, its triangles and the side arrays.
  uint64_t bvh_bytes = 0, triangle_bytes = 0, side_bytes = 0;
  ///@}
  bool side_values = false;  ///< the aggregated value came from the side array
  /// Rows the any-hit work counted (the sum of the group counts): with NO_DUPLICATE_ANY_HIT and
  /// disjoint rays also the any-hit invocations that pass the row flag. rows_hit / rays is the
  /// serial work of one ray.
  uint64_t rows_hit = 0;
};

/// The RT engine over one set of tables, on one context. Each query builds its own BVH (the
/// paper's per-query materialized view) when run; the last query's BVH stays resident until the
/// next run() (so rerun() can time the query alone). Thread-safety: any thread, also on one
/// engine at once; calls on one Context are serialised (see Context); rerun() and last_stats() see
/// the latest run() of any thread.
class SsbEngine {
 public:
  /// `tables` must outlive the engine. Joins the tables into the flat table (every foreign key must
  /// resolve: Errc::invalid_argument names the row). Errc::limit_exceeded when one query's
  /// triangles and BVH would not fit in the device's memory, naming the limit.
  static Result<SsbEngine> create(const Context& ctx, const SsbTables& tables,
                                  const SsbEngineOptions& options = {});
  /// Whether `lineorder_rows` rows fit this device (the check create() makes), before generating
  /// or loading them: Errc::limit_exceeded names the limit.
  static Status check_fits(const Context& ctx, uint64_t lineorder_rows);
  /// Moves; the source is left empty (only destruction or assignment).
  SsbEngine(SsbEngine&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SsbEngine& operator=(SsbEngine&&) noexcept;
  /// Frees what it holds (device memory included).
  ~SsbEngine();

  /// Runs SSB query `query` ("1.1" .. "4.3", or "Q1.1").
  Result<ResultTable> run(std::string_view query);
  /// Runs the query whose BVH the last run() built again, without rebuilding (benchmarks).
  Result<ResultTable> rerun();
  /// Statistics of the most recent call (times in ms).
  const SsbQueryStats& last_stats() const;
  /// The traversal in use (never automatic).
  TraversalMode traversal() const;
  /// Lineorder rows on the device.
  uint64_t rows() const;

  struct Impl;

 private:
  explicit SsbEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The last query's GPU times in milliseconds of the two baselines below: the fused kernel, and
/// (SsbCrystalCuda only; 0 for SsbStarJoin, whose tables are built on the host) the hash-table
/// build kernels.
struct SsbKernelStats {
  /// The fused query kernel.
  double kernel_ms = 0;
  /// The hash-table build kernels (SsbCrystalCuda).
  double build_ms = 0;
};

/// The baseline in Crystal's style, as a Vulkan compute kernel: one fused pass over lineorder per
/// query with perfect-hash joins on the dimension tables (arrays indexed by key - min key), the
/// filters and the group index folded into them, and 64-bit atomic sums. No BVH. `tables` must
/// outlive it; the lineorder columns stay on the device. Thread-safety: as SsbEngine.
class SsbStarJoin {
 public:
  /// Builds the hash tables on the host and uploads everything to `ctx`'s device.
  static Result<SsbStarJoin> create(const Context& ctx, const SsbTables& tables);
  /// Moves; the source is left empty (only destruction or assignment).
  SsbStarJoin(SsbStarJoin&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SsbStarJoin& operator=(SsbStarJoin&&) noexcept;
  /// Frees what it holds (device memory included).
  ~SsbStarJoin();
  /// Runs SSB query `query` ("1.1" .. "4.3", or "Q1.1").
  Result<ResultTable> run(std::string_view query);
  const SsbKernelStats& last_stats() const;  ///< Vulkan timestamps
  uint64_t column_bytes() const;             ///< the lineorder columns held on the device

  struct Impl;

 private:
  explicit SsbStarJoin(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The same baseline in CUDA, in Crystal's style (docs/ssb.md): per query, one small kernel per
/// joined dimension builds its perfect-hash table on the GPU from the dimension's codes and the
/// query's filter masks, then one fused kernel reads lineorder in tiles (128 threads of 4 rows),
/// filters, probes and sums into the group slots with 64-bit atomics. The lineorder columns and the
/// dimension keys and codes stay in Vulkan buffers shared with CUDA. create() fails with
/// Errc::unsupported ("CUDA not available: ...") where the context has no CUDA device or raydb was
/// built without CUDA. `tables` must outlive it. Thread-safety: as SsbEngine.
class SsbCrystalCuda {
 public:
  /// Uploads the tables to the CUDA device of `ctx` (Errc::unsupported without CUDA).
  static Result<SsbCrystalCuda> create(const Context& ctx, const SsbTables& tables);
  /// Moves; the source is left empty (only destruction or assignment).
  SsbCrystalCuda(SsbCrystalCuda&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  SsbCrystalCuda& operator=(SsbCrystalCuda&&) noexcept;
  /// Frees what it holds (device memory included).
  ~SsbCrystalCuda();
  /// Runs SSB query `query` ("1.1" .. "4.3", or "Q1.1").
  Result<ResultTable> run(std::string_view query);
  const SsbKernelStats& last_stats() const;  ///< CUDA events
  uint64_t column_bytes() const;             ///< the lineorder columns held on the device

  struct Impl;

 private:
  explicit SsbCrystalCuda(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace raydb::ssb
