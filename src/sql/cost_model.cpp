// The SQL engine's cost model (see cost_model.hpp).
#include "sql/cost_model.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sql/codegen.hpp"

namespace raydb::sql::detail {

namespace fs = std::filesystem;

CostModel::CostModel(const std::string& dir, const DeviceInfo& device) {
  device_ = fmt::format("{} | {} {} | {}", device.name, device.driver_name, device.driver_version,
                        device.uuid);
  if (dir == "-") return;
  file_ = (fs::path(dir) / fmt::format("calibration-{:016x}.txt", source_hash(device_))).string();
  std::ifstream in(file_);
  // Lines "device ...", "rt_ns_per_row X", "compute_ns_per_row Y"; a file for another device
  // (a hash collision) or a damaged one is ignored and rewritten.
  std::string line, dev;
  double rt = -1, cp = -1;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    ls >> key;
    if (key == "device")
      dev = line.size() > 7 ? line.substr(7) : "";
    else if (key == "rt_ns_per_row")
      ls >> rt;
    else if (key == "compute_ns_per_row")
      ls >> cp;
  }
  if (dev == device_) rt_ = rt, compute_ = cp;
}

void CostModel::record(bool compute, double ms, uint64_t rows) {
  if (rows == 0) return;
  double ns = ms * 1e6 / double(rows);
  double& slot = compute ? compute_ : rt_;
  // Blended, so one slow run (a cold cache, a busy machine) does not flip the choice alone.
  slot = slot < 0 ? ns : 0.5 * slot + 0.5 * ns;
  save();
}

void CostModel::save() const {
  if (file_.empty()) return;
  std::error_code ec;
  fs::create_directories(fs::path(file_).parent_path(), ec);
  std::string tmp = fmt::format("{}.{}.tmp", file_, static_cast<unsigned long>(::getpid()));
  {
    std::ofstream out(tmp);
    out << "device " << device_ << "\n";
    if (rt_ >= 0) out << fmt::format("rt_ns_per_row {:.6g}\n", rt_);
    if (compute_ >= 0) out << fmt::format("compute_ns_per_row {:.6g}\n", compute_);
  }
  // A cache that cannot be written only costs the next run a calibration.
  fs::rename(tmp, file_, ec);
}

}  // namespace raydb::sql::detail
