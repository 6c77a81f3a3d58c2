// Device-resident data for the cgRX, sorted-array and hash-table indexes: the same calls as the
// RX index's in raydb/device_buffers.hpp (rx_build, rx_record_lookup, rx_submit_lookup), named
// after the index (cgrx_*, sorted_*, hash_*), with the same spans, layout, usage flags, barriers,
// ownership and thread-safety; that header's comment describes them. Only what differs is
// written here.
//
// All answer point lookups with their host-vector results (CgrxIndex::lookup,
// SortedIndex::lookup, HashIndex::lookup): one RxLookup per query, row ids being key positions in
// the key span. cgRX and sorted also answer inclusive range lookups (*_lookup_ranges, as their
// lookup_ranges; RX's are rx_*_lookup_ranges in raydb/device_buffers.hpp): the ranges span holds
// `count` (lo, hi) pairs of the index's key type (raydb::Range32 / Range64, 8 or 16 bytes each,
// offset a multiple of the key size). lo <= hi is the host's to ensure: the host-vector API refuses
// lo > hi, but raydb cannot read the host's buffer, so here such a range's result is unspecified
// (it writes one RxLookup all the same). Builds copy the keys and values once into raydb's own
// buffers and return once the index is ready; no key, value, query or result travels through host
// memory. What a build reads back: scalars after a fence it waits for anyway: the duplicate counter
// (every index, for its build stats' unique_keys) and, for cgRX, four counts (below).
//
// cgRX lays out its scene on the device (the host-vector build reads one representative key per
// bucket back and lays it out on the host, src/ops/cgrx/cgrx_layout.cpp). In one submission after
// the key sort: a compute pass gathers each bucket's largest key; a second flags which of the
// bucket's three primitives the host layout has (representative, row marker, plane marker) and
// writes each representative's gap to the previous one; a prefix sum turns the flags into the
// host layout's positions and the radix sort orders the gaps; a last pass writes the triangles
// and their buckets at those positions and one thread takes the ray window at the gaps' 0.999
// quantile. raydb waits for the submission; four counts (16 bytes: representatives, row and
// plane markers, ray window) come back with its fence, for the BLAS's primitive count,
// build_stats() and the probes' push constants (avoiding them would mean a BLAS over padding
// triangles, up to 3x its size, and a window read by the probes from a buffer). The BLAS is then
// built over the same triangles as the host-vector build's, so lookups give the same results,
// rays and fallbacks. Temporary device memory of the layout, freed before the call returns, per
// bucket: 8 bytes (representative), 12 (flags and positions), 8 (gap and its sort row), about
// 10 for the scan's and sort's work buffers, and 108 (three triangles' slots) until the BLAS is
// built; the index keeps 12 bytes of primitive buckets per bucket (the host build: 4 per
// primitive). Refused (Errc::limit_exceeded) past 2^32 - 1 slots (3 x buckets) or past the
// device's triangles per BLAS, as the host build.
//
// State bound in the host's command buffer: the sorted and hash probes are compute shaders (the
// compute bind point: pipeline and push constants, no descriptor set); cgRX binds as RX does
// (ray-tracing or compute bind point, with its descriptor set) and also records a fill of its own
// 8-byte counter buffer before its first barrier. cgRX's last_stats() reports the rays without
// the extra rays of the ray window, and last_fallbacks() is 0 on this path (its counters are not
// read back).
#pragma once

#include "raydb/cgrx_index.hpp"
#include "raydb/device_buffers.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb {

/// Builds a CgrxIndex over `keys` (of `width`) and, when values.count is not 0, one uint32_t value
/// per key, all in the host's buffers; as rx_build (ordering by `sync`, errors as values).
Result<CgrxIndex> cgrx_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                             const DeviceSpan& values = {}, const CgrxBuildOptions& options = {},
                             const DeviceSync& sync = {});

/// Records point lookups of `queries` into the host's command buffer `cmd`, one RxLookup per
/// query into `results`; as rx_record_lookup (barriers, state, lifetime: the index must outlive
/// every submission of `cmd`).
Status cgrx_record_lookup(CgrxIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                          const DeviceSpan& results);

/// The same lookups, submitted by raydb on the context's queue under `sync` (at least one signal
/// point); as rx_submit_lookup: the call returns without waiting for the GPU, and the index keeps
/// the submission until its destructor or its next cgrx_submit_lookup.
Status cgrx_submit_lookup(CgrxIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                          const DeviceSync& sync);

/// Records inclusive range lookups of `ranges` ((lo, hi) pairs, see the file comment) into
/// `cmd`, one RxLookup per range into `results`; as cgrx_record_lookup.
Status cgrx_record_lookup_ranges(CgrxIndex& index, VkCommandBuffer cmd, const DeviceSpan& ranges,
                                 const DeviceSpan& results);

/// The same range lookups, submitted by raydb under `sync`; as cgrx_submit_lookup.
Status cgrx_submit_lookup_ranges(CgrxIndex& index, const DeviceSpan& ranges,
                                 const DeviceSpan& results, const DeviceSync& sync);

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

/// Records inclusive range lookups of `ranges` ((lo, hi) pairs, see the file comment) into
/// `cmd`, one RxLookup per range into `results`; as sorted_record_lookup.
Status sorted_record_lookup_ranges(SortedIndex& index, VkCommandBuffer cmd,
                                   const DeviceSpan& ranges, const DeviceSpan& results);

/// The same range lookups, submitted by raydb under `sync`; as sorted_submit_lookup.
Status sorted_submit_lookup_ranges(SortedIndex& index, const DeviceSpan& ranges,
                                   const DeviceSpan& results, const DeviceSync& sync);

/// Builds a HashIndex over `keys` (of `width`) and, when values.count is not 0, one uint32_t value
/// per key, all in the host's buffers; as rx_build (ordering by `sync`, errors as values).
Result<HashIndex> hash_build(const Context& ctx, KeyWidth width, const DeviceSpan& keys,
                             const DeviceSpan& values = {}, const HashOptions& options = {},
                             const DeviceSync& sync = {});

/// Records point lookups of `queries` into the host's command buffer `cmd`, one RxLookup per
/// query into `results`; as rx_record_lookup (barriers, state, lifetime).
Status hash_record_lookup(HashIndex& index, VkCommandBuffer cmd, const DeviceSpan& queries,
                          const DeviceSpan& results);

/// The same lookups, submitted by raydb on the context's queue under `sync` (at least one signal
/// point); as rx_submit_lookup.
Status hash_submit_lookup(HashIndex& index, const DeviceSpan& queries, const DeviceSpan& results,
                          const DeviceSync& sync);

}  // namespace raydb
