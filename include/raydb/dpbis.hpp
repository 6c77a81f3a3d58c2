// raydb::DpBisTable: DP-BIS, the data-parallel bin-based index (Gosink et al.), over uint32
// columns. Per column: values radix-sorted with their row ids (the bin-clustered base data), 256
// equal-depth bins whose borders never split equal values (a value too frequent for one bin gets
// a bin of its own), and an 8-bit bin code per row. A range predicate sets the rows of bins
// strictly inside it from the codes and checks the values of its boundary bins exactly, so values
// equal to a bound are answered exactly (the paper leaves that case open). Compound queries
// combine per-predicate bitmaps with AND or OR. Built and queried in Vulkan compute.
//
// Ownership and thread-safety as for ColumnTable.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb {

enum class Combine { all, any };  ///< AND, OR across predicates

/// How a range predicate decides the rows of its (at most two) boundary bins.
enum class Refine {
  /// After the selection pass, a second pass walks the boundary bins' bin-clustered values and
  /// ORs each qualifying row's bit into the bitmap with an atomic (a scattered read-modify-write).
  scatter,
  /// The selection pass decides the boundary rows itself, comparing each boundary row's value
  /// with the bounds. Over the codes in Vulkan, a row loads its value from a copy of the column
  /// kept in row order. Over sieving vectors, and over the codes in CUDA, the copy is clustered by
  /// bin, each bin in row order: the boundary rows of 4096 consecutive rows read one contiguous
  /// run per bin (each backend keeps the copy its pass measured faster with). One pass, whole
  /// bitmap words, no atomics. It costs 4 bytes per row and column, plus for a clustered copy 4
  /// bytes per bin and 4096 rows (in index_bytes). Vulkan compute and CUDA (src/ops/dpbis/cuda/).
  in_select,
};

/// How a DpBisTable is built and queried.
struct DpBisOptions {
  uint32_t bins = 256;  ///< 2 to 256 (codes are 8-bit)
  /// Also keep bins - 1 sieving bit vectors per column (vector k: rows whose bin is below k), and
  /// answer the bins inside a range from two of them instead of reading every code: RTScan's
  /// Data Sieving and the BinDex-style scan (default 128 bins there). Costs (bins - 1) / 8 bytes
  /// per row and column.
  bool sieve_vectors = false;
  /// Who sorts, builds the sieving vectors and answers selections (codes or vectors, boundary-bin
  /// refinement, AND / OR): automatic follows ContextOptions::backend. With CUDA, the index and
  /// its result bitmaps live in memory shared with Vulkan; bins and codes stay in Vulkan compute.
  Backend backend = Backend::automatic;
  /// How boundary bins are refined (see Refine).
  Refine refine = Refine::scatter;
};

/// Where a DpBisTable build spent its time (ms) and memory (bytes).
struct DpBisBuildStats {
  ///@{
  /// GPU timestamps (Vulkan queries, CUDA events), all columns; bin_ms includes the vectors and
  /// the sieve's clustered values (Refine::in_select).
  double upload_ms = 0, sort_ms = 0, bin_ms = 0;
  ///@}
  /// codes (1 byte per row), sorted values and row ids (8), vectors, and with Refine::in_select
  /// the values in row order or clustered by bin (4; a clustered copy also bins x ceil(rows /
  /// 4096) x 4 bytes of run offsets)
  uint64_t index_bytes = 0;
  std::vector<uint32_t> bins_used;  ///< non-empty bins per column
};

/// Where a DP-BIS query spent its time (ms).
struct DpBisQueryStats {
  /// GPU time of the codes or vector passes, candidate checks and combining. Vulkan: timestamps
  /// around each predicate's passes plus each AND / OR. CUDA: two events around all of the query's
  /// kernels on the stream (launch gaps where the GPU ran dry are in; allocation, CUDA imports and
  /// the host's wait are not).
  double gpu_ms = 0;
  uint64_t candidates = 0;  ///< values checked in boundary bins, all predicates
  /// Device memory the kernels read and write: codes (32 bytes per 32 rows) or each sieving vector
  /// read (4 bytes per 32 rows), each predicate's bitmap written, and for each AND / OR two bitmaps
  /// read and one written. Refine::scatter adds the value and row id of each candidate (8 bytes)
  /// and does not count the bitmap word that each qualifying candidate ORs its bit into (an atomic
  /// read-modify-write of a random word, a 32-byte sector each way in DRAM), since the host does
  /// not know how many qualify. Refine::in_select from row-ordered values adds one 32-byte sector
  /// per candidate (an estimate: candidates sharing a sector are counted twice, which is rare when
  /// two of 256 bins are refined), at most the column's value bytes. From clustered values it adds
  /// 4 bytes per candidate and, per boundary bin and 4096 rows, 64 bytes (the run's offset and its
  /// ragged ends).
  uint64_t bytes = 0;
};

/// DpBisTable::set_diagnostic: which passes of each predicate run, so that a benchmark can time
/// them apart. select_only: the codes or vectors pass without the boundary bins' refinement;
/// refine_only: the refinement alone, into a bitmap the selection did not write. Either gives an
/// answer that is not the query's (no result check applies); stats count only the passes run.
/// Refine::in_select has one pass only: its selections refuse either diagnostic.
enum class DpBisDiagnostic { none, select_only, refine_only };

namespace detail {
struct DpBisImpl;
}

/// DP-BIS: bit-sliced columns with a sieve, scanned in Vulkan compute (or CUDA); owns its
/// device buffers.
class DpBisTable {
 public:
  /// Builds the index over equally long columns (copied to the device; the spans may go after).
  static Result<DpBisTable> build(const Context& ctx,
                                  std::span<const std::span<const uint32_t>> columns,
                                  const DpBisOptions& options = {});
  /// Rows satisfying all (or any) predicates; an empty list selects every row (all) or none (any).
  Result<Bitmap> select(std::span<const Predicate> predicates, Combine combine = Combine::all);

  /// Rows per column.
  uint64_t rows() const;
  /// Number of columns.
  uint32_t columns() const;
  Backend backend() const;  ///< never automatic
  /// Where the build spent its time (ms) and memory (bytes).
  const DpBisBuildStats& build_stats() const;
  /// Statistics of the most recent call (times in ms).
  const DpBisQueryStats& last_stats() const;
  /// For benchmarks only: the passes the next selections run (none: all, the default).
  void set_diagnostic(DpBisDiagnostic diagnostic);

  /// Moves; the source is left empty (only destruction or assignment).
  DpBisTable(DpBisTable&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  DpBisTable& operator=(DpBisTable&&) noexcept;
  /// Frees what it holds (device memory included).
  ~DpBisTable();

 private:
  explicit DpBisTable(std::unique_ptr<detail::DpBisImpl> impl);
  std::unique_ptr<detail::DpBisImpl> impl_;
};

}  // namespace raydb
