// RTScan's Uniform Encoding (PVLDB 17(6), section 4.2), on the CPU: every column is re-coded by
// rank, so skewed or narrow columns spread evenly over [1, N] and a ray lattice over the encoded
// space meets a balanced number of records. Row r's code is its 1-based position when the column
// is sorted by value, ties broken by row, so equal values get distinct consecutive codes and the
// encoding keeps order: value(a) < value(b) implies code(a) < code(b).
//
// The mapping table (value -> [lo_code, hi_code]) rewrites a predicate on values into one on
// codes that selects exactly the same rows, including constants absent from the column or out of
// its range.
//
// Units: codes are uint32 in 1..N (N = rows); code 0 is never used. Ownership: an EncodedColumn
// owns its vectors; it holds no reference to the input column. Thread-safety: const members may be
// called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb::rtscan {

/// The codes of one distinct value: lo..hi inclusive, hi - lo + 1 = its number of occurrences.
struct CodeRange {
  /// First code.
  uint32_t lo = 0;
  /// Last code (inclusive).
  uint32_t hi = 0;
  /// Equal ends.
  bool operator==(const CodeRange&) const = default;
};

/// One column encoded onto the uniform grid RTScan traces.
class EncodedColumn {
 public:
  /// Encodes a column of at most 2^32 - 2 rows (so that N + 1, "past every code", fits uint32).
  /// Sorts on all hardware threads.
  static Result<EncodedColumn> encode(std::span<const uint32_t> column);

  /// The mapping table alone, from the column's values in ascending order (what a GPU encoder
  /// that keeps the codes on the device hands back); codes() is then empty. At most 2^32 - 2.
  static Result<EncodedColumn> from_sorted_values(std::span<const uint32_t> sorted);

  /// The mapping table as built elsewhere (the GPU encoder): `values` the distinct values in
  /// ascending order, `lo_codes` the first code of each (ascending, the first 1). Takes both
  /// vectors. Sizes, the first code and the last code (<= rows) are checked; the order is the
  /// caller's promise (checking it would cost the pass over the table this saves). codes() empty.
  static Result<EncodedColumn> from_table(uint64_t rows, std::vector<uint32_t> values,
                                          std::vector<uint32_t> lo_codes);

  /// Rows of the column.
  uint64_t rows() const { return rows_; }
  /// codes()[row] in 1..rows() (empty when made by from_sorted_values).
  const std::vector<uint32_t>& codes() const { return codes_; }
  /// The mapping table: distinct values ascending, and the first code of each (lo_codes()[i]);
  /// value i's codes end where value i + 1's begin (or at rows()).
  const std::vector<uint32_t>& distinct_values() const { return values_; }
  /// The first code of each distinct value.
  const std::vector<uint32_t>& lo_codes() const { return lo_codes_; }

  /// The codes of `value`; nullopt when the column does not hold it.
  std::optional<CodeRange> codes_of(uint32_t value) const;
  /// Rows whose value is < value (= the last code below `value`) and <= value.
  uint64_t count_less(uint32_t value) const;
  /// Rows whose value is <= value.
  uint64_t count_less_equal(uint32_t value) const;

  /// The same predicate over codes: selects exactly the rows `p` selects over values. Keeps p's
  /// column; `lt v` -> `lt count_less(v) + 1`, `le v` -> `le count_less_equal(v)`, `gt v` -> `gt
  /// count_less_equal(v)`, `ge v` -> `ge count_less(v) + 1`, `eq v` -> `between lo hi` of v's
  /// codes (`eq 0`, which no code has, when v is absent), `between a b` -> `between
  /// count_less(a) + 1, count_less_equal(b)` (empty as the original when a > b or no value lies
  /// in [a, b]).
  Predicate rewrite(const Predicate& p) const;

 private:
  ///@{
  std::vector<uint32_t> codes_, values_, lo_codes_;
  ///@}
  uint64_t rows_ = 0;
};

/// Encodes every column; column c of the result belongs to columns[c].
Result<std::vector<EncodedColumn>> encode_columns(
    std::span<const std::span<const uint32_t>> columns);
/// Rewrites each predicate with the encoding of its column (p.column indexes `encoded`).
Result<std::vector<Predicate>> rewrite_predicates(std::span<const EncodedColumn> encoded,
                                                  std::span<const Predicate> predicates);

}  // namespace raydb::rtscan
