// CgrxOptixIndex in a build without OptiX headers: never available; build() fails with
// optix_support()'s reason (backend/optix/absent.cpp).
#include "backend/optix/optix.hpp"
#include "common/capture.hpp"
#include "ops/cgrx/cgrx_view.hpp"
#include "ops/cgrx/optix/cgrx_optix.hpp"

namespace raydb {

namespace detail {
struct CgrxOptixImpl {};
}  // namespace detail

Result<CgrxOptixIndex> CgrxOptixIndex::build(const CgrxIndex& index) {
  return detail::capture([&]() -> CgrxOptixIndex {
    detail::optix::require(*detail::cgrx_view(index).ctx);
    throw Error(Errc::internal, "unreachable");
  });
}

Status CgrxOptixIndex::rebuild() {
  return Error(Errc::unsupported,
               "the OptiX backend is unavailable: raydb was built without OptiX");
}
void CgrxOptixIndex::set_diagnostic(RxDiagnostic) {}
Status CgrxOptixIndex::lookup(KeySpan, std::span<RxLookup>) {
  return rebuild();
}
Status CgrxOptixIndex::lookup_ranges(RangeSpan, std::span<RxLookup>) {
  return rebuild();
}
const CgrxBuildStats& CgrxOptixIndex::build_stats() const {
  static const CgrxBuildStats none;
  return none;
}
const RxProbeStats& CgrxOptixIndex::last_stats() const {
  static const RxProbeStats none;
  return none;
}
uint64_t CgrxOptixIndex::last_fallbacks() const {
  return 0;
}

namespace detail {
Status cgrx_lookup_runs(CgrxOptixIndex& index, KeySpan, std::span<RxLookup>) {
  return index.rebuild();
}
}  // namespace detail

CgrxOptixIndex::CgrxOptixIndex(std::unique_ptr<detail::CgrxOptixImpl> impl)
    : impl_(std::move(impl)) {}
CgrxOptixIndex::CgrxOptixIndex(CgrxOptixIndex&&) noexcept = default;
CgrxOptixIndex& CgrxOptixIndex::operator=(CgrxOptixIndex&&) noexcept = default;
CgrxOptixIndex::~CgrxOptixIndex() = default;

}  // namespace raydb
