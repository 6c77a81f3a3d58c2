// Column scans: uint32 columns on the device, conjunctive predicates evaluated by a full scan
// into a bitmap, and bitmap algebra (and, or, not, count, row ids). The full scan is the baseline
// every ray-traced scan is measured against, and the bitmap kernels serve the scan operators.
//
// Ownership: a ColumnTable or Bitmap owns its device buffers and keeps its Context alive.
// Thread-safety: any thread, also on one object at once; calls on one Context are serialised (see
// Context).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "raydb/context.hpp"
#include "raydb/error.hpp"

namespace raydb {

enum class CompareOp { lt, le, gt, ge, eq, between };
const char* to_string(CompareOp op);
Result<CompareOp> parse_compare_op(std::string_view text);  // lt | le | gt | ge | eq | between

// column `op` value; between: value <= column <= value2.
struct Predicate {
  uint32_t column = 0;
  CompareOp op = CompareOp::lt;
  uint32_t value = 0;
  uint32_t value2 = 0;
  friend bool operator==(const Predicate&, const Predicate&) = default;
};

// The closed interval of column values a predicate accepts; nullopt when it accepts none
// (lt 0, gt 2^32 - 1, between with value > value2).
std::optional<std::pair<uint32_t, uint32_t>> accepted_interval(const Predicate& p);

namespace detail {
struct ColumnTableImpl;
struct BitmapImpl;
struct BitmapReaderImpl;
}  // namespace detail

class ColumnTable {
 public:
  // Uploads equally long uint32 columns. At most 2^32 - 1 rows.
  static Result<ColumnTable> upload(const Context& ctx,
                                    std::span<const std::span<const uint32_t>> columns);
  uint64_t rows() const;
  uint32_t columns() const;

  std::shared_ptr<detail::ColumnTableImpl> impl() const { return impl_; }

 private:
  explicit ColumnTable(std::shared_ptr<detail::ColumnTableImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::ColumnTableImpl> impl_;
};

// A device bitmap over `rows` rows: bit r of word r / 32 is row r; bits past the last row are 0.
class Bitmap {
 public:
  uint64_t rows() const;
  // Downloads the bitmap through a staging buffer made for the call (one allocation per call:
  // BitmapReader is the fast way for repeated reads).
  Result<std::vector<uint32_t>> words() const;
  // Set bits, counted on the device: only the count (4 bytes) crosses to the host, never the
  // bitmap. The way to skip the transfer when the rows themselves are not needed.
  Result<uint64_t> count() const;
  Result<std::vector<uint32_t>> row_ids() const;  // the set rows, ascending
  Status and_with(const Bitmap& other);           // same row count required
  Status or_with(const Bitmap& other);
  Status invert();

  double last_gpu_ms() const;  // GPU time of the kernel that made or last changed this bitmap

  explicit Bitmap(std::shared_ptr<detail::BitmapImpl> impl) : impl_(std::move(impl)) {}

 private:
  friend class BitmapReader;
  std::shared_ptr<detail::BitmapImpl> impl_;
};

// Times of the last BitmapReader::read.
struct BitmapReadStats {
  uint64_t bytes = 0;
  double device_copy_ms = 0;  // device to host-visible memory (GPU timestamps around the copy)
  double host_copy_ms = 0;    // host-visible memory to the caller's words (host clock)
  double wall_ms = 0;         // the whole read as the caller waits for it (host clock)
};

// Reads bitmaps back to the host through one persistent host-visible staging buffer (host-cached
// where the device has such memory, so the host's copy out runs at host memory speed), grown to
// the largest bitmap read and reused by every later read: no allocation, no page mapping per
// read. Reading into a caller's vector that is reused also spares the page faults of fresh host
// memory. Ownership: keeps the Context alive. Thread-safety: as Bitmap (its reads are serialised
// on the Context).
class BitmapReader {
 public:
  explicit BitmapReader(const Context& ctx);
  // Copies the bitmap's (rows + 31) / 32 words into `out`, resized to that (its capacity kept).
  Status read(const Bitmap& bitmap, std::vector<uint32_t>& out);
  const BitmapReadStats& last_read() const;
  // Whether the staging memory is host-cached (false before the first read or where the device
  // offers only uncached host-visible memory, whose reads by the host are slow).
  bool host_cached() const;
  uint64_t staging_bytes() const;

  BitmapReader(BitmapReader&&) noexcept;
  BitmapReader& operator=(BitmapReader&&) noexcept;
  ~BitmapReader();

 private:
  std::unique_ptr<detail::BitmapReaderImpl> impl_;
};

// Rows that satisfy every predicate (an empty list selects every row).
Result<Bitmap> full_scan(const ColumnTable& table, std::span<const Predicate> predicates);

// CPU reference: the same result as bitmap words.
std::vector<uint32_t> full_scan_reference(std::span<const std::span<const uint32_t>> columns,
                                          std::span<const Predicate> predicates);

}  // namespace raydb
