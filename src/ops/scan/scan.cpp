// Column tables, the full-scan baseline and bitmap algebra on Vulkan compute.
#include "raydb/scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "common/parallel.hpp"
#include "ops/scan/scan_impl.hpp"

namespace raydb {

const char* to_string(CompareOp op) {
  switch (op) {
    case CompareOp::lt:
      return "lt";
    case CompareOp::le:
      return "le";
    case CompareOp::gt:
      return "gt";
    case CompareOp::ge:
      return "ge";
    case CompareOp::eq:
      return "eq";
    case CompareOp::between:
      return "between";
  }
  return "?";
}

Result<CompareOp> parse_compare_op(std::string_view t) {
  for (CompareOp op : {CompareOp::lt, CompareOp::le, CompareOp::gt, CompareOp::ge, CompareOp::eq,
                       CompareOp::between})
    if (t == to_string(op)) return op;
  return Error(Errc::invalid_argument,
               fmt::format("unknown comparison '{}' (lt, le, gt, ge, eq, between)", t));
}

std::optional<std::pair<uint32_t, uint32_t>> accepted_interval(const Predicate& p) {
  constexpr uint32_t kMax = std::numeric_limits<uint32_t>::max();
  switch (p.op) {
    case CompareOp::lt:
      return p.value == 0 ? std::nullopt : std::optional(std::pair(0u, p.value - 1));
    case CompareOp::le:
      return std::pair(0u, p.value);
    case CompareOp::gt:
      return p.value == kMax ? std::nullopt : std::optional(std::pair(p.value + 1, kMax));
    case CompareOp::ge:
      return std::pair(p.value, kMax);
    case CompareOp::eq:
      return std::pair(p.value, p.value);
    case CompareOp::between:
      return p.value > p.value2 ? std::nullopt : std::optional(std::pair(p.value, p.value2));
  }
  return std::nullopt;
}

namespace detail {

namespace {

constexpr uint64_t kFullScanGroupRows = 8192;  // full_scan.comp's kGroupRows

struct FullScanParams {
  uint64_t predicates, bitmap;
  uint32_t rows, num_predicates;
};
static_assert(sizeof(FullScanParams) == 24);

struct GpuPredicate {
  uint64_t column;
  uint32_t lo, hi;
};
static_assert(sizeof(GpuPredicate) == 16);

struct BitmapRowsParams {
  uint64_t bitmap, offsets, rows;
  uint32_t words, pad0;
};
static_assert(sizeof(BitmapRowsParams) == 32);

}  // namespace

std::shared_ptr<BitmapImpl> new_bitmap(const std::shared_ptr<VkContext>& ctx, uint64_t rows,
                                       bool cuda, const std::shared_ptr<BitmapPool>& pool) {
  auto b = std::make_shared<BitmapImpl>();
  b->ctx = ctx;
  b->rows = rows;
  b->cuda = cuda;
  if (pool && !pool->free.empty()) {
    b->words = std::move(pool->free.back());
    pool->free.pop_back();
  } else {
    b->words = cuda::kernel_buffer(*ctx, cuda, b->word_count() * 4, "bitmap");
  }
  b->pool = pool;
  return b;
}

namespace {

template <class T>
std::vector<T> download(VkContext& c, const Buffer& src, uint64_t count) {
  std::vector<T> out(count);
  if (count == 0) return out;
  Buffer host(c, count * sizeof(T), VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
              "bitmap readback");
  CommandBatch cb(c);
  VkBufferCopy r{0, 0, count * sizeof(T)};
  c.vk.vkCmdCopyBuffer(cb.cmd(), src.handle(), host.handle(), 1, &r);
  cb.submit_and_wait();
  host.invalidate();
  std::memcpy(out.data(), host.mapped(), count * sizeof(T));
  return out;
}

// offsets[i] = set bits of the words before word i, for words + 1 entries, on the device; returns
// the last entry, the bitmap's set bits (only those 4 bytes come back to the host).
uint32_t word_offsets(const BitmapImpl& b, Buffer& offsets) {
  VkContext& c = *b.ctx;
  uint64_t words = b.word_count();
  offsets = Buffer(c, (words + 1) * 4, kStorageUsage, MemoryUse::device, "bitmap offsets");
  Buffer host(c, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback, "bitmap count");
  RadixSort scan(c);
  RadixSort::Temps temps;
  CommandBatch cb(c);  // one submission: popcounts, prefix sums, the total's 4 bytes back
  if (words) {
    BitmapOpParams p{b.words.address(),
                     offsets.address(),
                     static_cast<uint32_t>(words),
                     static_cast<uint32_t>(b.rows),
                     kPopcount,
                     0};
    kernel(c, ShaderId::bitmap_ops, sizeof(BitmapOpParams))
        .dispatch(cb.cmd(), &p, bitmap_op_items(words));
    compute_barrier(c, cb.cmd());
  }
  scan.record_exclusive_scan(cb.cmd(), offsets.address(), words + 1,
                             temps);  // last entry: the total
  memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
  VkBufferCopy r{words * 4, 0, 4};
  c.vk.vkCmdCopyBuffer(cb.cmd(), offsets.handle(), host.handle(), 1, &r);
  memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                 VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
  cb.submit_and_wait();
  host.invalidate();
  return *host.as<uint32_t>();
}

}  // namespace

void bitmap_op(BitmapImpl& a, const BitmapImpl* b, uint32_t op) {
  VkContext& c = *a.ctx;
  if (a.cuda && (!b || b->cuda)) {
    cuda::Timer timer(c, 2);
    uint32_t t0 = timer.mark();
    cuda::bitmap_op(c, a.words, b ? &b->words : nullptr, a.rows, op);
    uint32_t t1 = timer.mark();
    a.gpu_ms = timer.ms(t0, t1);  // waits for the kernel
    return;
  }
  BitmapOpParams p{a.words.address(),
                   b ? b->words.address() : 0,
                   static_cast<uint32_t>(a.word_count()),
                   static_cast<uint32_t>(a.rows),
                   op,
                   0};
  CommandBatch cb(c);
  GpuTimer timer(c, 2);
  timer.reset(cb.cmd());
  uint32_t t0 = timer.mark(cb.cmd());
  kernel(c, ShaderId::bitmap_ops, sizeof(BitmapOpParams))
      .dispatch(cb.cmd(), &p, bitmap_op_items(a.word_count()));
  uint32_t t1 = timer.mark(cb.cmd());
  cb.submit_and_wait();
  a.gpu_ms = timer.ms(t0, t1);
}

namespace {

void check_same_rows(const BitmapImpl& a, const BitmapImpl& b) {
  if (a.rows != b.rows)
    throw Error(Errc::invalid_argument,
                fmt::format("bitmaps over {} and {} rows cannot be combined", a.rows, b.rows));
  if (a.ctx != b.ctx)
    throw Error(Errc::invalid_argument, "bitmaps of different contexts cannot be combined");
}

}  // namespace
}  // namespace detail

using detail::BitmapImpl;
using detail::ColumnTableImpl;
using detail::guarded;

Result<ColumnTable> ColumnTable::upload(const Context& ctx,
                                        std::span<const std::span<const uint32_t>> columns) {
  return guarded(ctx.vk(), [&]() -> ColumnTable {
    auto t = std::make_shared<ColumnTableImpl>();
    t->ctx = ctx.shared();
    t->rows = columns.empty() ? 0 : columns[0].size();
    if (t->rows > 0xFFFFFFFFull)
      throw Error(Errc::limit_exceeded, "a column table holds at most 2^32 - 1 rows");
    for (size_t k = 0; k < columns.size(); ++k)
      if (columns[k].size() != t->rows)
        throw Error(Errc::invalid_argument, fmt::format("column {} has {} rows but column 0 has {}",
                                                        k, columns[k].size(), t->rows));
    detail::VkContext& c = *t->ctx;
    detail::CommandBatch cb(c);
    std::vector<detail::Buffer> staging(columns.size());
    for (size_t k = 0; k < columns.size(); ++k) {
      t->columns.emplace_back(c, t->rows * 4, detail::kStorageUsage, detail::MemoryUse::device,
                              fmt::format("column {}", k));
      detail::record_upload(c, cb.cmd(), staging[k], t->columns.back(), columns[k].data(),
                            t->rows * 4);
    }
    cb.submit_and_wait();
    return ColumnTable(std::move(t));
  });
}

uint64_t ColumnTable::rows() const {
  return impl_->rows;
}
uint32_t ColumnTable::columns() const {
  return static_cast<uint32_t>(impl_->columns.size());
}

Result<Bitmap> full_scan(const ColumnTable& table, std::span<const Predicate> predicates) {
  return guarded(*table.impl()->ctx, [&]() -> Bitmap {
    using namespace detail;
    const ColumnTableImpl& t = *table.impl();
    VkContext& c = *t.ctx;
    std::vector<GpuPredicate> gpu;
    bool none = false;
    for (const Predicate& p : predicates) {
      if (p.column >= t.columns.size())
        throw Error(Errc::invalid_argument,
                    fmt::format("a predicate names column {} but the table has {} columns",
                                p.column, t.columns.size()));
      auto interval = accepted_interval(p);
      if (!interval)
        none = true;
      else
        gpu.push_back({t.columns[p.column].address(), interval->first, interval->second});
      if (t.columns[p.column].address() % 16 != 0)  // full_scan.comp reads columns as uvec4
        throw Error(Errc::internal, "a column's device address is not 16-byte aligned");
    }
    auto out = new_bitmap(t.ctx, t.rows, cuda::use_cuda(c, Backend::automatic));
    Buffer preds(c, std::max<size_t>(gpu.size(), 1) * sizeof(GpuPredicate), kStorageUsage,
                 MemoryUse::device, "scan predicates");
    CommandBatch cb(c);
    Buffer staging;
    if (!gpu.empty())
      record_upload(c, cb.cmd(), staging, preds, gpu.data(), gpu.size() * sizeof(GpuPredicate));
    memory_barrier(cb.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
    GpuTimer timer(c, 2);
    timer.reset(cb.cmd());
    uint32_t t0 = timer.mark(cb.cmd());
    if (none) {  // a predicate that accepts nothing: no row qualifies
      if (out->word_count())
        c.vk.vkCmdFillBuffer(cb.cmd(), out->words.handle(), 0, out->word_count() * 4, 0);
    } else {
      FullScanParams p{preds.address(), out->words.address(), static_cast<uint32_t>(t.rows),
                       static_cast<uint32_t>(gpu.size())};
      // A workgroup owns 8192 rows (256 invocations x 8 uvec4 chunks; see full_scan.comp).
      kernel(c, ShaderId::full_scan, sizeof(FullScanParams))
          .dispatch_groups(cb.cmd(), &p, (t.rows + kFullScanGroupRows - 1) / kFullScanGroupRows);
    }
    uint32_t t1 = timer.mark(cb.cmd());
    cb.submit_and_wait();
    out->gpu_ms = timer.ms(t0, t1);
    return Bitmap(out);
  });
}

uint64_t Bitmap::rows() const {
  return impl_->rows;
}
double Bitmap::last_gpu_ms() const {
  return impl_->gpu_ms;
}

Result<std::vector<uint32_t>> Bitmap::words() const {
  return guarded(*impl_->ctx, [&] {
    return detail::download<uint32_t>(*impl_->ctx, impl_->words, impl_->word_count());
  });
}

Result<uint64_t> Bitmap::count() const {
  return guarded(*impl_->ctx, [&]() -> uint64_t {
    if (impl_->cuda) return detail::cuda::bitmap_count(*impl_->ctx, impl_->words, impl_->rows);
    if (impl_->word_count() == 0) return 0;
    detail::Buffer offsets;
    return detail::word_offsets(*impl_, offsets);
  });
}

Result<std::vector<uint32_t>> Bitmap::row_ids() const {
  return guarded(*impl_->ctx, [&]() -> std::vector<uint32_t> {
    using namespace detail;
    VkContext& c = *impl_->ctx;
    uint64_t words = impl_->word_count();
    if (words == 0) return {};
    if (impl_->cuda) {
      uint64_t count = cuda::bitmap_count(c, impl_->words, impl_->rows);
      Buffer rows =
          Buffer::exportable(c, std::max<uint64_t>(count, 1) * 4, kStorageUsage, "row ids");
      uint64_t n = cuda::bitmap_to_rows(c, impl_->words, impl_->rows, rows);
      cuda::finish(c);
      return download<uint32_t>(c, rows, n);
    }
    // Word population counts, their exclusive prefix sums, then each word scatters its rows.
    Buffer offsets;
    uint32_t total = word_offsets(*impl_, offsets);
    Buffer rows(c, std::max<uint64_t>(total, 1) * 4, kStorageUsage, MemoryUse::device, "row ids");
    {
      CommandBatch cb(c);
      BitmapRowsParams p{impl_->words.address(), offsets.address(), rows.address(),
                         static_cast<uint32_t>(words), 0};
      kernel(c, ShaderId::bitmap_to_rows, sizeof(BitmapRowsParams)).dispatch(cb.cmd(), &p, words);
      cb.submit_and_wait();
    }
    return download<uint32_t>(c, rows, total);
  });
}

Status Bitmap::and_with(const Bitmap& other) {
  return guarded(*impl_->ctx, [&] {
    detail::check_same_rows(*impl_, *other.impl_);
    detail::bitmap_op(*impl_, other.impl_.get(), detail::kAnd);
  });
}

Status Bitmap::or_with(const Bitmap& other) {
  return guarded(*impl_->ctx, [&] {
    detail::check_same_rows(*impl_, *other.impl_);
    detail::bitmap_op(*impl_, other.impl_.get(), detail::kOr);
  });
}

Status Bitmap::invert() {
  return guarded(*impl_->ctx, [&] { detail::bitmap_op(*impl_, nullptr, detail::kNot); });
}

std::vector<uint32_t> full_scan_reference(std::span<const std::span<const uint32_t>> columns,
                                          std::span<const Predicate> predicates) {
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  std::vector<uint32_t> words((rows + 31) / 32, 0);
  std::vector<std::optional<std::pair<uint32_t, uint32_t>>> intervals;
  for (const Predicate& p : predicates) intervals.push_back(accepted_interval(p));
  // Each thread owns whole words, so no bit is written by two threads.
  detail::parallel_for(words.size(), [&](size_t w) {
    uint32_t word = 0;
    for (uint64_t r = w * 32; r < std::min<uint64_t>(rows, w * 32 + 32); ++r) {
      bool ok = true;
      for (size_t i = 0; i < predicates.size() && ok; ++i) {
        uint32_t v = columns[predicates[i].column][r];
        ok = intervals[i] && v >= intervals[i]->first && v <= intervals[i]->second;
      }
      if (ok) word |= 1u << (r % 32);
    }
    words[w] = word;
  });
  return words;
}

}  // namespace raydb
