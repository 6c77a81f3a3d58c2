// Stable LSD radix sort of keys with their row ids, on the host. Used for the key-order primitive
// layout and by the CPU reference. Equal keys keep ascending row ids.
#pragma once

#include <cstdint>
#include <vector>

namespace raydb::detail {

template <class Key>
void sort_keys_with_rows(std::vector<Key>& keys, std::vector<uint32_t>& rows) {
  constexpr int kDigitBits = 16;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  const size_t n = keys.size();
  std::vector<Key> keys_tmp(n);
  std::vector<uint32_t> rows_tmp(n);
  std::vector<size_t> count(kBuckets);
  for (int shift = 0; shift < static_cast<int>(sizeof(Key) * 8); shift += kDigitBits) {
    std::fill(count.begin(), count.end(), 0);
    for (size_t i = 0; i < n; ++i) ++count[(keys[i] >> shift) & (kBuckets - 1)];
    bool one_bucket = false;
    for (size_t b = 0; b < kBuckets; ++b)
      if (count[b] == n) one_bucket = true;
    if (one_bucket) continue;  // this digit is the same everywhere: the pass would change nothing
    size_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      size_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) {
      size_t dst = count[(keys[i] >> shift) & (kBuckets - 1)]++;
      keys_tmp[dst] = keys[i];
      rows_tmp[dst] = rows[i];
    }
    keys.swap(keys_tmp);
    rows.swap(rows_tmp);
  }
}

}  // namespace raydb::detail
