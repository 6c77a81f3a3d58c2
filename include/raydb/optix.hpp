// raydb::optix_support: whether the OptiX tracing API (RayTracingApi::optix, a field of RX's,
// cgRX's, RTScan's, the joins' and the SSB engine's options) can run on a context's device, and why
// not.
//
// Optional: raydb built without OptiX headers (CMake's OptiX_ROOT), a machine without the driver's
// libnvoptix, or one without CUDA interop answers here, and every build with api = optix fails
// with Errc::unsupported and this reason. Thread-safety: any thread; probed once per context.
#pragma once

#include <string>

#include "raydb/context.hpp"

namespace raydb {

/// Whether the OptiX backend can run here, and why not.
struct OptixSupport {
  bool available = false;  ///< whether OptiX runs on this context's device
  std::string reason;      ///< why not, in words; empty when available
  std::string version;     ///< the OptiX headers raydb was built with, e.g. "9.0.0"; empty without
};

/// Whether rays can be traced through OptiX on this context's device. Probed once per context
/// (loads libnvoptix through optixInit); a missing library or device is an answer, not an error.
/// The result lives as long as the context.
const OptixSupport& optix_support(const Context& ctx);

}  // namespace raydb
