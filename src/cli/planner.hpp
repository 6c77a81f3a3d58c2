// The planner's pieces the CLI shares (raydb calibrate, explain and lookup --index auto).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "cli/cli.hpp"  // CommonOptions

namespace raydb::cli {

// $XDG_CACHE_HOME/raydb/planner.json, else ~/.cache/raydb/planner.json, else ./raydb-planner.json.
std::string default_calibration_file();
// --calibration FILE, defaulting to default_calibration_file().
void add_calibration_option(CLI::App& cmd, std::string& into);
// The budget the planner plans for: --memory-budget, else RAYDB_MEMORY_BUDGET (as the context
// gets it); 0: none.
uint64_t planner_memory_budget(const CommonOptions& o);
// raydb calibrate and raydb explain.
void register_planner(CLI::App& app);

}  // namespace raydb::cli
