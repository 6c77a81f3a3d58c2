// CLI11 options whose values go through cli/numbers.hpp: CLI11's own number conversion would
// accept "-1" for an int (and wrap it for an unsigned), and knows no 2^k.
#include <CLI/CLI.hpp>

#include "cli/numbers.hpp"

namespace raydb::cli {

namespace {

template <class T>
CLI::Option* one_count(CLI::App& cmd, const std::string& name, T& into, const std::string& help,
                       uint64_t min, uint64_t max) {
  auto* opt = cmd.add_option_function<std::string>(
      name,
      [&into, name, min, max](const std::string& s) {
        into = static_cast<T>(parse_count(name, s, min, max));
      },
      help);
  return opt->type_name("COUNT");
}

// The items of a list option, split here rather than by CLI11's delimiter, which drops empty
// items ("1024,,2048" would run as 1024,2048).
std::vector<std::string> items(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    size_t b = 0;
    for (size_t e; (e = a.find(',', b)) != std::string::npos; b = e + 1)
      out.push_back(a.substr(b, e - b));
    out.push_back(a.substr(b));
  }
  return out;
}

template <class T>
CLI::Option* list_of_counts(CLI::App& cmd, const std::string& name, std::vector<T>& into,
                            const std::string& help, uint64_t min, uint64_t max) {
  auto* opt = cmd.add_option_function<std::vector<std::string>>(
      name,
      [&into, name, min, max](const std::vector<std::string>& v) {
        std::vector<T> out;
        for (const auto& s : items(v))
          out.push_back(static_cast<T>(parse_count(name, s, min, max)));
        into = std::move(out);
      },
      help);
  return opt->type_name("COUNT,...");
}

}  // namespace

CLI::Option* add_count(CLI::App& cmd, const std::string& name, uint64_t& into,
                       const std::string& help, uint64_t min, uint64_t max) {
  return one_count(cmd, name, into, help, min, max);
}
CLI::Option* add_count(CLI::App& cmd, const std::string& name, uint32_t& into,
                       const std::string& help, uint64_t min, uint64_t max) {
  return one_count(cmd, name, into, help, min, std::min<uint64_t>(max, UINT32_MAX));
}
CLI::Option* add_count(CLI::App& cmd, const std::string& name, int& into, const std::string& help,
                       uint64_t min, uint64_t max) {
  return one_count(cmd, name, into, help, min, std::min<uint64_t>(max, INT32_MAX));
}
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<uint64_t>& into,
                        const std::string& help, uint64_t min, uint64_t max) {
  return list_of_counts(cmd, name, into, help, min, max);
}
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<uint32_t>& into,
                        const std::string& help, uint64_t min, uint64_t max) {
  return list_of_counts(cmd, name, into, help, min, std::min<uint64_t>(max, UINT32_MAX));
}
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<int>& into,
                        const std::string& help, uint64_t min, uint64_t max) {
  return list_of_counts(cmd, name, into, help, min, std::min<uint64_t>(max, INT32_MAX));
}

CLI::Option* add_real(CLI::App& cmd, const std::string& name, double& into, const std::string& help,
                      double min, double max) {
  auto* opt = cmd.add_option_function<std::string>(
      name, [&into, name, min, max](const std::string& s) { into = parse_real(name, s, min, max); },
      help);
  return opt->type_name("NUMBER");
}

CLI::Option* add_reals(CLI::App& cmd, const std::string& name, std::vector<double>& into,
                       const std::string& help, double min, double max) {
  auto* opt = cmd.add_option_function<std::vector<std::string>>(
      name,
      [&into, name, min, max](const std::vector<std::string>& v) {
        std::vector<double> out;
        for (const auto& s : items(v)) out.push_back(parse_real(name, s, min, max));
        into = std::move(out);
      },
      help);
  return opt->type_name("NUMBER,...");
}

}  // namespace raydb::cli
