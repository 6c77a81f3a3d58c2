// Inside the cgRX index (cgrx_index.cpp: build, lookups, the public and device-resident API): the
// implementation object a CgrxIndex owns.
#pragma once

#include <memory>
#include <vector>

#include "backend/vk/accel.hpp"
#include "backend/vk/pipelines.hpp"
#include "ops/cgrx/cgrx_layout.hpp"
#include "ops/cgrx/cgrx_params.hpp"
#include "ops/cgrx/optix/cgrx_optix.hpp"
#include "ops/common/key_records.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/cgrx_index.hpp"

namespace raydb::detail {

struct CgrxIndexImpl {
  std::shared_ptr<VkContext> ctx;
  CgrxBuildOptions options;
  TraversalMode mode = TraversalMode::pipeline;
  KeyWidth width = KeyWidth::bits32;
  uint64_t n = 0;
  uint64_t num_buckets = 0;
  uint32_t bucket_shift = 0;

  Buffer records;       // (key, row, value) in key order
  Buffer prim_buckets;  // per primitive, the bucket its hit names
  Buffer counters_dev;  // extra rays and fallbacks of the running batch
  Buffer counters_host;
  AccelStruct blas, tlas;
  std::unique_ptr<KeyRecordBuilder> record_builder;
  std::unique_ptr<LookupBatch> batch;
  // As RX's (rx_impl.hpp): results straight into pinned memory, no download beside the traces.
  static constexpr ResultPath kResultPath = ResultPath::direct;
  std::unique_ptr<TlasBinding> binding;
  // The probe, by traversal mode: the context's rt_kernel() or tlas_kernel(), over `binding`.
  RtPipeline* rt = nullptr;
  ComputePipeline* query_kernel = nullptr;

  CgrxBuildStats build_stats;
  RxProbeStats probe_stats;
  uint64_t fallbacks = 0;
  RxDiagnostic diagnostic = RxDiagnostic::none;
  bool run_starts = false;                // cgrx_lookup_runs: first_row is the run's first record
  std::unique_ptr<CgrxOptixIndex> optix;  // api = optix: the twin the public lookups go through
  // cgrx_submit_lookup's last submission; destroyed first, so it waits before the rest goes.
  std::shared_ptr<void> pending_submission;

  // With `source` (cgrx_build), the keys come from the host's buffers: k.data and v are unused.
  void build(KeySpan k, std::span<const uint32_t> v, const DeviceColumnSource* source = nullptr);
  CgrxRepParams rep_params(const Buffer& reps) const;
  std::vector<uint64_t> read_representatives();
  void build_bvh(const CgrxScene& scene);
  // cgrx_build's layout: representatives, scene and ray window on the device (no read-back).
  void build_scene_on_device();
  void build_blas_over(const Buffer& triangles, uint64_t primitives);
  void build_tlas(uint32_t instances);
  void ensure_probe_kernels();
  void probe(const QueryBatch& q, RxLookup* out);
  // The probe's push constants, without the batch's queries, results and slice.
  CgrxProbeParams probe_params(bool ranges) const;
  // Records the rays (or ray queries) of `count` lookups, in slices the device allows.
  void record_trace(VkCommandBuffer cmd, CgrxProbeParams p, uint64_t count);
  // probe() from host memory in chunks (LookupBatch::run_pipelined); `p` without the batch's
  // fields. Leaves the counters in counters_host, as the whole batch does.
  void probe_pipelined(const QueryBatch& q, CgrxProbeParams& p, RxLookup* out);
  VkPipelineStageFlags trace_stage() const {
    return mode == TraversalMode::pipeline ? VK_PIPELINE_STAGE_RAY_TRACING_SHADER_BIT_KHR
                                           : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  }
};

}  // namespace raydb::detail
