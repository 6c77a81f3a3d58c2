// The host half of both star-join baselines (the Vulkan kernel and the CUDA one in Crystal's
// style): a query's group slots (mixed radix over its group-by columns, every combination has a
// slot), the dimensions it joins with their key ranges (the perfect hash is key - min key, SSB
// keys being dense), lineorder's own filters as value ranges, and the result table from the
// per-slot sums and counts.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/ssb/ssb_encoding.hpp"

namespace raydb::ssb::detail {

inline constexpr uint32_t kStarNone = std::numeric_limits<uint32_t>::max();

struct StarPlan {
  QueryPlan plan;
  uint64_t slots = 1;            // group slots
  std::vector<uint64_t> stride;  // per group-by column: its code's weight in the slot
  // Per dimension (date, customer, supplier, part): joined (a filter or group column on it), and
  // then its key range; key_len 0 where not joined.
  std::array<uint32_t, 4> key_min{}, key_len{};
  uint32_t aggregate = 0;  // 0: extendedprice * discount, 1: revenue, 2: revenue - supplycost
  uint32_t disc_lo = 0, disc_hi = kStarNone, qty_lo = 0, qty_hi = kStarNone;  // inclusive
};

// The keys of a dimension (date, customer, supplier or part), in row order.
const std::vector<uint32_t>& dimension_keys(const FlatTable& flat, Dim d);

// lineorder's columns one after the other (column-major, n rows each), as both kernels read them:
// orderdate, custkey, suppkey, partkey (the dimension order), quantity, discount, extendedprice,
// revenue, supplycost. Errc::limit_exceeded past 2^32 / 9 rows (32-bit word offsets).
std::vector<uint32_t> star_columns(const LineorderColumns& lo);

// Errc::limit_exceeded where the slots reach 2^28 or a joined dimension's keys span 2^28 values.
StarPlan plan_star(const std::string& canonical_name, const FlatTable& flat);

// Dimension row `row` of `d`: kStarNone when it fails the query's filters on `d`, else its share
// of the group slot (the host build of the perfect-hash table's entry).
uint32_t star_share(const StarPlan& p, const FlatTable& flat, Dim d, uint32_t row);

// The result from per-slot sums and counts (slots entries each).
ResultTable finish_star(const StarPlan& p, const FlatTable& flat, const std::vector<int64_t>& sums,
                        const std::vector<uint32_t>& counts);

}  // namespace raydb::ssb::detail
