// The device state behind ColumnTable and Bitmap, shared by the scan operators (full scan,
// DP-BIS, and the ray-traced scans to come).
#pragma once

#include <memory>
#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/scan.hpp"

namespace raydb::detail {

// Push constants of shaders/scan/bitmap_ops.comp (scalar layout).
struct BitmapOpParams {
  uint64_t a, b;
  uint32_t words, rows, op, pad0;
};
static_assert(sizeof(BitmapOpParams) == 32);

struct ColumnTableImpl {
  std::shared_ptr<VkContext> ctx;
  uint64_t rows = 0;
  std::vector<Buffer> columns;
};

// Word buffers of dead bitmaps of one size, kept for the next ones. A bitmap in memory shared with
// CUDA is a dedicated VkDeviceMemory exported to CUDA and mapped there: allocating and importing
// one costs far more host time than the kernels that fill it, so an operator that makes bitmaps
// per query (DP-BIS) keeps a pool. Buffers come back already mapped.
struct BitmapPool {
  explicit BitmapPool(size_t max_kept) : max_kept(max_kept) { free.reserve(max_kept); }
  size_t max_kept;
  std::vector<Buffer> free;  // never grows past max_kept, so returning a buffer cannot throw
};

struct BitmapImpl {
  std::shared_ptr<VkContext> ctx;
  uint64_t rows = 0;
  Buffer words;
  bool cuda = false;  // words shared with CUDA, whose kernels then do the bitmap algebra
  double gpu_ms = 0;
  std::weak_ptr<BitmapPool> pool;  // where `words` goes when the bitmap dies, if still there
  uint64_t word_count() const { return (rows + 31) / 32; }

  BitmapImpl() = default;
  BitmapImpl(const BitmapImpl&) = delete;
  BitmapImpl& operator=(const BitmapImpl&) = delete;
  // Every operation on a bitmap waits for its kernels, so no GPU work still uses the words here.
  ~BitmapImpl() {
    if (auto p = pool.lock(); p && words && p->free.size() < p->max_kept)
      p->free.push_back(std::move(words));
  }
};

enum BitmapOp : uint32_t { kAnd = 0, kOr = 1, kNot = 2, kPopcount = 3 };

// Invocations of bitmap_ops.comp for a bitmap of `words` words: each owns 4 words (a 16-byte
// load or store per bitmap, the way the full scan keeps enough bytes in flight).
inline uint64_t bitmap_op_items(uint64_t words) {
  return (words + 3) / 4;
}

// A bitmap over `rows` rows; its words are not initialized. cuda: in memory shared with CUDA
// (mapped there already). pool: take the words from it when it has a buffer (all of its buffers
// hold words for `rows` rows and match `cuda`), and give them back when the bitmap dies.
std::shared_ptr<BitmapImpl> new_bitmap(const std::shared_ptr<VkContext>& ctx, uint64_t rows,
                                       bool cuda = false,
                                       const std::shared_ptr<BitmapPool>& pool = nullptr);
// a = a op b (b unused for kNot), on the GPU, in CUDA when both bitmaps are shared with it;
// records the kernel's time in a.gpu_ms. Returns when done.
void bitmap_op(BitmapImpl& a, const BitmapImpl* b, uint32_t op);

}  // namespace raydb::detail
