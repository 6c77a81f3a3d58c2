// A cgRX index as the cgRX join (src/ops/join/cgrx_join.cpp) sees it: lookups that name each key's
// run of records, and the records themselves, so that the join writes a key's pairs by copying its
// run instead of casting rays again. Valid while the CgrxIndex lives and is not rebuilt.
#pragma once

#include <cstdint>
#include <span>

#include "ops/cgrx/optix/cgrx_optix.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/cgrx_index.hpp"

namespace raydb::detail {

// Point lookups as CgrxIndex::lookup (count and value sum per key, last_stats() updated), except
// that a hit's first_row is the position in the index's records (key order,
// shaders/common/records.glsl) of the key's first record: its rows are the records
// [first_row, first_row + count). Misses stay (kMissRow, 0, 0). Refused while a diagnostic is set.
Status cgrx_lookup_runs(CgrxIndex& index, KeySpan points, std::span<RxLookup> out);
// The same through the index's OptiX twin (the same records, so the same run positions);
// declared in ops/cgrx/optix/cgrx_optix.hpp, defined in src/ops/cgrx/optix/cgrx_optix.cpp.

// Both twins' run lookups: CGRX_FLAG_RUN_START set around one lookup of points. `Impl` has
// `diagnostic` and `run_starts` and takes lookup_into (ops/common/lookup_batch.hpp).
template <class Impl>
Status lookup_run_starts(Impl& impl, KeySpan points, std::span<RxLookup> out) {
  if (impl.diagnostic != RxDiagnostic::none)
    return Error(Errc::invalid_argument, "run lookups need a cgRX index without a diagnostic");
  impl.run_starts = true;
  Status s = lookup_into(impl, QueryBatch::points(points), out);
  impl.run_starts = false;
  return s;
}

// The device address of the index's records; 0 for an empty index.
uint64_t cgrx_records_address(CgrxIndex& index);

}  // namespace raydb::detail
