// A folder of the five SSB tables (lineorder, customer, supplier, part, date) for loaders that
// read plain .tbl files (ssb::load_ssb_tbl): the folder itself where it has them, else a
// temporary folder with its .tbl.gz files decompressed. Temporary folders go with the object.
#pragma once

#include <string>

namespace raydb::cli {

class SsbTblDir {
 public:
  SsbTblDir();  // an empty temporary folder (for tables to be written there)
  // Errc::io naming the folder and table where a table has neither .tbl nor .tbl.gz.
  explicit SsbTblDir(const std::string& dir);
  ~SsbTblDir();
  SsbTblDir(const SsbTblDir&) = delete;
  SsbTblDir& operator=(const SsbTblDir&) = delete;
  const std::string& plain() const { return plain_; }        // has the plain .tbl files
  const std::string& original() const { return original_; }  // as given (maybe .gz)

 private:
  std::string original_, plain_, temp_;
};

}  // namespace raydb::cli
