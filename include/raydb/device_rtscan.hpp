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
// binary searches over the mapping tables, the nearest sieving borders, the refine boxes and their
// ray lattices); the refine launches stride over the rays the plan holds. Only mode rtscan with
// gpu_encoding is offered here: the other modes and the CPU encoder would read whole columns on
// the host. Where a host plan is needed (set_count_intersections, the OptiX twin, lattice
// constants I, L + S or I + epsilon outside [2^-24, 2^38), which the planner's fixed point cannot
// hold) each column's mapping table and borders are read back once, on first use.
//
// Not yet here: recording a selection into the host's command buffer (the selection runs in
// raydb's own submission, waited for by raydb, before the copy into the host's buffer is
// submitted under the host's semaphores), and row ids instead of a bitmap.
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
/// words into `bitmap` (see the file comment). The selection runs and is waited for by raydb;
/// then the copy into the host's buffer is submitted on the context's queue, waiting on
/// `sync.wait` (before it writes the host's buffer) and setting `sync.signal` once the words are
/// written and visible (memory writes -> all commands); the call returns without waiting for the
/// copy. At least one signal point is required. The table keeps the copy's submission and its
/// bitmap until its destructor or its next rtscan_submit_select. last_stats() is the selection's.
Status rtscan_submit_select(RtScanTable& table, std::span<const Predicate> predicates,
                            const DeviceSpan& bitmap, const DeviceSync& sync);

}  // namespace raydb
