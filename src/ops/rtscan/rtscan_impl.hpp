// RtScanTable's implementation as the other backends of it see it: the OptiX twin (rtscan_optix)
// builds its GASes over the same keys and cubes and runs the same queries, with its own refine.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "backend/vk/accel.hpp"
#include "backend/vk/pipelines.hpp"
#include "ops/rtscan/gpu_encoding.hpp"
#include "ops/rtscan/optix/rtscan_optix.hpp"
#include "ops/rtscan/refine_plan.hpp"
#include "ops/rtscan/rtscan_params.hpp"
#include "ops/scan/scan_impl.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/uniform_encoding.hpp"

namespace raydb::detail {

class GpuTimer;

// One refine box of one column group as a launch of the lattice's rays, whichever API traces it:
// the push constants with ray_offset 0 and num_rays unset (the API slices `rays` to its launch
// limits), and the buffers it names besides the keys (the group's bitmap; the call counter, or
// null), shared with CUDA when the refine is external.
struct RtScanRefineLaunch {
  size_t group = 0;
  RtScanRefineParams params{};
  uint64_t rays = 0;
  const Buffer* bitmap = nullptr;
  const Buffer* counter = nullptr;
};

// A refine run by another API (OptiX): called after the sieve's commands are submitted and CUDA
// work is ordered after them (the shared timeline), it traces every launch and returns its GPU
// milliseconds; the merge's commands wait for the CUDA stream on the GPU.
using RtScanExternalRefine = std::function<double(const std::vector<RtScanRefineLaunch>&)>;

// Columns already in the host's device buffers (rtscan_build, raydb/device_rtscan.hpp): copied
// from there instead of uploaded, with the copy's submission ordered by the host's points.
struct RtScanDeviceColumns {
  std::vector<VkBuffer> buffers;
  std::vector<VkDeviceSize> offsets;
  uint64_t rows = 0;
  std::vector<std::pair<VkSemaphore, uint64_t>> wait, signal;
};

struct RtScanImpl {
  std::shared_ptr<VkContext> ctx;
  RtScanOptions options;
  TraversalMode mode = TraversalMode::pipeline;
  uint64_t n = 0;
  uint32_t cols = 0;
  // rtscan mode: the mapping tables on the host (CPU encoding; with GPU encoding only once a host
  // plan needs them, fetched by host_tables()).
  std::vector<raydb::rtscan::EncodedColumn> encoded;
  // GPU encoding: per column the mapping table and sieving borders on the device (codes moved to
  // keys).
  std::vector<rtscan::GpuEncoding> device_tables;
  std::vector<Buffer> keys;                      // per column: codes (rtscan) or values
  std::vector<rtscan::KeyInterval> key_range;    // per column: smallest and largest key
  std::vector<std::vector<uint32_t>> host_keys;  // count_intersections only (refined rows)
  struct Sieve {
    std::vector<int64_t> borders;  // X_0 .. X_m (GPU encoding: fetched by host_tables())
    Buffer vectors;                // F_1 .. F_{m-1}, words() words each
  };
  std::vector<Sieve> sieves;  // rtscan mode
  // The ray lattice of one column group (Matrix RT Refine): pitch I across the rays, segments of
  // length L with gaps S along them, cubes of width I + epsilon.
  struct Lattice {
    double interval = 1, spacing = 1, segment = 1, half_width = 1;
  };
  struct Group {
    std::vector<uint32_t> columns;
    AccelStruct blas, tlas;
    std::unique_ptr<TlasBinding> binding;
    Lattice lattice;
  };
  std::vector<Group> groups;
  double epsilon = 1;
  double triangle_half = 1;  // rtindex: half the X extent of a key's triangle
  std::unique_ptr<RtPipeline> rt;
  std::unique_ptr<ComputePipeline> query_kernel;
  // The device plan (GPU encoding; rtscan_select_plan.cpp): selections planned by a kernel over
  // the device's mapping tables and borders. Static inputs, predicates, the plan itself, and its
  // 16 bytes of counts read back after the selection's fence.
  bool device_plan = false;
  Buffer plan_inputs, plan_predicates, plan_out, plan_counts;
  std::vector<uint32_t> plan_width;    // per group: the refine launch's invocations
  std::vector<double> plan_bound;      // per group: the most rays its refine boxes can need
  std::vector<Buffer> record_bitmaps;  // per group, for recorded selections (made once)
  std::unique_ptr<RtPipeline> rt_plan;
  std::unique_ptr<ComputePipeline> query_plan_kernel;
  RtScanBuildStats build_stats;
  RtScanQueryStats query_stats;
  // RtScanOptions::api = optix: the twin select() goes through; it borrows this impl.
  std::unique_ptr<RtScanOptix> optix;
  // rtscan_submit_select's last copy and the bitmap it copies; the submission goes first (it
  // waits), then the bitmap.
  std::shared_ptr<BitmapImpl> pending_bitmap;
  std::shared_ptr<void> pending_submission;

  uint64_t words() const { return (n + 31) / 32; }
  // With `device`, the columns come from the host's buffers and `columns` is unused.
  void build(std::span<const std::span<const uint32_t>> columns,
             const RtScanDeviceColumns* device = nullptr);
  void plan_groups();
  void pick_lattice();
  void build_sieves();
  void build_group(Group& g);
  void prepare_device_plan();
  // The host plan's inputs for a GPU-encoded table: mapping tables and borders, read back once.
  void host_tables();
  void make_host_pipelines();
  // external: the refine through another API; bitmaps and the counter are then shared with CUDA.
  // Planned on the device when device_plan, unless `external` or count_intersections (their
  // host-side work needs the host plan).
  std::shared_ptr<BitmapImpl> select(std::span<const Predicate> predicates,
                                     const RtScanExternalRefine* external = nullptr);
  std::shared_ptr<BitmapImpl> select_planned(std::span<const Predicate> predicates);
  // Records dst &= src over the table's bitmap words, then a barrier (the merge of column groups).
  void and_bitmap(VkCommandBuffer cmd, VkDeviceAddress dst, VkDeviceAddress src);
  // rtscan_record_select: the planned selection recorded into the host's `cmd`, the bitmap copied
  // to `bitmap` at `offset`; nothing submitted, nothing read back.
  void record_select(VkCommandBuffer cmd, std::span<const Predicate> predicates, VkBuffer bitmap,
                     VkDeviceSize offset);
  std::vector<uint32_t> pack_predicates(std::span<const Predicate> predicates) const;
  // Whether record_select takes a selection of this many predicates (else it throws why).
  bool recordable(size_t predicates) const;
  // The plan, sieve, refine and merge into `cmd` over the predicates already in
  // `predicate_buffer`; bitmaps: one words buffer per group, the first receives the result. With
  // `timer`, marks[0..3] bracket plan + sieve, refine and merge.
  void record_planned(VkCommandBuffer cmd, std::span<const uint32_t> packed,
                      const Buffer& predicate_buffer, std::span<const Buffer* const> bitmaps,
                      GpuTimer* timer, uint32_t* marks);
};

// The table behind an RtScanTable (valid while it lives).
RtScanImpl& rtscan_impl(RtScanTable& table);

}  // namespace raydb::detail
