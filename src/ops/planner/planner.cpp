// The key-lookup planner's model: features, the non-negative fit, prediction, the pick and its
// explanation. Measuring lives in measure.cpp, the calibration file in model_file.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "raydb/planner.hpp"

namespace raydb {

const char* to_string(IndexKind kind) {
  switch (kind) {
    case IndexKind::rx:
      return "rx";
    case IndexKind::cgrx:
      return "cgrx";
    case IndexKind::sorted:
      return "sorted";
    case IndexKind::hash:
      return "hash";
  }
  return "?";
}

Result<IndexKind> parse_index_kind(std::string_view name) {
  for (IndexKind k : all_index_kinds())
    if (name == to_string(k)) return k;
  return Error(Errc::invalid_argument,
               fmt::format("index '{}': expected rx, cgrx, sorted or hash", name));
}

std::vector<IndexKind> all_index_kinds() {
  return {IndexKind::rx, IndexKind::cgrx, IndexKind::sorted, IndexKind::hash};
}

std::string planner_driver(const DeviceInfo& d) {
  return d.driver_info.empty() ? d.driver_version : d.driver_info;
}

std::string PlannerModel::key() const {
  return device + " | " + driver;
}

namespace {

// Rows each range lookup is expected to match: a hit's own key plus the other keys its width
// covers, at the density of unique keys spread over the key width's range.
double expected_matches(const LookupWorkload& w) {
  if (w.range_width == 0) return w.hit_rate;
  double span = w.key_width == KeyWidth::bits64 ? std::ldexp(1.0, 64) : std::ldexp(1.0, 32);
  double density = static_cast<double>(w.keys) / span;
  return w.hit_rate * (1.0 + static_cast<double>(w.range_width - 1) * density);
}

// Solves the normal equations of min |A x - y|^2 over the columns in `cols` (Gaussian
// elimination with partial pivoting; at most four columns). False when singular.
bool solve_subset(const std::vector<std::vector<double>>& a, const std::vector<double>& y,
                  const std::vector<size_t>& cols, std::vector<double>& x) {
  const size_t k = cols.size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0.0));
  for (size_t r = 0; r < a.size(); ++r)
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = 0; j < k; ++j) m[i][j] += a[r][cols[i]] * a[r][cols[j]];
      m[i][k] += a[r][cols[i]] * y[r];
    }
  for (size_t c = 0; c < k; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < k; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[p][c])) p = r;
    if (std::fabs(m[p][c]) < 1e-300) return false;
    std::swap(m[p], m[c]);
    for (size_t r = 0; r < k; ++r) {
      if (r == c) continue;
      double f = m[r][c] / m[c][c];
      for (size_t j = c; j <= k; ++j) m[r][j] -= f * m[c][j];
    }
  }
  x.assign(k, 0.0);
  for (size_t i = 0; i < k; ++i) x[i] = m[i][k] / m[i][i];
  return true;
}

// Non-negative least squares on relative error: each row is divided by its measurement, so a
// 0.1 ms lookup weighs as much as a 100 ms one. With at most four features every subset of
// columns is tried and the best fit with no negative coefficient kept (exact NNLS, no iteration).
Result<LinearModel> fit_nonnegative(const std::vector<std::vector<double>>& features,
                                    const std::vector<double>& measured, const std::string& what) {
  const size_t nf = features.empty() ? 0 : features[0].size();
  std::vector<std::vector<double>> distinct = features;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < nf)
    return Error(Errc::invalid_argument,
                 fmt::format("{}: {} distinct workloads measured, the fit needs at least {}", what,
                             distinct.size(), nf));
  std::vector<std::vector<double>> a = features;
  std::vector<double> y(measured.size(), 1.0);
  for (size_t r = 0; r < a.size(); ++r) {
    double w = 1.0 / std::max(measured[r], 1e-6);
    for (double& v : a[r]) v *= w;
    y[r] = measured[r] * w;
  }
  double best = INFINITY;
  LinearModel out{std::vector<double>(nf, 0.0)};
  for (unsigned mask = 1; mask < (1u << nf); ++mask) {
    std::vector<size_t> cols;
    for (size_t i = 0; i < nf; ++i)
      if (mask & (1u << i)) cols.push_back(i);
    std::vector<double> x;
    if (!solve_subset(a, y, cols, x)) continue;
    if (std::any_of(x.begin(), x.end(), [](double v) { return v < 0; })) continue;
    double err = 0;
    for (size_t r = 0; r < a.size(); ++r) {
      double p = 0;
      for (size_t i = 0; i < cols.size(); ++i) p += a[r][cols[i]] * x[i];
      err += (p - y[r]) * (p - y[r]);
    }
    if (err < best) {
      best = err;
      out.coef.assign(nf, 0.0);
      for (size_t i = 0; i < cols.size(); ++i) out.coef[cols[i]] = x[i];
    }
  }
  if (!std::isfinite(best))
    return Error(Errc::invalid_argument, fmt::format("{}: no non-negative fit exists", what));
  return out;
}

double dot(const LinearModel& m, const std::vector<double>& f) {
  double s = 0;
  for (size_t i = 0; i < m.coef.size() && i < f.size(); ++i) s += m.coef[i] * f[i];
  return s;
}

std::string bytes_name(uint64_t b) {
  if (b >= (uint64_t{1} << 30)) return fmt::format("{:.2f} GiB", b / double(uint64_t{1} << 30));
  if (b >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", b / double(1 << 20));
  return fmt::format("{:.1f} KiB", b / 1024.0);
}

std::string count_text(uint64_t n) {
  if (n && (n & (n - 1)) == 0) return fmt::format("2^{}", std::countr_zero(n));
  return std::to_string(n);
}

Status check_workload(const LookupWorkload& w) {
  if (w.keys == 0) return Error(Errc::invalid_argument, "workload: keys must be at least 1");
  if (w.keys > (uint64_t{1} << 32) - 2)
    return Error(Errc::limit_exceeded,
                 fmt::format("workload: {} keys; at most 2^32 - 2 (32-bit row ids)", w.keys));
  if (w.lookups == 0) return Error(Errc::invalid_argument, "workload: lookups must be at least 1");
  if (!(w.hit_rate >= 0 && w.hit_rate <= 1))
    return Error(Errc::invalid_argument,
                 fmt::format("workload: hit rate {} is not in [0, 1]", w.hit_rate));
  return {};
}

}  // namespace

std::vector<double> lookup_features(const LookupWorkload& w) {
  double l = static_cast<double>(w.lookups);
  double depth = std::log2(std::max<double>(2.0, static_cast<double>(w.keys)));
  return {1.0, l, l * depth, l * expected_matches(w)};
}

const std::vector<std::string>& lookup_feature_names() {
  static const std::vector<std::string> names{"per call", "per lookup", "per lookup x log2(keys)",
                                              "per matching row"};
  return names;
}

Result<PlannerModel> fit_planner_model(const std::vector<PlannerSample>& samples,
                                       std::string device, std::string driver) {
  PlannerModel model;
  model.device = std::move(device);
  model.driver = std::move(driver);
  for (IndexKind k : all_index_kinds()) {
    auto& per = model.index[static_cast<int>(k)];
    // Builds and footprints: one per key count (every workload of a key set shares its build).
    std::map<uint64_t, std::pair<double, uint64_t>> builds;
    std::vector<std::vector<double>> f[2][2];
    std::vector<double> y[2][2];
    for (const PlannerSample& s : samples) {
      if (s.index != k) continue;
      builds[s.workload.keys] = {s.build_ms, s.footprint_bytes};
      int r = s.workload.range_width != 0, o = s.workload.sorted_probes;
      f[r][o].push_back(lookup_features(s.workload));
      y[r][o].push_back(s.lookup_ms);
    }
    if (builds.empty()) continue;
    std::vector<std::vector<double>> bf;
    std::vector<double> bt, bb;
    for (auto& [n, v] : builds) {
      bf.push_back({1.0, static_cast<double>(n)});
      bt.push_back(v.first);
      bb.push_back(static_cast<double>(v.second));
    }
    auto build = fit_nonnegative(bf, bt, fmt::format("{} build", to_string(k)));
    if (!build) return build.error();
    per.build = *build;
    auto foot = fit_nonnegative(bf, bb, fmt::format("{} footprint", to_string(k)));
    if (!foot) return foot.error();
    per.footprint = *foot;
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o) {
        if (f[r][o].empty()) continue;
        auto m = fit_nonnegative(f[r][o], y[r][o],
                                 fmt::format("{} {} lookups, {} order", to_string(k),
                                             r ? "range" : "point", o ? "sorted" : "random"));
        if (!m) return m.error();
        per.lookup[r][o] = *m;
      }
  }
  return model;
}

Result<IndexChoice> choose_index(const PlannerModel& model, const LookupWorkload& w,
                                 bool count_build) {
  if (Status s = check_workload(w); !s) return s.error();
  IndexChoice choice;
  choice.workload = w;
  choice.count_build = count_build;
  choice.model_key = model.key();
  const std::vector<double> f = lookup_features(w);
  const int r = w.range_width != 0, o = w.sorted_probes;
  const CandidateEstimate* best = nullptr;
  for (IndexKind k : all_index_kinds()) {
    const auto& per = model.index[static_cast<int>(k)];
    CandidateEstimate c;
    c.index = k;
    const double n = static_cast<double>(w.keys);
    c.build_ms = per.build.coef.empty() ? 0 : dot(per.build, {1.0, n});
    c.footprint_bytes =
        per.footprint.coef.empty() ? 0 : static_cast<uint64_t>(dot(per.footprint, {1.0, n}));
    const LinearModel& lm = per.lookup[r][o];
    if (k == IndexKind::hash && r) {
      c.ruled_out = "a hash table answers point lookups only, not ranges";
    } else if (lm.coef.empty() || per.build.coef.empty()) {
      c.ruled_out = fmt::format("not calibrated for {} lookups in {} order on this device",
                                r ? "range" : "point", o ? "sorted" : "random");
    } else if (w.memory_budget_bytes && c.footprint_bytes > w.memory_budget_bytes) {
      c.ruled_out = fmt::format("predicted footprint {} exceeds the memory budget {}",
                                bytes_name(c.footprint_bytes), bytes_name(w.memory_budget_bytes));
    } else {
      c.eligible = true;
    }
    if (!lm.coef.empty()) {
      c.lookup_ms = dot(lm, f);
      for (size_t i = 0; i < f.size() && i < lm.coef.size(); ++i)
        if (lm.coef[i] * f[i] > 0)
          c.terms.push_back({lookup_feature_names()[i], lm.coef[i] * f[i]});
      std::sort(c.terms.begin(), c.terms.end(),
                [](const CostTerm& a, const CostTerm& b) { return a.ms > b.ms; });
    }
    c.total_ms = c.lookup_ms + (count_build ? c.build_ms : 0.0);
    choice.candidates.push_back(std::move(c));
  }
  for (const CandidateEstimate& c : choice.candidates)
    if (c.eligible && (!best || c.total_ms < best->total_ms)) best = &c;
  if (!best) {
    uint64_t smallest = UINT64_MAX;
    for (const CandidateEstimate& c : choice.candidates)
      if (c.footprint_bytes && !(c.index == IndexKind::hash && r))
        smallest = std::min(smallest, c.footprint_bytes);
    return Error(Errc::limit_exceeded,
                 fmt::format("no index fits: memory budget {}, the smallest predicted footprint "
                             "is {} (raise the budget or index fewer keys)",
                             bytes_name(w.memory_budget_bytes),
                             smallest == UINT64_MAX ? "unknown" : bytes_name(smallest)));
  }
  choice.index = best->index;
  return choice;
}

Result<IndexChoice> choose_index(const Context& ctx, const LookupWorkload& w,
                                 const PlannerOptions& options) {
  if (Status s = check_workload(w); !s) return s.error();
  auto model =
      load_planner_model(options.calibration_file, ctx.device().name, planner_driver(ctx.device()));
  if (!model) return model.error();
  return choose_index(*model, w, options.count_build);
}

std::string explain(const IndexChoice& c) {
  const LookupWorkload& w = c.workload;
  std::string s = fmt::format(
      "workload: {} keys ({}-bit), {} {} lookups{}, hit rate {}, {} order{}\n", count_text(w.keys),
      to_string(w.key_width), count_text(w.lookups), w.range_width ? "range" : "point",
      w.range_width ? fmt::format(" of width {}", w.range_width) : std::string(), w.hit_rate,
      w.sorted_probes ? "sorted" : "random",
      w.memory_budget_bytes ? fmt::format(", memory budget {}", bytes_name(w.memory_budget_bytes))
                            : std::string());
  s += fmt::format("model: {} (calibration entry); minimising {}\n", c.model_key,
                   c.count_build ? "build + lookups" : "lookups alone (index already built)");
  const CandidateEstimate* pick = nullptr;
  for (const auto& e : c.candidates)
    if (e.index == c.index) pick = &e;
  if (pick && c.count_build)
    s += fmt::format("choice: {} (predicted {:.3f} ms: build {:.3f} + lookups {:.3f})\n",
                     to_string(c.index), pick->total_ms, pick->build_ms, pick->lookup_ms);
  else if (pick)
    s +=
        fmt::format("choice: {} (predicted {:.3f} ms of lookups; its build, not counted: {:.3f})\n",
                    to_string(c.index), pick->lookup_ms, pick->build_ms);
  s += fmt::format("{:<8} {:>11} {:>11} {:>11} {:>11}  {}\n", "index", "build ms", "lookup ms",
                   "total ms", "footprint", "dominant lookup terms / why ruled out");
  for (const auto& e : c.candidates) {
    std::string why;
    if (!e.eligible) {
      why = "ruled out: " + e.ruled_out;
    } else {
      // Where the build outweighs the lookups, that is the term to name first.
      if (c.count_build && e.build_ms > e.lookup_ms && e.total_ms > 0)
        why = fmt::format("build {:.0f}% of the total; lookups: ", 100.0 * e.build_ms / e.total_ms);
      for (size_t i = 0; i < e.terms.size() && i < 2; ++i)
        why +=
            fmt::format("{}{} {:.3f} ms ({:.0f}%)", i ? ", " : "", e.terms[i].name, e.terms[i].ms,
                        e.lookup_ms > 0 ? 100.0 * e.terms[i].ms / e.lookup_ms : 0);
      if (pick && e.index != pick->index && pick->total_ms > 0)
        why += fmt::format("; {:.2f}x the choice", e.total_ms / pick->total_ms);
    }
    s += fmt::format("{:<8} {:>11.3f} {:>11.3f} {:>11.3f} {:>11}  {}\n", to_string(e.index),
                     e.build_ms, e.lookup_ms, e.total_ms, bytes_name(e.footprint_bytes), why);
  }
  if (w.key_width == KeyWidth::bits64)
    s += "note: the model was measured on 32-bit keys; 64-bit keys are predicted with it\n";
  return s;
}

}  // namespace raydb
