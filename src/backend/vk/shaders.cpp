#include "backend/vk/shaders.hpp"

namespace raydb::detail {
namespace {
// Each .inc is glslc -mfmt=num output: the module's words, comma-separated.
const uint32_t kRxBuildPrimitives[] = {
#include "rx_build_primitives.comp.inc"
};
const uint32_t kRxDistinct[] = {
#include "rx_distinct.comp.inc"
};
const uint32_t kRxProbeRgen[] = {
#include "rx_probe.rgen.inc"
};
const uint32_t kRxProbeRahit[] = {
#include "rx_probe.rahit.inc"
};
const uint32_t kRxProbeRchit[] = {
#include "rx_probe.rchit.inc"
};
const uint32_t kRxProbeRint[] = {
#include "rx_probe.rint.inc"
};
const uint32_t kRxProbeRmiss[] = {
#include "rx_probe.rmiss.inc"
};
const uint32_t kRxSortKeys[] = {
#include "rx_sort_keys.comp.inc"
};
const uint32_t kRxProbeQuery[] = {
#include "rx_probe_query.comp.inc"
};
const uint32_t kCgrxRepresentatives[] = {
#include "cgrx_representatives.comp.inc"
};
const uint32_t kCgrxProbeRgen[] = {
#include "cgrx_probe.rgen.inc"
};
const uint32_t kCgrxProbeRahit[] = {
#include "cgrx_probe.rahit.inc"
};
const uint32_t kCgrxProbeRchit[] = {
#include "cgrx_probe.rchit.inc"
};
const uint32_t kCgrxProbeRint[] = {
#include "cgrx_probe.rint.inc"
};
const uint32_t kCgrxProbeRmiss[] = {
#include "cgrx_probe.rmiss.inc"
};
const uint32_t kCgrxProbeQuery[] = {
#include "cgrx_probe_query.comp.inc"
};
const uint32_t kCopyWords[] = {
#include "copy_words.comp.inc"
};
const uint32_t kStreamWords[] = {
#include "stream_words.comp.inc"
};
const uint32_t kKeyRecords[] = {
#include "key_records.comp.inc"
};
const uint32_t kSortedLookup32[] = {
#include "sorted_lookup32.comp.inc"
};
const uint32_t kSortedLookup64[] = {
#include "sorted_lookup64.comp.inc"
};
const uint32_t kSortedFences32[] = {
#include "sorted_fences32.comp.inc"
};
const uint32_t kSortedFences64[] = {
#include "sorted_fences64.comp.inc"
};
const uint32_t kSortedLines32[] = {
#include "sorted_lines32.comp.inc"
};
const uint32_t kSortedLines64[] = {
#include "sorted_lines64.comp.inc"
};
const uint32_t kHashBuild32[] = {
#include "hash_build32.comp.inc"
};
const uint32_t kHashBuild64[] = {
#include "hash_build64.comp.inc"
};
const uint32_t kHashLookup32[] = {
#include "hash_lookup32.comp.inc"
};
const uint32_t kHashLookup64[] = {
#include "hash_lookup64.comp.inc"
};
const uint32_t kFullScan[] = {
#include "full_scan.comp.inc"
};
const uint32_t kBitmapOps[] = {
#include "bitmap_ops.comp.inc"
};
const uint32_t kBitmapToRows[] = {
#include "bitmap_to_rows.comp.inc"
};
const uint32_t kDpBisBins[] = {
#include "dpbis_bins.comp.inc"
};
const uint32_t kDpBisCodes[] = {
#include "dpbis_codes.comp.inc"
};
const uint32_t kDpBisSelect[] = {
#include "dpbis_select.comp.inc"
};
const uint32_t kDpBisCandidates[] = {
#include "dpbis_candidates.comp.inc"
};
const uint32_t kDpBisVectors[] = {
#include "dpbis_vectors.comp.inc"
};
const uint32_t kDpBisSieveSelect[] = {
#include "dpbis_sieve_select.comp.inc"
};
const uint32_t kDpBisSelectExact[] = {
#include "dpbis_select_exact.comp.inc"
};
const uint32_t kDpBisSieveExact[] = {
#include "dpbis_sieve_exact.comp.inc"
};
const uint32_t kDpBisClusterKeys[] = {
#include "dpbis_cluster_keys.comp.inc"
};
const uint32_t kDpBisClusterValues[] = {
#include "dpbis_cluster_values.comp.inc"
};
const uint32_t kRadixHistogram[] = {
#include "radix_histogram.comp.inc"
};
const uint32_t kRadixScatter[] = {
#include "radix_scatter.comp.inc"
};
const uint32_t kRadixScatterRanked[] = {
#include "radix_scatter_ranked.comp.inc"
};
const uint32_t kScanBlocks[] = {
#include "scan_blocks.comp.inc"
};
const uint32_t kSortJoin[] = {
#include "sort_join.comp.inc"
};
const uint32_t kHashJoinCount32[] = {
#include "hash_join_count32.comp.inc"
};
const uint32_t kHashJoinCount64[] = {
#include "hash_join_count64.comp.inc"
};
const uint32_t kScanAdd[] = {
#include "scan_add.comp.inc"
};
const uint32_t kSsbTraceRgen[] = {
#include "ssb_trace.rgen.inc"
};
const uint32_t kSsbTraceRahit[] = {
#include "ssb_trace.rahit.inc"
};
const uint32_t kSsbTraceRchit[] = {
#include "ssb_trace.rchit.inc"
};
const uint32_t kSsbTraceRint[] = {
#include "ssb_trace.rint.inc"
};
const uint32_t kSsbTraceRmiss[] = {
#include "ssb_trace.rmiss.inc"
};
const uint32_t kSsbTraceQuery[] = {
#include "ssb_trace_query.comp.inc"
};
const uint32_t kSsbStarJoin[] = {
#include "ssb_star_join.comp.inc"
};
const uint32_t kRtScanCubes[] = {
#include "rtscan_cubes.comp.inc"
};
const uint32_t kRtScanVectors[] = {
#include "rtscan_vectors.comp.inc"
};
const uint32_t kRtScanSieve[] = {
#include "rtscan_sieve.comp.inc"
};
const uint32_t kRtScanRefineRgen[] = {
#include "rtscan_refine.rgen.inc"
};
const uint32_t kRtScanRefineRint[] = {
#include "rtscan_refine.rint.inc"
};
const uint32_t kRtScanRefineRmiss[] = {
#include "rtscan_refine.rmiss.inc"
};
const uint32_t kRtScanRefineRahit[] = {
#include "rtscan_refine.rahit.inc"
};
const uint32_t kRtScanRefineRchit[] = {
#include "rtscan_refine.rchit.inc"
};
const uint32_t kRtScanRefineQuery[] = {
#include "rtscan_refine_query.comp.inc"
};
const uint32_t kRtScanCodes[] = {
#include "rtscan_codes.comp.inc"
};
const uint32_t kRtScanTable[] = {
#include "rtscan_table.comp.inc"
};
const uint32_t kRtScanTriangles[] = {
#include "rtscan_triangles.comp.inc"
};
const uint32_t kRtScanPlan[] = {
#include "rtscan_plan.comp.inc"
};
const uint32_t kRtScanRefinePlanRgen[] = {
#include "rtscan_refine_plan.rgen.inc"
};
const uint32_t kRtScanRefinePlanRint[] = {
#include "rtscan_refine_plan.rint.inc"
};
const uint32_t kRtScanRefinePlanQuery[] = {
#include "rtscan_refine_plan_query.comp.inc"
};
}  // namespace

std::span<const uint32_t> spirv(ShaderId id) {
  switch (id) {
    case ShaderId::rx_build_primitives:
      return kRxBuildPrimitives;
    case ShaderId::rx_distinct:
      return kRxDistinct;
    case ShaderId::rx_probe_rgen:
      return kRxProbeRgen;
    case ShaderId::rx_probe_rahit:
      return kRxProbeRahit;
    case ShaderId::rx_probe_rchit:
      return kRxProbeRchit;
    case ShaderId::rx_probe_rint:
      return kRxProbeRint;
    case ShaderId::rx_probe_rmiss:
      return kRxProbeRmiss;
    case ShaderId::rx_sort_keys:
      return kRxSortKeys;
    case ShaderId::rx_probe_query:
      return kRxProbeQuery;
    case ShaderId::cgrx_representatives:
      return kCgrxRepresentatives;
    case ShaderId::cgrx_probe_rgen:
      return kCgrxProbeRgen;
    case ShaderId::cgrx_probe_rahit:
      return kCgrxProbeRahit;
    case ShaderId::cgrx_probe_rchit:
      return kCgrxProbeRchit;
    case ShaderId::cgrx_probe_rint:
      return kCgrxProbeRint;
    case ShaderId::cgrx_probe_rmiss:
      return kCgrxProbeRmiss;
    case ShaderId::cgrx_probe_query:
      return kCgrxProbeQuery;
    case ShaderId::copy_words:
      return kCopyWords;
    case ShaderId::stream_words:
      return kStreamWords;
    case ShaderId::key_records:
      return kKeyRecords;
    case ShaderId::sort_join:
      return kSortJoin;
    case ShaderId::hash_join_count32:
      return kHashJoinCount32;
    case ShaderId::hash_join_count64:
      return kHashJoinCount64;
    case ShaderId::sorted_lookup32:
      return kSortedLookup32;
    case ShaderId::sorted_lookup64:
      return kSortedLookup64;
    case ShaderId::sorted_fences32:
      return kSortedFences32;
    case ShaderId::sorted_fences64:
      return kSortedFences64;
    case ShaderId::sorted_lines32:
      return kSortedLines32;
    case ShaderId::sorted_lines64:
      return kSortedLines64;
    case ShaderId::hash_build32:
      return kHashBuild32;
    case ShaderId::hash_build64:
      return kHashBuild64;
    case ShaderId::hash_lookup32:
      return kHashLookup32;
    case ShaderId::hash_lookup64:
      return kHashLookup64;
    case ShaderId::full_scan:
      return kFullScan;
    case ShaderId::bitmap_ops:
      return kBitmapOps;
    case ShaderId::bitmap_to_rows:
      return kBitmapToRows;
    case ShaderId::dpbis_bins:
      return kDpBisBins;
    case ShaderId::dpbis_codes:
      return kDpBisCodes;
    case ShaderId::dpbis_select:
      return kDpBisSelect;
    case ShaderId::dpbis_candidates:
      return kDpBisCandidates;
    case ShaderId::dpbis_vectors:
      return kDpBisVectors;
    case ShaderId::dpbis_sieve_select:
      return kDpBisSieveSelect;
    case ShaderId::dpbis_select_exact:
      return kDpBisSelectExact;
    case ShaderId::dpbis_sieve_exact:
      return kDpBisSieveExact;
    case ShaderId::dpbis_cluster_keys:
      return kDpBisClusterKeys;
    case ShaderId::dpbis_cluster_values:
      return kDpBisClusterValues;
    case ShaderId::radix_histogram:
      return kRadixHistogram;
    case ShaderId::radix_scatter:
      return kRadixScatter;
    case ShaderId::radix_scatter_ranked:
      return kRadixScatterRanked;
    case ShaderId::scan_blocks:
      return kScanBlocks;
    case ShaderId::scan_add:
      return kScanAdd;
    case ShaderId::ssb_trace_rgen:
      return kSsbTraceRgen;
    case ShaderId::ssb_trace_rahit:
      return kSsbTraceRahit;
    case ShaderId::ssb_trace_rchit:
      return kSsbTraceRchit;
    case ShaderId::ssb_trace_rint:
      return kSsbTraceRint;
    case ShaderId::ssb_trace_rmiss:
      return kSsbTraceRmiss;
    case ShaderId::ssb_trace_query:
      return kSsbTraceQuery;
    case ShaderId::ssb_star_join:
      return kSsbStarJoin;
    case ShaderId::rtscan_cubes:
      return kRtScanCubes;
    case ShaderId::rtscan_vectors:
      return kRtScanVectors;
    case ShaderId::rtscan_sieve:
      return kRtScanSieve;
    case ShaderId::rtscan_refine_rgen:
      return kRtScanRefineRgen;
    case ShaderId::rtscan_refine_rint:
      return kRtScanRefineRint;
    case ShaderId::rtscan_refine_rmiss:
      return kRtScanRefineRmiss;
    case ShaderId::rtscan_refine_rahit:
      return kRtScanRefineRahit;
    case ShaderId::rtscan_refine_rchit:
      return kRtScanRefineRchit;
    case ShaderId::rtscan_refine_query:
      return kRtScanRefineQuery;
    case ShaderId::rtscan_codes:
      return kRtScanCodes;
    case ShaderId::rtscan_table:
      return kRtScanTable;
    case ShaderId::rtscan_triangles:
      return kRtScanTriangles;
    case ShaderId::rtscan_plan:
      return kRtScanPlan;
    case ShaderId::rtscan_refine_plan_rgen:
      return kRtScanRefinePlanRgen;
    case ShaderId::rtscan_refine_plan_rint:
      return kRtScanRefinePlanRint;
    case ShaderId::rtscan_refine_plan_query:
      return kRtScanRefinePlanQuery;
  }
  return {};
}

}  // namespace raydb::detail
