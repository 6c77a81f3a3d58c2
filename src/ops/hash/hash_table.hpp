// The device side of a built HashIndex, for operators that probe its table in their own kernels
// (the hash join, src/ops/join/): shaders/baselines/hash_common.glsl describes the slots.
#pragma once

#include <cstdint>

#include "backend/vk/vk_common.hpp"
#include "raydb/hash_index.hpp"

namespace raydb::detail {

struct HashTableView {
  VkDeviceAddress slots = 0;
  // Duplicates only: the key-sorted records, each run's first record overwritten with the run's
  // (first row, count, sum lo, sum hi); the other records keep (key, row, value).
  VkDeviceAddress payloads = 0;
  uint32_t mask = 0;   // slots - 1
  bool unique = true;  // slots hold (key, row, value) and every key occurs once
  uint64_t keys = 0;
};

// Valid while the index lives and is not rebuilt.
HashTableView hash_table_view(const HashIndex& index);

}  // namespace raydb::detail
