// The planner's pieces the CLI shares (raydb calibrate, explain and lookup --index auto).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace raydb::cli {

// $XDG_CACHE_HOME/raydb/planner.json, else ~/.cache/raydb/planner.json, else ./raydb-planner.json.
std::string default_calibration_file();
// --calibration FILE, defaulting to default_calibration_file().
void add_calibration_option(CLI::App& cmd, std::string& into);
// raydb calibrate and raydb explain.
void register_planner(CLI::App& app);

}  // namespace raydb::cli
