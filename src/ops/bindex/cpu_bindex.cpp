// CpuBinDex: sorting, bins and sieving vectors built with all host threads; selections read two
// vectors per predicate word-parallel and refine the boundary bins from the sorted values.
#include "raydb/cpu_bindex.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "common/capture.hpp"
#include "common/parallel.hpp"

namespace raydb {
namespace detail {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Sorts (value << 32 | row) keys: slices sorted on their own threads, then merged pairwise, each
// round's merges in parallel.
void parallel_sort(std::vector<uint64_t>& v, unsigned threads) {
  size_t n = v.size();
  unsigned parts = n < (1u << 16) ? 1u : threads;
  size_t per = (n + parts - 1) / std::max(1u, parts);
  parallel_slices(n, parts,
                  [&](size_t b, size_t e, unsigned) { std::sort(v.begin() + b, v.begin() + e); });
  for (size_t width = per; width < n; width *= 2) {
    size_t pairs = (n + 2 * width - 1) / (2 * width);
    parallel_slices(pairs, std::min<unsigned>(threads, static_cast<unsigned>(pairs)),
                    [&](size_t pb, size_t pe, unsigned) {
                      for (size_t p = pb; p < pe; ++p) {
                        size_t b = p * 2 * width, m = std::min(n, b + width),
                               e = std::min(n, b + 2 * width);
                        std::inplace_merge(v.begin() + b, v.begin() + m, v.begin() + e);
                      }
                    });
  }
}

}  // namespace

struct CpuBinDexColumn {
  std::vector<uint32_t> bin_min;    // smallest value of each bin, ascending
  std::vector<uint64_t> bin_start;  // first sorted position of each bin; bins + 1 entries
  std::vector<uint32_t> values;     // sorted
  std::vector<uint32_t> rows;       // row id of each sorted value
  // vectors[(k - 1) * words + w]: word w of vector k (rows whose bin is below k), k in [1, bins).
  std::vector<uint32_t> vectors;

  uint32_t bins() const { return static_cast<uint32_t>(bin_min.size()); }
  // The bin whose values would hold v, or -1 when v is below every value.
  int64_t bin_of(uint32_t v) const {
    return (std::upper_bound(bin_min.begin(), bin_min.end(), v) - bin_min.begin()) - 1;
  }
};

struct CpuBinDexImpl {
  CpuBinDexOptions options;
  uint64_t rows = 0;
  uint64_t words = 0;
  uint32_t tail_mask = 0xFFFFFFFFu;  // valid bits of the last word
  std::vector<CpuBinDexColumn> columns;
  CpuBinDexBuildStats stats;

  unsigned threads() const { return options.threads ? options.threads : host_threads(); }

  void build_column(std::span<const uint32_t> in, CpuBinDexColumn& c) {
    std::vector<uint64_t> packed(rows);
    parallel_slices(rows, threads(), [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i) packed[i] = uint64_t{in[i]} << 32 | i;
    });
    parallel_sort(packed, threads());
    c.values.resize(rows);
    c.rows.resize(rows);
    parallel_slices(rows, threads(), [&](size_t b, size_t e, unsigned) {
      for (size_t i = b; i < e; ++i) {
        c.values[i] = static_cast<uint32_t>(packed[i] >> 32);
        c.rows[i] = static_cast<uint32_t>(packed[i]);
      }
    });
    packed = {};

    // Equal-depth cuts, each moved forward past a run of equal values, so that a value's rows
    // are all in one bin and bin_of() is exact.
    uint64_t depth = std::max<uint64_t>(1, (rows + options.bins - 1) / options.bins);
    for (uint64_t start = 0; start < rows;) {
      c.bin_start.push_back(start);
      c.bin_min.push_back(c.values[start]);
      uint64_t end = std::min(rows, start + depth);
      while (end < rows && c.values[end] == c.values[end - 1]) ++end;
      start = end;
    }
    c.bin_start.push_back(rows);

    // Vector words: per 32 rows, the bins present, swept in bin order so vector k collects the
    // rows of bins below k.
    uint32_t nb = c.bins();
    c.vectors.assign(static_cast<size_t>(nb > 0 ? nb - 1 : 0) * words, 0);
    parallel_slices(words, threads(), [&](size_t wb, size_t we, unsigned) {
      std::vector<std::pair<uint32_t, uint32_t>> bin_bit(32);  // (bin, bit)
      for (size_t w = wb; w < we; ++w) {
        size_t count = 0;
        for (uint64_t r = w * 32; r < std::min<uint64_t>(rows, w * 32 + 32); ++r)
          bin_bit[count++] = {static_cast<uint32_t>(c.bin_of(in[r])), 1u << (r % 32)};
        std::sort(bin_bit.begin(), bin_bit.begin() + static_cast<ptrdiff_t>(count));
        uint32_t acc = 0;
        size_t i = 0;
        for (uint32_t k = 1; k < nb; ++k) {
          while (i < count && bin_bit[i].first < k) acc |= bin_bit[i++].second;
          c.vectors[(k - 1) * words + w] = acc;
        }
      }
    });
  }

  // Word w of vector k, with vector 0 empty and vector `bins` every row.
  uint32_t vector_word(const CpuBinDexColumn& c, int64_t k, uint64_t w) const {
    if (k <= 0) return 0;
    if (k >= c.bins()) return w + 1 == words ? tail_mask : 0xFFFFFFFFu;
    return c.vectors[static_cast<uint64_t>(k - 1) * words + w];
  }

  // One predicate's rows into `out` (overwritten).
  uint64_t select_one(const Predicate& p, std::vector<uint32_t>& out) const {
    std::fill(out.begin(), out.end(), 0u);
    auto in = accepted_interval(p);
    const CpuBinDexColumn& c = columns[p.column];
    if (!in || rows == 0) return 0;
    int64_t lo = c.bin_of(in->first), hi = c.bin_of(in->second);
    if (hi < 0) return 0;  // every value is above the interval
    // Bins lo + 1 .. hi - 1 lie wholly inside [a, b]: rows with bin < hi and not bin < lo + 1.
    if (hi > lo + 1)
      parallel_slices(words, threads(), [&](size_t b, size_t e, unsigned) {
        for (size_t w = b; w < e; ++w) out[w] = vector_word(c, hi, w) & ~vector_word(c, lo + 1, w);
      });
    uint64_t candidates = 0;
    // The boundary bins (one when a and b share a bin), exactly from the sorted values.
    const int64_t boundary[2] = {lo, hi};
    for (int i = 0; i < (lo == hi ? 1 : 2); ++i) {
      int64_t bin = boundary[i];
      if (bin < 0) continue;  // a lies below every value: nothing to refine at the low end
      auto first = c.values.begin() + static_cast<ptrdiff_t>(c.bin_start[bin]);
      auto last = c.values.begin() + static_cast<ptrdiff_t>(c.bin_start[bin + 1]);
      candidates += static_cast<uint64_t>(last - first);
      for (auto it = std::lower_bound(first, last, in->first); it != last && *it <= in->second;
           ++it) {
        uint32_t row = c.rows[static_cast<size_t>(it - c.values.begin())];
        out[row / 32] |= 1u << (row % 32);
      }
    }
    return candidates;
  }
};

}  // namespace detail

using detail::CpuBinDexImpl;

CpuBinDex::CpuBinDex(std::unique_ptr<CpuBinDexImpl> impl) : impl_(std::move(impl)) {}
CpuBinDex::CpuBinDex(CpuBinDex&&) noexcept = default;
CpuBinDex& CpuBinDex::operator=(CpuBinDex&&) noexcept = default;
CpuBinDex::~CpuBinDex() = default;

Result<CpuBinDex> CpuBinDex::build(std::span<const std::span<const uint32_t>> columns,
                                   const CpuBinDexOptions& options) {
  return detail::capture([&]() -> CpuBinDex {
    if (options.bins < 2 || options.bins > 4096)
      throw Error(Errc::invalid_argument,
                  fmt::format("CpuBinDex: bins = {} (2 to 4096 allowed)", options.bins));
    auto impl = std::make_unique<CpuBinDexImpl>();
    impl->options = options;
    impl->rows = columns.empty() ? 0 : columns[0].size();
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i].size() != impl->rows)
        throw Error(Errc::invalid_argument,
                    fmt::format("CpuBinDex: column {} has {} rows, column 0 has {}", i,
                                columns[i].size(), impl->rows));
    if (impl->rows >= (uint64_t{1} << 32))
      throw Error(
          Errc::invalid_argument,
          fmt::format("CpuBinDex: {} rows (row ids are 32-bit: at most 2^32 - 1)", impl->rows));
    impl->words = (impl->rows + 31) / 32;
    if (impl->rows % 32) impl->tail_mask = (1u << (impl->rows % 32)) - 1u;
    auto t0 = std::chrono::steady_clock::now();
    impl->columns.resize(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      auto& c = impl->columns[i];
      impl->build_column(columns[i], c);
      impl->stats.bins_used.push_back(c.bins());
      impl->stats.index_bytes += c.vectors.size() * 4 + impl->rows * 8;
    }
    impl->stats.build_ms = detail::ms_since(t0);
    return CpuBinDex(std::move(impl));
  });
}

Result<std::vector<uint32_t>> CpuBinDex::select(std::span<const Predicate> predicates,
                                                Combine combine, CpuBinDexQueryStats* stats) const {
  return detail::capture([&]() -> std::vector<uint32_t> {
    const CpuBinDexImpl& d = *impl_;
    for (const Predicate& p : predicates)
      if (p.column >= d.columns.size())
        throw Error(Errc::invalid_argument,
                    fmt::format("predicate on column {}; the index has {} columns", p.column,
                                d.columns.size()));
    auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> result(d.words, 0u);
    if (predicates.empty() && combine == Combine::all && d.words > 0) {
      std::fill(result.begin(), result.end(), 0xFFFFFFFFu);
      result.back() = d.tail_mask;
    }
    uint64_t candidates = 0;
    std::vector<uint32_t> one(d.words);
    for (size_t i = 0; i < predicates.size(); ++i) {
      candidates += d.select_one(predicates[i], i == 0 ? result : one);
      if (i == 0) continue;
      detail::parallel_slices(d.words, d.threads(), [&](size_t b, size_t e, unsigned) {
        for (size_t w = b; w < e; ++w)
          result[w] = combine == Combine::all ? result[w] & one[w] : result[w] | one[w];
      });
    }
    if (stats) *stats = {detail::ms_since(t0), candidates};
    return result;
  });
}

uint64_t CpuBinDex::rows() const {
  return impl_->rows;
}
uint32_t CpuBinDex::columns() const {
  return static_cast<uint32_t>(impl_->columns.size());
}
const CpuBinDexBuildStats& CpuBinDex::build_stats() const {
  return impl_->stats;
}

}  // namespace raydb
