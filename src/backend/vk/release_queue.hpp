// Buffers freed on a worker thread. Freeing device memory is slow on some drivers (an H100 takes
// 1-5 ms per GiB, and 12 ms for a GiB that CUDA allocated; docs/e2e.md), and a build that frees
// its temporaries in line waits for that while the GPU could run its next pass.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

// One per context (VkContext::release_later makes it on first use). Thread-safe.
//
// Accounting: a buffer leaves the context's allocated_bytes when it is pushed, not when the
// driver has freed it, so budgets and peaks read as if it had been freed in line and stay the
// same from run to run. Where an allocation then fails for lack of memory, the allocating code
// drains the queue and tries once more (Buffer, cuda::shared_buffer).
class ReleaseQueue {
 public:
  ReleaseQueue() = default;
  ReleaseQueue(const ReleaseQueue&) = delete;
  ReleaseQueue& operator=(const ReleaseQueue&) = delete;
  ~ReleaseQueue();  // frees what is left, then joins the worker

  // `buffer` must no longer be used by the GPU (its last submission waited for).
  void push(Buffer&& buffer);
  // Returns once every buffer pushed before the call is freed. Whether anything was pending.
  bool drain();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable work_, idle_;
  std::deque<Buffer> pending_;
  bool busy_ = false, stop_ = false;
  std::thread worker_;
};

}  // namespace raydb::detail
