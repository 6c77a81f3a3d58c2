// The context's release queue (backend/vk/release_queue.hpp): buffers freed on a worker thread.
#include <doctest/doctest.h>

#include <vector>

#include "backend/vk/buffer.hpp"
#include "common/host_time.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::detail;

TEST_CASE("release queue: a buffer leaves the byte count when handed over, drain frees it") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  c.drain_releases();  // what earlier tests queued
  const uint64_t before = c.allocated_bytes;
  const double release_ms = host_time_breakdown().release_ms;
  for (int round = 0; round < 3; ++round) {
    CAPTURE(round);
    std::vector<Buffer> buffers;
    for (VkDeviceSize size : {VkDeviceSize{0}, VkDeviceSize{4096}, VkDeviceSize{16} << 20})
      buffers.emplace_back(c, size, kStorageUsage, MemoryUse::device, "released later");
    buffers.emplace_back(c, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                         "readback released later");
    const uint64_t peak = c.peak_bytes;
    REQUIRE(c.allocated_bytes > before);
    for (Buffer& b : buffers) {
      c.release_later(std::move(b));
      CHECK(!b);
    }
    // Counted as freed at once, so budgets and peaks do not depend on the worker's pace.
    CHECK(c.allocated_bytes == before);
    CHECK(c.peak_bytes == peak);
    c.drain_releases();
    CHECK_FALSE(c.drain_releases());  // nothing left to wait for
  }
  c.release_later(Buffer());  // an empty buffer is not queued
  CHECK_FALSE(c.drain_releases());
  // The worker's frees overlap the calls: the host-time breakdown does not count them.
  CHECK(host_time_breakdown().release_ms == release_ms);
  CHECK(c.allocated_bytes == before);
}
