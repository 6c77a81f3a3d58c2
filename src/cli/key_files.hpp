// The key and query files `raydb lookup` reads: raw little-endian u32 or u64, text or CSV (one
// decimal unsigned integer a line), or NumPy .npy (1-D, or N x 1, of uint32, uint64, int32 or
// int64, little-endian, C or Fortran order). Errors name the file and the byte count (binary), the
// line (text) or the header field or element (.npy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace raydb::cli {

enum class KeyFileType { automatic, u32, u64, text, npy };

// "auto", "u32", "u64", "text" (or "csv"), "npy"; anything else is Errc::invalid_argument naming
// `option`.
KeyFileType parse_key_file_type(const std::string& option, const std::string& s);

struct KeyFile {
  std::vector<uint64_t> values;
  bool wide = false;  // 64-bit by type (u64, .npy int64/uint64) or a text value past 2^32 - 1
};

// automatic: by the name's ending (.npy; .csv or .txt; .u32; .u64); any other ending is
// Errc::invalid_argument asking for the type.
KeyFile read_key_file(const std::string& path, KeyFileType type);

}  // namespace raydb::cli
