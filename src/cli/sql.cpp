// raydb sql: ad-hoc SELECTs over a star schema (DDL + data folder) as ray-tracing jobs, from -c,
// a file of queries, or an interactive shell (.tables, .schema, .help, .quit), like sqlite3.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/cli.hpp"
#include "raydb/sql.hpp"

#ifdef RAYDB_HAS_LIBEDIT
#include <editline/readline.h>
#endif

namespace raydb::cli {

namespace {

struct SqlCliOptions {
  CommonOptions common;
  std::string schema, data, command, file, format = "table", cache_dir, delimiter = ",",
                                           engine = "auto", history, geometry = "filter_only";
  bool check = false, stats = false;
};

// Runs one statement; returns false on an error (printed), so a shell goes on.
bool run_one(sql::SqlEngine& e, const SqlCliOptions& o, const std::string& text) {
  auto r = e.query(text);
  if (!r) {
    std::fprintf(stderr, "error: %s\n", r.error().what());
    return false;
  }
  const sql::SqlTable& t = r.value();
  std::string out = o.format == "csv"    ? t.format_csv()
                    : o.format == "json" ? t.format_json()
                                         : t.format_table();
  std::fputs(out.c_str(), stdout);
  if (o.stats) {
    const sql::SqlStats& s = e.last_stats();
    std::printf(
        "-- parse %.2f ms, plan %.2f ms, compile %.2f ms%s, stage %.2f ms, upload %.2f ms, "
        "BVH %.2f ms, trace %.3f ms, post %.2f ms; %llu rays, %llu groups; engine %s (%s)\n",
        s.parse_ms, s.plan_ms, s.compile_ms, s.shader_cached ? " (cached)" : "", s.stage_ms,
        s.upload_ms, s.bvh_build_ms, s.trace_ms, s.post_ms, static_cast<unsigned long long>(s.rays),
        static_cast<unsigned long long>(s.groups), sql::to_string(s.path), s.path_reason.c_str());
  }
  if (o.check && t.columns.size() && !(t.columns.size() == 1 && t.columns[0] == "QUERY PLAN")) {
    auto ref = e.sqlite(text);
    std::string diff = ref ? sql::compare_with_sqlite(t, ref.value()) : ref.error().what();
    std::printf("-- SQLite: %s\n", diff.empty() ? "MATCH" : ("MISMATCH: " + diff).c_str());
    return diff.empty();
  }
  return true;
}

// Statements end with ';' (outside quotes); the text before the first ';' of each.
std::vector<std::string> split_statements(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  bool quote = false;
  for (char c : text) {
    if (c == '\'') quote = !quote;
    if (c == ';' && !quote) {
      if (cur.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (cur.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(cur);
  return out;
}

// The shell's input: on a terminal, libedit's line editing with the history kept in a file (as
// sqlite3 and psql do); otherwise (a pipe, a file, or no libedit) plain lines and no prompt.
class LineReader {
 public:
  explicit LineReader(const std::string& history) : tty_(isatty(0)) {
#ifdef RAYDB_HAS_LIBEDIT
    if (!tty_ || !isatty(1)) return;
    edit_ = true;
    history_ = history;
    using_history();
    stifle_history(kHistoryLines);
    if (!history_.empty()) read_history(history_.c_str());  // absent on the first run
#else
    (void)history;
#endif
  }
  ~LineReader() {
#ifdef RAYDB_HAS_LIBEDIT
    if (edit_ && !history_.empty()) {
      write_history(history_.c_str());
      history_truncate_file(history_.c_str(), kHistoryLines);
    }
#endif
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  bool tty() const {
    return tty_;
  }
  bool read(const char* prompt, std::string& line) {
#ifdef RAYDB_HAS_LIBEDIT
    if (edit_) {
      char* text = readline(prompt);
      if (!text) return false;
      line = text;
      std::free(text);
      if (line.find_first_not_of(" \t") != std::string::npos) add_history(line.c_str());
      return true;
    }
#endif
    if (tty_) std::printf("%s", prompt), std::fflush(stdout);
    return static_cast<bool>(std::getline(std::cin, line));
  }

 private:
  static constexpr int kHistoryLines = 2000;
  bool tty_ = false, edit_ = false;
  std::string history_;
};

// --history's default: $HOME/.raydb_sql_history, like sqlite3's ~/.sqlite_history.
std::string history_file(const std::string& option) {
  if (option == "-") return {};
  if (!option.empty()) return option;
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.raydb_sql_history" : std::string();
}

void shell(sql::SqlEngine& e, const SqlCliOptions& o) {
  LineReader reader(history_file(o.history));
  std::string pending, line;
  if (reader.tty())
    std::printf("raydb sql: enter SELECT statements ending with ';', .help for help\n");
  for (;;) {
    if (!reader.read(pending.empty() ? "raydb> " : "   ...> ", line)) break;
    if (pending.empty() && !line.empty() && line[0] == '.') {
      std::istringstream in(line);
      std::string cmd, arg;
      in >> cmd >> arg;
      if (cmd == ".quit" || cmd == ".exit") break;
      if (cmd == ".tables") {
        for (const auto& t : e.table_names())
          std::printf("%s (%llu rows)\n", t.c_str(),
                      static_cast<unsigned long long>(e.table_rows(t)));
      } else if (cmd == ".schema") {
        for (const auto& t : e.table_names())
          if (arg.empty() || arg == t) std::printf("%s;\n", e.table_ddl(t).value().c_str());
      } else if (cmd == ".help") {
        std::printf(
            ".tables          tables and row counts\n.schema [TABLE]  CREATE TABLE text\n"
            ".quit            leave\nEXPLAIN SELECT ...; prints the plan and which operator runs "
            "it\n");
      } else {
        std::fprintf(stderr, "error: unknown command %s (.help lists them)\n", cmd.c_str());
      }
      continue;
    }
    pending += line + "\n";
    if (line.find(';') == std::string::npos) continue;
    for (const auto& s : split_statements(pending)) run_one(e, o, s);
    pending.clear();
  }
  if (pending.find_first_not_of(" \t\r\n") != std::string::npos) run_one(e, o, pending);
}

// The SPIR-V cache's default: $XDG_CACHE_HOME/raydb, else ~/.cache/raydb, else none ("-").
std::string default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/raydb";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/raydb";
  return "-";
}

void run_sql(const SqlCliOptions& o) {
  if (o.schema.empty()) throw Error(Errc::invalid_argument, "--schema DDL file is required");
  if (o.format != "table" && o.format != "csv" && o.format != "json")
    throw Error(Errc::invalid_argument,
                fmt::format("--format {}: expected table, csv or json", o.format));
  if (o.delimiter.size() != 1)
    throw Error(Errc::invalid_argument, "--delimiter takes one character");
  if (!o.command.empty() && !o.file.empty())
    throw Error(Errc::invalid_argument, "-c and -f both given: give the statements one way");
  sql::SqlOptions so;
  if (o.engine == "rt")
    so.path = sql::SqlPath::rt;
  else if (o.engine == "compute")
    so.path = sql::SqlPath::compute;
  else if (o.engine != "auto")
    throw Error(Errc::invalid_argument,
                fmt::format("--engine {}: expected rt, compute or auto", o.engine));
  Context ctx = open_context(o.common).value();
  so.cache_dir = o.cache_dir.empty() ? default_cache_dir() : o.cache_dir;
  so.csv_delimiter = o.delimiter[0];
  so.geometry = parse_geometry(o.geometry);
  sql::SqlEngine e = sql::SqlEngine::create(ctx, so).value();
  e.load_schema_file(o.schema).value();
  if (!o.data.empty()) e.load_data_dir(o.data).value();
  bool ok = true;
  if (!o.command.empty()) {
    for (const auto& s : split_statements(o.command)) ok = run_one(e, o, s) && ok;
  } else if (!o.file.empty()) {
    // A folder opens as an empty stream on Linux: it would run as a file of no statements.
    if (std::filesystem::is_directory(o.file))
      throw Error(Errc::io, fmt::format("-f {}: is a folder, not a file of statements", o.file));
    std::ifstream in(o.file);
    if (!in) throw Error(Errc::io, fmt::format("-f {}: cannot open", o.file));
    std::stringstream ss;
    ss << in.rdbuf();
    for (const auto& s : split_statements(ss.str())) ok = run_one(e, o, s) && ok;
  } else {
    shell(e, o);
  }
  if (!ok) throw Error(Errc::invalid_argument, "a statement failed (see above)");
}

}  // namespace

void register_sql(CLI::App& app) {
  auto o = std::make_shared<SqlCliOptions>();
  auto* cmd = app.add_subcommand(
      "sql", "ad-hoc SQL over a star schema as ray-tracing jobs (-c, --file, or a shell)");
  add_common_options(*cmd, o->common);
  cmd->add_option("--schema", o->schema, "DDL file (CREATE TABLE ... PRIMARY KEY / REFERENCES)");
  cmd->add_option("--data", o->data, "folder of <table>.tbl / .csv (optionally .gz) files");
  cmd->add_option("-c,--command", o->command, "statements to run (';'-separated)");
  cmd->add_option("-f,--file", o->file, "a file of statements");
  cmd->add_option("--format", o->format, "table, csv or json");
  cmd->add_option("--delimiter", o->delimiter, "CSV field delimiter (default ',')");
  cmd->add_option("--cache-dir", o->cache_dir,
                  "SPIR-V cache (default $XDG_CACHE_HOME/raydb; '-' disables)");
  cmd->add_option("--engine", o->engine,
                  "rt (ray tracing), compute (star join kernel) or auto (where the ray-tracing "
                  "plan cannot run the query, or the measured cost model says compute is faster)")
      ->capture_default_str();
  cmd->add_option("--geometry", o->geometry,
                  "the ray-tracing plan's triangles: filter_only (Z alone) or value_group "
                  "(RTCUDB's X = an aggregate, Y = the group code)")
      ->capture_default_str();
  cmd->add_option("--history", o->history,
                  "the shell's history file (default ~/.raydb_sql_history; '-' keeps none)");
  cmd->add_flag("--check", o->check, "also run each query on SQLite and compare");
  cmd->add_flag("--stats", o->stats, "print parse, plan, compile and query times");
  cmd->callback([o] { run_sql(*o); });
}

}  // namespace raydb::cli
