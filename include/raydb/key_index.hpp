// raydb::KeyLookup and raydb::KeyIndex: the one shape of raydb's key indexes, so generic code (the
// bench rx driver, a user's benchmark) is written once over all of them.
//
// - KeyLookup: batched point lookups into the caller's span (one RxLookup per key), the index's
//   size, build statistics, and the statistics of the most recent lookup call (last_stats(), an
//   RxProbeStats: times in milliseconds). RxIndex, CgrxIndex, SortedIndex and HashIndex satisfy it
//   (RxIndex and CgrxIndex with either tracing API, an option of their build).
// - RangeKeyLookup: KeyLookup with inclusive range lookups (every index but HashIndex).
// - KeyIndex: a KeyLookup built from a key column as Index::build(ctx, keys, values, options)
//   (row id = position; values optional; options defaulted): RxIndex, CgrxIndex, SortedIndex and
//   HashIndex (tests/common/test_key_index.cpp asserts it).
//
// Thread-safety and ownership are each index's (none; see Context).
#pragma once

#include <concepts>
#include <cstdint>
#include <span>

#include "raydb/context.hpp"
#include "raydb/error.hpp"
#include "raydb/keys.hpp"
#include "raydb/lookup.hpp"

namespace raydb {

template <class Index>
concept KeyLookup = requires(Index& index, const Index& cindex, KeySpan points,
                             std::span<RxLookup> out) {
  { index.lookup(points, out) } -> std::same_as<Status>;
  {cindex.build_stats()};
  { cindex.last_stats() } -> std::same_as<const RxProbeStats&>;
};

template <class Index>
concept RangeKeyLookup = KeyLookup<Index> &&
    requires(Index& index, RangeSpan ranges, std::span<RxLookup> out) {
  { index.lookup_ranges(ranges, out) } -> std::same_as<Status>;
};

template <class Index>
concept KeyIndex = KeyLookup<Index> && std::movable<Index> &&
    requires(const Index& cindex, const Context& ctx, KeySpan keys,
             std::span<const uint32_t> values) {
  { Index::build(ctx, keys, values) } -> std::same_as<Result<Index>>;
  { cindex.size() } -> std::convertible_to<uint64_t>;
};

}  // namespace raydb
