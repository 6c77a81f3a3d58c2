#include <doctest/doctest.h>

#include "backend/vk/buffer.hpp"
#include "raydb/context.hpp"
#include "support.hpp"

using namespace raydb;

TEST_CASE("context: the test device can trace rays both ways") {
  test::ValidationGuard guard;
  const DeviceInfo& d = test::context().device();
  MESSAGE("device: " << d.name << " (" << d.driver_name << " " << d.driver_info << ")");
  CHECK(d.usable());
  CHECK(d.missing().empty());
  CHECK(d.max_primitive_count > 0);
  CHECK(d.timestamps);
  // The CI device is lavapipe, which has both; on other devices this documents what ran.
  CHECK((d.ray_query || d.ray_tracing_pipeline));
  CHECK(test::context().traversal() != TraversalMode::automatic);
}

TEST_CASE("context: list_devices and clear errors for missing devices") {
  auto devices = Context::list_devices();
  REQUIRE(devices.ok());
  CHECK(!devices->empty());
  ContextOptions o;
  o.device = "no-such-device-anywhere";
  auto c = Context::create(o);
  REQUIRE(!c.ok());
  CHECK(c.error().code() == Errc::invalid_argument);
  CHECK(std::string(c.error().what()).find("no-such-device-anywhere") != std::string::npos);
}

TEST_CASE("context: a device without ray tracing is described and not used") {
  DeviceInfo none;
  none.name = "plain GPU";
  CHECK(!none.usable());
  CHECK(none.missing().find("VK_KHR_acceleration_structure") != std::string::npos);
  CHECK(none.missing().find("VK_KHR_ray_query") != std::string::npos);
}

TEST_CASE("context: traversal mode parsing") {
  CHECK(parse_traversal_mode("pipeline").value() == TraversalMode::pipeline);
  CHECK(parse_traversal_mode("ray_query").value() == TraversalMode::ray_query);
  CHECK(parse_traversal_mode("auto").value() == TraversalMode::automatic);
  CHECK(parse_traversal_mode("warp").error().code() == Errc::invalid_argument);
}

TEST_CASE("context: running out of device memory is a clear error") {
  using namespace raydb::detail;
  test::ValidationGuard guard;
  // 16 TiB: more than any device here has; the allocation must fail cleanly, naming what and how
  // much.
  bool threw = false;
  try {
    Buffer huge(test::context().vk(), uint64_t{1} << 44, kStorageUsage, MemoryUse::device,
                "test oversize");
  } catch (const Error& e) {
    threw = true;
    CHECK(e.code() == Errc::out_of_memory);
    CHECK(std::string(e.what()).find("test oversize") != std::string::npos);
    CHECK(std::string(e.what()).find("17592186044416 bytes") != std::string::npos);
  }
  CHECK(threw);
  // The context stays usable afterwards.
  Buffer small(test::context().vk(), 1024, kStorageUsage, MemoryUse::device, "test small");
  CHECK(small.address() != 0);
}
