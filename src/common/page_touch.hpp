// Mapped memory a driver fills in page by page: the first write into each 4 KiB page of a fresh
// Vulkan host-visible allocation faults into the driver. On the H100's host, copying 256 MiB into
// fresh mapped memory took 13.2-13.6 ms on 16 threads the first time and 7.1 the second
// (bench/gpu/first_touch_probe.cpp, docs/e2e.md). A PageTouch writes one byte of every page on a
// thread of its own, so that memory made ahead (a context's lookup slots, made by an index build)
// is mapped by the time the first call copies into it.
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace raydb::detail {

struct TouchRange {
  void* data;
  uint64_t bytes;
};

class PageTouch {
 public:
  PageTouch() = default;
  // Starts writing one zero byte per 4 KiB page of every range (their contents are lost). The
  // ranges must stay mapped until wait() has returned or the PageTouch is gone.
  explicit PageTouch(std::vector<TouchRange> ranges);
  PageTouch(PageTouch&& other) noexcept = default;
  // Waits for the pages this one touches first.
  PageTouch& operator=(PageTouch&& other) noexcept;
  PageTouch(const PageTouch&) = delete;
  PageTouch& operator=(const PageTouch&) = delete;
  ~PageTouch() { wait(); }

  // Returns once every page is touched (at once if none are being). Not thread-safe: one owner
  // waits.
  void wait() noexcept;

 private:
  std::thread thread_;
};

}  // namespace raydb::detail
