// Column data and the reference bitmap shared by the scan-index tests (DP-BIS, CpuBinDex).
#pragma once

#include <random>
#include <span>
#include <utility>
#include <vector>

#include "raydb/dpbis.hpp"
#include "raydb/scan.hpp"

namespace raydb::test {

// kind 0: uniform 32-bit; 1: one value in 40% of rows; 2: small range 2^6; 3: the edges 0 and
// 2^32 - 1 in most rows.
inline std::vector<uint32_t> column(std::mt19937_64& rng, size_t rows, int kind) {
  std::vector<uint32_t> c(rows);
  for (auto& v : c) {
    switch (kind) {
      case 0:
        v = static_cast<uint32_t>(rng());
        break;  // uniform 32-bit
      case 1:
        v = rng() % 10 < 4 ? 7u : static_cast<uint32_t>(rng() % 1000);
        break;  // one value in 40%
      case 2:
        v = static_cast<uint32_t>(rng() % 64);
        break;  // small range 2^6
      default:
        v = rng() % 3 == 0 ? 0xFFFFFFFFu
                           : (rng() % 2 ? 0u : static_cast<uint32_t>(rng()));  // edges
    }
  }
  return c;
}

inline std::vector<uint32_t> reference(const std::vector<std::span<const uint32_t>>& cols,
                                       const std::vector<Predicate>& preds, Combine combine,
                                       uint64_t rows) {
  if (combine == Combine::all) return full_scan_reference(cols, preds);
  std::vector<uint32_t> out((rows + 31) / 32, 0);
  for (const Predicate& p : preds) {
    auto one = full_scan_reference(cols, std::vector<Predicate>{p});
    for (size_t i = 0; i < out.size(); ++i) out[i] |= one[i];
  }
  return out;
}

// A random predicate of any operator on `column` (its index `index`), its constants from the
// column's values, one off by one, or anywhere in uint32; a BETWEEN is left reversed (empty) one
// time in four.
inline Predicate random_column_predicate(std::mt19937_64& rng, const std::vector<uint32_t>& column,
                                         uint32_t index) {
  Predicate p;
  p.column = index;
  p.op = static_cast<CompareOp>(rng() % 6);
  auto constant = [&]() -> uint32_t {
    uint32_t v = column[rng() % column.size()];
    switch (rng() % 6) {
      case 0:
        return v + 1;
      case 1:
        return v - 1;
      case 2:
        return static_cast<uint32_t>(rng());
      default:
        return v;
    }
  };
  p.value = constant();
  p.value2 = constant();
  if (p.op == CompareOp::between && p.value > p.value2 && rng() % 4) std::swap(p.value, p.value2);
  return p;
}

}  // namespace raydb::test
