// RtScanOptix in a build without OptiX headers: never available; build() fails with
// optix_support()'s reason (backend/optix/absent.cpp).
#include "backend/optix/optix.hpp"
#include "common/capture.hpp"
#include "ops/rtscan/optix/rtscan_optix.hpp"
#include "ops/rtscan/rtscan_impl.hpp"

namespace raydb {

namespace detail {
struct RtScanOptixImpl {};
}  // namespace detail

Result<RtScanOptix> RtScanOptix::build(RtScanTable& table) {
  return detail::capture([&]() -> RtScanOptix {
    detail::optix::require(*detail::rtscan_impl(table).ctx);
    throw Error(Errc::internal, "unreachable");
  });
}
Result<Bitmap> RtScanOptix::select(std::span<const Predicate>) {
  return Error(Errc::unsupported,
               "the OptiX backend is unavailable: raydb was built without OptiX");
}
const RtScanOptixBuildStats& RtScanOptix::build_stats() const {
  static const RtScanOptixBuildStats none;
  return none;
}
const RtScanQueryStats& RtScanOptix::last_stats() const {
  static const RtScanQueryStats none;
  return none;
}
RtScanOptix::RtScanOptix(std::unique_ptr<detail::RtScanOptixImpl> impl) : impl_(std::move(impl)) {}
RtScanOptix::RtScanOptix(RtScanOptix&&) noexcept = default;
RtScanOptix& RtScanOptix::operator=(RtScanOptix&&) noexcept = default;
RtScanOptix::~RtScanOptix() = default;

}  // namespace raydb
