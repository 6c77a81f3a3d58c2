#include "cli/output.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace raydb::cli {

namespace {

std::string cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

const char* to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::csv:
      return "csv";
    case OutputFormat::json:
      return "json";
    case OutputFormat::table:
      break;
  }
  return "table";
}

CLI::Option* add_format_option(CLI::App& cmd, OutputFormat& into) {
  auto* opt = cmd.add_option_function<std::string>(
      "--format",
      [&into](const std::string& s) {
        if (s == "table")
          into = OutputFormat::table;
        else if (s == "csv")
          into = OutputFormat::csv;
        else if (s == "json")
          into = OutputFormat::json;
        else
          throw CLI::ValidationError("--format", "'" + s + "': expected table, csv or json");
      },
      "results on stdout as table, csv or json");
  return opt->type_name("FORMAT")->default_str(to_string(into));
}

OutputTable table_of(const std::vector<nlohmann::json>& objects) {
  OutputTable t;
  for (const auto& o : objects)
    for (auto it = o.begin(); it != o.end(); ++it)
      if (std::find(t.columns.begin(), t.columns.end(), it.key()) == t.columns.end())
        t.columns.push_back(it.key());
  for (const auto& o : objects) {
    std::vector<nlohmann::json> row;
    for (const auto& c : t.columns) row.push_back(o.contains(c) ? o.at(c) : nlohmann::json());
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::string render(const OutputTable& t, OutputFormat f) {
  std::string out;
  if (f == OutputFormat::json) {
    // Ordered: the fields in column order, as the table and csv print them.
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& r : t.rows) {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (size_t c = 0; c < t.columns.size(); ++c) o[t.columns[c]] = r[c];
      all.push_back(std::move(o));
    }
    return all.dump(2) + "\n";
  }
  if (f == OutputFormat::csv) {
    for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c]);
    out += "\n";
    for (const auto& r : t.rows) {
      for (size_t c = 0; c < r.size(); ++c) out += (c ? "," : "") + csv_field(cell(r[c]));
      out += "\n";
    }
    return out;
  }
  std::vector<size_t> width(t.columns.size());
  for (size_t c = 0; c < t.columns.size(); ++c) width[c] = t.columns[c].size();
  for (const auto& r : t.rows)
    for (size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], cell(r[c]).size());
  auto line = [&](auto&& text_of) {
    std::string l;
    for (size_t c = 0; c < t.columns.size(); ++c)
      l += fmt::format("{}{:<{}}", c ? "  " : "", text_of(c), width[c]);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line([&](size_t c) { return t.columns[c]; });
  line([&](size_t c) { return std::string(width[c], '-'); });
  for (const auto& r : t.rows) line([&](size_t c) { return cell(r[c]); });
  return out;
}

}  // namespace raydb::cli
