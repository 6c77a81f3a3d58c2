// Threads kept for the host's parallel passes that recur many times a call: a pipelined lookup
// call copies through its slots once per chunk, and starting and joining a thread for each share
// of each pass cost more than the copy of a small chunk (docs/e2e.md).
#pragma once

#include <cstdint>
#include <functional>

namespace raydb::detail {

class WorkerPool {
 public:
  // One pool for the process: min(host_threads(), 16) - 1 workers, started on first use and
  // never stopped (they sleep between passes).
  static WorkerPool& shared();

  // The threads that can take part in a pass: the workers and the calling thread.
  unsigned size() const { return workers_ + 1; }

  // Runs block(b) once for every b in [0, blocks) and returns once all have returned. The caller
  // and every worker that wakes in time take blocks in turn, so that a worker the OS runs late (a
  // VM's vCPU, a core shared with the driver) costs the pass its blocks, not a wait for it.
  // One pass runs at a time: while another thread's pass runs, this returns false at once and
  // runs nothing, so that the caller can do the work elsewhere. `block` must not throw.
  bool try_run(uint32_t blocks, const std::function<void(uint32_t)>& block);

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

 private:
  explicit WorkerPool(unsigned workers);
  struct State;
  State* state_;  // never freed, as the pool itself: workers may still sleep on it at exit
  unsigned workers_;
};

}  // namespace raydb::detail
