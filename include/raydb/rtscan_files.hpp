// Files in the layout of the RTScan artifact, so its data sets and queries can be run here and
// ours there.
//
// Column files: headerless little-endian uint32 values, the whole first column, then the whole
// second, ... A file of `columns` columns of `rows` rows is exactly rows * columns * 4 bytes; a
// file of any other size is rejected, never truncated or padded.
//
// Predicate files: text, one line per column per query, `<op> <value>` with op one of lt, le, gt,
// ge, eq, or `bt <lo> <hi>` (BETWEEN, inclusive), values decimal uint32. A query is `columns`
// consecutive lines, line i being the predicate on column i; queries follow each other with no
// separator, and a line `exit` ends the file (the artifact reads queries until it; reading here
// also accepts end of file). The paper leaves the layout open; this is the one the artifact's
// BinDex driver reads, minus its comma lists of constants (one column swept over several
// constants), which a Query cannot hold and which are rejected. Like the artifact, `bt a b` with
// a > b means `bt b a`. Blank lines are skipped and CRLF endings accepted; anything else
// malformed (unknown operator, missing value, value > 2^32 - 1, trailing text, an incomplete last
// query, text after `exit`) is Errc::invalid_argument naming the file and line.
//
// Thread-safety: the functions share no state; different files may be read or written at once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/error.hpp"
#include "raydb/scan.hpp"

namespace raydb::rtscan {

/// Writes equally long columns, column after column. Errc::io when the file cannot be written.
Status write_column_file(const std::string& path,
                         std::span<const std::span<const uint32_t>> columns);
/// Reads `columns` columns of `rows` rows. Errc::io when the file cannot be read,
/// Errc::invalid_argument when its size is not rows * columns * 4.
Result<std::vector<std::vector<uint32_t>>> read_column_file(const std::string& path, uint64_t rows,
                                                            uint32_t columns);

/// One query: predicates[i] is on column i (one predicate per column, as in the artifact).
using Query = std::vector<Predicate>;

/// Text of a predicate file, ending in `exit`. Rejects a query whose size or column order does not
/// match `columns`, and an empty between (value > value2), which `bt` cannot express.
Result<std::string> format_queries(std::span<const Query> queries, uint32_t columns);
/// Parses predicate-file text; `name` names the source in errors.
Result<std::vector<Query>> parse_queries(std::string_view text, uint32_t columns,
                                         const std::string& name);

Status write_query_file(const std::string& path, std::span<const Query> queries, uint32_t columns);
Result<std::vector<Query>> read_query_file(const std::string& path, uint32_t columns);

}  // namespace raydb::rtscan
