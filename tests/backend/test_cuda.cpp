// The CUDA path's runtime detection and its Vulkan half: these run on every device, including
// lavapipe without any CUDA driver.
#include <doctest/doctest.h>
#include <unistd.h>

#include <random>

#include "backend/vk/timeline.hpp"
#include "cuda_support.hpp"

using namespace raydb;
using namespace raydb::detail;

TEST_CASE("cuda: availability is an answer with a reason and never a crash") {
  test::ValidationGuard guard;
  const CudaSupport& s = test::context().cuda();
  MESSAGE("CUDA " << (s.available ? "available: " + s.name : "unavailable: " + s.reason)
                  << " (backend compiled in: " << std::string(cuda::built() ? "yes" : "no") << ")");
  CHECK(&s == &test::context().cuda());  // probed once
  auto automatic = test::context().resolve(Backend::automatic);
  REQUIRE(automatic.ok());
  CHECK(test::context().resolve(Backend::vulkan).value() == Backend::vulkan);
  auto forced = test::context().resolve(Backend::cuda);
  if (s.available) {
    CHECK(s.reason.empty());
    CHECK(s.ordinal >= 0);
    CHECK(!s.name.empty());
    CHECK(automatic.value() == Backend::cuda);
    CHECK(forced.ok());
  } else {
    CHECK(!s.reason.empty());
    CHECK(automatic.value() == Backend::vulkan);
    REQUIRE(!forced.ok());
    CHECK(forced.error().code() == Errc::unsupported);
    CHECK(std::string(forced.error().what()).find(s.reason) != std::string::npos);
    // Every CUDA entry point refuses cleanly too.
    Buffer b(test::context().vk(), 64, kStorageUsage, MemoryUse::device, "unshared");
    CHECK_THROWS_AS(cuda::bitmap_op(test::context().vk(), b, nullptr, 64, 2), Error);
  }
}

TEST_CASE("cuda: backend names parse and print") {
  for (Backend b : {Backend::automatic, Backend::vulkan, Backend::cuda})
    CHECK(parse_backend(to_string(b)).value() == b);
  CHECK(parse_backend("auto").value() == Backend::automatic);
  CHECK(parse_backend("optix").error().code() == Errc::invalid_argument);
}

TEST_CASE("cuda: exportable Vulkan buffers hold data and export an fd") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  if (!c.external_memory_fd) {
    MESSAGE("skipped: the Vulkan device has no VK_KHR_external_memory_fd");
    CHECK_THROWS_AS(Buffer::exportable(c, 64, kStorageUsage, "refused"), Error);
    return;
  }
  std::mt19937_64 rng(test::fresh_seed());
  for (size_t words : {size_t{0}, size_t{1}, size_t{33}, size_t{100003}}) {
    CAPTURE(words);
    std::vector<uint32_t> data(words);
    for (auto& w : data) w = static_cast<uint32_t>(rng());
    uint64_t before = c.allocated_bytes;
    {
      Buffer b = test::shared_upload(data);
      CHECK(b.is_exportable());
      CHECK(b.allocation_size() >= words * 4);
      CHECK(c.allocated_bytes >= before + b.allocation_size());
      // A Vulkan kernel on the shared buffer (NOT, twice) leaves the data as it was.
      uint32_t rows = static_cast<uint32_t>(words * 32);
      test::BitmapOpParams p{b.address(), 0, static_cast<uint32_t>(words), rows, 2, 0};
      test::run_vulkan(ShaderId::bitmap_ops, p, bitmap_op_items(words));
      test::run_vulkan(ShaderId::bitmap_ops, p, bitmap_op_items(words));
      test::check_equal_whole(test::download<uint32_t>(b, words), data, "words");
      int fd = b.export_fd();
      CHECK(fd >= 0);
      if (fd >= 0) close(fd);
      Buffer moved = std::move(b);
      CHECK(moved.is_exportable());
      CHECK(!b);
    }
    CHECK(c.allocated_bytes == before);
  }
}

TEST_CASE("cuda: timeline semaphores order Vulkan submissions") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  if (!c.timeline_semaphore) {
    MESSAGE("skipped: the Vulkan device has no timeline semaphores");
    return;
  }
  Timeline t(c, false);
  CHECK(t.counter() == 0);
  // The second batch waits on the GPU for the first one's signal; only the last is waited for.
  CommandBatch first(c);
  first.signal(t.handle(), t.next());
  CommandBatch second(c);
  second.wait_for(t.handle(), t.last());
  second.signal(t.handle(), t.next());
  first.submit();
  second.submit_and_wait();
  // A fence may signal before the batch's semaphore signals are visible to the host (seen on
  // lavapipe): wait for the value itself, then read it.
  t.host_wait(2);
  CHECK(t.counter() == 2);
  first.wait();
  if (c.external_semaphore_fd) {
    Timeline shared(c, true);
    int fd = shared.export_fd();
    CHECK(fd >= 0);
    if (fd >= 0) close(fd);
  } else {
    MESSAGE("the Vulkan device has no VK_KHR_external_semaphore_fd: export not tried");
    CHECK_THROWS_AS(Timeline(c, true), Error);
  }
}
