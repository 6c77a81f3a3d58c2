#include "ops/common/lookup_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "common/host_copy.hpp"

namespace raydb::detail {

static_assert(sizeof(RxLookup) == kResultBytes);

void ensure_buffer(VkContext& c, Buffer& b, uint64_t bytes, VkBufferUsageFlags usage, MemoryUse use,
                   const char* name, bool copy_queues) {
  if (b && b.size() >= bytes) return;
  b.reset();
  b = Buffer(c, bytes, usage, use, name, copy_queues);
}

namespace {
std::atomic<uint64_t> g_lookup_chunk{kDefaultLookupChunk};

}  // namespace

namespace {
// -1: no override; else a ResultPath.
std::atomic<int> g_result_path_override{-1};
}  // namespace

std::optional<ResultPath> result_path_override() {
  int v = g_result_path_override.load();
  if (v < 0) return std::nullopt;
  return static_cast<ResultPath>(v);
}
void set_result_path_override(std::optional<ResultPath> path) {
  g_result_path_override = path ? static_cast<int>(*path) : -1;
}

uint64_t lookup_chunk() {
  return g_lookup_chunk.load();
}
void set_lookup_chunk(uint64_t lookups) {
  g_lookup_chunk = lookups;
}

LookupBatch::LookupBatch(VkContext& ctx, ResultPath results)
    : ctx_(ctx), slots_(context_slots(ctx)), result_path_(results) {}

LookupBatch::~LookupBatch() {
  // A call that failed midway may have left chunks in flight, which read the index's memory that
  // goes after this batch. The ring is the context's, used under the call lock; an index may be
  // destroyed on any thread, outside any call.
  std::unique_lock<std::recursive_mutex> lock(ctx_.call_mutex);
  if (std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.partial; })) {
    destroy_slots(ctx_, slots_);
    return;
  }
  RxProbeStats stale;
  for (Slot& s : slots_) finish(s, nullptr, stale);
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
  ensure_buffer(ctx_, queries_dev_, query_bytes_, kStorageUsage, MemoryUse::device, "queries");
  ensure_buffer(ctx_, results_dev_, rbytes, kStorageUsage, MemoryUse::device, "results");
  ensure_buffer(ctx_, results_host_, rbytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                "results readback");
  ensure_buffer(ctx_, staging_, query_bytes_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUse::upload,
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
  ctx_.vk.vkCmdFillBuffer(cmd, results_dev_.handle(), 0, count_ * kResultBytes, kResultPoison);
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
