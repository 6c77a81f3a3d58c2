// The SPIR-V raydb carries, compiled from shaders/ by glslc at build time.
#pragma once

#include <cstdint>
#include <span>

namespace raydb::detail {

enum class ShaderId {
  rx_build_primitives,
  rx_probe_rgen,
  rx_probe_rahit,
  rx_probe_rchit,
  rx_probe_rint,
  rx_probe_rmiss,
  rx_probe_query,
  rx_sort_keys,
  rx_distinct,
  cgrx_representatives,
  cgrx_probe_rgen,
  cgrx_probe_rahit,
  cgrx_probe_rchit,
  cgrx_probe_rint,
  cgrx_probe_rmiss,
  cgrx_probe_query,
  key_records,
  sort_join,
  hash_join_count32,
  hash_join_count64,
  copy_words,
  stream_words,
  sorted_lookup32,
  sorted_lookup64,
  sorted_fences32,
  sorted_fences64,
  hash_build32,
  hash_build64,
  hash_lookup32,
  hash_lookup64,
  full_scan,
  bitmap_ops,
  bitmap_to_rows,
  dpbis_bins,
  dpbis_codes,
  dpbis_select,
  dpbis_candidates,
  dpbis_vectors,
  dpbis_sieve_select,
  radix_histogram,
  radix_scatter,
  scan_blocks,
  scan_add,
  rtscan_cubes,
  rtscan_vectors,
  rtscan_sieve,
  rtscan_refine_rgen,
  rtscan_refine_rint,
  rtscan_refine_rmiss,
  rtscan_refine_rahit,
  rtscan_refine_rchit,
  rtscan_refine_query,
  rtscan_codes,
  rtscan_triangles,
};

std::span<const uint32_t> spirv(ShaderId id);

}  // namespace raydb::detail
