// The one parser for every count, size and fraction the raydb command line takes.
//
// Counts: a decimal integer (1048576), a power (2^20, base and exponent decimal integers), a
// decimal with an exponent (1e8, 2.5e6) whose value is a whole number, or any of these but a
// power with a binary suffix K, M, G or T (64M = 64 * 2^20). Reals: a finite decimal (0.25, 1e-3).
// Anything else - a sign, spaces, trailing text ("2^10abc", "2^1.5", "2^20^2"), an empty part
// ("2^", "^2"), a value that overflows 64 bits or lies outside the option's range - is
// Errc::invalid_argument whose message names the option and the value (bytes that are not
// printable ASCII escaped as \xNN), and for a range, the range.
//
// The add_* helpers register an option whose every value goes through these parsers while the
// command line is parsed, so a bad value fails before any device work. A list option takes values
// separated by ',' (or repeated); the list given replaces the default.
//
// Thread-safety: the parsers share no state.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace raydb::cli {

constexpr uint64_t kNoMax = std::numeric_limits<uint64_t>::max();

// `option` names the option in errors ("--keys"); [min, max] is the range the value must lie in.
uint64_t parse_count(std::string_view option, std::string_view text, uint64_t min = 0,
                     uint64_t max = kNoMax);
double parse_real(std::string_view option, std::string_view text, double min, double max);
// parse_real over [0, 1].
double parse_fraction(std::string_view option, std::string_view text);

// Refuses, up front, a run whose host arrays would not fit in this machine's memory:
// Errc::limit_exceeded naming the option, the count, the bytes asked for and the memory present,
// instead of a std::bad_alloc that names nothing. `bytes_each` is the host bytes one item takes.
void check_host_memory(std::string_view option, uint64_t count, uint64_t bytes_each,
                       std::string_view what);

// "2^20" for powers of two, else the number.
std::string count_name(uint64_t n);

CLI::Option* add_count(CLI::App& cmd, const std::string& name, uint64_t& into,
                       const std::string& help, uint64_t min = 0, uint64_t max = kNoMax);
CLI::Option* add_count(CLI::App& cmd, const std::string& name, uint32_t& into,
                       const std::string& help, uint64_t min = 0, uint64_t max = UINT32_MAX);
CLI::Option* add_count(CLI::App& cmd, const std::string& name, int& into, const std::string& help,
                       uint64_t min = 0, uint64_t max = INT32_MAX);
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<uint64_t>& into,
                        const std::string& help, uint64_t min = 0, uint64_t max = kNoMax);
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<uint32_t>& into,
                        const std::string& help, uint64_t min = 0, uint64_t max = UINT32_MAX);
CLI::Option* add_counts(CLI::App& cmd, const std::string& name, std::vector<int>& into,
                        const std::string& help, uint64_t min = 0, uint64_t max = INT32_MAX);
CLI::Option* add_real(CLI::App& cmd, const std::string& name, double& into, const std::string& help,
                      double min, double max);
CLI::Option* add_reals(CLI::App& cmd, const std::string& name, std::vector<double>& into,
                       const std::string& help, double min, double max);

}  // namespace raydb::cli
