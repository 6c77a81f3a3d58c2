// The OptiX SSB tracer in a build without OptiX headers: never available; create() fails with
// optix_support()'s reason (backend/optix/absent.cpp).
#include "backend/optix/optix.hpp"
#include "ops/ssb/ssb_optix_tracer.hpp"

namespace raydb::ssb::detail {

std::unique_ptr<SsbOptixTracer> SsbOptixTracer::create(raydb::detail::VkContext& ctx,
                                                       BuildPreference) {
  raydb::detail::optix::require(ctx);
  throw Error(Errc::internal, "unreachable");
}

}  // namespace raydb::ssb::detail
