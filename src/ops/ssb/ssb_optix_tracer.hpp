// The OptiX half of an SsbEngine whose options ask for OptiX (SsbEngineOptions::api): the query's
// triangles, side arrays and rays in CUDA memory, one GAS over the same triangles, and the launch
// of the twins of the engine's shaders (docs/optix.md, "SSB through OptiX"). The engine keeps the
// planning, encoding and decoding, so both APIs trace the same encoding.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/vk/context_impl.hpp"
#include "ops/ssb/ssb_encoding.hpp"
#include "raydb/ssb.hpp"

namespace raydb::ssb::detail {

class SsbOptixTracer {
 public:
  // Errc::unsupported, naming why, where OptiX is unavailable (or raydb was built without it).
  static std::unique_ptr<SsbOptixTracer> create(raydb::detail::VkContext& ctx,
                                                BuildPreference preference);
  virtual ~SsbOptixTracer() = default;
  // Uploads the encoding and the rays ((z_lo, z_hi) pairs) and builds the GAS: stats.upload_ms,
  // bvh_build_ms (build + compaction) and bvh_bytes.
  virtual void build(const EncodedQuery& enc, const std::vector<uint32_t>& ray_words,
                     uint32_t groups, SsbQueryStats& stats) = 0;
  // Clears the row flags and groups, traces every ray and reads the groups back: stats.trace_ms
  // (CUDA events around the clears and launches, as the Vulkan engine's timestamps).
  virtual void trace(bool per_row_atomics, std::vector<int64_t>& sums,
                     std::vector<uint32_t>& counts, SsbQueryStats& stats) = 0;
  // Whether a GAS is built (rerun() needs one).
  virtual bool built() const = 0;
};

}  // namespace raydb::ssb::detail
