// Device-resident columns for RTScan (raydb/rtscan.hpp): an RtScanTable built from uint32
// columns already in the host's VkBuffers, and selections whose bitmap is written into a host
// buffer, ordered by the host's timeline semaphores. Spans, usage-flag checks, errors, ownership
// and thread-safety as in raydb/device_buffers.hpp, whose comment describes them.
//
// Layout (tightly packed, little-endian):
//   columns   uint32_t, one per row, every column the same count (the rows), offset a multiple
//             of 4; usage VK_BUFFER_USAGE_TRANSFER_SRC_BIT (raydb copies each column once into
//             its own buffers; the host may reuse its buffers once the build's signal is set).
//   bitmap    uint32_t words, (rows + 31) / 32 of them at least: bit r % 32 of word r / 32 is row
//             r, bits past the last row 0 (as Bitmap); offset a multiple of 4; usage
//             VK_BUFFER_USAGE_TRANSFER_DST_BIT (raydb copies the words in).
//
// What travels through host memory (nothing of the columns, the mapping tables, the sieving
// borders or the bitmaps; options.gpu_encoding keeps them on the device):
//   to the device   at build, the planner's fixed inputs (40 bytes per column, 64 per column
//                   group); at each selection, its predicates (16 bytes each, written by
//                   vkCmdUpdateBuffer in the selection's command buffer).
//   to the host     at build, 8 bytes per column (the number of distinct values and of sieving
//                   borders, which size the sieving vectors), after the fence of that column's
//                   encoding, which the build waits for; the acceleration-structure builder's
//                   compacted sizes (8 bytes per BVH), as for every index. At each selection, 16
//                   bytes of counts (rays, refine boxes, and whether a column group needed more
//                   than 2^32 - 1 rays: then Errc::limit_exceeded and the bitmap is not copied),
//                   after the selection's fence, before the copy into the host's buffer is
//                   submitted.
// The selection is planned on the device (rtscan_plan.comp: the predicates rewritten to codes by
// 64-way searches of the mapping tables, the nearest sieving borders, the refine boxes and their
// ray lattices); the refine launches stride over the rays the plan holds. Only mode rtscan with
// gpu_encoding is offered here: the other modes and the CPU encoder would read whole columns on
// the host. Where a host plan is needed (set_count_intersections, the OptiX twin, lattice
// constants I, L + S or I + epsilon outside [2^-24, 2^38), which the planner's fixed point cannot
// hold) each column's mapping table and borders are read back once, on first use.
//
// A selection is either submitted by raydb under the host's semaphores (rtscan_submit_select) or
// recorded into the host's command buffer (rtscan_record_select: nothing is submitted, waited
// for or read back; the host submits). The 16 bytes of counts above come back only where
// rtscan_submit_select cannot take the recorded form (see there) and for RtScanTable::select.
//
// Not yet here: row ids instead of a bitmap.
#pragma once

#include <span>

#include "raydb/device_buffers.hpp"
#include "raydb/rtscan.hpp"

namespace raydb {

/// Builds an RtScanTable over `columns` (one span per column, all of the same count: the rows)
/// in the host's buffers; as RtScanTable::build otherwise. raydb's first submission waits on
/// `sync.wait` and starts with a global memory barrier (all commands, memory writes -> transfer
/// reads); `sync.signal` is set when the copies out of the host's buffers are done. The call
/// returns once the table is ready. Errc::unsupported unless options.mode is RtScanMode::rtscan
/// with options.gpu_encoding (see the file comment); errors as values.
Result<RtScanTable> rtscan_build(const Context& ctx, std::span<const DeviceSpan> columns,
                                 const RtScanOptions& options = {}, const DeviceSync& sync = {});

/// Selects the rows satisfying every predicate (as RtScanTable::select) and writes the bitmap's
/// words into `bitmap` (see the file comment), in a submission of raydb's on the context's queue
/// that waits on `sync.wait` and sets `sync.signal` once the words are written and visible
/// (memory writes -> all commands). Where rtscan_record_select would take the selection (below),
/// the whole selection is that submission: the call returns without waiting for the GPU and
/// nothing comes back; last_stats() is reset. Otherwise (a table planned on the host, or one
/// whose boxes could need more than 2^32 - 1 rays) the selection runs and is waited for by raydb
/// first (its counts read back, last_stats() the selection's), then the copy is submitted under
/// `sync`. At least one signal point is required. The table keeps the submission until its
/// destructor or its next rtscan_submit_select; recorded and submitted selections of one table
/// follow the rules below.
Status rtscan_submit_select(RtScanTable& table, std::span<const Predicate> predicates,
                            const DeviceSpan& bitmap, const DeviceSync& sync);

/// Records the selection (as RtScanTable::select) into the host's command buffer `cmd` (primary,
/// in the recording state, on the adopted device, of a queue family with compute support), the
/// bitmap's words copied into `bitmap` at its end. Nothing is submitted, waited for or read back;
/// the predicates are recorded into `cmd` (vkCmdUpdateBuffer), so the call's span need not
/// outlive it.
///
/// Barriers and state as rx_record_lookup (raydb/device_buffers.hpp): a global memory barrier
/// before raydb's work (all commands, memory reads and writes -> its transfers and shaders) and
/// after the copy (transfer writes -> all commands, memory reads and writes); raydb binds its own
/// pipelines, descriptor sets and push constants at the compute and ray-tracing bind points.
///
/// The table keeps one plan, predicate buffer and set of group bitmaps for recorded selections:
/// selections recorded from one table must not run at the same time, nor beside the table's own
/// select or rtscan_submit_select on another queue (in order on the context's queue, as the
/// barriers make them, is fine), and the table must not be destroyed until every submission of
/// `cmd` has completed. last_stats() is reset (no counts come back).
///
/// Refused (Errc::unsupported) unless the table plans on the device (built by rtscan_build, or
/// with options.gpu_encoding and options.plan_on_device; count intersections off, lattice constants
/// in the planner's range: see the file comment); refused (Errc::limit_exceeded) past 4096
/// predicates, or when a column group's refine boxes could need more than 2^32 - 1 rays (a
/// submitted selection checks the plan's count; a recorded one could not report it, so the bound
/// over every possible box is checked instead).
Status rtscan_record_select(RtScanTable& table, VkCommandBuffer cmd,
                            std::span<const Predicate> predicates, const DeviceSpan& bitmap);

}  // namespace raydb
