// raydb::CpuBinDex: the BinDex-style scan on the CPU, multithreaded: the CPU baseline beside
// DP-BIS's sieving vectors on the GPU (DpBisOptions::sieve_vectors) and the full scan.
//
// Per uint32 column: the values sorted with their row ids, cut into equal-depth bins whose
// borders never split equal values, and one bit vector per inner border (vector k: rows whose
// bin is below k). A range predicate [a, b] takes the rows of the bins strictly inside it from
// two vectors (vector[hi] AND NOT vector[lo + 1]) and refines its one or two boundary bins from
// the sorted values, so the result is exact. Predicates combine with AND or OR.
//
// Memory: (bins - 1) / 8 bytes per row and column for the vectors, plus 8 bytes per row and
// column of sorted values and row ids. Times are host wall-clock milliseconds.
// Ownership: a CpuBinDex owns copies of everything it needs; the input columns may go away.
// Thread-safety: select() may run from several threads at once; build and move are exclusive.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "raydb/dpbis.hpp"  // Combine
#include "raydb/error.hpp"
#include "raydb/scan.hpp"  // Predicate

namespace raydb {

/// How a CpuBinDex is built.
struct CpuBinDexOptions {
  uint32_t bins = 128;   ///< 2 to 4096; BinDex's and RTScan's default is 128
  unsigned threads = 0;  ///< 0 = every hardware thread
};

/// Where a CpuBinDex build spent its time (ms) and memory (bytes).
struct CpuBinDexBuildStats {
  double build_ms = 0;              ///< sort, bins and vectors, all columns (wall clock)
  uint64_t index_bytes = 0;         ///< vectors + sorted values and row ids
  std::vector<uint32_t> bins_used;  ///< per column (fewer than asked when values repeat)
};

/// Where a CpuBinDex query spent its time (ms).
struct CpuBinDexQueryStats {
  double query_ms = 0;      ///< wall clock of the last select()
  uint64_t candidates = 0;  ///< values checked in boundary bins, all predicates
};

namespace detail {
struct CpuBinDexImpl;
}

/// The BinDex-style scan on the CPU (a baseline): owns its host arrays.
class CpuBinDex {
 public:
  /// Columns of equal length, fewer than 2^32 rows each.
  static Result<CpuBinDex> build(std::span<const std::span<const uint32_t>> columns,
                                 const CpuBinDexOptions& options = {});

  /// Rows satisfying all (or any) predicates as bitmap words: bit r % 32 of word r / 32, the
  /// layout of full_scan_reference and Bitmap::words(). An empty list selects every row (all) or
  /// none (any). `stats`, when given, receives the query's time and candidates.
  Result<std::vector<uint32_t>> select(std::span<const Predicate> predicates,
                                       Combine combine = Combine::all,
                                       CpuBinDexQueryStats* stats = nullptr) const;

  /// Rows per column.
  uint64_t rows() const;
  /// Number of columns.
  uint32_t columns() const;
  /// Where the build spent its time (ms) and memory (bytes).
  const CpuBinDexBuildStats& build_stats() const;

  /// Moves; the source is left empty (only destruction or assignment).
  CpuBinDex(CpuBinDex&&) noexcept;
  /// Moves; the source is left empty (only destruction or assignment).
  CpuBinDex& operator=(CpuBinDex&&) noexcept;
  /// Frees what it holds (device memory included).
  ~CpuBinDex();

 private:
  explicit CpuBinDex(std::unique_ptr<detail::CpuBinDexImpl> impl);
  std::unique_ptr<detail::CpuBinDexImpl> impl_;
};

}  // namespace raydb
