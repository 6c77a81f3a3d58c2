// Files in the layout of the RTScan artifact, so its data sets and queries can be run here and
// ours there.
//
// Column files: headerless little-endian uint32 values, the whole first column, then the whole
// second, ... A file of `columns` columns of `rows` rows is exactly rows * columns * 4 bytes; a
// file of any other size is rejected, never truncated or padded.
//
// Predicate files: text, one line per column per query, `<op> <value>` with op one of lt, le, gt,
// ge, eq and value a decimal uint32. A query is `columns` consecutive lines, line i being the
// predicate on column i; queries follow each other with no separator (the paper leaves the layout
// open; this is the artifact's one predicate per line). Blank lines are skipped so hand-written
// files may group queries. Parsing is strict: anything else is Errc::invalid_argument naming the
// file and line.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb::rtscan {

// Writes equally long columns, column after column. Errc::io when the file cannot be written.
Status write_column_file(const std::string& path,
                         std::span<const std::span<const uint32_t>> columns);
// Reads `columns` columns of `rows` rows. Errc::io when the file cannot be read,
// Errc::invalid_argument when its size is not rows * columns * 4.
Result<std::vector<std::vector<uint32_t>>> read_column_file(const std::string& path, uint64_t rows,
                                                            uint32_t columns);

// One query: predicates[i] is on column i (one predicate per column, as in the artifact).
using Query = std::vector<Predicate>;

// Text of a predicate file; `between` has no form in the artifact's format and is rejected, as is
// a query whose size or column order does not match `columns`.
Result<std::string> format_queries(std::span<const Query> queries, uint32_t columns);
// Parses predicate-file text; `name` names the source in errors.
Result<std::vector<Query>> parse_queries(std::string_view text, uint32_t columns,
                                         const std::string& name);

Status write_query_file(const std::string& path, std::span<const Query> queries, uint32_t columns);
Result<std::vector<Query>> read_query_file(const std::string& path, uint32_t columns);

}  // namespace raydb::rtscan
