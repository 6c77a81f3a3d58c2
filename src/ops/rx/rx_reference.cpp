#include "raydb/rx_reference.hpp"

#include <algorithm>

#include "common/key_sort.hpp"

namespace raydb {

using detail::parallel_for;

RxReference::RxReference(KeySpan keys, std::span<const uint32_t> values) {
  keys_.resize(keys.size);
  rows_.resize(keys.size);
  for (size_t i = 0; i < keys.size; ++i) {
    keys_[i] = keys[i];
    rows_[i] = static_cast<uint32_t>(i);
  }
  detail::sort_keys_with_rows(keys_, &rows_);
  prefix_sum_.assign(keys_.size() + 1, 0);
  for (size_t i = 0; i < keys_.size(); ++i)
    prefix_sum_[i + 1] = prefix_sum_[i] + (values.empty() ? 0 : values[rows_[i]]);
}

RxLookup RxReference::range(uint64_t lo, uint64_t hi) const {
  RxLookup r;
  if (lo > hi) return r;
  auto b = std::lower_bound(keys_.begin(), keys_.end(), lo) - keys_.begin();
  auto e = std::upper_bound(keys_.begin() + b, keys_.end(), hi) - keys_.begin();
  r.count = static_cast<uint32_t>(e - b);
  r.sum = prefix_sum_[e] - prefix_sum_[b];
  for (auto i = b; i < e; ++i) r.first_row = std::min(r.first_row, rows_[i]);
  return r;
}

std::vector<RxLookup> RxReference::lookup(KeySpan points) const {
  std::vector<RxLookup> out(points.size);
  parallel_for(points.size, [&](size_t i) { out[i] = range(points[i], points[i]); });
  return out;
}

std::vector<RxLookup> RxReference::lookup_ranges(RangeSpan ranges) const {
  std::vector<RxLookup> out(ranges.size);
  parallel_for(ranges.size, [&](size_t i) { out[i] = range(ranges.lo(i), ranges.hi(i)); });
  return out;
}

void RxReference::append_rows(uint32_t query, uint64_t lo, uint64_t hi,
                              std::vector<RxRowMatch>& out) const {
  auto b = std::lower_bound(keys_.begin(), keys_.end(), lo) - keys_.begin();
  auto e = std::upper_bound(keys_.begin() + b, keys_.end(), hi) - keys_.begin();
  for (auto i = b; i < e; ++i) out.push_back({query, rows_[i]});
}

std::vector<RxRowMatch> RxReference::collect_rows(KeySpan points) const {
  std::vector<RxRowMatch> out;
  for (size_t q = 0; q < points.size; ++q)
    append_rows(static_cast<uint32_t>(q), points[q], points[q], out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RxRowMatch> RxReference::collect_rows(RangeSpan ranges) const {
  std::vector<RxRowMatch> out;
  for (size_t q = 0; q < ranges.size; ++q)
    if (ranges.lo(q) <= ranges.hi(q))
      append_rows(static_cast<uint32_t>(q), ranges.lo(q), ranges.hi(q), out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace raydb
