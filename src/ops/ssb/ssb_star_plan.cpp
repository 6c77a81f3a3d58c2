// StarPlan: what the two star-join baselines share on the host.
#include "ops/ssb/ssb_star_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace raydb::ssb::detail {

const std::vector<uint32_t>& dimension_keys(const FlatTable& flat, Dim d) {
  const SsbTables& t = *flat.tables;
  switch (d) {
    case Dim::date:
      return t.date.datekey;
    case Dim::customer:
      return t.customer.key;
    case Dim::supplier:
      return t.supplier.key;
    default:
      return t.part.partkey;
  }
}

std::vector<uint32_t> star_columns(const LineorderColumns& lo) {
  uint64_t n = lo.size();
  if (n * 9 >= (uint64_t{1} << 32))
    throw Error(Errc::limit_exceeded,
                fmt::format("{} lineorder rows exceed the baseline's 2^32 / 9", n));
  std::vector<uint32_t> cols;
  cols.reserve(n * 9);
  for (const auto* col : {&lo.orderdate, &lo.custkey, &lo.suppkey, &lo.partkey, &lo.quantity,
                          &lo.discount, &lo.extendedprice, &lo.revenue, &lo.supplycost})
    cols.insert(cols.end(), col->begin(), col->end());
  return cols;
}

StarPlan plan_star(const std::string& name, const FlatTable& flat) {
  StarPlan p;
  p.plan = plan_query(name, flat);
  const QueryPlan& plan = p.plan;
  p.stride.resize(plan.group.size());
  for (size_t i = plan.group.size(); i-- > 0;) {
    p.stride[i] = p.slots;
    p.slots *= flat.domain(plan.group[i]);
  }
  if (p.slots >= (uint64_t{1} << 28))
    throw Error(Errc::limit_exceeded, fmt::format("SSB Q{}: too many group slots", name));
  p.aggregate = plan.aggregate == Aggregate::extprice_times_discount ? 0
                : plan.aggregate == Aggregate::revenue               ? 1
                                                                     : 2;
  for (int d = 0; d < 4; ++d) {
    Dim dim = static_cast<Dim>(d);
    bool used = false;
    for (Attr a : plan.group) used = used || dim_of(a) == dim;
    for (const auto& f : plan.filters) used = used || dim_of(f.attr) == dim;
    if (!used) continue;
    const auto& k = dimension_keys(flat, dim);
    uint32_t lo = *std::min_element(k.begin(), k.end()), hi = *std::max_element(k.begin(), k.end());
    if (uint64_t{hi} - lo >= (uint64_t{1} << 28))
      throw Error(Errc::limit_exceeded,
                  fmt::format("SSB dimension keys span {} values: too wide for a perfect hash",
                              uint64_t{hi} - lo + 1));
    p.key_min[d] = lo;
    p.key_len[d] = hi - lo + 1;
  }
  // lineorder's own filters (Q1.x) as value ranges.
  for (const auto& f : plan.filters) {
    if (dim_of(f.attr) != Dim::lineorder) continue;
    uint32_t first = kStarNone, last = 0, count = 0;
    for (uint32_t code = 0; code < f.selected.size(); ++code)
      if (f.selected[code]) {
        uint32_t v = static_cast<uint32_t>(std::stoul(flat.value(f.attr, code)));
        first = std::min(first, v);
        last = std::max(last, v);
        ++count;
      }
    if (count == 0) first = 1, last = 0;  // nothing passes
    uint32_t& lo = f.attr == Attr::lo_discount ? p.disc_lo : p.qty_lo;
    uint32_t& hi = f.attr == Attr::lo_discount ? p.disc_hi : p.qty_hi;
    lo = first;
    hi = last;
  }
  return p;
}

uint32_t star_share(const StarPlan& p, const FlatTable& flat, Dim d, uint32_t row) {
  for (const auto& f : p.plan.filters)
    if (dim_of(f.attr) == d && !f.selected[flat.codes[size_t(f.attr)][row]]) return kStarNone;
  uint64_t share = 0;
  for (size_t i = 0; i < p.plan.group.size(); ++i)
    if (dim_of(p.plan.group[i]) == d)
      share += flat.codes[size_t(p.plan.group[i])][row] * p.stride[i];
  return static_cast<uint32_t>(share);
}

ResultTable finish_star(const StarPlan& p, const FlatTable& flat, const std::vector<int64_t>& sums,
                        const std::vector<uint32_t>& counts) {
  // Every slot's tuple, so the RT engine's final ORDER BY and decoding apply unchanged.
  EncodedQuery slots;
  slots.group_tuples.resize(p.slots);
  for (uint64_t g = 0; g < p.slots; ++g) {
    std::vector<uint32_t> tuple(p.plan.group.size());
    for (size_t i = 0; i < p.plan.group.size(); ++i)
      tuple[i] = static_cast<uint32_t>(g / p.stride[i] % flat.domain(p.plan.group[i]));
    slots.group_tuples[g] = std::move(tuple);
  }
  return finish_query(p.plan, flat, slots, sums, counts);
}

}  // namespace raydb::ssb::detail
