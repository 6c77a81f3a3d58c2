// The OptiX backend of a build without OptiX headers: never available. The operators' OptiX twins
// have their own stubs beside them (src/ops/<op>/optix/*_absent.cpp), which fail with this reason.
#include "backend/optix/optix.hpp"

namespace raydb {

namespace detail::optix {

bool built() {
  return false;
}

const OptixSupport& support(VkContext&) {
  static const OptixSupport s{
      false,
      "raydb was built without OptiX (CMake found no OptiX headers: set OptiX_ROOT or OPTIX_ROOT)",
      ""};
  return s;
}

void require(VkContext& ctx) {
  throw Error(Errc::unsupported, "the OptiX backend is unavailable: " + support(ctx).reason);
}

}  // namespace detail::optix

const OptixSupport& optix_support(const Context& ctx) {
  return detail::optix::support(ctx.vk());
}

}  // namespace raydb
