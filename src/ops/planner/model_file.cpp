// The calibration file: {"raydb_planner_calibration": 1, "models": {"<device> | <driver>":
// <model>, ...}}. One file holds several devices, so a shared cache folder or a file passed with
// --calibration serves every machine it was measured on.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "raydb/planner.hpp"

namespace raydb {

namespace {

constexpr const char* kShapeNames[2][2] = {{"point_random", "point_sorted"},
                                           {"range_random", "range_sorted"}};

nlohmann::json to_json(const PlannerModel& m) {
  nlohmann::json j{{"device", m.device}, {"driver", m.driver}, {"created", m.created}};
  nlohmann::json idx = nlohmann::json::object();
  for (IndexKind k : all_index_kinds()) {
    const auto& p = m.index[static_cast<int>(k)];
    if (p.build.coef.empty()) continue;
    nlohmann::json e{{"build_ms", p.build.coef}, {"footprint_bytes", p.footprint.coef}};
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o)
        if (!p.lookup[r][o].coef.empty()) e["lookup_ms"][kShapeNames[r][o]] = p.lookup[r][o].coef;
    idx[to_string(k)] = e;
  }
  j["indexes"] = idx;
  j["lookup_features"] = lookup_feature_names();
  return j;
}

// A list of `n` finite non-negative numbers at j[field], naming the field when it is not.
Result<LinearModel> read_coef(const nlohmann::json& j, const std::string& where, size_t n) {
  if (!j.is_array() || j.size() != n)
    return Error(Errc::invalid_argument,
                 fmt::format("{}: expected a list of {} numbers", where, n));
  LinearModel m;
  for (const auto& v : j) {
    if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
      return Error(Errc::invalid_argument,
                   fmt::format("{}: {} is not a finite non-negative number", where, v.dump()));
    m.coef.push_back(v.get<double>());
  }
  return m;
}

Result<PlannerModel> from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("device") || !j["device"].is_string() ||
      !j.contains("driver") || !j["driver"].is_string() || !j.contains("indexes") ||
      !j["indexes"].is_object())
    return Error(Errc::invalid_argument,
                 fmt::format("{}: expected an object with device, driver and indexes", where));
  PlannerModel m;
  m.device = j["device"].get<std::string>();
  m.driver = j["driver"].get<std::string>();
  if (j.contains("created") && j["created"].is_string())
    m.created = j["created"].get<std::string>();
  const size_t nf = lookup_feature_names().size();
  for (auto& [name, e] : j["indexes"].items()) {
    auto k = parse_index_kind(name);
    if (!k)
      return Error(Errc::invalid_argument, fmt::format("{}.indexes: {}", where, k.error().what()));
    std::string at = fmt::format("{}.indexes.{}", where, name);
    auto& p = m.index[static_cast<int>(*k)];
    if (!e.is_object() || !e.contains("build_ms") || !e.contains("footprint_bytes"))
      return Error(Errc::invalid_argument,
                   fmt::format("{}: expected build_ms and footprint_bytes", at));
    auto b = read_coef(e["build_ms"], at + ".build_ms", 2);
    if (!b) return b.error();
    p.build = *b;
    auto f = read_coef(e["footprint_bytes"], at + ".footprint_bytes", 2);
    if (!f) return f.error();
    p.footprint = *f;
    if (!e.contains("lookup_ms")) continue;
    for (int r = 0; r < 2; ++r)
      for (int o = 0; o < 2; ++o) {
        if (!e["lookup_ms"].contains(kShapeNames[r][o])) continue;
        auto l = read_coef(e["lookup_ms"][kShapeNames[r][o]],
                           at + ".lookup_ms." + kShapeNames[r][o], nf);
        if (!l) return l.error();
        p.lookup[r][o] = *l;
      }
  }
  return m;
}

// The whole file, or an empty object when it does not exist.
Result<nlohmann::json> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nlohmann::json::object();
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error(Errc::invalid_argument, fmt::format("{}: not a JSON object", path));
  return j;
}

}  // namespace

std::string planner_model_to_json(const PlannerModel& model) {
  return to_json(model).dump(2);
}

Result<PlannerModel> planner_model_from_json(std::string_view json) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded()) return Error(Errc::invalid_argument, "planner model: not valid JSON");
  return from_json(j, "planner model");
}

Status save_planner_model(const std::string& path, const PlannerModel& model) {
  auto j = read_file(path);
  if (!j) return j.error();
  (*j)["raydb_planner_calibration"] = 1;
  (*j)["models"][model.key()] = to_json(model);
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << j->dump(2) << '\n') || !out.flush())
    return Error(Errc::io, fmt::format("{}: cannot write the calibration file", path));
  return {};
}

Result<PlannerModel> load_planner_model(const std::string& path, std::string_view device,
                                        std::string_view driver) {
  const std::string todo = fmt::format("run `raydb calibrate{}` on this device first",
                                       path.empty() ? "" : " --calibration " + path);
  if (path.empty()) return Error(Errc::invalid_argument, "no calibration file given; " + todo);
  if (!std::filesystem::exists(path))
    return Error(Errc::invalid_argument,
                 fmt::format("calibration file {} does not exist; {}", path, todo));
  if (std::filesystem::is_directory(path))
    return Error(Errc::invalid_argument,
                 fmt::format("calibration file {} is a folder, not a file", path));
  auto j = read_file(path);
  if (!j) return j.error();
  const std::string key = fmt::format("{} | {}", device, driver);
  if (!j->contains("models") || !(*j)["models"].is_object())
    return Error(Errc::invalid_argument,
                 fmt::format("{}: no \"models\" object (not a raydb calibration file?)", path));
  const auto& models = (*j)["models"];
  if (!models.contains(key)) {
    std::string have;
    for (auto& [k, v] : models.items()) have += (have.empty() ? "" : "; ") + k;
    return Error(Errc::invalid_argument,
                 fmt::format("{} has no calibration for '{}' (it has: {}); {}", path, key,
                             have.empty() ? "none" : have, todo));
  }
  return from_json(models[key], path + ": models." + key);
}

}  // namespace raydb
