// LookupBatch's pipelined round: lookups from host memory in chunks through a ring of slots.
//
// Per chunk: the host copies the queries into the slot's pinned memory; a copy queue uploads
// them into device memory; the kernel probes there (results poisoned first, so that a lookup it
// failed to write cannot pass as a result); a copy queue downloads the results; later the host
// copies them out. With ResultPath::direct the kernel writes the results into the pinned memory
// itself, and neither poison nor download runs. With ResultPath::carried the kernel of the next
// chunk writes them there, and that kernel's submission signals the chunk's fence. Binary
// semaphores order the three submissions across queues, and the fence of the submission that
// leaves the results in pinned memory tells the host the slot is free. Kernels then run at
// device-memory speed while the copy engines move the neighbouring chunks (reading host memory from
// a kernel made RX probes 1.6x slower on the H100, docs/e2e.md).
#include <algorithm>

#include "backend/vk/host_buffers.hpp"
#include "common/host_copy.hpp"
#include "common/host_time.hpp"
#include "ops/common/lookup_batch.hpp"

namespace raydb::detail {

namespace {
// last_pipelined_timeline(): per thread, as contexts on other threads pipeline calls of their own.
thread_local std::vector<ChunkTimes> timeline;

VkSemaphore new_semaphore(VkContext& c) {
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore s = VK_NULL_HANDLE;
  vk_check(c.vk.vkCreateSemaphore(c.device, &si, nullptr, &s), "vkCreateSemaphore");
  return s;
}

void idle_queues(VkContext& c) {
  c.vk.vkQueueWaitIdle(c.queue);
  for (VkQueue q : c.copy_queues)
    if (q) c.vk.vkQueueWaitIdle(q);
}

void submit(VkContext& c, VkQueue queue, VkCommandBuffer cmd, VkSemaphore wait,
            VkPipelineStageFlags wait_stage, VkSemaphore signal, VkFence fence) {
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.waitSemaphoreCount = wait ? 1 : 0;
  si.pWaitSemaphores = &wait;
  si.pWaitDstStageMask = &wait_stage;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  si.signalSemaphoreCount = signal ? 1 : 0;
  si.pSignalSemaphores = &signal;
  fail_if_loss_injected(c);
  VkResult r = c.vk.vkQueueSubmit(queue, 1, &si, fence);
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(c);
  vk_check(r, "vkQueueSubmit");
}
}  // namespace

const std::vector<ChunkTimes>& last_pipelined_timeline() {
  return timeline;
}

uint64_t pipelined_chunk(uint64_t k, uint64_t remaining, uint64_t chunk, uint64_t min_piece) {
  const uint64_t cap = k == 0 ? chunk / 4 : k == 1 ? chunk / 2 : chunk;
  uint64_t s = remaining >= 2 * chunk ? chunk : std::max((remaining + 1) / 2, chunk / 4);
  s = std::max(std::min(s, cap), min_piece);
  // A remainder of less than half a chunk joins it, where the slots hold both.
  if (s >= remaining || (remaining - s < s / 2 && remaining <= chunk)) return remaining;
  return s;
}

LookupBatch::Slots& LookupBatch::context_slots(VkContext& c) {
  if (!c.lookup_slots) {
    VkContext* ctx = &c;
    c.lookup_slots = std::shared_ptr<void>(new Slots{}, [ctx](void* p) {
      auto* slots = static_cast<Slots*>(p);
      destroy_slots(*ctx, *slots);
      delete slots;
    });
  }
  return *static_cast<Slots*>(c.lookup_slots.get());
}

void LookupBatch::destroy_slots(VkContext& c, Slots& slots) {
  HostPhaseScope timed(HostPhase::release);
  if (std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.partial; })) {
    // A chunk whose download was never submitted has no fence to wait for.
    idle_queues(c);
  }
  const VkCommandPool copy_pool = c.has_copy_queues() ? c.copy_pool : c.command_pool;
  for (Slot& s : slots) {
    s.touched.wait();  // before its buffers go
    // A partial slot's fence may never be signalled; the queues are idle by now.
    if (s.busy && !s.partial) c.vk.vkWaitForFences(c.device, 1, &s.done, VK_TRUE, UINT64_MAX);
    if (s.done) c.vk.vkDestroyFence(c.device, s.done, nullptr);
    for (VkSemaphore sem : {s.uploaded, s.probed})
      if (sem) c.vk.vkDestroySemaphore(c.device, sem, nullptr);
    if (s.probe) c.vk.vkFreeCommandBuffers(c.device, c.command_pool, 1, &s.probe);
    for (VkCommandBuffer cmd : {s.up, s.down})
      if (cmd) c.vk.vkFreeCommandBuffers(c.device, copy_pool, 1, &cmd);
    s = Slot{};
  }
}

void LookupBatch::ensure_slots(uint64_t chunk, uint64_t query_bytes, bool touch) {
  VkContext& c = ctx_;
  if (std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.partial; }))
    destroy_slots(c, slots_);
  // A call that failed midway may have left chunks in flight (a rebuild reserves the slots
  // again): their buffers must not be freed under the GPU.
  RxProbeStats stale;
  for (Slot& s : slots_) finish(s, nullptr, stale);
  const VkCommandPool copy_pool = c.has_copy_queues() ? c.copy_pool : c.command_pool;
  const uint32_t copy_bits = c.has_copy_queues() ? c.copy_timestamp_bits : 0;
  for (Slot& s : slots_) {
    // A touch still running goes on unless the buffers it maps are about to be made anew.
    if (s.in_host.size() < chunk * query_bytes || s.out_host.size() < chunk * kResultBytes)
      s.touched.wait();
    // Host-cached memory: the host copies in and out at memory speed (write-combined or BAR
    // memory would make the copy out crawl).
    const VkBuffer in_before = s.in_host.handle(), out_before = s.out_host.handle();
    ensure_buffer(c, s.in_host, chunk * query_bytes, kStorageUsage, MemoryUse::readback,
                  "lookup chunk in (host)", true);
    ensure_buffer(c, s.out_host, chunk * kResultBytes, kStorageUsage, MemoryUse::readback,
                  "lookup chunk out (host)", true);
    // The driver maps each page of fresh pinned memory on its first access, which would slow the
    // first call's copies by up to half (common/page_touch.hpp): a build's slots are mapped on a
    // thread meanwhile. A call's own new slots are not, as it copies into them at once.
    if (touch) {
      std::vector<TouchRange> fresh;
      for (auto [b, before] : {std::pair{&s.in_host, in_before}, {&s.out_host, out_before}})
        if (b->handle() != before) fresh.push_back({b->mapped(), b->size()});
      if (!fresh.empty()) s.touched = PageTouch(std::move(fresh));
    }
    ensure_buffer(c, s.in_dev, chunk * query_bytes, kStorageUsage, MemoryUse::device,
                  "lookup chunk in", true);
    ensure_buffer(c, s.out_dev, chunk * kResultBytes, kStorageUsage, MemoryUse::device,
                  "lookup chunk out", true);
    if (!s.probe) {
      s.probe = allocate_command_buffer(c, c.command_pool);
      s.up = allocate_command_buffer(c, copy_pool);
      s.down = allocate_command_buffer(c, copy_pool);
      s.uploaded = new_semaphore(c);
      s.probed = new_semaphore(c);
      VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      vk_check(c.vk.vkCreateFence(c.device, &fi, nullptr, &s.done), "vkCreateFence");
      s.kernel_timer = std::make_unique<GpuTimer>(c, 3);
      // A transfer-only queue cannot reset queries; the host does, where it may.
      if (!c.has_copy_queues() || c.host_query_reset)
        s.copy_timer = std::make_unique<GpuTimer>(c, 4, copy_bits);
    }
  }
}

void LookupBatch::reserve_pipeline(uint64_t lookups, uint64_t query_bytes) {
  if (lookup_chunk() > 0 && lookups > 0)
    ensure_slots(std::min(lookup_chunk(), lookups), query_bytes, true);
}

void LookupBatch::finish(Slot& s, RxLookup* out, RxProbeStats& stats) {
  if (!s.busy) return;
  s.busy = false;
  HostPhaseScope timed(HostPhase::wait);
  VkResult r = ctx_.vk.vkWaitForFences(ctx_.device, 1, &s.done, VK_TRUE, UINT64_MAX);
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
  vk_check(r, "vkWaitForFences");
  if (s.kernel_marks == 3) {
    stats.sort_ms += s.kernel_timer->ms(0, 1);
    stats.probe_ms += s.kernel_timer->ms(1, 2);
  } else {
    stats.probe_ms += s.kernel_timer->ms(0, 1);
  }
  if (s.copy_timer) {
    stats.upload_ms += s.copy_timer->ms(0, 1);
    // The kernel's span includes a chunk's sort, where it has one. A carried chunk has no download
    // of its own (its results went out during the next chunk's kernel).
    const double kernel_end = s.kernel_timer->at_ms(s.kernel_marks - 1);
    if (!s.carried) stats.download_ms += s.copy_timer->ms(2, 3);
    timeline.push_back({s.copy_timer->at_ms(0), s.copy_timer->at_ms(1), s.kernel_timer->at_ms(0),
                        kernel_end, s.carried ? kernel_end : s.copy_timer->at_ms(2),
                        s.carried ? kernel_end : s.copy_timer->at_ms(3), s.carried});
  }
  if (!out) return;
  s.down_dst->invalidate();
  if (s.down_dst == &s.out_host)
    host_copies({{out + s.first, s.out_host.mapped(), s.count * kResultBytes}});
}

void LookupBatch::submit_chunk(Slot& s, unsigned slot, VkPipelineStageFlags stage,
                               const SlotLaunch& launch, Slot* carry) {
  VkContext& c = ctx_;
  const uint64_t in_bytes = s.in_bytes;
  const uint64_t out_bytes = s.count * kResultBytes;
  const bool copy_queues = c.has_copy_queues();
  if (s.copy_timer && copy_queues) s.copy_timer->reset_on_host();

  begin_one_time(c, s.up);
  if (s.copy_timer && !copy_queues) s.copy_timer->reset(s.up);
  if (s.copy_timer) s.copy_timer->mark(s.up);
  VkBufferCopy up{s.up_src_offset, 0, in_bytes};
  c.vk.vkCmdCopyBuffer(s.up, s.up_src->handle(), s.in_dev.handle(), 1, &up);
  if (s.copy_timer) s.copy_timer->mark(s.up);
  vk_check(c.vk.vkEndCommandBuffer(s.up), "vkEndCommandBuffer");

  const bool direct = result_path() == ResultPath::direct;
  begin_one_time(c, s.probe);
  s.kernel_timer->reset(s.probe);
  // Carried results go unpoisoned, as direct ones do: RX's kernels write every lookup's result
  // (the fill cost 0.8 ms of a 62 ms call on the H100).
  if (result_path() == ResultPath::download)
    c.vk.vkCmdFillBuffer(s.probe, s.out_dev.handle(), 0, out_bytes, kResultPoison);
  memory_barrier(s.probe, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, stage,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  s.kernel_timer->mark(s.probe);
  s.kernel_marks = 1;
  recording_ = &s;
  carry_ = carry ? ChunkCarry{carry->out_dev.address(),
                              carry->down_dst->address() + carry->down_dst_offset, carry->count}
                 : ChunkCarry{};
  launch(s.probe, slot, s.in_dev.address(),
         direct ? s.down_dst->address() + s.down_dst_offset : s.out_dev.address(), s.count);
  recording_ = nullptr;
  carry_ = {};
  s.kernel_timer->mark(s.probe);
  ++s.kernel_marks;
  if (direct || carry)
    memory_barrier(s.probe, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT, c);
  vk_check(c.vk.vkEndCommandBuffer(s.probe), "vkEndCommandBuffer");

  if (!s.carried) {
    begin_one_time(c, s.down);
    if (s.copy_timer) s.copy_timer->mark(s.down);
    VkBufferCopy down{0, s.down_dst_offset, out_bytes};
    if (!direct) c.vk.vkCmdCopyBuffer(s.down, s.out_dev.handle(), s.down_dst->handle(), 1, &down);
    if (s.copy_timer) s.copy_timer->mark(s.down);
    // The fence alone does not make the copy's writes visible to the host.
    memory_barrier(s.down, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    vk_check(c.vk.vkEndCommandBuffer(s.down), "vkEndCommandBuffer");
  }

  vk_check(c.vk.vkResetFences(c.device, 1, &s.done), "vkResetFences");
  VkQueue up_queue = copy_queues ? c.copy_queues[0] : c.queue;
  VkQueue down_queue = copy_queues ? c.copy_queues[1] : c.queue;
  s.partial = true;
  submit(c, up_queue, s.up, VK_NULL_HANDLE, 0, s.uploaded, VK_NULL_HANDLE);
  // The kernel's submission signals the carried chunk's fence: its results are out with it.
  submit(c, c.queue, s.probe, s.uploaded, VK_PIPELINE_STAGE_TRANSFER_BIT | stage,
         s.carried ? VK_NULL_HANDLE : s.probed, carry ? carry->done : VK_NULL_HANDLE);
  if (carry) carry->partial = false;
  if (!s.carried)
    submit(c, down_queue, s.down, s.probed, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_NULL_HANDLE, s.done);
  s.partial = s.carried;
  s.busy = true;
}

RxProbeStats LookupBatch::run_pipelined(const QueryBatch& q, VkPipelineStageFlags stage,
                                        const ChunkLaunch& launch, RxLookup* out) {
  return run_pipelined_in_slots(
      q, stage,
      [&](VkCommandBuffer cmd, unsigned, VkDeviceAddress queries, VkDeviceAddress results,
          uint64_t count) { launch(cmd, queries, results, count); },
      out);
}

void LookupBatch::mark_sorted(VkCommandBuffer cmd) {
  if (!recording_ || recording_->kernel_marks != 1)
    throw Error(Errc::internal, "LookupBatch::mark_sorted outside a SlotLaunch, or twice");
  recording_->kernel_timer->mark(cmd);
  recording_->kernel_marks = 2;
}

RxProbeStats LookupBatch::run_pipelined_in_slots(const QueryBatch& q, VkPipelineStageFlags stage,
                                                 const SlotLaunch& launch, RxLookup* out) {
  // Chunks a failed call left in flight are waited for, their results dropped, by ensure_slots.
  RxProbeStats stats;
  stats.results_direct = result_path() == ResultPath::direct;
  const bool carrying = result_path() == ResultPath::carried;
  timeline.clear();
  if (q.count == 0) return stats;
  check_not_lost(ctx_);
  const uint64_t chunk = std::min(std::max<uint64_t>(lookup_chunk(), 1), q.count);
  const uint64_t min_piece = std::clamp<uint64_t>(lookup_chunk() / 4, 1, kMinPipelinedChunk);
  const uint64_t qbytes = q.bytes() / q.count;
  ensure_slots(chunk, qbytes);
  for (Slot& s : slots_) s.touched.wait();  // the host copies into them below
  const auto* src = static_cast<const uint8_t*>(q.data);
  // Queries or results in a HostBuffer: the copy engines read or write them there.
  const HostRange pinned_in = find_host_buffer(ctx_, q.data, q.bytes());
  const HostRange pinned_out = find_host_buffer(ctx_, out, q.count * kResultBytes);
  if (pinned_in) pinned_in.buffer->flush();
  unsigned k = 0;
  Slot* carry = nullptr;  // the previous chunk's slot, where this chunk's kernel writes it out
  try {
    for (uint64_t first = 0, count = 0; first < q.count; first += count, ++k) {
      const unsigned slot = k % kSlots;
      Slot& s = slots_[slot];
      count = pipelined_chunk(k, q.count - first, chunk, min_piece);
      // The slot's last chunk must be done before its memory is reused; its results go out in the
      // same parallel pass that brings this chunk's queries in.
      const bool results_out = s.busy && s.down_dst == &s.out_host;
      finish(s, nullptr, stats);
      const HostCopy copy_in{s.in_host.mapped(), src + first * qbytes, count * qbytes};
      const HostCopy copy_out{out + s.first, s.out_host.mapped(), s.count * kResultBytes};
      if (results_out) s.out_host.invalidate();
      if (results_out && !pinned_in)
        host_copies({copy_out, copy_in});
      else if (results_out)
        host_copies({copy_out});
      else if (!pinned_in)
        host_copies({copy_in});
      s.in_host.flush();
      s.first = first;
      s.count = count;
      s.in_bytes = count * qbytes;
      s.up_src = pinned_in ? pinned_in.buffer : &s.in_host;
      s.up_src_offset = pinned_in ? pinned_in.offset + first * qbytes : 0;
      s.down_dst = pinned_out ? pinned_out.buffer : &s.out_host;
      s.down_dst_offset = pinned_out ? pinned_out.offset + first * kResultBytes : 0;
      s.carried = carrying && first + count < q.count;  // by the next chunk's kernel
      submit_chunk(s, slot, stage, launch, carry);
      carry = s.carried ? &s : nullptr;
    }
    // The last chunks, oldest first.
    for (unsigned j = 0; j < kSlots; ++j) finish(slots_[(k + j) % kSlots], out, stats);
  } catch (...) {
    // A call that fails midway returns with no chunk running: its caller may destroy the index,
    // whose buffers and descriptor sets the kernels use, at once. The slots are sorted out by the
    // next call (ensure_slots).
    idle_queues(ctx_);
    throw;
  }
  if (!timeline.empty()) {
    const double t0 = timeline.front().up_begin;
    for (ChunkTimes& t : timeline)
      for (double* v :
           {&t.up_begin, &t.up_end, &t.kernel_begin, &t.kernel_end, &t.down_begin, &t.down_end})
        *v -= t0;
  }
  return stats;
}

}  // namespace raydb::detail
