#include "backend/vk/staged_upload.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <span>
#include <utility>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/host_buffers.hpp"
#include "backend/vk/timeline.hpp"
#include "common/host_copy.hpp"
#include "common/host_time.hpp"

namespace raydb::detail {

namespace {

constexpr uint64_t kDefaultThreshold = uint64_t{32} << 20, kDefaultChunk = uint64_t{16} << 20;
std::atomic<uint64_t> g_threshold{kDefaultThreshold}, g_chunk{kDefaultChunk};

// The context's staging chunks (VkContext::upload_ring), with their command buffers and fences,
// in a command pool of their own: the copies may run on another thread than the caller's.
struct Ring {
  static constexpr unsigned kSlots = 4;
  struct Slot {
    Buffer host;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence done = VK_NULL_HANDLE;
    bool busy = false;
    std::unique_ptr<GpuTimer> timer;  // around its copy, where the queue keeps timestamps
  };
  VkContext& c;
  VkQueue queue;
  uint32_t family;
  VkCommandPool pool = VK_NULL_HANDLE;
  std::array<Slot, kSlots> slots;
  Timeline timeline;

  explicit Ring(VkContext& ctx)
      : c(ctx),
        queue(ctx.has_copy_queues() ? ctx.copy_queues[0] : ctx.queue),
        family(ctx.has_copy_queues() ? ctx.copy_family : ctx.queue_family),
        timeline(ctx, false) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = family;
    vk_check(c.vk.vkCreateCommandPool(c.device, &pi, nullptr, &pool), "vkCreateCommandPool");
    for (Slot& s : slots) {
      s.cmd = allocate_command_buffer(c, pool);
      VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      vk_check(c.vk.vkCreateFence(c.device, &fi, nullptr, &s.done), "vkCreateFence");
    }
    // Timestamps where the queue keeps them and the host may reset them (a transfer-only queue
    // cannot itself).
    const uint32_t bits =
        ctx.has_copy_queues() ? ctx.copy_timestamp_bits : ctx.timestamp_valid_bits;
    if (ctx.host_query_reset && bits > 0)
      for (Slot& s : slots) s.timer = std::make_unique<GpuTimer>(ctx, 2, bits);
  }
  ~Ring() {
    settle();
    for (Slot& s : slots) c.vk.vkDestroyFence(c.device, s.done, nullptr);
    c.vk.vkDestroyCommandPool(c.device, pool, nullptr);
  }

  // Waits for every submitted copy, errors ignored (on a lost device the waits return at once):
  // after a failure, before the buffers the copies write go.
  void settle() noexcept {
    for (Slot& s : slots)
      if (s.busy) {
        c.vk.vkWaitForFences(c.device, 1, &s.done, VK_TRUE, UINT64_MAX);
        c.vk.vkResetFences(c.device, 1, &s.done);
        s.busy = false;
      }
  }

  // The slot's last copy is done, so its chunk may be written again; its copy's GPU time, in ms.
  double finish(Slot& s) {
    if (!s.busy) return 0;
    s.busy = false;
    VkResult r = c.vk.vkWaitForFences(c.device, 1, &s.done, VK_TRUE, UINT64_MAX);
    if (r == VK_ERROR_DEVICE_LOST) mark_lost(c);
    vk_check(r, "vkWaitForFences");
    vk_check(c.vk.vkResetFences(c.device, 1, &s.done), "vkResetFences");
    return s.timer ? s.timer->ms(0, 1) : 0;
  }
};

Ring& context_ring(VkContext& c, uint64_t chunk) {
  if (!c.upload_ring) c.upload_ring = std::make_shared<Ring>(c);
  Ring& r = *static_cast<Ring*>(c.upload_ring.get());
  for (Ring::Slot& s : r.slots)
    if (s.host.size() != chunk) {
      r.finish(s);
      s.host = Buffer(c, chunk, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::readback,
                      "staged upload chunk");
    }
  return r;
}

// Hands the copies' destinations from the ring's queue family to the context's (or takes them),
// where they differ.
void ownership_barrier(VkContext& c, VkCommandBuffer cmd, std::span<const StagedCopy> copies,
                       uint32_t from, bool release) {
  if (from == c.queue_family) return;
  std::vector<VkBufferMemoryBarrier> b;
  for (const StagedCopy& s : copies) {
    if (s.bytes == 0) continue;
    VkBufferMemoryBarrier m{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    m.srcAccessMask = release ? VK_ACCESS_TRANSFER_WRITE_BIT : 0;
    m.dstAccessMask = release ? 0 : VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    m.srcQueueFamilyIndex = from;
    m.dstQueueFamilyIndex = c.queue_family;
    m.buffer = s.dst->handle();
    m.offset = s.dst_offset;
    m.size = s.bytes;
    b.push_back(m);
  }
  c.vk.vkCmdPipelineBarrier(
      cmd, release ? VK_PIPELINE_STAGE_TRANSFER_BIT : VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
      release ? VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT : VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0,
      nullptr, static_cast<uint32_t>(b.size()), b.data(), 0, nullptr);
}

uint64_t pieces_of(const StagedCopy& s, uint64_t chunk) {
  return (s.bytes + chunk - 1) / chunk;
}

}  // namespace

bool worth_staging(VkContext& ctx, const void* src, uint64_t bytes) {
  return bytes >= g_threshold.load() && ctx.timeline_semaphore &&
         !find_host_buffer(ctx, src, bytes);
}

void set_staged_upload_sizes(uint64_t threshold, uint64_t chunk) {
  g_threshold = threshold ? threshold : kDefaultThreshold;
  g_chunk = chunk ? chunk : kDefaultChunk;
}

StagedUpload::StagedUpload(VkContext& ctx, std::vector<StagedCopy> copies)
    : ctx_(ctx), copies_(std::move(copies)) {
  // The ring and its chunks are made here, on the caller's thread.
  Ring& r = context_ring(ctx_, g_chunk.load());
  // A copy of no bytes has no piece to signal: it is done once the copies before it are.
  uint64_t done = 0;
  for (const StagedCopy& s : copies_) {
    if (s.bytes > 0) done = r.timeline.next();
    done_values_.push_back(done);
  }
  if (ctx_.has_copy_queues())
    thread_ = std::thread([this] {
      // Its copies overlap the caller's work; the caller's wait() is what a breakdown shows.
      exclude_thread_from_host_time();
      try {
        run();
      } catch (...) {
        failure_ = std::current_exception();
        settle();
        mark_submitted(copies_.size(), true);
      }
    });
  else
    try {
      run();
    } catch (...) {
      settle();
      throw;
    }
}

void StagedUpload::settle() noexcept {
  // The pieces already submitted still write the caller's buffers, which go as the failure
  // unwinds.
  static_cast<Ring*>(ctx_.upload_ring.get())->settle();
}

StagedUpload::~StagedUpload() {
  if (thread_.joinable()) thread_.join();
}

void StagedUpload::wait_submitted(size_t copy) {
  const size_t needed = copies_.empty() ? 0 : index(copy) + 1;
  bool failed = false;
  {
    HostPhaseScope timed(HostPhase::wait);
    std::unique_lock lock(mutex_);
    submitted_cv_.wait(lock, [&] { return submitted_ >= needed || failed_; });
    failed = failed_;
  }
  if (failed) wait();  // rethrows
}

void StagedUpload::mark_submitted(size_t copies, bool failed) {
  std::lock_guard lock(mutex_);
  submitted_ = copies;
  failed_ = failed;
  submitted_cv_.notify_all();
}

void StagedUpload::wait() {
  HostPhaseScope timed(HostPhase::wait);
  if (thread_.joinable()) thread_.join();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

VkSemaphore StagedUpload::semaphore() const {
  return static_cast<Ring*>(ctx_.upload_ring.get())->timeline.handle();
}

uint64_t StagedUpload::done_value(size_t copy) const {
  return copies_.empty() ? 0 : done_values_[index(copy)];
}

void StagedUpload::record_acquire(VkCommandBuffer cmd, size_t copy) const {
  const auto* r = static_cast<Ring*>(ctx_.upload_ring.get());
  ownership_barrier(ctx_, cmd, std::span(copies_).subspan(index(copy), 1), r->family, false);
}

void StagedUpload::run() {
  Ring& r = *static_cast<Ring*>(ctx_.upload_ring.get());
  const uint64_t chunk = r.slots[0].host.size();
  uint64_t k = 0;
  for (size_t i = 0; i < copies_.size(); ++i) {
    const StagedCopy& s = copies_[i];
    const uint64_t pieces = pieces_of(s, chunk);
    for (uint64_t p = 0; p < pieces; ++p, ++k) {
      const uint64_t at = p * chunk;
      Ring::Slot& slot = r.slots[k % Ring::kSlots];
      gpu_ms_ += r.finish(slot);
      const uint64_t n = std::min(chunk, s.bytes - at);
      host_copies({{slot.host.mapped(), static_cast<const uint8_t*>(s.src) + at, n}});
      slot.host.flush();
      const bool last = p + 1 == pieces;
      begin_one_time(ctx_, slot.cmd);
      if (slot.timer) {
        slot.timer->reset_on_host();
        slot.timer->mark(slot.cmd);
      }
      VkBufferCopy region{0, s.dst_offset + at, n};
      ctx_.vk.vkCmdCopyBuffer(slot.cmd, slot.host.handle(), s.dst->handle(), 1, &region);
      if (slot.timer) slot.timer->mark(slot.cmd);
      if (last) ownership_barrier(ctx_, slot.cmd, std::span(copies_).subspan(i, 1), r.family, true);
      vk_check(ctx_.vk.vkEndCommandBuffer(slot.cmd), "vkEndCommandBuffer");
      // A copy's last piece signals its value, which the submissions reading it wait for. One
      // queue runs the pieces in order, so the copies before it are in place too.
      VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
      const VkSemaphore sem = r.timeline.handle();
      ts.signalSemaphoreValueCount = 1;
      ts.pSignalSemaphoreValues = &done_values_[i];
      VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      si.pNext = last ? &ts : nullptr;
      si.commandBufferCount = 1;
      si.pCommandBuffers = &slot.cmd;
      si.signalSemaphoreCount = last ? 1 : 0;
      si.pSignalSemaphores = &sem;
      fail_if_loss_injected(ctx_);
      VkResult res = ctx_.vk.vkQueueSubmit(r.queue, 1, &si, slot.done);
      if (res == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
      vk_check(res, "vkQueueSubmit");
      slot.busy = true;
    }
    mark_submitted(i + 1, false);
  }
  if (copies_.empty()) mark_submitted(0, false);
  for (Ring::Slot& slot : r.slots) gpu_ms_ += r.finish(slot);
}

}  // namespace raydb::detail
