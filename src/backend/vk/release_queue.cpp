#include "backend/vk/release_queue.hpp"

#include "backend/vk/spare_buffers.hpp"
#include "common/host_time.hpp"

namespace raydb::detail {

ReleaseQueue::~ReleaseQueue() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void ReleaseQueue::push(Buffer&& buffer) {
  if (!buffer) return;
  buffer.untrack();
  {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(buffer));
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
  }
  work_.notify_one();
}

bool ReleaseQueue::drain() {
  std::unique_lock lock(mutex_);
  const bool any = busy_ || !pending_.empty();
  idle_.wait(lock, [&] { return !busy_ && pending_.empty(); });
  return any;
}

void ReleaseQueue::run() {
  // Its frees overlap the calls' own work; counting them would let the breakdown exceed the
  // wall clock.
  exclude_thread_from_host_time();
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stop_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stop_, and nothing left
    Buffer buffer = std::move(pending_.front());
    pending_.pop_front();
    busy_ = true;
    lock.unlock();
    buffer.reset();
    lock.lock();
    busy_ = false;
    if (pending_.empty()) idle_.notify_all();
  }
}

void VkContext::release_later(Buffer&& buffer) {
  if (!buffer) return;
  std::shared_ptr<ReleaseQueue> queue;
  {
    std::lock_guard lock(release_mutex);
    if (!release_queue) release_queue = std::make_shared<ReleaseQueue>();
    queue = release_queue;
  }
  queue->push(std::move(buffer));
}

bool VkContext::drain_releases() {
  std::shared_ptr<ReleaseQueue> queue;
  {
    std::lock_guard lock(release_mutex);
    queue = release_queue;
  }
  const bool dropped = SpareBuffers::drop(*this);
  const bool trimmed = trim_caches && trim_caches();
  return (queue && queue->drain()) || dropped || trimmed;
}

}  // namespace raydb::detail
