// Workload generators for benchmarks and tests: key columns (unique uniform, dense, duplicated,
// Zipf-skewed) and lookup batches with a chosen hit rate, skew, order and range width, all
// deterministic in a seed. Non-member keys are produced by construction, never by guessing.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/keys.hpp"

namespace raydb::workload {

enum class Distribution { uniform, dense, zipf };
const char* to_string(Distribution d);
Result<Distribution> parse_distribution(const std::string& text);

/// Zipf(s) over ranks 1..n by rejection-inversion (Hörmann & Derflinger), O(1) per sample for any
/// s >= 0; s = 0 is uniform.
class ZipfSampler {
 public:
  /// A sampler over ranks 1..n with exponent s >= 0.
  ZipfSampler(uint64_t n, double s);
  uint64_t operator()(std::mt19937_64& rng) const;  ///< rank in [1, n]

 private:
  double h(double x) const;
  double h_integral(double x) const;
  double h_integral_inverse(double x) const;
  uint64_t n_;
  ///@{
  double s_, h_integral_x1_, h_integral_n_, threshold_;
  ///@}
};

/// A universe of `distinct` member keys of one width. Members are a seeded bijection of
/// 0..distinct-1 (uniform) or the integers themselves (dense); member(i) for i >= distinct is
/// guaranteed not to be a member, which is how misses are made.
class KeyUniverse {
 public:
  /// `distinct` member keys of `width`, laid out as `layout`, permuted by `seed`.
  KeyUniverse(KeyWidth width, Distribution layout, uint64_t distinct, uint64_t seed);
  /// Member i (i < distinct()); for i >= distinct() a key that is not a member.
  uint64_t member(uint64_t i) const;
  /// The j-th key that is not a member (j < non_members()).
  uint64_t non_member(uint64_t j) const { return member(distinct_ + j); }
  /// How many non-members non_member() can produce.
  uint64_t non_members() const;
  /// Number of member keys.
  uint64_t distinct() const { return distinct_; }
  /// Width of the keys.
  KeyWidth width() const { return width_; }

 private:
  KeyWidth width_;
  Distribution layout_;
  ///@{
  uint64_t distinct_, seed_;
  ///@}
};

/// A key column of either width.
struct KeyColumn {
  /// Which of the two vectors holds the data.
  KeyWidth width = KeyWidth::bits32;
  /// The keys, when 32-bit.
  std::vector<uint32_t> k32;
  /// The keys, when 64-bit.
  std::vector<uint64_t> k64;
  /// A view of the keys.
  KeySpan span() const { return width == KeyWidth::bits64 ? KeySpan(k64) : KeySpan(k32); }
  /// Number of entries.
  size_t size() const { return width == KeyWidth::bits64 ? k64.size() : k32.size(); }
  /// Appends a key (must fit the width).
  void push_back(uint64_t k);
  /// Reserves room for n keys.
  void reserve(size_t n);
  /// Key i, widened to 64 bits.
  uint64_t operator[](size_t i) const { return width == KeyWidth::bits64 ? k64[i] : k32[i]; }
};

/// A generated column of range lookups.
struct RangeColumn {
  KeyWidth width = KeyWidth::bits32;  ///< which of the two vectors holds the data
  /// The ranges, when 32-bit.
  std::vector<Range32> r32;
  /// The ranges, when 64-bit.
  std::vector<Range64> r64;
  /// A view of the ranges.
  RangeSpan span() const { return width == KeyWidth::bits64 ? RangeSpan(r64) : RangeSpan(r32); }
  /// Number of ranges.
  size_t size() const { return width == KeyWidth::bits64 ? r64.size() : r32.size(); }
};

/// How a benchmark key column is generated.
struct KeyOptions {
  /// How many to generate.
  uint64_t count = 1 << 20;
  KeyWidth width = KeyWidth::bits32;  ///< 32- or 64-bit keys
  /// uniform | dense | zipf (duplicates by Zipf)
  Distribution distribution = Distribution::uniform;
  /// Zipf exponent (Distribution::zipf).
  double zipf = 1.0;
  uint32_t multiplicity = 1;  ///< each distinct key appears this many times (uniform, dense)
  /// Random seed.
  uint64_t seed = 1;
};

/// How benchmark lookups are generated.
struct ProbeOptions {
  uint64_t count = 1 << 20;                           ///< lookups to generate
  double hit_rate = 1.0;                              ///< fraction of lookups that hit a member
  Distribution distribution = Distribution::uniform;  ///< which members: uniform or zipf
  double zipf = 1.0;                                  ///< Zipf exponent (Distribution::zipf)
  /// Sort the lookups by key.
  bool sorted = false;
  uint64_t range_width = 0;  ///< 0: point lookups; else ranges [k, k + range_width - 1]
  /// Random seed.
  uint64_t seed = 2;
};

/// A generated key column with a value per row.
struct KeyWorkload {
  /// The keys the column was drawn from (lookups draw members and misses from it).
  KeyUniverse universe;
  KeyColumn keys;                ///< row order
  std::vector<uint32_t> values;  ///< value(row) = 2 * key + 1, truncated to 32 bits (RX harness)
};

Result<KeyWorkload> make_keys(const KeyOptions& options);
Result<KeyColumn> make_point_probes(const KeyUniverse& universe, const ProbeOptions& options);
Result<RangeColumn> make_range_probes(const KeyUniverse& universe, const ProbeOptions& options);

}  // namespace raydb::workload
