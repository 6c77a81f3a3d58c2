#include "common/page_touch.hpp"

#include <system_error>
#include <utility>

#include "common/host_time.hpp"

namespace raydb::detail {

namespace {

constexpr uint64_t kPage = 4096;

}  // namespace

PageTouch::PageTouch(std::vector<TouchRange> ranges) {
  try {
    thread_ = std::thread([ranges = std::move(ranges)] {
      // Its work overlaps the caller's; what the caller waits for is what a breakdown shows.
      exclude_thread_from_host_time();
      for (const TouchRange& r : ranges) {
        auto* p = static_cast<volatile uint8_t*>(r.data);
        for (uint64_t at = 0; at < r.bytes; at += kPage) p[at] = 0;
      }
    });
  } catch (const std::system_error&) {
    // No thread to be had: the pages are mapped by the first copies instead, only slower.
  }
}

PageTouch& PageTouch::operator=(PageTouch&& other) noexcept {
  if (this != &other) {
    wait();
    thread_ = std::move(other.thread_);
  }
  return *this;
}

void PageTouch::wait() noexcept {
  if (thread_.joinable()) thread_.join();
}

}  // namespace raydb::detail
