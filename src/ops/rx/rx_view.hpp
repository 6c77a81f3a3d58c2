// An RX index as another backend of it sees it (the OptiX backend builds its GAS over the same
// records): read-only, valid while the RxIndex lives and is not rebuilt.
#pragma once

#include <memory>

#include "backend/vk/buffer.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/rx_index.hpp"

namespace raydb::detail {

struct RxIndexView {
  std::shared_ptr<VkContext> ctx;
  const Buffer* records = nullptr;  // one 16-byte record per key, key order (row order without
                                    // key_order); exportable where CUDA runs and OptiX is built
  uint64_t keys = 0;
  KeyWidth width = KeyWidth::bits32;
  bool unique = true;
  RxLookupMethod method = RxLookupMethod::hit_and_scan;  // resolved, never automatic
  bool opaque_hits = false;
  const RxBuildOptions* options = nullptr;
  const RxBuildStats* build_stats = nullptr;
};

// The rays a batch of lookups casts: one per point, one per 2^23-key line per range. Throws
// Errc::limit_exceeded for a range over more than max_rays_per_range lines.
uint64_t rx_ray_count(const QueryBatch& q, uint64_t max_rays_per_range);

}  // namespace raydb::detail
