#include "ops/common/key_records.hpp"

#include <fmt/format.h>

#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "backend/cuda/cuda.hpp"
#include "backend/optix/optix.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/host_buffers.hpp"
#include "backend/vk/spare_buffers.hpp"
#include "backend/vk/staged_upload.hpp"

namespace raydb::detail {

namespace {

// A build that fails once its sort is submitted (the rest of a staged upload, an allocation) waits
// for the GPU work in flight before the buffers that work uses go: the batch with the sort or the
// key copy, and the CUDA stream once it holds the sort. Errors of these waits are dropped: the
// failure that unwinds is the one to report.
class InFlightGuard {
 public:
  InFlightGuard(VkContext& c, CommandBatch& batch) : c_(c), batch_(batch) {}
  InFlightGuard(const InFlightGuard&) = delete;
  InFlightGuard& operator=(const InFlightGuard&) = delete;
  ~InFlightGuard() {
    if (std::uncaught_exceptions() == unwinding_) return;
    try {
      batch_.wait();
    } catch (...) {
    }
    if (!cuda_) return;
    try {
      cuda::finish(c_);
    } catch (...) {
    }
  }
  // The CUDA stream holds work that waits only for submitted batches.
  void cuda_enqueued() { cuda_ = true; }

 private:
  VkContext& c_;
  CommandBatch& batch_;
  bool cuda_ = false;
  const int unwinding_ = std::uncaught_exceptions();
};

}  // namespace

void validate_key_column(KeySpan k, std::span<const uint32_t> v) {
  if (k.size > kMaxIndexedKeys)
    throw Error(Errc::limit_exceeded,
                fmt::format("{} keys given; an index holds at most {} (row ids are 32-bit)", k.size,
                            kMaxIndexedKeys));
  if (!v.empty() && v.size() != k.size)
    throw Error(
        Errc::invalid_argument,
        fmt::format("the value column has {} entries but there are {} keys", v.size(), k.size));
  if (k.size > 0 && !k.data)
    throw Error(Errc::invalid_argument, "key column has a size but no data");
}

KeyRecordBuilder::KeyRecordBuilder(VkContext& ctx, Backend backend, bool optix_twin)
    : ctx_(ctx),
      backend_(backend),
      optix_twin_(optix_twin),
      sorter_(ctx),
      layout_(kernel(ctx, ShaderId::key_records, sizeof(KeyRecordParams))) {
  // backend = cuda where CUDA cannot run is refused here, also for a build of no keys.
  if (backend == Backend::cuda) cuda::use_cuda(ctx, backend);
}

KeyRecords KeyRecordBuilder::build(KeySpan k, std::span<const uint32_t> v, bool key_order,
                                   const char* name, SortedKeys sorted_keys,
                                   const DeviceColumnSource* source,
                                   const std::function<void()>& while_uploading) {
  VkContext& c = ctx_;
  const uint64_t n = k.size;
  const bool key64 = k.width == KeyWidth::bits64;
  const uint64_t kb = k.bytes();
  KeyRecords out;
  // With CUDA, CUB sorts in memory shared with the Vulkan passes around it: upload (Vulkan),
  // sort (CUDA), record layout (Vulkan), ordered by the shared timeline.
  const bool cuda = n > 0 && cuda::use_cuda(c, backend_);
  const bool has_values = source ? source->values != VK_NULL_HANDLE : !v.empty();
  // Vulkan's own temporaries, kept between builds like the sort's buffers below: a build like the
  // last one makes none of them.
  auto kept = [&](SpareSlot slot, uint64_t bytes, const std::string& what) {
    return SpareBuffers::take(c, slot, bytes, false, [&] {
      return Buffer(c, bytes, kStorageUsage, MemoryUse::device, what);
    });
  };
  Buffer values_row =
      has_values ? kept(SpareSlot::upload_values, n * 4, fmt::format("{} values (upload)", name))
                 : Buffer();
  // From host memory the values go up first, alone, and the keys' buffer is made while they do:
  // one shared with CUDA takes ~3 ms per 256 MiB to make on an H100, Vulkan's own 0.5 ms.
  const bool values_first = !source && values_row;
  // The keys and the sort's row ids come from the context's spares (spare_buffers.hpp): a build
  // like the last one makes neither.
  auto make_keys = [&] {
    return SpareBuffers::take(c, SpareSlot::sort_keys, kb, cuda, [&] {
      return cuda::kernel_buffer(c, cuda, kb, fmt::format("{} keys (upload)", name));
    });
  };
  Buffer keys = values_first ? Buffer() : make_keys();

  // The upload goes alone, so that the buffers after it are made while it runs: from host memory
  // it takes ~10 ms per 512 MB, and making 1 GiB of records a few ms (docs/e2e.md).
  // (What the upload uses is declared first, so that on an error it goes after the upload's
  // wait.)
  GpuTimer timer(c, 6);
  Buffer s0, s1;
  const bool staged = !source && n > 0 && worth_staging(c, k.data, kb) &&
                      (!values_row || !find_host_buffer(c, v.data(), v.size() * 4));
  std::optional<StagedUpload> staged_upload;
  CommandBatch upload(c);
  std::optional<CommandBatch> key_upload;
  // With the values first, the upload's time is its two copies' (the gap between them is the
  // host making the keys' buffer and, from std::vectors, staging them).
  uint32_t values_done = 0, keys_start = 0;
  VkCommandBuffer cmd = upload.cmd();
  timer.reset(cmd);
  uint32_t t0 = timer.mark(cmd);
  if (source) {
    // Host writes submitted earlier to this queue, or signalled through `wait`, come first.
    memory_barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    for (const auto& [sem, value] : source->wait)
      upload.wait_for(sem, value, VK_PIPELINE_STAGE_TRANSFER_BIT);
    // The caller's buffers are free again once the copies are done.
    for (const auto& [sem, value] : source->signal) upload.signal(sem, value);
    if (n > 0) {
      VkBufferCopy kr{source->keys_offset, 0, kb};
      c.vk.vkCmdCopyBuffer(cmd, source->keys, keys.handle(), 1, &kr);
      if (values_row) {
        VkBufferCopy vr{source->values_offset, 0, n * 4};
        c.vk.vkCmdCopyBuffer(cmd, source->values, values_row.handle(), 1, &vr);
      }
    }
  } else if (staged) {
    // Large columns from ordinary host memory: through the staging chunks on the copy queue,
    // while the buffers below are made (staged_upload.hpp).
    // The keys go first: the sort needs only them, and runs while the values go up.
    if (!keys) keys = make_keys();
    std::vector<StagedCopy> copies{{&keys, 0, k.data, kb}};
    if (values_row) copies.push_back({&values_row, 0, v.data(), v.size() * 4});
    staged_upload.emplace(c, std::move(copies));
  } else {
    if (values_first) {
      record_upload(c, cmd, s1, values_row, v.data(), v.size() * 4);
      values_done = timer.mark(cmd);
      upload.submit();
      keys = make_keys();
      cmd = key_upload.emplace(c).cmd();
      keys_start = timer.mark(cmd);
    }
    record_upload(c, cmd, s0, keys, k.data, kb);
  }
  uint32_t t1 = timer.mark(cmd);
  (key_upload ? *key_upload : upload).submit();
  // From std::vectors (staged) the host's allocations would hold the copies' submissions
  // (staged_upload.hpp): the sort goes once the keys' pieces are submitted, and the buffers below
  // are made once the values' are, the records and the caller's own while the GPU sorts.
  const bool deferred = staged_upload.has_value();
  constexpr size_t kKeysCopy = 0;
  if (deferred)
    staged_upload->wait_submitted(kKeysCopy);
  else if (while_uploading)
    while_uploading();

  Buffer counter(c, 4, kStorageUsage, MemoryUse::device, "duplicate counter");
  Buffer counter_host(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                      "duplicate readback");
  // Shared with CUDA for an OptiX twin, which builds over these records.
  const bool dense_keys = key_order && sorted_keys == SortedKeys::owned;
  auto make_records = [&] {
    out.records = cuda::kernel_buffer(c, cuda && optix_twin_ && optix::built(), n * kKeyRecordBytes,
                                      fmt::format("{} records", name));
    if (dense_keys)
      out.sorted_keys =
          Buffer(c, kb, kStorageUsage, MemoryUse::device, fmt::format("{} sorted keys", name));
  };
  if (!deferred) make_records();
  // Submitted after the upload on the same queue: the barriers below order its copies too.
  CommandBatch batch(c);
  cmd = batch.cmd();
  if (staged_upload) {
    staged_upload->record_acquire(cmd, kKeysCopy);
    batch.wait_for(staged_upload->semaphore(), staged_upload->done_value(kKeysCopy),
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    t1 = timer.mark(cmd);  // the sort's time starts once the keys are in, not at `upload`
  }
  c.vk.vkCmdFillBuffer(cmd, counter.handle(), 0, 4, 0);
  // In row order the keys stay as given; a sorted copy only tells whether keys repeat.
  Buffer copy;
  if (!key_order && n > 0) {
    copy = cuda::kernel_buffer(c, cuda, kb, "key copy");
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy region{0, 0, kb};
    c.vk.vkCmdCopyBuffer(cmd, keys.handle(), copy.handle(), 1, &region);
  }
  memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
  const Buffer& sorted = key_order ? keys : copy;
  Buffer sorted_rows = SpareBuffers::take(c, SpareSlot::sort_rows, n * 4, cuda, [&] {
    return cuda::kernel_buffer(c, cuda, n * 4, "sorted row ids");
  });
  RadixSort::Temps temps;
  if (!cuda && n > 0) {
    temps.keys = kept(SpareSlot::sort_scratch_keys, kb, "sort keys");
    temps.rows = kept(SpareSlot::sort_scratch_rows, n * 4, "sort rows");
  }
  // The layout goes in a submission of its own where the records are made once the sort runs,
  // and after CUDA's sort.
  std::optional<CommandBatch> layout_batch;
  InFlightGuard in_flight(c, batch);
  std::optional<cuda::Timer> cuda_timer;
  uint32_t c0 = 0, c1 = 0, t_sorted = 0, t_layout = 0;
  // The layout reads the values, so it waits for the rest of a staged upload; its records are
  // made once that is submitted.
  auto after_upload = [&](CommandBatch& b, VkCommandBuffer layout_cmd) {
    if (!staged_upload) return;
    staged_upload->wait_submitted();
    make_records();
    if (!values_row) return;
    staged_upload->record_acquire(layout_cmd, StagedUpload::kLast);
    b.wait_for(staged_upload->semaphore(), staged_upload->done_value(),
               VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  };
  if (cuda) {
    cuda::cuda_after(c, batch);
    batch.submit();
    cuda_timer.emplace(c, 2);
    c0 = cuda_timer->mark();
    in_flight.cuda_enqueued();
    cuda::sort_pairs(c, sorted, sorted_rows, n, key64);
    c1 = cuda_timer->mark();
    cmd = layout_batch.emplace(c).cmd();
    after_upload(*layout_batch, cmd);
    cuda::vulkan_after(c, *layout_batch);
    t_layout = timer.mark(cmd);
  } else {
    sorter_.record(cmd, sorted, sorted_rows, n, key64, temps);
    if (deferred) {
      t_sorted = timer.mark(cmd);
      batch.submit();
      cmd = layout_batch.emplace(c).cmd();
      after_upload(*layout_batch, cmd);
      compute_barrier(c, cmd);  // after the sort, submitted before it on this queue
      t_layout = timer.mark(cmd);
    }
  }
  KeyRecordParams p{keys.address(),
                    key_order ? sorted_rows.address() : 0,
                    values_row ? values_row.address() : 0,
                    out.records.address(),
                    sorted.address(),
                    counter.address(),
                    dense_keys ? out.sorted_keys.address() : 0,
                    static_cast<uint32_t>(n),
                    key64 ? 1u : 0u};
  layout_.dispatch(cmd, &p, n);
  uint32_t t2 = timer.mark(cmd);
  memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT, c);
  VkBufferCopy one{0, 0, 4};
  c.vk.vkCmdCopyBuffer(cmd, counter.handle(), counter_host.handle(), 1, &one);
  if (layout_batch) {
    layout_batch->submit();
    if (deferred && while_uploading) while_uploading();
    layout_batch->wait();
    batch.wait();
    out.sort_ms = cuda ? cuda_timer->ms(c0, c1) + timer.ms(t_layout, t2)
                       : timer.ms(t1, t_sorted) + timer.ms(t_layout, t2);
  } else {
    batch.submit_and_wait();
    out.sort_ms = timer.ms(t1, t2);
  }
  if (staged_upload) staged_upload->wait();
  upload.wait();
  if (key_upload) key_upload->wait();
  out.upload_ms = staged_upload ? staged_upload->gpu_ms()
                  : key_upload  ? timer.ms(t0, values_done) + timer.ms(keys_start, t1)
                                : timer.ms(t0, t1);
  counter_host.invalidate();
  uint32_t duplicates = 0;
  std::memcpy(&duplicates, counter_host.mapped(), 4);
  out.unique = duplicates == 0;
  // The temporaries go on the release queue, so the caller's next pass need not wait for frees;
  // the upload's and the sort's buffers are kept for the next build.
  if (key_order && sorted_keys == SortedKeys::lent) out.sorted_keys = std::move(keys);
  SpareBuffers::keep(c, SpareSlot::sort_keys, std::move(keys));
  SpareBuffers::keep(c, SpareSlot::sort_rows, std::move(sorted_rows));
  SpareBuffers::keep(c, SpareSlot::upload_values, std::move(values_row));
  SpareBuffers::keep(c, SpareSlot::sort_scratch_keys, std::move(temps.keys));
  SpareBuffers::keep(c, SpareSlot::sort_scratch_rows, std::move(temps.rows));
  for (Buffer* b : {&s0, &s1, &copy}) c.release_later(std::move(*b));
  return out;
}

}  // namespace raydb::detail
