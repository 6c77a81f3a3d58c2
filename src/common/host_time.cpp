#include "common/host_time.hpp"

#include <atomic>

namespace raydb {
namespace detail {
namespace {

constexpr int kPhases = 5;
std::atomic<uint64_t> phase_ns[kPhases];
std::atomic<uint64_t> allocation_count{0};
thread_local bool scope_open = false;
thread_local bool excluded = false;

}  // namespace

void exclude_thread_from_host_time() {
  excluded = true;
}

HostPhaseScope::HostPhaseScope(HostPhase phase)
    : phase_(phase),
      outermost_(!scope_open && !excluded),
      start_(std::chrono::steady_clock::now()) {
  scope_open = true;
}

HostPhaseScope::~HostPhaseScope() {
  if (!outermost_) return;
  scope_open = false;
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start_)
                      .count();
  phase_ns[static_cast<int>(phase_)].fetch_add(static_cast<uint64_t>(ns),
                                               std::memory_order_relaxed);
  if (phase_ == HostPhase::allocate) allocation_count.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace detail

HostTimeBreakdown host_time_breakdown() {
  auto ms = [](detail::HostPhase p) {
    return static_cast<double>(
               detail::phase_ns[static_cast<int>(p)].load(std::memory_order_relaxed)) *
           1e-6;
  };
  using detail::HostPhase;
  HostTimeBreakdown b;
  b.allocate_ms = ms(HostPhase::allocate);
  b.release_ms = ms(HostPhase::release);
  b.pipeline_ms = ms(HostPhase::pipeline);
  b.wait_ms = ms(HostPhase::wait);
  b.copy_ms = ms(HostPhase::copy);
  b.allocations = detail::allocation_count.load(std::memory_order_relaxed);
  return b;
}

}  // namespace raydb
