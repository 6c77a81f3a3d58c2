// The columns and queries of the RTScan paper's evaluation (PVLDB 17(6), section 5): uniform
// 32-bit values, Zipf-skewed values, a narrow normal, a small range, and the permutation of
// 0..n-1 of the main sweep; n rows x c columns; and the `lt` constants that select a target share
// of a column. Every generator is deterministic in its seed (and independent of the thread count).
// Results are returned by value (the caller owns them); the functions share no state and may run
// concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "raydb/error.hpp"

namespace raydb::workload {

/// zipf: value k >= 1 with probability proportional to k^-zipf, truncated at k <= 2^32 - 1. The
/// artifact instead wraps numpy's unbounded draws mod 2^32 - 1, which scatters the tail beyond 2^32
/// (about 10% of the mass at 1.1, 0.1% at 1.3) over the whole range; truncation keeps the column a
/// true (renormalised) Zipf.
enum class ScanDistribution {
  uniform,      ///< every uint32 equally likely
  zipf,         ///< see above
  normal,       ///< normal(normal_mean, normal_sd), rounded and clamped to uint32
  small_range,  ///< uniform over [0, 2^small_range_bits)
  permutation,  ///< a random permutation of 0..rows-1 (needs rows <= 2^32)
};
const char* to_string(ScanDistribution d);
Result<ScanDistribution> parse_scan_distribution(const std::string& text);

/// How a benchmark scan column is generated.
struct ScanColumnOptions {
  /// Values to generate.
  uint64_t rows = 1 << 20;
  /// How values are drawn.
  ScanDistribution distribution = ScanDistribution::uniform;
  double zipf = 1.1;                  ///< the paper uses 1.1, 1.3, 1.5; any value > 0 is accepted
  double normal_mean = 2147483648.0;  ///< the paper's 2^31
  /// Standard deviation of the normal distribution.
  double normal_sd = 1.0;
  uint32_t small_range_bits = 6;  ///< 1..32
  /// Random seed.
  uint64_t seed = 1;
};

/// One column of `rows` values.
Result<std::vector<uint32_t>> make_scan_column(const ScanColumnOptions& options);

/// `columns` independent columns of the same distribution; column c uses seed options.seed + c.
Result<std::vector<std::vector<uint32_t>>> make_scan_table(const ScanColumnOptions& options,
                                                           uint32_t columns);

/// The constant C of `column lt C` for a target share of the column, computed from the data: with
/// k = round(selectivity * rows), C is the k-th smallest value (0-based), so `lt C` selects exactly
/// k rows unless duplicates of C straddle position k (then fewer: all rows below C). For k = rows,
/// C = max + 1 (or 2^32 - 1 when max is 2^32 - 1, which then leaves those rows out). `selected` is
/// the exact count `lt C` selects.
struct LtConstant {
  /// The share asked for, 0..1.
  double selectivity = 0;
  /// The constant C.
  uint32_t value = 0;
  /// Rows `lt C` selects.
  uint64_t selected = 0;
};
Result<std::vector<LtConstant>> lt_constants(std::span<const uint32_t> column,
                                             std::span<const double> selectivities);
/// The paper's sweep: selectivity 0, 0.1, ..., 1.0 (11 constants).
Result<std::vector<LtConstant>> lt_constants_sweep(std::span<const uint32_t> column);

}  // namespace raydb::workload
