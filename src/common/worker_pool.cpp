#include "common/worker_pool.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "common/parallel.hpp"

namespace raydb::detail {

struct WorkerPool::State {
  std::mutex pass;  // held by the caller for the whole pass
  std::mutex m;     // guards the fields below
  std::condition_variable start, finished;
  uint64_t generation = 0;  // one more per pass, so that a worker wakes once for each
  const std::function<void(uint32_t)>* block = nullptr;
  uint32_t blocks = 0, next = 0, done = 0;

  // Takes and runs blocks until none is left; `lock` holds m on entry and on return. Blocks are
  // large (hundreds of KiB of copy), so taking each under the mutex costs nothing measurable.
  void take_blocks(std::unique_lock<std::mutex>& lock) {
    while (next < blocks) {
      const uint32_t b = next++;
      const auto* run = block;
      lock.unlock();
      (*run)(b);
      lock.lock();
      if (++done == blocks) finished.notify_one();
    }
  }
};

WorkerPool& WorkerPool::shared() {
  // Leaked on purpose: joining sleeping workers from a static destructor at exit buys nothing.
  static WorkerPool* pool = new WorkerPool(std::min(host_threads(), 16u) - 1);
  return *pool;
}

WorkerPool::WorkerPool(unsigned workers) : state_(new State), workers_(workers) {
  for (unsigned w = 0; w < workers; ++w)
    std::thread([s = state_] {
      uint64_t seen = 0;
      std::unique_lock lock(s->m);
      for (;;) {
        s->start.wait(lock, [&] { return s->generation != seen; });
        seen = s->generation;
        s->take_blocks(lock);
      }
    }).detach();
}

bool WorkerPool::try_run(uint32_t blocks, const std::function<void(uint32_t)>& block) {
  State& s = *state_;
  std::unique_lock pass(s.pass, std::try_to_lock);
  if (!pass.owns_lock()) return false;
  if (blocks == 0) return true;
  std::unique_lock lock(s.m);
  s.block = &block;
  s.blocks = blocks;
  s.next = 0;
  s.done = 0;
  ++s.generation;
  if (blocks > 1 && workers_ > 0) s.start.notify_all();
  s.take_blocks(lock);
  s.finished.wait(lock, [&] { return s.done == s.blocks; });
  return true;
}

}  // namespace raydb::detail
