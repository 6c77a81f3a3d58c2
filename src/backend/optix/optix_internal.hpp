// Inside the OptiX backend (OptiX builds only): the per-context state and the error check.
#pragma once

#include <optix_types.h>

#include "backend/optix/optix.hpp"

namespace raydb::detail::optix {

// Throws raydb::Error (Errc::cuda) naming the call, OptiX's name and text for the error, and the
// log OptiX wrote, if any.
void check(OptixResult r, const char* what, const char* log = nullptr);

// Kept in VkContext::optix.
struct State {
  OptixSupport support;
  OptixDeviceContext context = nullptr;  // where available

  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  ~State();
};

// The context's state, probed on first call; its device context exists only where available.
State& state(VkContext& ctx);

}  // namespace raydb::detail::optix
