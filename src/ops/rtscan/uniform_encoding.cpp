#include "raydb/uniform_encoding.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/capture.hpp"
#include "common/key_sort.hpp"
#include "common/parallel.hpp"

namespace raydb::rtscan {

Result<EncodedColumn> EncodedColumn::encode(std::span<const uint32_t> column) {
  return detail::capture([&]() -> EncodedColumn {
    if (column.size() > 0xFFFFFFFEull)
      throw Error(Errc::invalid_argument,
                  fmt::format("a column of {} rows is too long to encode (at most 2^32 - 2)",
                              column.size()));
    const size_t n = column.size();
    std::vector<uint32_t> keys(column.begin(), column.end());
    std::vector<uint32_t> rows(n);
    std::iota(rows.begin(), rows.end(), uint32_t{0});
    // The radix sort is stable and rows start ascending: equal values stay in row order, which
    // is what makes their consecutive codes "stable by row".
    detail::sort_keys_with_rows(keys, &rows);
    EncodedColumn e = from_sorted_values(keys).value();
    e.codes_.resize(n);
    detail::parallel_for(n, [&](size_t i) { e.codes_[rows[i]] = static_cast<uint32_t>(i + 1); });
    return e;
  });
}

Result<EncodedColumn> EncodedColumn::from_sorted_values(std::span<const uint32_t> sorted) {
  return detail::capture([&]() -> EncodedColumn {
    if (sorted.size() > 0xFFFFFFFEull)
      throw Error(Errc::invalid_argument,
                  fmt::format("a column of {} rows is too long to encode (at most 2^32 - 2)",
                              sorted.size()));
    EncodedColumn e;
    e.rows_ = sorted.size();
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i > 0 && sorted[i] < sorted[i - 1])
        throw Error(Errc::invalid_argument, "from_sorted_values needs values in ascending order");
      if (i == 0 || sorted[i] != sorted[i - 1]) {
        e.values_.push_back(sorted[i]);
        e.lo_codes_.push_back(static_cast<uint32_t>(i + 1));
      }
    }
    return e;
  });
}

Result<EncodedColumn> EncodedColumn::from_table(uint64_t rows, std::vector<uint32_t> values,
                                                std::vector<uint32_t> lo_codes) {
  if (rows > 0xFFFFFFFEull)
    return Error(Errc::invalid_argument,
                 fmt::format("a column of {} rows is too long to encode (at most 2^32 - 2)", rows));
  if (values.size() != lo_codes.size())
    return Error(Errc::invalid_argument, fmt::format("mapping table with {} values but {} codes",
                                                     values.size(), lo_codes.size()));
  if ((rows == 0) != values.empty() || values.size() > rows)
    return Error(Errc::invalid_argument,
                 fmt::format("mapping table of {} values for {} rows", values.size(), rows));
  if (rows > 0 && (lo_codes.front() != 1 || lo_codes.back() > rows))
    return Error(Errc::invalid_argument,
                 fmt::format("mapping table codes must start at 1 and end by {} (got {} .. {})",
                             rows, lo_codes.front(), lo_codes.back()));
  EncodedColumn e;
  e.rows_ = rows;
  e.values_ = std::move(values);
  e.lo_codes_ = std::move(lo_codes);
  return e;
}

std::optional<CodeRange> EncodedColumn::codes_of(uint32_t value) const {
  auto it = std::lower_bound(values_.begin(), values_.end(), value);
  if (it == values_.end() || *it != value) return std::nullopt;
  size_t i = static_cast<size_t>(it - values_.begin());
  uint32_t hi = i + 1 < lo_codes_.size() ? lo_codes_[i + 1] - 1 : static_cast<uint32_t>(rows());
  return CodeRange{lo_codes_[i], hi};
}

uint64_t EncodedColumn::count_less(uint32_t value) const {
  auto it = std::lower_bound(values_.begin(), values_.end(), value);
  return it == values_.end() ? rows() : lo_codes_[it - values_.begin()] - 1;
}

uint64_t EncodedColumn::count_less_equal(uint32_t value) const {
  auto it = std::upper_bound(values_.begin(), values_.end(), value);
  return it == values_.end() ? rows() : lo_codes_[it - values_.begin()] - 1;
}

Predicate EncodedColumn::rewrite(const Predicate& p) const {
  // Every count is <= rows() <= 2^32 - 2, so count + 1 fits uint32.
  auto u32 = [](uint64_t x) { return static_cast<uint32_t>(x); };
  Predicate q = p;
  switch (p.op) {
    case CompareOp::lt:
      q.value = u32(count_less(p.value) + 1);
      break;
    case CompareOp::le:
      q.value = u32(count_less_equal(p.value));
      break;
    case CompareOp::gt:
      q.value = u32(count_less_equal(p.value));
      break;
    case CompareOp::ge:
      q.value = u32(count_less(p.value) + 1);
      break;
    case CompareOp::eq:
      if (auto r = codes_of(p.value)) {
        q.op = r->lo == r->hi ? CompareOp::eq : CompareOp::between;
        q.value = r->lo;
        q.value2 = r->hi;
      } else {
        q.value = 0;
      }
      break;
    case CompareOp::between:
      // An empty value range stays empty: keep value > value2 rather than compute a range from
      // bounds that cross.
      if (p.value > p.value2) break;
      q.value = u32(count_less(p.value) + 1);
      q.value2 = u32(count_less_equal(p.value2));
      break;
  }
  return q;
}

Result<std::vector<EncodedColumn>> encode_columns(
    std::span<const std::span<const uint32_t>> columns) {
  return detail::capture([&]() -> std::vector<EncodedColumn> {
    std::vector<EncodedColumn> out;
    for (auto c : columns) out.push_back(EncodedColumn::encode(c).value());
    return out;
  });
}

Result<std::vector<Predicate>> rewrite_predicates(std::span<const EncodedColumn> encoded,
                                                  std::span<const Predicate> predicates) {
  std::vector<Predicate> out;
  for (const Predicate& p : predicates) {
    if (p.column >= encoded.size())
      return Error(Errc::invalid_argument,
                   fmt::format("predicate on column {} but only {} columns are encoded", p.column,
                               encoded.size()));
    out.push_back(encoded[p.column].rewrite(p));
  }
  return out;
}

}  // namespace raydb::rtscan
