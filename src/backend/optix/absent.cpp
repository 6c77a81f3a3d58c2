// The OptiX backend of a build without OptiX headers: never available, and every RxOptixIndex
// and RtScanOptix build (and OptiX SSB engine) fails with that reason.
#include "backend/optix/optix.hpp"
#include "common/capture.hpp"
#include "ops/rtscan/rtscan_impl.hpp"
#include "ops/rx/rx_view.hpp"
#include "ops/ssb/ssb_optix_tracer.hpp"
#include "raydb/rtscan_optix.hpp"

namespace raydb {

namespace detail {
struct RxOptixImpl {};
struct RtScanOptixImpl {};
}  // namespace detail

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

Result<RxOptixIndex> RxOptixIndex::build(const RxIndex& index, const RxOptixOptions&) {
  return detail::capture([&]() -> RxOptixIndex {
    detail::VkContext& c = *detail::rx_view(index).ctx;
    detail::optix::require(c);
    throw Error(Errc::internal, "unreachable");
  });
}

RxOptixIndex::RxOptixIndex(std::unique_ptr<detail::RxOptixImpl> impl) : impl_(std::move(impl)) {}
RxOptixIndex::RxOptixIndex(RxOptixIndex&&) noexcept = default;
RxOptixIndex& RxOptixIndex::operator=(RxOptixIndex&&) noexcept = default;
RxOptixIndex::~RxOptixIndex() = default;

Status RxOptixIndex::rebuild() {
  return Error(Errc::unsupported,
               "the OptiX backend is unavailable: raydb was built without OptiX");
}
Status RxOptixIndex::lookup(KeySpan, std::span<RxLookup>) {
  return rebuild();
}
Status RxOptixIndex::lookup_ranges(RangeSpan, std::span<RxLookup>) {
  return rebuild();
}
Result<RxCollectResult> RxOptixIndex::collect_rows(KeySpan, std::span<RxRowMatch>) {
  return rebuild().error();
}
Result<RxCollectResult> RxOptixIndex::collect_rows(RangeSpan, std::span<RxRowMatch>) {
  return rebuild().error();
}
const RxBuildStats& RxOptixIndex::build_stats() const {
  static const RxBuildStats none;
  return none;
}
const RxProbeStats& RxOptixIndex::last_probe() const {
  static const RxProbeStats none;
  return none;
}

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
const RtScanQueryStats& RtScanOptix::last_query() const {
  static const RtScanQueryStats none;
  return none;
}
RtScanOptix::RtScanOptix(std::unique_ptr<detail::RtScanOptixImpl> impl) : impl_(std::move(impl)) {}
RtScanOptix::RtScanOptix(RtScanOptix&&) noexcept = default;
RtScanOptix& RtScanOptix::operator=(RtScanOptix&&) noexcept = default;
RtScanOptix::~RtScanOptix() = default;

}  // namespace raydb

namespace raydb::ssb::detail {

std::unique_ptr<SsbOptixTracer> SsbOptixTracer::create(raydb::detail::VkContext& ctx,
                                                       BuildPreference) {
  raydb::detail::optix::require(ctx);
  throw Error(Errc::internal, "unreachable");
}

}  // namespace raydb::ssb::detail
