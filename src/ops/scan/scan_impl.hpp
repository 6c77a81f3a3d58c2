// The device state behind ColumnTable and Bitmap, shared by the scan operators (full scan,
// DP-BIS, and the ray-traced scans to come).
#pragma once

#include <memory>
#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/scan.hpp"

namespace raydb::detail {

struct ColumnTableImpl {
  std::shared_ptr<VkContext> ctx;
  uint64_t rows = 0;
  std::vector<Buffer> columns;
};

struct BitmapImpl {
  std::shared_ptr<VkContext> ctx;
  uint64_t rows = 0;
  Buffer words;
  bool cuda = false;  // words shared with CUDA, whose kernels then do the bitmap algebra
  double gpu_ms = 0;
  uint64_t word_count() const { return (rows + 31) / 32; }
};

enum BitmapOp : uint32_t { kAnd = 0, kOr = 1, kNot = 2, kPopcount = 3 };

// A bitmap over `rows` rows; its words are not initialized. cuda: in memory shared with CUDA.
std::shared_ptr<BitmapImpl> new_bitmap(const std::shared_ptr<VkContext>& ctx, uint64_t rows,
                                       bool cuda = false);
// a = a op b (b unused for kNot), on the GPU, in CUDA when both bitmaps are shared with it;
// records the kernel's time in a.gpu_ms. Returns when done.
void bitmap_op(BitmapImpl& a, const BitmapImpl* b, uint32_t op);

}  // namespace raydb::detail
