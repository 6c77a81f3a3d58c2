// OptiX on raydb's CUDA device: loaded at run time through optixInit (the driver's libnvoptix,
// found by optix_stubs.h), its device context made on the CUDA context of the device that is the
// Vulkan device (backend/cuda matches them by UUID). A machine without libnvoptix, or with a
// driver older than the headers' ABI, gets an answer with the reason, never a crash.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <optix.h>
#include <optix_function_table_definition.h>
#include <optix_stubs.h>

#include <cstdio>

#include "backend/cuda/runtime.hpp"
#include "backend/optix/optix_internal.hpp"

namespace raydb::detail::optix {

void check(OptixResult r, const char* what, const char* log) {
  if (r == OPTIX_SUCCESS) return;
  throw Error(Errc::cuda,
              fmt::format("{} failed: {} ({}){}{}", what, optixGetErrorName(r),
                          optixGetErrorString(r), log && *log ? ": " : "", log ? log : ""));
}

State::~State() {
  if (context) optixDeviceContextDestroy(context);
}

bool built() {
  return true;
}

namespace {

// optixInit's failures, named without the function table (which is what failed to load).
std::string init_failure(OptixResult r) {
  switch (r) {
    case OPTIX_ERROR_LIBRARY_NOT_FOUND:
      return "the driver's OptiX library (libnvoptix.so.1) was not found";
    case OPTIX_ERROR_ENTRY_SYMBOL_NOT_FOUND:
      return "the driver's OptiX library has no optixQueryFunctionTable";
    case OPTIX_ERROR_UNSUPPORTED_ABI_VERSION:
      return fmt::format(
          "the driver does not support the OptiX ABI {} of the headers raydb was "
          "built with (OptiX {}): update the driver",
          OPTIX_ABI_VERSION, RAYDB_OPTIX_VERSION_TEXT);
    default:
      return fmt::format("error {}", static_cast<int>(r));
  }
}

void log_callback(unsigned int level, const char* tag, const char* message, void*) {
  // Level 1 and 2 are fatal errors and errors: the failing call reports them as well, but
  // OptiX's own words help.
  std::fprintf(stderr, "[optix %u %s] %s\n", level, tag, message);
}

std::shared_ptr<State> make_state(VkContext& ctx) {
  auto st = std::make_shared<State>();
  st->support.version = RAYDB_OPTIX_VERSION_TEXT;
  OptixResult r = optixInit();
  if (r != OPTIX_SUCCESS) {
    st->support.reason = "optixInit: " + init_failure(r);
    return st;
  }
  cuda::Runtime& rt = cuda::runtime(ctx);
  cuda::check(cudaFree(nullptr), "cudaFree(0) (creating the CUDA context)");
  OptixDeviceContextOptions options{};
  options.logCallbackFunction = log_callback;
  options.logCallbackLevel = 2;
  r = optixDeviceContextCreate(nullptr, &options, &st->context);  // the current CUDA context
  if (r != OPTIX_SUCCESS) {
    st->support.reason = fmt::format("optixDeviceContextCreate on CUDA device {}: {} ({})",
                                     rt.device, optixGetErrorName(r), optixGetErrorString(r));
    st->context = nullptr;
    return st;
  }
  st->support.available = true;
  return st;
}

}  // namespace

State& state(VkContext& ctx) {
  if (!ctx.optix) {
    if (!ctx.cuda_support) ctx.cuda_support = cuda::probe(ctx);
    if (!ctx.cuda_support->available) {
      auto st = std::make_shared<State>();
      st->support.version = RAYDB_OPTIX_VERSION_TEXT;
      st->support.reason =
          "OptiX needs the CUDA backend, which is unavailable: " + ctx.cuda_support->reason;
      ctx.optix = st;
    } else {
      ctx.optix = make_state(ctx);
    }
  }
  return *static_cast<State*>(ctx.optix.get());
}

const OptixSupport& support(VkContext& ctx) {
  return state(ctx).support;
}

void require(VkContext& ctx) {
  if (!support(ctx).available)
    throw Error(Errc::unsupported, "the OptiX backend is unavailable: " + support(ctx).reason);
}

}  // namespace raydb::detail::optix

namespace raydb {

const OptixSupport& optix_support(const Context& ctx) {
  return detail::optix::support(ctx.vk());
}

}  // namespace raydb
