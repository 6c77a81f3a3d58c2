// Recording a batch of queries in slices: a dispatch or trace takes at most a device-given number
// of invocations (ComputePipeline::max_items, RtPipeline::max_width), so every index records its
// lookups as consecutive slices that share one push-constant block.
#pragma once

#include <algorithm>
#include <cstdint>

namespace raydb::detail {

// Calls record(p) once per slice of at most `slice` of the `count` queries, with p.query_offset
// (the first query, also the first result) and p.num_queries set for that slice.
template <class Params, class Record>
void record_in_slices(Params& p, uint64_t count, uint64_t slice, Record&& record) {
  for (uint64_t first = 0; first < count; first += slice) {
    p.query_offset = static_cast<uint32_t>(first);
    p.num_queries = static_cast<uint32_t>(std::min(slice, count - first));
    record(p);
  }
}

}  // namespace raydb::detail
