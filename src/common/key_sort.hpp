// Stable LSD radix sort of keys (with optional 32-bit payloads) on the host, on all hardware
// threads: the CPU reference's sort and the sorted-probe generator. Equal keys keep their order.
#pragma once

#include <cstdint>
#include <vector>

#include "common/parallel.hpp"

namespace raydb::detail {

// Sorts `keys` ascending; when `rows` is not null it is permuted along (same size as keys).
template <class Key>
void sort_keys_with_rows(std::vector<Key>& keys, std::vector<uint32_t>* rows) {
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  const size_t n = keys.size();
  const unsigned parts = n < (1u << 16) ? 1 : host_threads();
  std::vector<Key> keys_tmp(n);
  std::vector<uint32_t> rows_tmp(rows ? n : 0);
  std::vector<size_t> count(parts * kBuckets);
  for (int shift = 0; shift < static_cast<int>(sizeof(Key) * 8); shift += kDigitBits) {
    std::fill(count.begin(), count.end(), 0);
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      size_t* c = &count[t * kBuckets];
      for (size_t i = b; i < e; ++i) ++c[(keys[i] >> shift) & (kBuckets - 1)];
    });
    // Offsets digit-major, then slice by slice: equal digits keep their input order (stable).
    size_t sum = 0;
    bool one_bucket = false;
    for (size_t d = 0; d < kBuckets; ++d) {
      size_t digit_total = 0;
      for (unsigned t = 0; t < parts; ++t) {
        size_t c = count[t * kBuckets + d];
        count[t * kBuckets + d] = sum;
        sum += c;
        digit_total += c;
      }
      if (digit_total == n) one_bucket = true;
    }
    if (one_bucket) continue;  // every key has this digit: the pass would change nothing
    parallel_slices(n, parts, [&](size_t b, size_t e, unsigned t) {
      size_t* c = &count[t * kBuckets];
      for (size_t i = b; i < e; ++i) {
        size_t dst = c[(keys[i] >> shift) & (kBuckets - 1)]++;
        keys_tmp[dst] = keys[i];
        if (rows) rows_tmp[dst] = (*rows)[i];
      }
    });
    keys.swap(keys_tmp);
    if (rows) rows->swap(rows_tmp);
  }
}

}  // namespace raydb::detail
