// Where raydb's calls spend host time: a process-wide breakdown for profiling end-to-end calls
// (docs/e2e.md). A call's wall clock minus its GPU time is host work that no GPU statistic
// shows; the difference of two snapshots taken around a call says which kind it was.
#pragma once

#include <cstdint>

namespace raydb {

/// Host wall-clock time spent inside each kind of backend work, in milliseconds, summed over
/// every context and thread of the process since it started. Only the outermost kind on a thread
/// counts (a wait inside an allocation is allocation time), so the kinds never overlap on one
/// thread; what a call spends outside them (validation, recording, layout on the host) is its
/// wall clock minus their sum.
struct HostTimeBreakdown {
  double allocate_ms = 0;  ///< device, staging and pinned memory made, CUDA-shared memory imported
  double release_ms = 0;   ///< that memory freed
  double pipeline_ms = 0;  ///< compute and ray-tracing pipelines created
  double wait_ms = 0;      ///< the host blocked on the GPU: fences, queue idles, CUDA syncs
  double copy_ms = 0;      ///< host-to-host copies into and out of staging
  uint64_t allocations = 0;  ///< how many allocations (outermost scopes) allocate_ms holds

  /// The five kinds together, in ms: at most the wall clock of the calls they were taken around.
  double sum_ms() const { return allocate_ms + release_ms + pipeline_ms + wait_ms + copy_ms; }
  /// What was spent between two snapshots (`after - before`).
  HostTimeBreakdown operator-(const HostTimeBreakdown& before) const {
    return {allocate_ms - before.allocate_ms, release_ms - before.release_ms,
            pipeline_ms - before.pipeline_ms, wait_ms - before.wait_ms,
            copy_ms - before.copy_ms,         allocations - before.allocations};
  }
};

/// The totals so far. Thread-safe; a few atomic loads.
HostTimeBreakdown host_time_breakdown();

}  // namespace raydb
