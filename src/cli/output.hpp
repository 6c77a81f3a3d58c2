// --format table|csv|json: how a command prints its results on stdout. Progress and notes go to
// stderr, so stdout in csv or json is only the results and parses as such.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace raydb::cli {

enum class OutputFormat { table, csv, json };

// Adds --format to `cmd`; the value is checked when parsed (CLI11 names the option otherwise).
CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& into);
const char* to_string(OutputFormat f);

// Rows of named fields: what a command prints, in each format. Values are JSON scalars (numbers
// stay numbers in json); an object or array field is written as its JSON text in table and csv.
struct OutputTable {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;
};
// The columns are the union of the objects' keys, in order of first appearance; a row lacking a
// key gets null (an empty cell).
OutputTable table_of(const std::vector<nlohmann::json>& objects);
// table: aligned columns under a header; csv: RFC 4180 (a header line, fields quoted where they
// hold a comma, quote or line break); json: an array of objects, one per row.
std::string render(const OutputTable& t, OutputFormat f);

}  // namespace raydb::cli
