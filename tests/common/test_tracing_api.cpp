// The tracing API as an option (RxBuildOptions::api, CgrxBuildOptions::api, RtScanOptions::api):
// builds from device buffers trace through Vulkan only, so they refuse api = optix by name on
// every machine (with or without OptiX). The host-vector builds with api = optix are tested
// beside each operator (tests/<op>/test_*_optix.cpp).
#include <doctest/doctest.h>

#include <span>
#include <vector>

#include "device_host.hpp"
#include "raydb/device_indexes.hpp"
#include "raydb/device_rtscan.hpp"

namespace raydb::test {
namespace {

TEST_CASE("tracing api: builds from device buffers refuse api = optix, naming the option") {
  ValidationGuard guard;
  const std::vector<uint32_t> keys = {5, 1, 9, 1, 0xFFFFFFFFu};
  HostBuffer kb = upload(keys);

  RxBuildOptions rx;
  rx.api = RayTracingApi::optix;
  expect_error(rx_build(context(), KeyWidth::bits32, kb.span, {}, rx), Errc::unsupported,
               "RxBuildOptions::api = optix");
  CgrxBuildOptions cg;
  cg.api = RayTracingApi::optix;
  expect_error(cgrx_build(context(), KeyWidth::bits32, kb.span, {}, cg), Errc::unsupported,
               "CgrxBuildOptions::api = optix");
  RtScanOptions rt;
  rt.api = RayTracingApi::optix;
  std::vector<DeviceSpan> columns = {kb.span};
  expect_error(rtscan_build(context(), columns, rt), Errc::unsupported,
               "RtScanOptions::api = optix");

  // The same calls with the default API build, so the refusals above are the option's.
  CHECK(rx_build(context(), KeyWidth::bits32, kb.span).ok());
  CHECK(cgrx_build(context(), KeyWidth::bits32, kb.span).ok());
  CHECK(rtscan_build(context(), columns).ok());
}

}  // namespace
}  // namespace raydb::test
