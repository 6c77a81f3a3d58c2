// A cgRX index as another backend of it sees it (the OptiX twin builds its GAS over the same
// representatives and reads the same records): read-only, valid while the CgrxIndex lives and is
// not rebuilt.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/vk/buffer.hpp"
#include "raydb/cgrx_index.hpp"

namespace raydb::detail {

struct CgrxIndexView {
  std::shared_ptr<VkContext> ctx;
  const Buffer* records = nullptr;  // one 16-byte record per key, key order
                                    // (shaders/common/records.glsl); exportable where CUDA runs
                                    // and OptiX is built
  uint64_t keys = 0;
  uint64_t buckets = 0;
  uint32_t bucket_shift = 0;  // log2(bucket size)
  KeyWidth width = KeyWidth::bits32;
  const CgrxBuildOptions* options = nullptr;
  const CgrxBuildStats* build_stats = nullptr;  // ray_window as the Vulkan lookups use it
};

CgrxIndexView cgrx_view(const CgrxIndex& index);

// Each bucket's largest key (bucket order), gathered on the GPU by the Vulkan index's own kernel
// and read back: the input of cgrx_scene(). Empty for an empty index.
std::vector<uint64_t> cgrx_representatives(const CgrxIndex& index);

}  // namespace raydb::detail
