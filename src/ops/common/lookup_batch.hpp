// The device side of one batch of lookups, shared by the index operators: queries staged and
// uploaded, one 16-byte result per query (first row, count, sum) poisoned before the kernel runs
// and read back after. Buffers are kept between batches and grown on demand.
//
// Lookups from host memory run pipelined (run_pipelined, lookup_pipeline.cpp): chunks of queries
// go through a ring of slots. Each chunk is copied into pinned memory by the host, uploaded on a
// copy queue, probed in device memory, and downloaded on a copy queue, so that the host's copies,
// both PCIe directions and the kernels of neighbouring chunks overlap.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "common/page_touch.hpp"
#include "raydb/keys.hpp"
#include "raydb/rx_index.hpp"

namespace raydb::detail {

// One lookup batch's queries: points or [lo, hi] ranges of one key width.
struct QueryBatch {
  const void* data = nullptr;
  uint64_t count = 0;
  KeyWidth width = KeyWidth::bits32;
  bool ranges = false;

  static QueryBatch points(KeySpan k) { return {k.data, k.size, k.width, false}; }
  static QueryBatch of(RangeSpan r) { return {r.data, r.size, r.width, true}; }
  uint64_t bytes() const { return count * (width == KeyWidth::bits64 ? 8 : 4) * (ranges ? 2 : 1); }
  uint64_t lo(uint64_t i) const;
  uint64_t hi(uint64_t i) const;
};

// Checks what every index checks: widths match, lo <= hi, the batch fits 32-bit query ids.
void validate_queries(const QueryBatch& q, KeyWidth index_width);
// A caller-sized output must hold one result per query.
void check_output_size(const QueryBatch& q, size_t out_size);

// The context an index's impl runs on: its own `ctx`, or its view's.
template <class Impl>
VkContext& context_of(Impl& impl) {
  if constexpr (requires { impl.ctx; })
    return *impl.ctx;
  else
    return *impl.view.ctx;
}

// The public lookup calls every index shares: the caller's output checked (or made), then the
// index's probe(QueryBatch, RxLookup*), with errors returned as values.

template <class Impl>
Status lookup_into(Impl& impl, const QueryBatch& q, std::span<RxLookup> out) {
  return guarded(context_of(impl), [&] {
    check_output_size(q, out.size());
    impl.probe(q, out.data());
  });
}
template <class Impl>
Result<std::vector<RxLookup>> lookup_vector(Impl& impl, const QueryBatch& q) {
  return guarded(context_of(impl), [&] {
    std::vector<RxLookup> out(q.count);
    impl.probe(q, out.data());
    return out;
  });
}

// Each lookup's result (RxLookup), and what fills it before the kernel runs.
inline constexpr uint64_t kResultBytes = 16;
inline constexpr uint32_t kResultPoison = 0xA5A5A5A5u;

// Makes `b` hold at least `bytes` (kept if it does); copy_queues: as Buffer's.
void ensure_buffer(VkContext& c, Buffer& b, uint64_t bytes, VkBufferUsageFlags usage, MemoryUse use,
                   const char* name, bool copy_queues = false);

// The most lookups per chunk of a pipelined batch (process-wide; a tuning and test knob). 0 runs
// every batch whole and unpipelined: queries uploaded into device memory, the kernel, results
// downloaded, each timed on the GPU (what the benchmarks report as upload, probe, download).
uint64_t lookup_chunk();
void set_lookup_chunk(uint64_t lookups);
inline constexpr uint64_t kDefaultLookupChunk = uint64_t{1} << 22;
// Sets lookup_chunk() for one scope and restores it after (benchmarks and tests).
class LookupChunkScope {
 public:
  explicit LookupChunkScope(uint64_t lookups) { set_lookup_chunk(lookups); }
  ~LookupChunkScope() { set_lookup_chunk(saved_); }
  LookupChunkScope(const LookupChunkScope&) = delete;
  LookupChunkScope& operator=(const LookupChunkScope&) = delete;

 private:
  uint64_t saved_ = lookup_chunk();
};
// The size of a pipelined call's chunk k, `remaining` lookups still to go: at most `chunk` (the
// slots' size), smaller at both ends, since the first kernel waits for its chunk's copy in and
// upload, and the call for its last chunk's download and copy out. The first two ramp up (a
// quarter, a half), the last ones halve down to about a quarter (H100, 2^27 lookups: docs/e2e.md).
// None is under min_piece lookups (the calls use min(lookup_chunk() / 4, kMinPipelinedChunk))
// unless fewer remain, nor leaves a remainder under half its size.
uint64_t pipelined_chunk(uint64_t k, uint64_t remaining, uint64_t chunk, uint64_t min_piece);
inline constexpr uint64_t kMinPipelinedChunk = uint64_t{1} << 16;

// Where a pipelined chunk's kernel writes its results (docs/e2e.md):
// - download: into device memory, poisoned first (kResultPoison), then a copy queue downloads
//   them into pinned memory;
// - direct: straight into the pinned memory the results go to (the slot's, or the caller's
//   HostBuffer), across PCIe: no download, no poison;
// - carried: into device memory, not poisoned, and the next chunk's kernel writes them across PCIe
//   into the pinned memory in order (ChunkCarry), so that no download runs beside a kernel; the
//   last chunk downloads its own.
// Each index picks its own (LookupBatch's constructor, set_result_path): direct for RX and cgRX,
// whose traces run ~40% slower beside a download (H100: RX unsorted from HostBuffers 73.3 ->
// 65.5 ms a call); download for the sorted array and the hash table, whose kernels would wait on
// their PCIe writes (46.0 -> 56.4 ms); carried for RX with sorted probes, whose results land
// scattered in the chunk, which direct stores over PCIe could not merge (82 -> 62 ms).
enum class ResultPath { download, direct, carried };
// A process-wide override of every index's choice, for measuring (bench rx --result-path);
// nullopt (the default): each index's own.
std::optional<ResultPath> result_path_override();
void set_result_path_override(std::optional<ResultPath> path);

// One chunk of a pipelined call: when its upload, kernel and download ran on the GPU, in ms from
// the call's first upload (timestamps of three queues, which share the device's clock).
struct ChunkTimes {
  double up_begin, up_end, kernel_begin, kernel_end, down_begin, down_end;
  bool carried;  // written out by the next chunk's kernel: no download (down_* are kernel_end)
};
// ResultPath::carried: the previous chunk's results, which the kernel of a chunk writes out.
// `count` results of kResultBytes at device address `from` (device memory, 16-byte aligned) go to
// `to` (pinned host memory, 8-byte aligned), result i to result i; 0 where nothing is carried.
// Chunks shrink towards a call's end (pipelined_chunk), so count may exceed the kernel's own lookup
// count: its invocations then write several each.
struct ChunkCarry {
  VkDeviceAddress from = 0, to = 0;
  uint64_t count = 0;
};

// The chunks of this thread's last pipelined call, in order: a diagnostic of how copies and
// kernels overlapped (docs/e2e.md). Empty where the copies are not timed. Read it on the thread
// that made the call, before its next one.
const std::vector<ChunkTimes>& last_pipelined_timeline();

class LookupBatch {
 public:
  // `results`: where this index's pipelined chunks write their results (unless overridden).
  explicit LookupBatch(VkContext& ctx, ResultPath results = ResultPath::download);
  // The index's choice for its next calls; result_path() is the one they take.
  void set_result_path(ResultPath results) { result_path_ = results; }
  ResultPath result_path() const { return result_path_override().value_or(result_path_); }
  LookupBatch(const LookupBatch&) = delete;
  LookupBatch& operator=(const LookupBatch&) = delete;
  ~LookupBatch();

  // Stages the queries and sizes the device buffers for them.
  void prepare(const QueryBatch& q);
  VkDeviceAddress queries() const { return queries_dev_.address(); }
  const Buffer& query_buffer() const { return queries_dev_; }
  VkDeviceAddress results() const { return results_dev_.address(); }

  // Records the query upload (between two timer marks, returned) and the results' poisoning,
  // then a barrier so that `consumer_stage` sees both.
  void record_upload(VkCommandBuffer cmd, GpuTimer& timer, uint32_t& t0, uint32_t& t1,
                     VkPipelineStageFlags consumer_stage);
  // Records a barrier after `producer_stage` and the copy of the results to the host.
  void record_download(VkCommandBuffer cmd, VkPipelineStageFlags producer_stage);
  // After the batch has run: copies the results out.
  void read_results(RxLookup* out) const;

  // The whole round for a compute kernel: prepare, upload, `launch(cmd, first, count)` for slices
  // of at most `slice` queries, download into `out`. Returns the GPU times (rays stay 0).
  RxProbeStats run(const QueryBatch& q, uint64_t slice,
                   const std::function<void(VkCommandBuffer, uint64_t, uint64_t)>& launch,
                   RxLookup* out);
  // One chunk's kernel: `count` queries at device address `queries`, results to `results`
  // (query i of the chunk at index i of both).
  using ChunkLaunch = std::function<void(VkCommandBuffer, VkDeviceAddress queries,
                                         VkDeviceAddress results, uint64_t count)>;
  // The pipelined round (lookup_chunk() > 0): chunks of at most lookup_chunk() queries, each in a
  // slot (kSlots of them, kept between calls with their buffers, command buffers and
  // synchronisation, and shared by every index of the context: context_slots()). While the GPU
  // uploads, probes and downloads chunks, the host copies the next chunk's queries in and an
  // earlier chunk's results out, on several threads. `stage` is the kernel's pipeline stage. The
  // stats sum the chunks' GPU times: probe_ms the kernels (in device memory), upload_ms and
  // download_ms the copy-queue transfers (0 where the device cannot time them: no hostQueryReset).
  RxProbeStats run_pipelined(const QueryBatch& q, VkPipelineStageFlags stage,
                             const ChunkLaunch& launch, RxLookup* out);
  // Four stages run at once (the host's copies, upload, kernel, download), one slot each.
  static constexpr unsigned kSlots = 4;
  // As ChunkLaunch, with the chunk's slot (0 to kSlots - 1): a kernel that needs scratch per
  // chunk (RX's sorted probes) keeps one per slot, free again whenever its slot is recorded.
  // Chunks are launched in query order.
  using SlotLaunch = std::function<void(VkCommandBuffer, unsigned slot, VkDeviceAddress queries,
                                        VkDeviceAddress results, uint64_t count)>;
  RxProbeStats run_pipelined_in_slots(const QueryBatch& q, VkPipelineStageFlags stage,
                                      const SlotLaunch& launch, RxLookup* out);
  // Within a SlotLaunch, once at most: what the launch recorded before this mark (RX's sort) is
  // timed as the stats' sort_ms, what follows as probe_ms.
  void mark_sorted(VkCommandBuffer cmd);
  // Within a SlotLaunch: what its kernel must write out (ResultPath::carried). The launch orders
  // its reads of `from` after the previous chunk's kernel (a barrier from the run's `stage`, which
  // covers the earlier submission on the queue).
  const ChunkCarry& carry() const { return carry_; }
  // Makes the slots for chunks of min(lookup_chunk(), `lookups`) queries of `query_bytes` bytes
  // now, unless the context's are that large already: an index build calls it (with its key count
  // and point size), so that a first lookup call of that shape allocates nothing.
  void reserve_pipeline(uint64_t lookups, uint64_t query_bytes);

  // run() for a kernel of one invocation per lookup whose push constants `p` have the lookup
  // batch's fields (queries, results, query_offset, num_queries); this fills them per slice.
  template <class Params>
  RxProbeStats run_kernel(const QueryBatch& q, ComputePipeline& kernel, Params p, RxLookup* out) {
    return run(
        q, kernel.max_items(),
        [&](VkCommandBuffer cmd, uint64_t first, uint64_t count) {
          p.queries = cur_queries_;
          p.results = cur_results_;
          p.query_offset = static_cast<uint32_t>(first);
          p.num_queries = static_cast<uint32_t>(count);
          kernel.dispatch(cmd, &p, count);
        },
        out);
  }

 private:
  struct Slot {
    Buffer in_host, out_host;  // pinned, host-cached: one chunk's queries and results
    Buffer in_dev, out_dev;    // the same in device memory, where the kernel reads and writes
    VkCommandBuffer up = VK_NULL_HANDLE, probe = VK_NULL_HANDLE, down = VK_NULL_HANDLE;
    VkSemaphore uploaded = VK_NULL_HANDLE, probed = VK_NULL_HANDLE;  // binary, between queues
    VkFence done = VK_NULL_HANDLE;                                   // the download's
    std::unique_ptr<GpuTimer> kernel_timer, copy_timer;              // copy_timer: may be null
    uint64_t first = 0, count = 0, in_bytes = 0;                     // the chunk it holds
    uint32_t kernel_marks = 0;  // 3 where the launch marked its sort's end (mark_sorted)
    // Where the upload reads and the download writes: the slot's pinned memory, or the caller's
    // HostBuffer (raydb/host_buffer.hpp) at an offset, which skips the host's copy.
    const Buffer* up_src = nullptr;
    const Buffer* down_dst = nullptr;
    uint64_t up_src_offset = 0, down_dst_offset = 0;
    bool busy = false;  // all three submitted, results not yet copied out
    // A submit failed midway: the semaphores are suspect. A carried chunk stays partial until the
    // chunk that carries its results (and signals its fence) has been submitted.
    bool partial = false;
    bool carried = false;  // ResultPath::carried: the next chunk's kernel writes its results out
    // Maps in_host and out_host page by page ahead of their first call (reserve_pipeline). Last,
    // so that a Slot going away stops it before its buffers go.
    PageTouch touched;
  };
  using Slots = std::array<Slot, kSlots>;
  // The context's ring (VkContext::lookup_slots), made empty on first use. One ring serves every
  // index of a context: calls run one at a time under the call lock and leave no chunk in flight
  // (one that failed midway excepted), and indexes built after the first then allocate no slots.
  static Slots& context_slots(VkContext& ctx);
  static void destroy_slots(VkContext& ctx, Slots& slots);
  // `touch`: start mapping newly made pinned buffers on a thread (PageTouch), for a later call.
  void ensure_slots(uint64_t chunk, uint64_t query_bytes, bool touch = false);
  // Waits for a busy slot and copies its results to out (nullptr: discards them), adding its GPU
  // times to `stats`.
  void finish(Slot& s, RxLookup* out, RxProbeStats& stats);
  // `carry`: the previous chunk's slot, where this chunk's kernel writes that chunk's results out.
  void submit_chunk(Slot& s, unsigned slot, VkPipelineStageFlags stage, const SlotLaunch& launch,
                    Slot* carry);

  VkContext& ctx_;
  uint64_t count_ = 0, query_bytes_ = 0;
  Buffer queries_dev_, results_dev_, results_host_, staging_;
  // What run() hands the kernel: the whole batch's device buffers, or the current chunk's slot.
  VkDeviceAddress cur_queries_ = 0, cur_results_ = 0;
  Slot* recording_ = nullptr;  // the slot a SlotLaunch is recording into
  ChunkCarry carry_;           // and what its kernel writes out
  Slots& slots_;
  ResultPath result_path_;  // this index's own choice (result_path_override() takes precedence)
};

}  // namespace raydb::detail
