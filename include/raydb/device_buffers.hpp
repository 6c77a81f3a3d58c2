// Device-resident data, for a Vulkan application that embeds raydb (Context::adopt of its own
// device, raydb/vulkan_device.hpp): build an RxIndex from keys and values already in the host's
// VkBuffers, and look up queries from one host buffer into another, with no trip through host
// memory. The lookup work is either recorded into the host's VkCommandBuffer (the host submits)
// or submitted by raydb on the context's queue, ordered by the host's timeline semaphores.
// examples/vulkan_app/ shows both ends: its own compute shader writes the keys and the queries
// and read the results. CgrxIndex, SortedIndex and HashIndex have the same calls (cgrx_build,
// sorted_build, hash_build, ...) in raydb/device_indexes.hpp, with the spans, layout, flags and
// ordering described here. RtScanTable takes its columns from the host's buffers and writes
// bitmaps into one (rtscan_build, rtscan_submit_select, rtscan_record_select) in
// raydb/device_rtscan.hpp. RX, cgRX and sorted also answer inclusive range lookups
// (rx_record_lookup_ranges, ...); RX marks a range wider than its ray bound instead of refusing
// it (see rx_record_lookup_ranges). RX also collects every matching (query, row) pair of point
// lookups into the host's buffer (rx_record_collect_rows, rx_submit_collect_rows); not yet for
// ranges.
//
// Buffers. A DeviceSpan names `count` elements of a host VkBuffer starting `offset` bytes in.
// Vulkan cannot be asked how a buffer was created, so the span also carries the buffer's size and
// usage flags as the host created it; raydb checks them and fails with Errc::invalid_argument
// (a flag missing, a misaligned offset, count 0) or Errc::output_too_small (the span runs past
// the buffer, or the results hold fewer elements than there are queries) before recording
// anything. The host keeps ownership: raydb never frees, maps or keeps a host buffer.
//
// Layout (tightly packed, little-endian, as the host-vector API):
//   keys, queries   uint32_t or uint64_t (the KeyWidth given / the index's), offset a multiple of
//                   the key size.
//   ranges          (lo, hi) pairs of the index's key type, raydb::Range32 / Range64 (8 or 16
//                   bytes each), offset a multiple of the key size; inclusive bounds.
//   values          uint32_t, one per key (row i's value), offset a multiple of 4.
//   matches         raydb::RxRowMatch (raydb/lookup.hpp), 8 bytes: {uint32_t query, uint32_t row},
//                   in no particular order; offset a multiple of 8. collect_rows only.
//   total           one uint32_t, offset a multiple of 4: how many pairs matched. collect_rows
//                   only.
//   results         raydb::RxLookup (raydb/lookup.hpp), 16 bytes: {uint32_t first_row,
//                   uint32_t count, uint64_t sum}, one per query at the query's position; offset
//                   a multiple of 16. first_row is kMissRow (0xFFFFFFFF) and count 0 on a miss.
// Row ids are key positions in the key span (0 .. count - 1).
//
// Usage flags the host's buffers need:
//   keys, values (build)       VK_BUFFER_USAGE_TRANSFER_SRC_BIT (raydb copies them once; it
//                              keeps its own key-ordered records, so the host may reuse or free
//                              its buffers once the build's work is done, see below)
//   queries, ranges, results,  VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT (read and written by
//   matches, total             device address from raydb's shaders); total also
//                              VK_BUFFER_USAGE_TRANSFER_DST_BIT (raydb zeroes it with a fill)
//
// Thread-safety: as every raydb call, these take the Context's call lock. Vulkan's own rules for
// the host's objects still hold: a VkCommandBuffer given to rx_record_lookup must not be used by
// another thread meanwhile, and raydb's own submissions use the context's VkQueue, which the host
// shares after Context::adopt: the host must not submit to that queue from another thread while a
// raydb call runs.
#pragma once

#include <cstdint>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/lookup.hpp"
#include "raydb/rx_index.hpp"

// The Vulkan types below, declared exactly as <vulkan/vulkan_core.h> declares them on 64-bit
// platforms (repeating such a typedef is legal C++), so this header needs no Vulkan header.
typedef struct VkBuffer_T* VkBuffer;
typedef struct VkCommandBuffer_T* VkCommandBuffer;
typedef struct VkSemaphore_T* VkSemaphore;
typedef uint32_t VkFlags;
typedef VkFlags VkBufferUsageFlags;
typedef uint64_t VkDeviceSize;

namespace raydb {

/// `count` elements of a host-owned VkBuffer, from byte `offset`.
struct DeviceSpan {
  VkBuffer buffer = nullptr;     ///< the host's buffer, on the adopted device; raydb never frees it
  VkDeviceSize buffer_size = 0;  ///< VkBufferCreateInfo::size the buffer was created with
  VkBufferUsageFlags usage = 0;  ///< VkBufferCreateInfo::usage the buffer was created with
  VkDeviceSize offset = 0;       ///< bytes from the buffer's start to element 0
  uint64_t count = 0;            ///< elements (keys, values, queries or results)
};

/// One timeline-semaphore point: the semaphore (VK_SEMAPHORE_TYPE_TIMELINE, on the adopted
/// device) and a value.
struct TimelinePoint {
  VkSemaphore semaphore = nullptr;  ///< a timeline semaphore of the adopted device
  uint64_t value = 0;               ///< the point: waited for, or signalled
};

/// How raydb's own submission is ordered with the host's work: it waits until every `wait`
/// semaphore reaches its value before touching the host's buffers, and sets every `signal`
/// semaphore to its value once it no longer reads or writes them (and, for a lookup, the results
/// are written and visible: memory-write access, all commands). Needs the device's
/// timelineSemaphore feature (DeviceFeatureChain enables it where the device has it).
struct DeviceSync {
  std::vector<TimelinePoint> wait;    ///< points raydb's submission waits for
  std::vector<TimelinePoint> signal;  ///< points raydb's submission signals when done
};

/// Builds an RxIndex over `keys` (of `width`) and, when values.count is not 0, one uint32_t
/// value per key, all in the host's buffers. The keys are copied on the context's queue into
/// raydb's own buffers and the index is built there; the call returns once the index is ready.
///
/// Ordering: raydb's first submission waits on `sync.wait` and starts with a global memory
/// barrier (all commands, memory writes -> transfer reads), so host writes made by work
/// submitted earlier to the same queue, or signalled through `sync.wait`, are seen. `sync.signal`
/// is set when the copies out of the host's buffers are done. No key or value travels through
/// host memory; raydb reads back only its own small counters (the duplicate count, compacted
/// BVH sizes), as the host-vector build does.
///
/// `options.allow_update` is refused (update() takes host vectors; rebuild from buffers with
/// another call). Errors as values: see the header comment.
Result<RxIndex> rx_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                         const DeviceSpan& values = {}, const RxBuildOptions& options = {},
                         const DeviceSync& sync = {});

/// Records point lookups of `queries` (of the index's key width) into the host's command buffer
/// `cmd` (primary, in the recording state, on the adopted device, of a queue family with compute
/// support), writing one RxLookup per query into `results`. Nothing is submitted or waited for.
///
/// Barriers: raydb records a global memory barrier before its work (all commands, memory writes
/// -> its shader stage, shader reads and writes) and after it (its shader stage, shader writes ->
/// all commands, memory reads and writes), so work recorded earlier in `cmd` (or earlier in
/// submission order on the same queue) that writes the queries, and later work that reads the
/// results, need no barrier of their own. Work on another queue is the host's to order
/// (semaphores).
///
/// State: raydb binds its own pipeline, descriptor set and push constants at the compute bind
/// point and, for the ray-tracing pipeline, the ray-tracing bind point; the host rebinds its own
/// afterwards.
///
/// Lifetime: the recording refers to raydb objects owned by `index` (its BVH, records, pipeline
/// and descriptor set); the index must not be destroyed, rebuilt or updated until every
/// submission of `cmd` has completed. Nothing else of raydb's needs to stay alive.
/// RxBuildOptions::sort_probes is not applied here (it would need per-call scratch); the
/// results are the same. last_stats() reports the rays only (no timestamps are recorded).
Status rx_record_lookup(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                        const DeviceSpan& results);

/// The same lookups, submitted by raydb on the context's queue, waiting on `sync.wait` and
/// signalling `sync.signal` when the results are written: the call returns without waiting for
/// the GPU. The host waits on a signal point (vkWaitSemaphores, or its own submission's wait)
/// before reading the results. raydb keeps the submission's command buffer until it is done;
/// the index must outlive the work (its destructor, rebuild() and the next rx_submit_lookup on
/// it wait for it). At least one signal point is required, else the host could not know when
/// the results are there.
Status rx_submit_lookup(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                        const DeviceSync& sync);

/// RxLookup::count of a range lookup that spans more 2^23-key lines than the index's
/// RxBuildOptions::max_rays_per_range (device path only), with first_row kMissRow. No real result
/// has both: a result with count > 0 names a matching row.
inline constexpr uint32_t kRxRangeOverBound = 0xFFFFFFFFu;

/// Records inclusive range lookups of `ranges` ((lo, hi) pairs, see Layout) into `cmd`, one
/// RxLookup per range into `results` (at the range's position), equal to RxIndex::lookup_ranges;
/// as rx_record_lookup (barriers, state, lifetime).
///
/// The ray bound: RX casts one ray per 2^23-key line a range spans, (hi >> 23) - (lo >> 23) + 1
/// (a 64-bit [0, max] spans 2^41). The host-vector API refuses a batch holding a range over
/// RxBuildOptions::max_rays_per_range lines (Errc::limit_exceeded) before any work; raydb cannot
/// read the host's ranges, so here each lookup checks its own range on the device: a range over
/// the bound casts no ray and its result is {first_row = kMissRow, count = kRxRangeOverBound,
/// sum = the lines it spans}, the other ranges' results are unaffected. The host tells such a
/// result from a miss (count 0) and from a hit (first_row != kMissRow) after its fence, and may
/// split the range or build with a larger bound. lo <= hi is the host's to ensure: for lo > hi
/// the result is unspecified (the marker or a miss, as written; never a trace past the bound).
/// last_stats() is reset (its rays are 0: a range's rays depend on its bounds, which stay on the
/// device).
Status rx_record_lookup_ranges(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& ranges,
                               const DeviceSpan& results);

/// The same range lookups, submitted by raydb on the context's queue under `sync` (at least one
/// signal point); as rx_submit_lookup. Ranges over the bound get the marker result, as in
/// rx_record_lookup_ranges.
Status rx_submit_lookup_ranges(RxIndex& index, const DeviceSpan& ranges, const DeviceSpan& results,
                               const DeviceSync& sync);

/// Records collect_rows of point lookups (as RxIndex::collect_rows) into `cmd`: every matching
/// (query, row) pair, in no particular order, goes to `matches`, whose count is the capacity;
/// `total` (one uint32_t) receives how many pairs matched. Nothing is dropped silently: when
/// total > matches.count, only matches.count pairs (an arbitrary subset) are written and total
/// still counts every pair, so written = min(total, matches.count), as RxCollectResult says on
/// the host (the host may record again with a larger span). The count is 32-bit, as in the
/// host-vector API: keep a call's matching pairs below 2^32 (past that the count wraps). raydb
/// records, before its first barrier, a barrier (all commands, memory reads and writes -> transfer
/// writes) and a fill of `total` with 0; the barriers, state and lifetime are otherwise
/// rx_record_lookup's. Refused (Errc::invalid_argument) while RxIndex::set_diagnostic is on.
/// last_stats() reports the rays only.
Status rx_record_collect_rows(RxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                              const DeviceSpan& matches, const DeviceSpan& total);

/// The same collection, submitted by raydb on the context's queue under `sync` (at least one
/// signal point); as rx_submit_lookup: read `matches` and `total` after a signal point.
Status rx_submit_collect_rows(RxIndex& index, const DeviceSpan& queries, const DeviceSpan& matches,
                              const DeviceSpan& total, const DeviceSync& sync);

}  // namespace raydb
