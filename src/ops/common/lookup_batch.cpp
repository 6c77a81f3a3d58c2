#include "ops/common/lookup_batch.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "common/parallel.hpp"

namespace raydb::detail {

namespace {
constexpr uint32_t kPoison = 0xA5A5A5A5u;
constexpr uint64_t kResultBytes = 16;
static_assert(sizeof(RxLookup) == kResultBytes);

void ensure(VkContext& c, Buffer& b, uint64_t bytes, VkBufferUsageFlags usage, MemoryUse use,
            const char* name) {
  if (b && b.size() >= bytes) return;
  b.reset();
  b = Buffer(c, bytes, usage, use, name);
}

std::atomic<uint64_t> g_lookup_chunk{kDefaultLookupChunk};

// One host copy (src) or poison fill (src == nullptr) of a pipelined chunk.
struct HostCopy {
  void* dst;
  const void* src;
  uint64_t bytes;
};

// The copies between the caller's memory and the pinned slots, split over several threads: one
// thread copies about 5-10 GB/s, well below PCIe's 25-55 GB/s.
void host_copies(std::initializer_list<HostCopy> copies) {
  uint64_t total = 0;
  for (const HostCopy& c : copies) total += c.bytes;
  unsigned parts = total < (uint64_t{4} << 20) ? 1u : std::min(host_threads(), 16u);
  parallel_slices(2 * size_t{parts}, parts, [&](size_t, size_t, unsigned t) {
    for (const HostCopy& c : copies) {
      uint64_t per = (c.bytes / parts + 63) & ~uint64_t{63};
      uint64_t b = std::min(c.bytes, t * per), e = std::min(c.bytes, b + per);
      if (t + 1 == parts) e = c.bytes;
      if (b >= e) continue;
      auto* d = static_cast<uint8_t*>(c.dst) + b;
      if (c.src)
        std::memcpy(d, static_cast<const uint8_t*>(c.src) + b, e - b);
      else
        std::memset(d, 0xA5, e - b);  // kPoison in every byte
    }
  });
}
}  // namespace

uint64_t lookup_chunk() {
  return g_lookup_chunk.load();
}
void set_lookup_chunk(uint64_t lookups) {
  g_lookup_chunk = lookups;
}

LookupBatch::~LookupBatch() {
  // The slots' command buffers come from the context's one pool, which other threads' calls use
  // under the call lock; an index may be destroyed on any thread, outside any call.
  std::unique_lock<std::recursive_mutex> lock(ctx_.call_mutex);
  for (Slot& s : slots_) {
    // The GPU may still run a chunk of a call that failed; errors cannot leave a destructor.
    if (s.busy) ctx_.vk.vkWaitForFences(ctx_.device, 1, &s.fence, VK_TRUE, UINT64_MAX);
    if (s.fence) ctx_.vk.vkDestroyFence(ctx_.device, s.fence, nullptr);
    if (s.cmd) ctx_.vk.vkFreeCommandBuffers(ctx_.device, ctx_.command_pool, 1, &s.cmd);
  }
}

void LookupBatch::ensure_slots(uint64_t chunk, uint64_t query_bytes) {
  for (Slot& s : slots_) {
    // Host-cached memory: the host copies in and out at memory speed (write-combined or BAR
    // memory would make the copy out crawl), and the kernel reaches it by device address.
    ensure(ctx_, s.in, chunk * query_bytes, kStorageUsage, MemoryUse::readback, "lookup chunk in");
    ensure(ctx_, s.out, chunk * kResultBytes, kStorageUsage, MemoryUse::readback,
           "lookup chunk out");
    if (!s.cmd) {
      VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      ai.commandPool = ctx_.command_pool;
      ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      ai.commandBufferCount = 1;
      vk_check(ctx_.vk.vkAllocateCommandBuffers(ctx_.device, &ai, &s.cmd),
               "vkAllocateCommandBuffers");
    }
    if (!s.fence) {
      VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
      vk_check(ctx_.vk.vkCreateFence(ctx_.device, &fi, nullptr, &s.fence), "vkCreateFence");
    }
    if (!s.timer) s.timer = std::make_unique<GpuTimer>(ctx_, 2);
  }
}

void LookupBatch::finish(Slot& s, RxLookup* out, double& probe_ms) {
  if (!s.busy) return;
  s.busy = false;
  VkResult r = ctx_.vk.vkWaitForFences(ctx_.device, 1, &s.fence, VK_TRUE, UINT64_MAX);
  if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
  vk_check(r, "vkWaitForFences");
  probe_ms += s.timer->ms(0, 1);
  if (!out) return;
  s.out.invalidate();
  host_copies({{out + s.first, s.out.mapped(), s.count * kResultBytes}});
}

RxProbeStats LookupBatch::run_pipelined(const QueryBatch& q, VkPipelineStageFlags stage,
                                        const ChunkLaunch& launch, RxLookup* out) {
  RxProbeStats stats;
  // Slots a failed call left in flight: wait for them, their results are stale.
  for (Slot& s : slots_) finish(s, nullptr, stats.probe_ms);
  stats.probe_ms = 0;
  if (q.count == 0) return stats;
  check_not_lost(ctx_);
  const uint64_t chunk = std::min(std::max<uint64_t>(lookup_chunk(), 1), q.count);
  const uint64_t qbytes = q.bytes() / q.count;
  ensure_slots(chunk, qbytes);
  const auto* src = static_cast<const uint8_t*>(q.data);
  unsigned k = 0;
  for (uint64_t first = 0; first < q.count; first += chunk, ++k) {
    Slot& s = slots_[k % kSlots];
    const uint64_t count = std::min(chunk, q.count - first);
    // The slot's last chunk must be done before its memory is reused; its results go out in the
    // same parallel pass that brings this chunk's queries in. Only then are the slot's results
    // poisoned, so that a lookup the kernel failed to write cannot pass as a result. The poison
    // must not share that pass: each thread fills its share of the new chunk's results, and
    // where that chunk is shorter (the last one) a share starts inside another thread's share of
    // the results still being copied out. On the 64-core GPU host that overwrote results of
    // 2^25-lookup batches with poison.
    if (s.busy) {
      VkResult r = ctx_.vk.vkWaitForFences(ctx_.device, 1, &s.fence, VK_TRUE, UINT64_MAX);
      if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
      vk_check(r, "vkWaitForFences");
      s.busy = false;
      stats.probe_ms += s.timer->ms(0, 1);
      s.out.invalidate();
      host_copies({{out + s.first, s.out.mapped(), s.count * kResultBytes},
                   {s.in.mapped(), src + first * qbytes, count * qbytes}});
    } else {
      host_copies({{s.in.mapped(), src + first * qbytes, count * qbytes}});
    }
    host_copies({{s.out.mapped(), nullptr, count * kResultBytes}});
    s.in.flush();
    s.out.flush();
    s.first = first;
    s.count = count;

    vk_check(ctx_.vk.vkResetCommandBuffer(s.cmd, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk_check(ctx_.vk.vkBeginCommandBuffer(s.cmd, &bi), "vkBeginCommandBuffer");
    s.timer->reset(s.cmd);
    s.timer->mark(s.cmd);
    launch(s.cmd, s.in.address(), s.out.address(), count);
    s.timer->mark(s.cmd);
    memory_barrier(s.cmd, stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT, ctx_);
    vk_check(ctx_.vk.vkEndCommandBuffer(s.cmd), "vkEndCommandBuffer");
    vk_check(ctx_.vk.vkResetFences(ctx_.device, 1, &s.fence), "vkResetFences");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s.cmd;
    if (ctx_.lose_on_next_submit.exchange(false)) {
      mark_lost(ctx_);
      vk_fail(VK_ERROR_DEVICE_LOST, "vkQueueSubmit (device loss injected by the test hook)");
    }
    VkResult r = ctx_.vk.vkQueueSubmit(ctx_.queue, 1, &si, s.fence);
    if (r == VK_ERROR_DEVICE_LOST) mark_lost(ctx_);
    vk_check(r, "vkQueueSubmit");
    s.busy = true;
  }
  // The last chunks, oldest first.
  for (unsigned j = 0; j < kSlots; ++j) finish(slots_[(k + j) % kSlots], out, stats.probe_ms);
  return stats;
}

uint64_t QueryBatch::lo(uint64_t i) const {
  uint64_t stride = ranges ? 2 : 1;
  return width == KeyWidth::bits64 ? static_cast<const uint64_t*>(data)[i * stride]
                                   : static_cast<const uint32_t*>(data)[i * stride];
}

uint64_t QueryBatch::hi(uint64_t i) const {
  uint64_t stride = ranges ? 2 : 1;
  return width == KeyWidth::bits64 ? static_cast<const uint64_t*>(data)[i * stride + stride - 1]
                                   : static_cast<const uint32_t*>(data)[i * stride + stride - 1];
}

void validate_queries(const QueryBatch& q, KeyWidth index_width) {
  if (q.width != index_width)
    throw Error(Errc::invalid_argument,
                fmt::format("the queries are {}-bit keys but the index holds {}-bit keys",
                            to_string(q.width), to_string(index_width)));
  if (q.count > 0xFFFFFFFFull)
    throw Error(Errc::limit_exceeded, "at most 2^32 - 1 lookups per batch");
  if (q.count > 0 && !q.data)
    throw Error(Errc::invalid_argument, "a query batch has a size but no data");
  if (q.ranges)
    for (uint64_t i = 0; i < q.count; ++i)
      if (q.lo(i) > q.hi(i))
        throw Error(Errc::invalid_argument,
                    fmt::format("range query {} has lo {} > hi {}", i, q.lo(i), q.hi(i)));
}

void check_output_size(const QueryBatch& q, size_t out_size) {
  if (out_size < q.count)
    throw Error(Errc::output_too_small, fmt::format("{} {}lookups but the output holds {} results",
                                                    q.count, q.ranges ? "range " : "", out_size));
}

void LookupBatch::prepare(const QueryBatch& q) {
  count_ = q.count;
  query_bytes_ = q.bytes();
  uint64_t rbytes = count_ * kResultBytes;
  ensure(ctx_, queries_dev_, query_bytes_, kStorageUsage, MemoryUse::device, "queries");
  ensure(ctx_, results_dev_, rbytes, kStorageUsage, MemoryUse::device, "results");
  ensure(ctx_, results_host_, rbytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
         "results readback");
  ensure(ctx_, staging_, query_bytes_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::upload,
         "query staging");
  host_copies({{staging_.mapped(), q.data, query_bytes_}});
  staging_.flush();
}

void LookupBatch::record_upload(VkCommandBuffer cmd, GpuTimer& timer, uint32_t& t0, uint32_t& t1,
                                VkPipelineStageFlags consumer_stage) {
  t0 = timer.mark(cmd);
  VkBufferCopy up{0, 0, query_bytes_};
  ctx_.vk.vkCmdCopyBuffer(cmd, staging_.handle(), queries_dev_.handle(), 1, &up);
  t1 = timer.mark(cmd);
  // Poison the results so that a lookup the kernel failed to write cannot pass as a result.
  ctx_.vk.vkCmdFillBuffer(cmd, results_dev_.handle(), 0, count_ * kResultBytes, kPoison);
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, consumer_stage,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, ctx_);
}

void LookupBatch::record_download(VkCommandBuffer cmd, VkPipelineStageFlags producer_stage) {
  memory_barrier(cmd, producer_stage, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT, ctx_);
  VkBufferCopy down{0, 0, count_ * kResultBytes};
  ctx_.vk.vkCmdCopyBuffer(cmd, results_dev_.handle(), results_host_.handle(), 1, &down);
}

RxProbeStats LookupBatch::run(
    const QueryBatch& q, uint64_t slice,
    const std::function<void(VkCommandBuffer, uint64_t, uint64_t)>& launch, RxLookup* out) {
  RxProbeStats stats;
  if (q.count == 0) return stats;
  if (lookup_chunk() > 0)
    return run_pipelined(
        q, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        [&](VkCommandBuffer cmd, VkDeviceAddress queries, VkDeviceAddress results, uint64_t n) {
          cur_queries_ = queries;
          cur_results_ = results;
          for (uint64_t first = 0; first < n; first += slice)
            launch(cmd, first, std::min(slice, n - first));
        },
        out);
  prepare(q);
  cur_queries_ = queries();
  cur_results_ = results();
  CommandBatch cb(ctx_);
  VkCommandBuffer cmd = cb.cmd();
  GpuTimer timer(ctx_, 8);
  timer.reset(cmd);
  uint32_t t0, t1;
  record_upload(cmd, timer, t0, t1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  uint32_t t2 = timer.mark(cmd);
  for (uint64_t first = 0; first < q.count; first += slice)
    launch(cmd, first, std::min(slice, q.count - first));
  uint32_t t3 = timer.mark(cmd);
  record_download(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
  uint32_t t4 = timer.mark(cmd);
  cb.submit_and_wait();
  stats.upload_ms = timer.ms(t0, t1);
  stats.probe_ms = timer.ms(t2, t3);
  stats.download_ms = timer.ms(t3, t4);
  read_results(out);
  return stats;
}

void LookupBatch::read_results(RxLookup* out) const {
  results_host_.invalidate();
  if (out) host_copies({{out, results_host_.mapped(), count_ * kResultBytes}});
}

}  // namespace raydb::detail
