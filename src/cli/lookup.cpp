// raydb lookup: point or range lookups of a query file in an index built from a key file, without
// writing code. Every answer is checked against the CPU reference (RxReference) unless --no-check.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>

#include "cli/cli.hpp"
#include "cli/key_files.hpp"
#include "cli/output.hpp"
#include "cli/planner.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/key_index.hpp"  // RangeKeyLookup
#include "raydb/planner.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb::cli {

namespace {

struct LookupOptions {
  CommonOptions common;
  std::string keys, queries, values, out;
  std::string keys_type = "auto", queries_type = "auto", index = "rx";
  std::string calibration = default_calibration_file();  // --index auto
  uint64_t range_width = 0;                              // 0: point lookups
  OutputFormat format = OutputFormat::table;
  bool no_check = false;
};

template <class T>
std::vector<T> narrow(const std::vector<uint64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// Builds `Index` over the keys and answers the queries; build and lookup milliseconds in `ms`.
template <class Index>
std::vector<RxLookup> answer(const Context& ctx, KeySpan keys, std::span<const uint32_t> values,
                             KeySpan points, RangeSpan ranges, bool use_ranges, double ms[2]) {
  auto t0 = std::chrono::steady_clock::now();
  Index index = Index::build(ctx, keys, values).value();
  auto t1 = std::chrono::steady_clock::now();
  std::vector<RxLookup> r;
  if constexpr (RangeKeyLookup<Index>) {
    r = use_ranges ? index.lookup_ranges(ranges).value() : index.lookup(points).value();
  } else {
    r = index.lookup(points).value();
  }
  auto t2 = std::chrono::steady_clock::now();
  ms[0] = std::chrono::duration<double, std::milli>(t1 - t0).count();
  ms[1] = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return r;
}

// --index auto: the planner's pick for these files. The hit rate is estimated from up to 4096
// queries spread over the file (binary search in the sorted keys), the probe order read off it.
std::string plan_index(const Context& ctx, const LookupOptions& o, const KeyFile& keys,
                       const KeyFile& queries, bool wide) {
  std::vector<uint64_t> sorted = keys.values;
  std::sort(sorted.begin(), sorted.end());
  const size_t nq = queries.values.size(), step = std::max<size_t>(1, nq / 4096);
  size_t seen = 0, hits = 0;
  for (size_t i = 0; i < nq; i += step, ++seen) {
    uint64_t lo = queries.values[i], hi = lo + (o.range_width ? o.range_width - 1 : 0);
    auto it = std::lower_bound(sorted.begin(), sorted.end(), lo);
    hits += it != sorted.end() && *it <= hi;
  }
  LookupWorkload w;
  w.keys = std::max<uint64_t>(1, keys.values.size());
  w.key_width = wide ? KeyWidth::bits64 : KeyWidth::bits32;
  w.lookups = std::max<uint64_t>(1, nq);
  w.range_width = o.range_width;
  w.hit_rate = seen ? double(hits) / double(seen) : 1.0;
  w.sorted_probes = std::is_sorted(queries.values.begin(), queries.values.end());
  w.memory_budget_bytes = planner_memory_budget(o.common);
  PlannerOptions po;
  po.calibration_file = o.calibration;
  IndexChoice c = choose_index(ctx, w, po).value();
  std::fprintf(stderr, "raydb lookup --index auto: %s\n", explain(c).c_str());
  return to_string(c.index);
}

void run_lookup(const LookupOptions& o) {
  if (o.index != "rx" && o.index != "cgrx" && o.index != "sorted" && o.index != "hash" &&
      o.index != "auto")
    throw Error(Errc::invalid_argument,
                fmt::format("--index '{}': expected rx, cgrx, sorted, hash or auto", o.index));
  if (o.index == "hash" && o.range_width)
    throw Error(Errc::invalid_argument,
                "--range-width with --index hash: a hash index answers point lookups only (use "
                "rx, cgrx or sorted)");
  // Files are read and checked before the device opens, so a bad file fails at once.
  KeyFile keys = read_key_file(o.keys, parse_key_file_type("--keys-type", o.keys_type));
  KeyFile queries = read_key_file(o.queries, parse_key_file_type("--queries-type", o.queries_type));
  std::vector<uint32_t> values;
  if (!o.values.empty()) {
    KeyFile v = read_key_file(o.values, parse_key_file_type("--keys-type", o.keys_type));
    for (size_t i = 0; i < v.values.size(); ++i)
      if (v.values[i] > UINT32_MAX)
        throw Error(Errc::invalid_argument, fmt::format("{}: value {} ({}) does not fit 32 bits",
                                                        o.values, i, v.values[i]));
    if (v.values.size() != keys.values.size())
      throw Error(Errc::invalid_argument,
                  fmt::format("{} holds {} values; {} holds {} keys (one value per key)", o.values,
                              v.values.size(), o.keys, keys.values.size()));
    values = narrow<uint32_t>(v.values);
  }
  if (keys.values.size() > (uint64_t{1} << 32) - 2)
    throw Error(Errc::limit_exceeded, fmt::format("{}: {} keys; at most 2^32 - 2 (32-bit row ids)",
                                                  o.keys, keys.values.size()));
  // One key width for both: 64-bit when either file needs it.
  const bool wide = keys.wide || queries.wide;
  std::vector<uint32_t> k32, q32;
  std::vector<Range32> r32;
  std::vector<Range64> r64;
  const uint64_t key_max = wide ? UINT64_MAX : UINT32_MAX;
  if (o.range_width) {
    for (size_t i = 0; i < queries.values.size(); ++i) {
      uint64_t lo = queries.values[i];
      if (key_max - lo < o.range_width - 1)
        throw Error(
            Errc::invalid_argument,
            fmt::format("{}: query {} ({}) + --range-width {} - 1 passes the largest {}-bit "
                        "key",
                        o.queries, i, lo, o.range_width, wide ? 64 : 32));
      uint64_t hi = lo + (o.range_width - 1);
      if (wide)
        r64.push_back({lo, hi});
      else
        r32.push_back({static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)});
    }
  }
  KeySpan key_span = keys.values, point_span = queries.values;
  RangeSpan range_span = r64;
  if (!wide) {
    k32 = narrow<uint32_t>(keys.values);
    q32 = narrow<uint32_t>(queries.values);
    key_span = k32, point_span = q32, range_span = r32;
  }

  Context ctx = open_context(o.common).value();
  const std::string index = o.index == "auto" ? plan_index(ctx, o, keys, queries, wide) : o.index;
  double ms[2] = {0, 0};
  const bool ranges = o.range_width != 0;
  std::vector<RxLookup> r =
      index == "cgrx" ? answer<CgrxIndex>(ctx, key_span, values, point_span, range_span, ranges, ms)
      : index == "sorted"
          ? answer<SortedIndex>(ctx, key_span, values, point_span, range_span, ranges, ms)
      : index == "hash"
          ? answer<HashIndex>(ctx, key_span, values, point_span, range_span, ranges, ms)
          : answer<RxIndex>(ctx, key_span, values, point_span, range_span, ranges, ms);
  std::string check = "not checked (--no-check)";
  if (!o.no_check) {
    RxReference ref(key_span, values);
    std::vector<RxLookup> want = ranges ? ref.lookup_ranges(range_span) : ref.lookup(point_span);
    size_t differ = 0, first = 0;
    for (size_t i = r.size(); i-- > 0;)
      if (!(r[i] == want[i])) ++differ, first = i;
    if (differ)
      throw Error(Errc::internal,
                  fmt::format("{} of {} lookups differ from the CPU reference (first: query {})",
                              differ, r.size(), first));
    check = "all equal the CPU reference";
  }

  OutputTable t;
  t.columns = ranges ? std::vector<std::string>{"query", "lo", "hi", "count", "first_row"}
                     : std::vector<std::string>{"query", "key", "count", "first_row"};
  if (!values.empty()) t.columns.push_back("sum");
  uint64_t hits = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    std::vector<nlohmann::json> row{i, queries.values[i]};
    if (ranges) row.push_back(queries.values[i] + (o.range_width - 1));
    row.push_back(r[i].count);
    row.push_back(r[i].hit() ? nlohmann::json(r[i].first_row) : nlohmann::json());
    if (!values.empty()) row.push_back(r[i].sum);
    hits += r[i].hit();
    t.rows.push_back(std::move(row));
  }
  std::string text = render(t, o.format);
  if (o.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream f(o.out, std::ios::binary);
    if (!(f << text) || !f.flush())
      throw Error(Errc::io, fmt::format("--out {}: cannot write", o.out));
  }
  std::fprintf(stderr,
               "raydb lookup: %zu keys (%s-bit), %zu %s lookups on %s (%s): %llu hit; build %.1f "
               "ms, lookups %.1f ms; %s\n",
               keys.values.size(), wide ? "64" : "32", r.size(), ranges ? "range" : "point",
               index.c_str(), ctx.device().name.c_str(), static_cast<unsigned long long>(hits),
               ms[0], ms[1], check.c_str());
}

}  // namespace

void register_lookup(CLI::App& app) {
  auto o = std::make_shared<LookupOptions>();
  auto* cmd = app.add_subcommand(
      "lookup", "look up the keys of a query file in an index built from a key file");
  cmd->add_option("--keys", o->keys,
                  "key file: row id = position (.npy, .csv/.txt one a line, .u32/.u64 raw "
                  "little-endian)")
      ->required();
  cmd->add_option("--queries", o->queries, "query keys (range starts with --range-width)")
      ->required();
  cmd->add_option("--values", o->values,
                  "optional 32-bit value per key (same types as --keys); lookups sum them");
  cmd->add_option("--keys-type", o->keys_type,
                  "type of --keys and --values: auto (by name), u32, u64, text, csv, npy");
  cmd->add_option("--queries-type", o->queries_type, "type of --queries, as --keys-type");
  cmd->add_option("--index", o->index,
                  "rx, cgrx, sorted, hash, or auto (the planner's pick from --calibration; "
                  "raydb explain says why)");
  add_calibration_option(*cmd, o->calibration);
  add_count(*cmd, "--range-width", o->range_width,
            "look up the range [q, q + W - 1] of each query q instead of q alone (not with "
            "--index hash); 0: point lookups");
  add_format_option(*cmd, o->format);
  cmd->add_option("--out", o->out, "write the results to this file instead of stdout");
  cmd->add_flag("--no-check", o->no_check, "do not compare the results with the CPU reference");
  add_common_options(*cmd, o->common);
  cmd->callback([o] { run_lookup(*o); });
}

}  // namespace raydb::cli
