// RxJoin: a counting pass (one RX lookup per probe key: matches and value sums per key), then,
// for pairs, RX's collect pass into an output of exactly that size.
#include "raydb/join.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "backend/vk/call_lock.hpp"
#include "ops/join/join_expand.hpp"
#include "ops/rx/rx_view.hpp"

namespace raydb {

Result<RxJoin> RxJoin::build(const Context& ctx, KeySpan build_keys,
                             std::span<const uint32_t> build_values,
                             const RxBuildOptions& options) {
  return detail::guarded(ctx.vk(), [&]() -> RxJoin {
    return RxJoin(RxIndex::build(ctx, build_keys, build_values, options).value());
  });
}

double RxJoin::index_ms() const {
  const RxBuildStats& b = index_.build_stats();  // the OptiX path's with api = optix
  return b.build_ms() + b.sort_ms;
}

Result<std::vector<RxLookup>> RxJoin::lookup(KeySpan probe_keys) {
  return detail::guarded(*detail::rx_view(index_).ctx, [&]() -> std::vector<RxLookup> {
    stats_ = {};
    std::vector<RxLookup> out(probe_keys.size);
    index_.lookup(probe_keys, out).value();
    stats_.count_ms = index_.last_stats().probe_ms;
    return out;
  });
}

Result<JoinAggregate> RxJoin::aggregate(KeySpan probe_keys) {
  return detail::guarded(*detail::rx_view(index_).ctx, [&]() -> JoinAggregate {
    std::vector<RxLookup> per_key = lookup(probe_keys).value();
    JoinAggregate a = detail::sum_lookups(per_key);
    stats_.matches = a.matches;
    return a;
  });
}

Result<std::vector<JoinPair>> RxJoin::pairs(KeySpan probe_keys) {
  return detail::guarded(*detail::rx_view(index_).ctx, [&]() -> std::vector<JoinPair> {
    JoinAggregate counted = aggregate(probe_keys).value();
    double count_ms = stats_.count_ms;
    detail::check_pair_count(counted.matches);
    std::vector<RxRowMatch> found(counted.matches);
    RxCollectResult c = index_.collect_rows(probe_keys, found).value();
    if (!c.complete() || c.total != counted.matches)
      throw Error(Errc::internal,
                  fmt::format("the collect pass found {} pairs, the counting pass {}", c.total,
                              counted.matches));
    stats_ = {};
    stats_.count_ms = count_ms;
    stats_.collect_ms = index_.last_stats().probe_ms;
    stats_.matches = counted.matches;
    std::vector<JoinPair> out(found.size());
    for (size_t i = 0; i < found.size(); ++i) out[i] = {found[i].row, found[i].query};
    return out;
  });
}

const char* to_string(JoinSide side) {
  switch (side) {
    case JoinSide::automatic:
      return "automatic";
    case JoinSide::build:
      return "build";
    case JoinSide::probe:
      return "probe";
  }
  return "?";
}

const char* to_string(JoinIndex kind) {
  switch (kind) {
    case JoinIndex::rx:
      return "rx";
    case JoinIndex::cgrx:
      return "cgrx";
  }
  return "?";
}

namespace {

JoinSide indexed_side(const JoinOptions& o, KeySpan build, KeySpan probe) {
  if (build.width != probe.width)
    throw Error(Errc::invalid_argument,
                fmt::format("join sides have {}-bit and {}-bit keys; both must have the same width",
                            to_string(build.width), to_string(probe.width)));
  if (o.indexed != JoinSide::automatic) return o.indexed;
  return probe.size < build.size ? JoinSide::probe : JoinSide::build;
}

// What differs between the two index kinds: how a join over one side is built.
struct RxKind {
  static RxJoin build(const Context& ctx, KeySpan keys, std::span<const uint32_t> values,
                      const JoinOptions& o) {
    return RxJoin::build(ctx, keys, values, o.index).value();
  }
};
struct CgrxKind {
  static CgrxJoin build(const Context& ctx, KeySpan keys, std::span<const uint32_t> values,
                        const JoinOptions& o) {
    return CgrxJoin::build(ctx, keys, values, o.cgrx).value();
  }
};

template <class Kind>
std::vector<JoinPair> one_shot_pairs(const Context& ctx, KeySpan build_keys, KeySpan probe_keys,
                                     const JoinOptions& options, JoinStats* stats) {
  JoinSide side = indexed_side(options, build_keys, probe_keys);
  if (side == JoinSide::build) {
    auto join = Kind::build(ctx, build_keys, {}, options);
    auto out = join.pairs(probe_keys).value();
    if (stats) {
      *stats = join.last_stats();
      stats->index_ms = join.index_ms();
    }
    return out;
  }
  // Inverse mapping: the probe side is indexed, build keys are the rays, so a joined
  // (build row, probe row) comes out as (probe row, build row).
  auto join = Kind::build(ctx, probe_keys, {}, options);
  auto swapped = join.pairs(build_keys).value();
  for (JoinPair& p : swapped) p = {p.probe_row, p.build_row};
  if (stats) {
    *stats = join.last_stats();
    stats->index_ms = join.index_ms();
    stats->indexed = JoinSide::probe;
  }
  return swapped;
}

template <class Kind>
JoinAggregate one_shot_aggregate(const Context& ctx, KeySpan build_keys,
                                 std::span<const uint32_t> build_values, KeySpan probe_keys,
                                 const JoinOptions& options, JoinStats* stats) {
  JoinSide side = indexed_side(options, build_keys, probe_keys);
  if (!build_values.empty() && build_values.size() != build_keys.size)
    throw Error(Errc::invalid_argument, fmt::format("{} build values for {} build keys",
                                                    build_values.size(), build_keys.size));
  if (side == JoinSide::build) {
    auto join = Kind::build(ctx, build_keys, build_values, options);
    auto a = join.aggregate(probe_keys).value();
    if (stats) {
      *stats = join.last_stats();
      stats->index_ms = join.index_ms();
    }
    return a;
  }
  // Inverse mapping: each build row meets `count` probe rows, so its value counts that often.
  auto index = Kind::build(ctx, probe_keys, {}, options);
  auto per_row = index.lookup(build_keys).value();
  JoinAggregate a;
  for (size_t b = 0; b < per_row.size(); ++b) {
    a.matches += per_row[b].count;
    if (!build_values.empty()) a.build_value_sum += uint64_t{per_row[b].count} * build_values[b];
  }
  if (stats) {
    *stats = {};
    stats->index_ms = index.index_ms();
    stats->count_ms = index.last_stats().count_ms;
    stats->matches = a.matches;
    stats->indexed = JoinSide::probe;
  }
  return a;
}

}  // namespace

Result<std::vector<JoinPair>> rx_join(const Context& ctx, KeySpan build_keys, KeySpan probe_keys,
                                      const JoinOptions& options, JoinStats* stats) {
  return detail::guarded(ctx.vk(), [&]() -> std::vector<JoinPair> {
    if (options.kind == JoinIndex::cgrx)
      return one_shot_pairs<CgrxKind>(ctx, build_keys, probe_keys, options, stats);
    return one_shot_pairs<RxKind>(ctx, build_keys, probe_keys, options, stats);
  });
}

Result<JoinAggregate> rx_join_aggregate(const Context& ctx, KeySpan build_keys,
                                        std::span<const uint32_t> build_values, KeySpan probe_keys,
                                        const JoinOptions& options, JoinStats* stats) {
  return detail::guarded(ctx.vk(), [&]() -> JoinAggregate {
    if (options.kind == JoinIndex::cgrx)
      return one_shot_aggregate<CgrxKind>(ctx, build_keys, build_values, probe_keys, options,
                                          stats);
    return one_shot_aggregate<RxKind>(ctx, build_keys, build_values, probe_keys, options, stats);
  });
}

namespace {
std::unordered_map<uint64_t, std::vector<uint32_t>> rows_by_key(KeySpan keys) {
  std::unordered_map<uint64_t, std::vector<uint32_t>> m;
  for (size_t i = 0; i < keys.size; ++i) m[keys[i]].push_back(static_cast<uint32_t>(i));
  return m;
}
}  // namespace

std::vector<JoinPair> join_pairs_reference(KeySpan build_keys, KeySpan probe_keys) {
  auto build = rows_by_key(build_keys);
  std::vector<JoinPair> out;
  for (size_t p = 0; p < probe_keys.size; ++p)
    if (auto it = build.find(probe_keys[p]); it != build.end())
      for (uint32_t b : it->second) out.push_back({b, static_cast<uint32_t>(p)});
  std::sort(out.begin(), out.end());
  return out;
}

JoinAggregate join_aggregate_reference(KeySpan build_keys, std::span<const uint32_t> build_values,
                                       KeySpan probe_keys) {
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> build;  // key -> (rows, value sum)
  for (size_t i = 0; i < build_keys.size; ++i) {
    auto& e = build[build_keys[i]];
    e.first += 1;
    e.second += build_values.empty() ? 0 : build_values[i];
  }
  JoinAggregate a;
  for (size_t p = 0; p < probe_keys.size; ++p)
    if (auto it = build.find(probe_keys[p]); it != build.end()) {
      a.matches += it->second.first;
      a.build_value_sum += it->second.second;
    }
  return a;
}

}  // namespace raydb
