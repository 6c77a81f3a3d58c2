#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/capture.hpp"
#include "common/key_sort.hpp"
#include "common/parallel.hpp"
#include "raydb/rtscan_workload.hpp"
#include "raydb/workload.hpp"

namespace raydb::workload {

const char* to_string(ScanDistribution d) {
  switch (d) {
    case ScanDistribution::uniform:
      return "uniform";
    case ScanDistribution::zipf:
      return "zipf";
    case ScanDistribution::normal:
      return "normal";
    case ScanDistribution::small_range:
      return "small-range";
    case ScanDistribution::permutation:
      return "permutation";
  }
  return "?";
}

Result<ScanDistribution> parse_scan_distribution(const std::string& text) {
  for (auto d : {ScanDistribution::uniform, ScanDistribution::zipf, ScanDistribution::normal,
                 ScanDistribution::small_range, ScanDistribution::permutation})
    if (text == to_string(d)) return d;
  return Error(Errc::invalid_argument,
               fmt::format("unknown scan distribution '{}' (uniform, zipf, normal, small-range, "
                           "permutation)",
                           text));
}

namespace {

constexpr uint64_t kMaxU32 = 0xFFFFFFFFull;

void check_options(const ScanColumnOptions& o) {
  if (o.distribution == ScanDistribution::zipf && !(o.zipf > 0.0 && std::isfinite(o.zipf)))
    throw Error(Errc::invalid_argument, fmt::format("Zipf coefficient {} is not > 0", o.zipf));
  if (o.distribution == ScanDistribution::normal &&
      !(std::isfinite(o.normal_mean) && std::isfinite(o.normal_sd) && o.normal_sd > 0.0))
    throw Error(Errc::invalid_argument,
                fmt::format("normal({}, {}) needs a finite mean and a finite sd > 0", o.normal_mean,
                            o.normal_sd));
  if (o.distribution == ScanDistribution::small_range &&
      (o.small_range_bits < 1 || o.small_range_bits > 32))
    throw Error(Errc::invalid_argument,
                fmt::format("small range of {} bits is not in 1..32", o.small_range_bits));
  if (o.distribution == ScanDistribution::permutation && o.rows > kMaxU32 + 1)
    throw Error(Errc::invalid_argument,
                fmt::format("a permutation of {} rows does not fit uint32", o.rows));
}

// A permutation needs the whole column at once: a seeded shuffle of 0..rows-1.
std::vector<uint32_t> permutation(uint64_t rows, uint64_t seed) {
  std::vector<uint32_t> v(rows);
  std::iota(v.begin(), v.end(), uint32_t{0});
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 17);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

// Row-independent distributions: fixed slices with their own seeds, so the column is the same
// whatever the number of threads.
std::vector<uint32_t> independent(const ScanColumnOptions& o) {
  std::vector<uint32_t> v(o.rows);
  ZipfSampler zipf(kMaxU32, o.distribution == ScanDistribution::zipf ? o.zipf : 1.0);
  const uint64_t small_max =
      o.small_range_bits >= 32 ? kMaxU32 : (uint64_t{1} << o.small_range_bits) - 1;
  constexpr size_t kSlice = 1 << 16;
  detail::parallel_for((o.rows + kSlice - 1) / kSlice, [&](size_t slice) {
    std::mt19937_64 rng(o.seed * 1000003 + 11 + slice * 0x9E3779B97F4A7C15ull);
    std::uniform_int_distribution<uint32_t> any(0, static_cast<uint32_t>(kMaxU32));
    std::uniform_int_distribution<uint32_t> small(0, static_cast<uint32_t>(small_max));
    std::normal_distribution<double> normal(o.normal_mean, o.normal_sd);
    size_t end = std::min<size_t>(o.rows, (slice + 1) * kSlice);
    for (size_t i = slice * kSlice; i < end; ++i) {
      switch (o.distribution) {
        case ScanDistribution::uniform:
          v[i] = any(rng);
          break;
        case ScanDistribution::zipf:
          v[i] = static_cast<uint32_t>(zipf(rng));
          break;
        case ScanDistribution::normal: {
          double x = std::clamp(std::round(normal(rng)), 0.0, static_cast<double>(kMaxU32));
          v[i] = static_cast<uint32_t>(x);
          break;
        }
        case ScanDistribution::small_range:
          v[i] = small(rng);
          break;
        case ScanDistribution::permutation:
          break;  // handled by permutation()
      }
    }
  });
  return v;
}

}  // namespace

Result<std::vector<uint32_t>> make_scan_column(const ScanColumnOptions& o) {
  return detail::capture([&]() -> std::vector<uint32_t> {
    check_options(o);
    if (o.distribution == ScanDistribution::permutation) return permutation(o.rows, o.seed);
    return independent(o);
  });
}

Result<std::vector<std::vector<uint32_t>>> make_scan_table(const ScanColumnOptions& o,
                                                           uint32_t columns) {
  return detail::capture([&]() -> std::vector<std::vector<uint32_t>> {
    std::vector<std::vector<uint32_t>> table;
    for (uint32_t c = 0; c < columns; ++c) {
      ScanColumnOptions oc = o;
      oc.seed = o.seed + c;
      table.push_back(make_scan_column(oc).value());
    }
    return table;
  });
}

Result<std::vector<LtConstant>> lt_constants(std::span<const uint32_t> column,
                                             std::span<const double> selectivities) {
  return detail::capture([&]() -> std::vector<LtConstant> {
    for (double s : selectivities)
      if (!(s >= 0.0 && s <= 1.0))
        throw Error(Errc::invalid_argument, fmt::format("selectivity {} is not in [0, 1]", s));
    std::vector<uint32_t> sorted(column.begin(), column.end());
    detail::sort_keys_with_rows(sorted, static_cast<std::vector<uint32_t>*>(nullptr));
    const uint64_t n = sorted.size();
    std::vector<LtConstant> out;
    for (double s : selectivities) {
      auto k = static_cast<uint64_t>(std::llround(s * static_cast<double>(n)));
      k = std::min(k, n);
      LtConstant c{s, 0, 0};
      if (k < n)
        c.value = sorted[k];
      else if (n > 0)
        c.value = sorted[n - 1] == kMaxU32 ? sorted[n - 1] : sorted[n - 1] + 1;
      // Counted, not assumed: duplicates make `lt C` select fewer than k rows.
      c.selected = static_cast<uint64_t>(std::lower_bound(sorted.begin(), sorted.end(), c.value) -
                                         sorted.begin());
      out.push_back(c);
    }
    return out;
  });
}

Result<std::vector<LtConstant>> lt_constants_sweep(std::span<const uint32_t> column) {
  std::vector<double> s;
  for (int i = 0; i <= 10; ++i) s.push_back(i / 10.0);
  return lt_constants(column, s);
}

}  // namespace raydb::workload
