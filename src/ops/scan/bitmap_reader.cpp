// BitmapReader: bitmaps to the host through one persistent, host-cached staging buffer. A download
// that allocates its staging memory per call pays for the allocation and the pinning of its pages
// (milliseconds for a 12.5 MB bitmap), and one into a fresh vector for its page faults; here both
// are paid once.
#include <chrono>
#include <cstring>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "ops/scan/scan_impl.hpp"
#include "raydb/scan.hpp"

namespace raydb {

namespace detail {

struct BitmapReaderImpl {
  std::shared_ptr<VkContext> ctx;
  Buffer staging;
  std::unique_ptr<GpuTimer> timer;
  BitmapReadStats stats;
};

}  // namespace detail

BitmapReader::BitmapReader(const Context& ctx)
    : impl_(std::make_unique<detail::BitmapReaderImpl>()) {
  impl_->ctx = ctx.shared();
}

BitmapReader::BitmapReader(BitmapReader&&) noexcept = default;
BitmapReader& BitmapReader::operator=(BitmapReader&&) noexcept = default;
BitmapReader::~BitmapReader() = default;

Status BitmapReader::read(const Bitmap& bitmap, std::vector<uint32_t>& out) {
  return detail::guarded(*impl_->ctx, [&] {
    using namespace detail;
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    const BitmapImpl& b = *bitmap.impl_;
    if (b.ctx != impl_->ctx)
      throw Error(Errc::invalid_argument, "BitmapReader: the bitmap belongs to another Context");
    VkContext& c = *impl_->ctx;
    const uint64_t bytes = b.word_count() * 4;
    out.resize(b.word_count());
    impl_->stats = {};
    impl_->stats.bytes = bytes;
    if (bytes == 0) return;
    if (!impl_->staging || impl_->staging.size() < bytes)
      impl_->staging = Buffer(c, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                              "bitmap reader staging");
    if (!impl_->timer) impl_->timer = std::make_unique<GpuTimer>(c, 2);
    GpuTimer& timer = *impl_->timer;
    CommandBatch cb(c);
    timer.reset(cb.cmd());
    uint32_t from = timer.mark(cb.cmd());
    VkBufferCopy r{0, 0, bytes};
    c.vk.vkCmdCopyBuffer(cb.cmd(), b.words.handle(), impl_->staging.handle(), 1, &r);
    // The copy's writes made visible to the host's reads of the mapped memory.
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    uint32_t to = timer.mark(cb.cmd());
    cb.submit_and_wait();
    auto t1 = Clock::now();
    impl_->staging.invalidate();
    std::memcpy(out.data(), impl_->staging.mapped(), bytes);
    auto t2 = Clock::now();
    impl_->stats.device_copy_ms = timer.ms(from, to);
    impl_->stats.host_copy_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
    impl_->stats.wall_ms = std::chrono::duration<double, std::milli>(t2 - t0).count();
  });
}

const BitmapReadStats& BitmapReader::last_read() const {
  return impl_->stats;
}

bool BitmapReader::host_cached() const {
  return impl_->staging &&
         (impl_->staging.memory_properties() & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
}

uint64_t BitmapReader::staging_bytes() const {
  return impl_->staging ? impl_->staging.size() : 0;
}

}  // namespace raydb
