// The scopes behind raydb::host_time_breakdown (raydb/host_time.hpp).
#pragma once

#include <chrono>

#include "raydb/host_time.hpp"

namespace raydb::detail {

// For a worker thread whose work overlaps the calls (ReleaseQueue): its scopes count nothing.
void exclude_thread_from_host_time();

enum class HostPhase { allocate, release, pipeline, wait, copy };

// Adds the scope's wall clock to `phase` unless another scope is already open on this thread.
class HostPhaseScope {
 public:
  explicit HostPhaseScope(HostPhase phase);
  ~HostPhaseScope();
  HostPhaseScope(const HostPhaseScope&) = delete;
  HostPhaseScope& operator=(const HostPhaseScope&) = delete;

 private:
  HostPhase phase_;
  bool outermost_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace raydb::detail
