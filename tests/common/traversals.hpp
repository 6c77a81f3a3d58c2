// The traversal modes the test device offers (ray-tracing pipeline, ray query), for tests that
// run every case in each; a device with neither fails the test.
#pragma once

#include <doctest/doctest.h>

#include <vector>

#include "raydb/context.hpp"
#include "support.hpp"

namespace raydb::test {

inline std::vector<TraversalMode> traversals() {
  std::vector<TraversalMode> out;
  const DeviceInfo& d = context().device();
  if (d.ray_tracing_pipeline) out.push_back(TraversalMode::pipeline);
  if (d.ray_query) out.push_back(TraversalMode::ray_query);
  REQUIRE_MESSAGE(!out.empty(), "the device traces neither way");
  return out;
}

}  // namespace raydb::test
