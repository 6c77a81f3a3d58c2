// raydb bench rx: timing every probe configuration on the candidates and checking each result
// whole against the CPU reference and across APIs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <type_traits>
#include <variant>

#include "cli/bench_rx.hpp"
#include "cli/host_split.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/host_buffer.hpp"

namespace raydb::cli::bench_rx {

namespace {

// The candidate's index through raydb::KeyLookup: one generic call per operation.
template <class F>
decltype(auto) with_index(Candidate& c, F&& f) {
  return std::visit([&](auto& index) -> decltype(auto) { return f(*index); }, c.index);
}

bool has_ranges(Candidate& c) {
  return with_index(c, []<KeyLookup I>(I&) { return RangeKeyLookup<I>; });
}

// Whether the index sorts a batch of lookups itself (RxBuildOptions::sort_probes); RX only.
bool can_sort_probes(Candidate& c) {
  return with_index(c, []<KeyLookup I>(I&) {
    return requires(I & i) {
      i.set_sort_probes(true);
    };
  });
}

void set_sort_probes(Candidate& c, bool on) {
  with_index(c, [on]<KeyLookup I>(I& index) {
    if constexpr (requires { index.set_sort_probes(on); }) index.set_sort_probes(on);
  });
}

uint64_t width_bytes(KeyWidth w) {
  return w == KeyWidth::bits64 ? 8 : 4;
}

Status lookup_points(Candidate& c, const workload::KeyColumn& points, std::span<RxLookup> out) {
  return with_index(c, [&]<KeyLookup I>(I& index) { return index.lookup(points.span(), out); });
}

Status lookup_ranges(Candidate& c, const workload::RangeColumn& ranges, std::span<RxLookup> out) {
  return with_index(c, [&]<KeyLookup I>(I& index) -> Status {
    if constexpr (RangeKeyLookup<I>)
      return index.lookup_ranges(ranges.span(), out);
    else
      return Error(Errc::internal, "range lookups on an index without them");
  });
}

RxProbeStats last_stats(Candidate& c) {
  return with_index(c, []<KeyLookup I>(I& index) {
    // The cgRX twin's fallback count is its own check of its traversal, as the Vulkan tests
    // require 0.
    if constexpr (std::is_same_v<I, CgrxOptixIndex>)
      if (index.last_fallbacks() != 0)
        progress(fmt::format("ERROR: {} OptiX cgRX lookups named a wrong bucket (fallbacks)",
                             index.last_fallbacks()));
    return index.last_stats();
  });
}

// Repeated calls of one kind (pipelined, pinned): the first call's wall clock, then each timed
// call's wall clock and its GPU times (kernels, sorts, uploads, downloads summed over its chunks),
// and where the first and the timed calls' host time went.
struct CallTimes {
  double first = 0;
  std::vector<double> walls, kernels, sorts, up, down;
  bool direct = false;  // the kernels wrote results into pinned memory (RxProbeStats)
  HostSplits first_split, split;
};

double median_or_0(const std::vector<double>& v) {
  return v.empty() ? 0.0 : median(v);
}

// Runs `call` warmup + repeats times; the first call is `first` (also timed when warmup is 0).
template <class F>
CallTimes time_calls(Candidate& c, int warmup, int repeats, F&& call) {
  CallTimes t;
  HostSplits warm;  // the later warm-up calls: not reported
  for (int r = 0; r < warmup + repeats; ++r) {
    HostSplits& into = r == 0 ? t.first_split : r < warmup ? warm : t.split;
    double ms = into.add(call);
    if (r == 0) t.first = ms;
    if (r == 0 && warmup == 0) {  // also a timed call
      t.split.wall_ms.push_back(ms);
      t.split.parts.push_back(t.first_split.parts.back());
    }
    if (r < warmup) continue;
    RxProbeStats s = last_stats(c);
    t.walls.push_back(ms);
    t.kernels.push_back(s.probe_ms);
    t.sorts.push_back(s.sort_ms);
    t.up.push_back(s.upload_ms);
    t.down.push_back(s.download_ms);
    t.direct = s.results_direct;
  }
  return t;
}

// Sets detail::result_path_override for one scope (--result-path; "auto": none).
struct ResultPathScope {
  std::optional<detail::ResultPath> saved = detail::result_path_override();
  explicit ResultPathScope(const std::string& path) {
    if (path == "auto")
      detail::set_result_path_override(std::nullopt);
    else
      detail::set_result_path_override(path == "direct" ? detail::ResultPath::direct
                                                        : detail::ResultPath::download);
  }
  ~ResultPathScope() { detail::set_result_path_override(saved); }
};

}  // namespace

// Times every probe configuration on one index, or on the twins of one index in several APIs
// (the first is the one the others are checked against): warm-up, then the median of --repeats,
// each result compared whole with the CPU reference, and every twin's results compared whole
// with the first's. Probes depend only on the seed and the probe configuration, so every index
// of one run answers the same lookups.
void probe_all(const BenchRxOptions& o, const Context& ctx, const Workload& w,
               std::vector<Candidate*> twins, std::vector<nlohmann::json>& rows,
               std::vector<std::string>& table) {
  uint64_t config = 0;
  for (uint64_t rw : o.range_widths)
    for (double h : o.hit_rates)
      for (const auto& order : o.orders) {
        ++config;
        if (order != "sorted" && order != "unsorted" && order != "gpu_sorted")
          throw Error(Errc::invalid_argument, "--order takes unsorted, sorted, gpu_sorted");
        bool gpu_sort = order == "gpu_sorted";
        workload::ProbeOptions po;
        po.count = w.nlookups;
        po.hit_rate = h;
        po.distribution = w.probe_dist;
        po.zipf = o.probe_zipf;
        po.sorted = order == "sorted";
        po.range_width = rw;
        po.seed = w.seed + 1000003 * config;
        std::optional<workload::KeyColumn> points;
        std::optional<workload::RangeColumn> ranges;
        std::vector<RxLookup> want, first_out;
        std::string first_api;
        for (Candidate* cp : twins) {
          Candidate& c = *cp;
          if (gpu_sort && c.api != "vulkan") {
            progress(fmt::format("skipped: gpu_sorted is not done in {}", c.api));
            continue;
          }
          if (gpu_sort && !can_sort_probes(c)) {
            progress("skipped: gpu_sorted applies to RX lookups");
            continue;
          }
          if (rw > 0 && !has_ranges(c)) {
            progress(fmt::format("skipped: {} answers point lookups only",
                                 c.fields["index"].get<std::string>()));
            continue;
          }
          ProbeRow pr{rw ? "range" : "point", h, po.sorted, rw, 0, 0, 0, {}, 0, 0, "skipped"};
          progress(fmt::format("probing ({}): {} {} lookups, hit rate {}, {}{}", c.api,
                               pow2_name(w.nlookups), pr.kind, h, order,
                               rw ? fmt::format(", width {}", rw) : ""));
          std::vector<RxLookup> out(w.nlookups), piped;
          std::vector<double> up, down, sort, host;
          CallTimes piped_t, pin_t;
          std::string pin_check = "-";
          // The last pinned call's first chunks: [up, up end, kernel, kernel end, down, down
          // end] in ms from its first upload, to 0.01 ms (detail::last_pipelined_timeline). At
          // most 5 chunks (the two of the ramp and the steady state after them), so that the row
          // stays within the whole-line append limit (cli/results.cpp); pinned_span sums the rest.
          nlohmann::json pin_timeline = nlohmann::json::array();
          auto timeline = [] {
            nlohmann::json t = nlohmann::json::array();
            auto r = [](double ms) { return std::round(ms * 100) / 100; };
            for (const detail::ChunkTimes& c : detail::last_pipelined_timeline()) {
              if (t.size() == 5) break;
              t.push_back({r(c.up_begin), r(c.up_end), r(c.kernel_begin), r(c.kernel_end),
                           r(c.down_begin), r(c.down_end)});
            }
            return t;
          };
          // The same call's whole timeline in six numbers, to tell where a call's time beyond its
          // kernels goes: [chunks, first kernel's begin, kernels' sum, the queue idle between
          // kernels, last kernel's end, last download's end], ms from the first upload to 0.01.
          nlohmann::json pin_span;
          auto span = [] {
            const auto& t = detail::last_pipelined_timeline();
            if (t.empty()) return nlohmann::json();
            double kernels = 0, gaps = 0;
            for (size_t k = 0; k < t.size(); ++k) {
              kernels += t[k].kernel_end - t[k].kernel_begin;
              if (k > 0) gaps += std::max(0.0, t[k].kernel_begin - t[k - 1].kernel_end);
            }
            auto r = [](double ms) { return std::round(ms * 100) / 100; };
            return nlohmann::json::array({t.size(), r(t.front().kernel_begin), r(kernels), r(gaps),
                                          r(t.back().kernel_end), r(t.back().down_end)});
          };
          double first_host = 0;
          // GPU times come from whole batches (queries uploaded, kernel, results downloaded, each
          // timed on the GPU, as every earlier result); host times are each call's wall clock.
          // Then the same calls pipelined from host memory, as users get them by default.
          // call(out): the lookups into `out`; pinned_call(queries, out): the same queries read
          // from a copy at `queries` (a HostBuffer's) into `out`.
          auto time_it = [&](auto&& call, auto&& pinned_call, const void* queries,
                             uint64_t query_bytes) {
            {
              detail::LookupChunkScope whole(0);
              for (int i = 0; i < o.run.warmup; ++i) {
                double ms = wall_ms([&] { call(out).value(); });
                if (i == 0) first_host = ms;
              }
              for (int r = 0; r < o.run.repeats; ++r) {
                host.push_back(wall_ms([&] { call(out).value(); }));
                RxProbeStats s = last_stats(c);
                pr.all_ms.push_back(s.probe_ms);
                up.push_back(s.upload_ms);
                sort.push_back(s.sort_ms);
                down.push_back(s.download_ms);
              }
              pr.rays = last_stats(c).rays;
            }
            if (c.api != "vulkan") return;
            detail::LookupChunkScope pipelined(o.lookup_chunk ? o.lookup_chunk
                                                              : detail::kDefaultLookupChunk);
            ResultPathScope result_path(o.result_path);
            piped.assign(w.nlookups, RxLookup{});
            piped_t = time_calls(c, o.run.warmup, o.run.repeats, [&] { call(piped).value(); });
            if (!o.pinned) return;
            // Queries and results in pinned HostBuffers: the copy engines read and write them
            // in place, with no host copy.
            HostBuffer qbuf = HostBuffer::allocate(ctx, query_bytes).value();
            HostBuffer rbuf = HostBuffer::allocate(ctx, w.nlookups * sizeof(RxLookup)).value();
            std::memcpy(qbuf.data(), queries, query_bytes);
            std::span<RxLookup> pinned_out = rbuf.span<RxLookup>().first(w.nlookups);
            pin_t = time_calls(c, o.run.warmup, o.run.repeats,
                               [&] { pinned_call(qbuf.data(), pinned_out).value(); });
            pin_timeline = timeline();
            pin_span = span();
            size_t differ = 0;
            for (size_t i = 0; i < out.size(); ++i) differ += !(out[i] == pinned_out[i]);
            pin_check = differ ? fmt::format("MISMATCH ({} of {})", differ, out.size()) : "ok";
            if (differ)
              progress(
                  fmt::format("ERROR: {} pinned results differ from the whole batch's", differ));
          };
          if (gpu_sort) set_sort_probes(c, true);
          if (rw == 0) {
            if (!points) {
              points = workload::make_point_probes(w.keys.universe, po).value();
              if (w.ref) want = w.ref->lookup(points->span());
            }
            time_it([&](std::vector<RxLookup>& dst) { return lookup_points(c, *points, dst); },
                    [&](const void* q, std::span<RxLookup> dst) {
                      KeySpan k = points->span();
                      k.data = q;
                      return with_index(
                          c, [&]<KeyLookup I>(I& index) { return index.lookup(k, dst); });
                    },
                    points->span().data, points->span().size * width_bytes(points->span().width));
          } else {
            if (!ranges) {
              ranges = workload::make_range_probes(w.keys.universe, po).value();
              if (w.ref) want = w.ref->lookup_ranges(ranges->span());
            }
            time_it([&](std::vector<RxLookup>& dst) { return lookup_ranges(c, *ranges, dst); },
                    [&](const void* q, std::span<RxLookup> dst) {
                      RangeSpan k = ranges->span();
                      k.data = q;
                      return with_index(c, [&]<KeyLookup I>(I& index) -> Status {
                        if constexpr (RangeKeyLookup<I>)
                          return index.lookup_ranges(k, dst);
                        else
                          return Error(Errc::internal, "range lookups on an index without them");
                      });
                    },
                    ranges->span().data,
                    ranges->span().size * 2 * width_bytes(ranges->span().width));
          }
          if (gpu_sort) set_sort_probes(c, false);
          for (auto& r : out) pr.hits += r.count;
          if (w.ref) {
            size_t bad = 0;
            for (size_t i = 0; i < out.size(); ++i) bad += !(out[i] == want[i]);
            pr.checked = bad == 0 ? "ok" : fmt::format("MISMATCH ({} of {})", bad, out.size());
            if (bad) progress(fmt::format("ERROR: {} results differ from the CPU reference", bad));
          }
          // The pipelined calls' results equal the whole batch's, whole (also with --no-check).
          if (!piped.empty()) {
            size_t differ = 0;
            for (size_t i = 0; i < out.size(); ++i) differ += !(out[i] == piped[i]);
            if (differ) {
              progress(
                  fmt::format("ERROR: {} pipelined results differ from the whole batch's", differ));
              pr.checked = fmt::format("MISMATCH ({} of {} pipelined)", differ, out.size());
            }
          }
          if (pin_check != "ok" && pin_check != "-") pr.checked = pin_check + " pinned";
          // The cross-API check: every twin's results equal the first's, whole (also with
          // --no-check, where there is no CPU reference).
          std::string api_check = "-";
          if (first_api.empty()) {
            first_api = c.api;
            if (twins.size() > 1) first_out = out;
          } else {
            size_t differ = 0;
            for (size_t i = 0; i < out.size(); ++i) differ += !(out[i] == first_out[i]);
            api_check = differ == 0 ? "identical to " + first_api
                                    : fmt::format("DIFFER from {} ({} of {})", first_api, differ,
                                                  out.size());
            if (differ) {
              progress(
                  fmt::format("ERROR: {} {} results differ from {}'s", differ, c.api, first_api));
              pr.checked =
                  fmt::format("MISMATCH ({} of {} differ from {})", differ, out.size(), first_api);
            }
          }
          pr.probe_ms = median(pr.all_ms);
          pr.upload_ms = median(up);
          pr.download_ms = median(down);
          uint64_t nkeys = w.keys.keys.size();
          nlohmann::json j = result_fields(ctx, "rx", o.run);
          j.update({{"key_bits", w.bits},
                    {"num_keys", nkeys},
                    {"key_dist", o.key_dist},
                    {"key_zipf", o.key_zipf},
                    {"multiplicity", o.multiplicity},
                    {"lookup_kind", pr.kind},
                    {"num_lookups", w.nlookups},
                    {"hit_rate", h},
                    {"probe_dist", o.probe_dist},
                    {"probe_zipf", o.probe_zipf},
                    {"sorted_probes", pr.sorted},
                    {"probe_order", order},
                    {"probe_sort_ms", median(sort)},
                    // gpu_sorted: CUB where the context runs CUDA, else the Vulkan radix sort.
                    {"probe_sort_backend",
                     order != "gpu_sorted"                                      ? "none"
                     : ctx.resolve(Backend::automatic).value() == Backend::cuda ? "cub"
                                                                                : "vulkan"},
                    {"range_width", rw},
                    {"probe_time_ms", pr.probe_ms},
                    {"probe_time_ms_all", pr.all_ms},
                    {"lookups_per_s", pr.probe_ms > 0 ? w.nlookups / (pr.probe_ms * 1e-3) : 0.0},
                    {"upload_ms", pr.upload_ms},
                    {"download_ms", pr.download_ms},
                    // Host to host: each call's wall clock with inputs and outputs in host memory
                    // (whole batch, then pipelined), the first call after the build apart.
                    {"host_time_ms", median(host)},
                    {"host_time_ms_all", host},
                    {"host_first_ms", first_host},
                    {"pipelined_host_ms", median_or_0(piped_t.walls)},
                    {"pipelined_host_ms_all", piped_t.walls},
                    {"pipelined_first_ms", piped_t.first},
                    {"pipelined_first_host_split", piped_t.first_split.json()},
                    {"pipelined_host_split", piped_t.split.json()},
                    {"pipelined_gpu_ms", median_or_0(piped_t.kernels)},
                    // gpu_sorted RX: each chunk sorts its own lookups, apart from the kernels.
                    {"pipelined_sort_ms", median_or_0(piped_t.sorts)},
                    // The pipelined call's copy-queue transfers, summed over its chunks (0:
                    // not timed, no hostQueryReset): its PCIe transfer time.
                    {"pipelined_upload_ms", median_or_0(piped_t.up)},
                    {"pipelined_download_ms", median_or_0(piped_t.down)},
                    // --pinned: the pipelined calls with queries and results in HostBuffers.
                    {"pinned_host_ms", median_or_0(pin_t.walls)},
                    {"pinned_host_ms_all", pin_t.walls},
                    {"pinned_first_ms", pin_t.first},
                    {"pinned_first_host_split", pin_t.first_split.json()},
                    {"pinned_host_split", pin_t.split.json()},
                    {"pinned_gpu_ms", median_or_0(pin_t.kernels)},
                    {"pinned_upload_ms", median_or_0(pin_t.up)},
                    {"pinned_download_ms", median_or_0(pin_t.down)},
                    {"pinned_check", pin_check},
                    {"pinned_timeline", pin_timeline},
                    {"pinned_span", pin_span},
                    {"direct_results", piped_t.direct},
                    {"lookup_chunk", piped.empty()    ? 0
                                     : o.lookup_chunk ? o.lookup_chunk
                                                      : detail::kDefaultLookupChunk},
                    {"rays", pr.rays},
                    {"hits", pr.hits},
                    {"seed", w.seed},
                    {"checked_result", pr.checked},
                    {"api", c.api},
                    {"api_check", api_check}});
          j.update(c.fields);
          rows.push_back(j);
          table.push_back(fmt::format(
              "{} {:>3} {:>6} {:>6} {:<5} {:>5} {:<10} {:>6} {:>10.2f} {:>10.3f} {:>9.1f} "
              "{:>9.1f} {:>10.3f} {:>10.3f}  {}",
              c.columns, w.bits, pow2_name(nkeys), pow2_name(w.nlookups), pr.kind, h, order, rw,
              c.build_ms, pr.probe_ms, pr.probe_ms > 0 ? w.nlookups / (pr.probe_ms * 1e3) : 0.0,
              c.index_bytes / 1e6, median(host), median_or_0(piped_t.walls),
              gpu_sort ? fmt::format("{} (+ {:.3f} ms GPU sort)", pr.checked, median(sort))
              : api_check != "-" ? fmt::format("{}, {}", pr.checked, api_check)
                                 : pr.checked));
        }
      }
}

}  // namespace raydb::cli::bench_rx
