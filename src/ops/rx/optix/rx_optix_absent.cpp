// RxOptixIndex in a build without OptiX headers: never available; build() fails with
// optix_support()'s reason (backend/optix/absent.cpp).
#include "backend/optix/optix.hpp"
#include "common/capture.hpp"
#include "ops/rx/optix/rx_optix.hpp"
#include "ops/rx/rx_view.hpp"

namespace raydb {

namespace detail {
struct RxOptixImpl {};
}  // namespace detail

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
const RxProbeStats& RxOptixIndex::last_stats() const {
  static const RxProbeStats none;
  return none;
}

}  // namespace raydb
