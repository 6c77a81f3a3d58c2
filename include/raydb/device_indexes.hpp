// Device-resident data for the sorted-array and hash-table indexes: the same calls as the RX
// index's in raydb/device_buffers.hpp (rx_build, rx_record_lookup, rx_submit_lookup), named after
// the index (sorted_*, hash_*), with the same spans, layout, usage flags, barriers, ownership and
// thread-safety; that header's comment describes them. Only what differs is written here.
//
// Both answer point lookups with their host-vector results (SortedIndex::lookup,
// HashIndex::lookup): one RxLookup per query, row ids being key positions in the key span. Their
// probes are compute shaders, so recorded work runs at the compute stage and binds only the
// compute bind point (pipeline and push constants; no descriptor set). Builds copy the keys and
// values once into raydb's own buffers and return once the index is ready; no key, value, query
// or result travels through host memory (a build reads back only its duplicate counter).
#pragma once

#include "raydb/device_buffers.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb {

/// Builds a SortedIndex over `keys` (of `width`) and, when values.count is not 0, one uint32_t
/// value per key, all in the host's buffers; as rx_build (ordering by `sync`, errors as values).
Result<SortedIndex> sorted_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                                 const DeviceSpan& values = {}, const SortedOptions& options = {},
                                 const DeviceSync& sync = {});

/// Records point lookups of `queries` into the host's command buffer `cmd`, one RxLookup per
/// query into `results`; as rx_record_lookup (barriers, state, lifetime: the index must outlive
/// every submission of `cmd`). last_stats() is reset (no timestamps are recorded).
Status sorted_record_lookup(SortedIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                            const DeviceSpan& results);

/// The same lookups, submitted by raydb on the context's queue under `sync` (at least one signal
/// point); as rx_submit_lookup: the call returns without waiting for the GPU, and the index
/// keeps the submission until its destructor or its next sorted_submit_lookup.
Status sorted_submit_lookup(SortedIndex& index, const DeviceSpan& queries,
                            const DeviceSpan& results, const DeviceSync& sync);

/// Builds a HashIndex over `keys` (of `width`) and, when values.count is not 0, one uint32_t value
/// per key, all in the host's buffers; as rx_build (ordering by `sync`, errors as values).
Result<HashIndex> hash_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                             const DeviceSpan& values = {}, const DeviceSync& sync = {});

/// Records point lookups of `queries` into the host's command buffer `cmd`, one RxLookup per
/// query into `results`; as rx_record_lookup (barriers, state, lifetime).
Status hash_record_lookup(HashIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                          const DeviceSpan& results);

/// The same lookups, submitted by raydb on the context's queue under `sync` (at least one signal
/// point); as rx_submit_lookup.
Status hash_submit_lookup(HashIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                          const DeviceSync& sync);

}  // namespace raydb
