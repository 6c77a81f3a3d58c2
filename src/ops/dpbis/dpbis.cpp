// DP-BIS on Vulkan compute: build (sort, bins, codes) and range selections into bitmaps.
#include "raydb/dpbis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "backend/cuda/cuda.hpp"
#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"
#include "backend/vk/radix_sort.hpp"
#include "ops/dpbis/cuda/dpbis_cuda.hpp"
#include "ops/dpbis/dpbis_params.hpp"
#include "ops/scan/scan_impl.hpp"

namespace raydb {
namespace detail {

struct DpBisColumn {
  Buffer sorted, rows, codes, vectors;
  Buffer values;  // Refine::in_select over the codes in Vulkan: the column in row order
  // Refine::in_select over sieving vectors, or over the codes in CUDA (clustered_values()): the
  // column by bin, each bin in row order, and where each 4096-row tile's rows of a bin start there
  // ([bin * tiles + tile], record_clusters).
  Buffer clustered, offsets;
  std::vector<uint32_t> starts;       // bins + 1 bin starts in sorted order
  std::vector<uint32_t> first_value;  // smallest value of each bin (valid for non-empty bins)
};

struct DpBisImpl {
  std::shared_ptr<VkContext> ctx;
  DpBisOptions options;
  uint32_t bins = 256;
  uint64_t n = 0;
  bool cuda = false;  // sort, vectors and selections in CUDA over shared buffers
  std::vector<DpBisColumn> columns;
  // CUDA: the query bitmaps of dead results and temporaries, for the next queries (a fresh
  // exported bitmap costs an allocation and a CUDA import per query). A query of k predicates
  // takes k bitmaps; up to 4 are kept (4 * rows / 8 bytes at most).
  std::shared_ptr<BitmapPool> pool = std::make_shared<BitmapPool>(4);
  DpBisBuildStats build_stats;
  DpBisQueryStats query_stats;
  DpBisDiagnostic diagnostic = DpBisDiagnostic::none;

  void build(std::span<const std::span<const uint32_t>> cols) {
    VkContext& c = *ctx;
    n = cols.empty() ? 0 : cols[0].size();
    if (n > 0xFFFFFFFEull) throw Error(Errc::limit_exceeded, "DP-BIS holds at most 2^32 - 2 rows");
    if (options.bins < 2 || options.bins > 256)
      throw Error(Errc::invalid_argument,
                  fmt::format("{} bins asked; 2 to 256 are possible", options.bins));
    bins = options.bins;
    cuda = cuda::use_cuda(c, options.backend);
    for (size_t k = 0; k < cols.size(); ++k)
      if (cols[k].size() != n)
        throw Error(Errc::invalid_argument,
                    fmt::format("column {} has {} rows but column 0 has {}", k, cols[k].size(), n));
    RadixSort sorter(c);
    uint64_t code_words = (n + 31) / 32 * 8;  // whole 32-row groups, so a select pass reads 8 words
    uint64_t words = (n + 31) / 32;
    uint64_t stride = sieve_vector_stride(words);
    if (options.sieve_vectors && (bins - 1) * stride > 0xFFFFFFFFull)
      throw Error(Errc::limit_exceeded,
                  fmt::format("{} rows need {} sieving vectors of {} words, more than 2^32 - 1 "
                              "words; use fewer bins or rows",
                              n, bins - 1, stride));
    for (size_t k = 0; k < cols.size(); ++k) {
      DpBisColumn col;
      // Padded to whole 16-byte chunks: the refinement loads 4 values and 4 row ids at once.
      col.sorted =
          cuda::kernel_buffer(c, cuda, dpbis_sorted_bytes(n), fmt::format("dpbis values {}", k));
      col.rows =
          cuda::kernel_buffer(c, cuda, dpbis_sorted_bytes(n), fmt::format("dpbis rows {}", k));
      col.codes = cuda::kernel_buffer(c, cuda, code_words * 4, fmt::format("dpbis codes {}", k));
      bool in_select = options.refine == Refine::in_select;
      if (in_select)
        col.values = cuda::kernel_buffer(c, cuda, dpbis_sorted_bytes(n),
                                         fmt::format("dpbis row-ordered values {}", k));
      if (options.sieve_vectors)
        col.vectors = cuda::kernel_buffer(c, cuda, (bins - 1) * stride * 4,
                                          fmt::format("sieve vectors {}", k));
      Buffer starts(c, (bins + 1) * 4, kStorageUsage, MemoryUse::device, "dpbis bin starts");
      Buffer starts_host(c, (bins + 1) * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                         "bin starts");
      // Vulkan: upload (and zero the codes); sort; Vulkan: bins and codes, starts to the host;
      // vectors. With CUDA the sort and the vectors run there, ordered by the shared timeline.
      CommandBatch upload(c);
      GpuTimer timer(c, 4);
      timer.reset(upload.cmd());
      Buffer staging;
      RadixSort::Temps temps;
      uint32_t t0 = timer.mark(upload.cmd());
      record_upload(c, upload.cmd(), staging, col.sorted, cols[k].data(), n * 4);
      if (code_words) c.vk.vkCmdFillBuffer(upload.cmd(), col.codes.handle(), 0, code_words * 4, 0);
      if (in_select && n) {  // the row-ordered copy, taken before the sort reorders the values
        memory_barrier(upload.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
        VkBufferCopy whole{0, 0, n * 4};
        c.vk.vkCmdCopyBuffer(upload.cmd(), col.sorted.handle(), col.values.handle(), 1, &whole);
      }
      memory_barrier(upload.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
      uint32_t t1 = timer.mark(upload.cmd());
      std::optional<CommandBatch> bin_batch;
      std::optional<cuda::Timer> cuda_timer;
      VkCommandBuffer cmd = upload.cmd();
      uint32_t t2 = 0, s0 = 0, s1 = 0;
      if (cuda) {
        cuda::cuda_after(c, upload);
        upload.submit();
        cuda_timer.emplace(c, 4);
        s0 = cuda_timer->mark();
        cuda::sort_pairs(c, col.sorted, col.rows, n, false);
        s1 = cuda_timer->mark();
        bin_batch.emplace(c);
        cmd = bin_batch->cmd();
        cuda::vulkan_after(c, *bin_batch);
        t2 = timer.mark(cmd);
      } else {
        sorter.record(cmd, col.sorted, col.rows, n, false, temps);
        t2 = timer.mark(cmd);
      }
      BinsParams bp{col.sorted.address(), starts.address(), static_cast<uint32_t>(n), bins};
      kernel(c, ShaderId::dpbis_bins, sizeof(BinsParams)).dispatch(cmd, &bp, bins + 1);
      compute_barrier(c, cmd);
      CodesParams cp{col.rows.address(), starts.address(), col.codes.address(),
                     static_cast<uint32_t>(n), bins};
      kernel(c, ShaderId::dpbis_codes, sizeof(CodesParams)).dispatch(cmd, &cp, n);
      if (options.sieve_vectors && !cuda) {
        compute_barrier(c, cmd);
        VectorsParams vp{col.codes.address(),
                         col.vectors.address(),
                         static_cast<uint32_t>(n),
                         static_cast<uint32_t>(words),
                         bins,
                         static_cast<uint32_t>(stride)};
        kernel(c, ShaderId::dpbis_vectors, sizeof(VectorsParams))
            .dispatch(cmd, &vp, (bins - 1) * stride);
      }
      ClusterTemps cluster;
      if (clustered_values() && n) {
        col.clustered = cuda::kernel_buffer(c, cuda, dpbis_sorted_bytes(n),
                                            fmt::format("dpbis clustered values {}", k));
        col.offsets = cuda::kernel_buffer(c, cuda, uint64_t{bins} * dpbis_tiles(n) * 4,
                                          fmt::format("dpbis bin offsets {}", k));
        compute_barrier(c, cmd);
        record_clusters(col, sorter, cluster, cmd);
      }
      uint32_t t3 = timer.mark(cmd);
      memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
      VkBufferCopy all{0, 0, (bins + 1) * 4};
      c.vk.vkCmdCopyBuffer(cmd, starts.handle(), starts_host.handle(), 1, &all);
      if (cuda) {
        if (options.sieve_vectors) cuda::cuda_after(c, *bin_batch);
        bin_batch->submit();
        uint32_t v0 = cuda_timer->mark();
        if (options.sieve_vectors) cuda::sieve_vectors(c, col.codes, col.vectors, n, bins);
        uint32_t v1 = cuda_timer->mark();
        cuda::finish(c);
        bin_batch->wait();
        upload.wait();
        build_stats.sort_ms += cuda_timer->ms(s0, s1);
        build_stats.bin_ms += timer.ms(t2, t3) + cuda_timer->ms(v0, v1);
      } else {
        upload.submit_and_wait();
        build_stats.sort_ms += timer.ms(t1, t2);
        build_stats.bin_ms += timer.ms(t2, t3);
      }
      build_stats.upload_ms += timer.ms(t0, t1);
      starts_host.invalidate();
      col.starts.resize(bins + 1);
      std::memcpy(col.starts.data(), starts_host.mapped(), (bins + 1) * 4);
      // Each non-empty bin's smallest value: one small copy per bin from the sorted values.
      col.first_value.assign(bins, 0);
      std::vector<VkBufferCopy> regions;
      for (uint32_t b = 0; b < bins; ++b)
        if (col.starts[b] < col.starts[b + 1])
          regions.push_back({uint64_t{col.starts[b]} * 4, uint64_t{b} * 4, 4});
      if (!regions.empty()) {
        Buffer firsts(c, bins * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUse::readback,
                      "bin first values");
        CommandBatch fb(c);
        c.vk.vkCmdCopyBuffer(fb.cmd(), col.sorted.handle(), firsts.handle(),
                             static_cast<uint32_t>(regions.size()), regions.data());
        fb.submit_and_wait();
        firsts.invalidate();
        std::memcpy(col.first_value.data(), firsts.mapped(), bins * 4);
      }
      uint32_t used = static_cast<uint32_t>(regions.size());
      build_stats.bins_used.push_back(used);
      if (col.clustered) col.values = Buffer();  // the selections read the clustered copy
      build_stats.index_bytes += n * (in_select ? 13 : 9) + (col.vectors ? col.vectors.size() : 0) +
                                 (col.offsets ? col.offsets.size() : 0);
      columns.push_back(std::move(col));
    }
  }

  // Temporaries of record_clusters, alive until its commands have run.
  struct ClusterTemps {
    Buffer keys, rows;
    RadixSort::Temps sort;
  };

  // Whether Refine::in_select reads its boundary rows' values clustered by bin (record_clusters):
  // over the sieving vectors, and over the codes in CUDA. Vulkan's pass over the codes reads them
  // in row order: on the H100 the clustered formulation took 0.056-0.068 ms against 0.054 at 1e8
  // rows in every shape tried there, while CUDA's went from 0.054 to 0.045 (docs/dpbis_refine.md).
  bool clustered_values() const {
    return options.refine == Refine::in_select && (options.sieve_vectors || cuda);
  }

  // Sorts the rows by code (a stable sort, so each bin's rows stay in row order), gathers their
  // values into col.clustered, and keeps the sort's last histogram as col.offsets: its tiles are
  // the in_select passes' 4096-row tiles. Needs the codes and the row-ordered values (col.values)
  // written before.
  void record_clusters(DpBisColumn& col, RadixSort& sorter, ClusterTemps& t, VkCommandBuffer cmd) {
    static_assert(RadixSort::kTile == kDpBisTileRows);
    VkContext& c = *ctx;
    t.keys = Buffer(c, n * 4, kStorageUsage, MemoryUse::device, "dpbis cluster keys");
    t.rows = Buffer(c, n * 4, kStorageUsage, MemoryUse::device, "dpbis cluster rows");
    ClusterParams keys{col.codes.address(), 0, t.keys.address(), static_cast<uint32_t>(n), 0};
    kernel(c, ShaderId::dpbis_cluster_keys, sizeof(ClusterParams)).dispatch(cmd, &keys, n);
    compute_barrier(c, cmd);
    // The code is the key's top byte: the first of the two passes (bits 16-23, all 0) keeps the
    // row order, the second sorts by code.
    sorter.record(cmd, t.keys, t.rows, n, false, t.sort, 16);
    ClusterParams values{t.rows.address(), col.values.address(), col.clustered.address(),
                         static_cast<uint32_t>(n), 0};
    kernel(c, ShaderId::dpbis_cluster_values, sizeof(ClusterParams)).dispatch(cmd, &values, n);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    VkBufferCopy offsets{0, 0, col.offsets.size()};  // digits 0 .. bins - 1 of the histogram
    c.vk.vkCmdCopyBuffer(cmd, t.sort.hist.handle(), col.offsets.handle(), 1, &offsets);
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, c);
  }

  // The non-empty bin whose value range [first_value, next bin's first_value) holds x, or -1 when
  // x is below every value.
  int bin_of(const DpBisColumn& col, uint32_t x) const {
    int found = -1;
    for (uint32_t b = 0; b < bins; ++b)
      if (col.starts[b] < col.starts[b + 1] && col.first_value[b] <= x) found = static_cast<int>(b);
    return found;
  }

  // The boundary bins of the accepted interval [lo, hi]: b_lo = bin_of(lo), b_hi = bin_of(hi).
  // A lo equal to the column's smallest value needs no lower boundary bin (every row passes it),
  // so b_lo becomes -1 and the lowest bin is inner: a `<` or `<=` predicate, whose lo is 0,
  // refines one bin instead of two whenever the column holds a 0.
  std::pair<int, int> interval_bins(const DpBisColumn& col,
                                    std::pair<uint32_t, uint32_t> interval) const {
    int b_lo = bin_of(col, interval.first);
    int b_hi = bin_of(col, interval.second);
    uint32_t lowest = 0;
    while (lowest < bins && col.starts[lowest] == col.starts[lowest + 1]) ++lowest;
    if (b_lo >= 0 && static_cast<uint32_t>(b_lo) == lowest &&
        interval.first <= col.first_value[lowest])
      b_lo = -1;
    return {b_lo, b_hi};
  }

  std::shared_ptr<BitmapImpl> select_one(const Predicate& p, GpuTimer& timer, VkCommandBuffer cmd,
                                         std::vector<uint32_t>& marks) {
    VkContext& c = *ctx;
    const DpBisColumn& col = columns[p.column];
    auto out = new_bitmap(ctx, n);
    uint64_t words = out->word_count();
    auto interval = accepted_interval(p);
    auto [b_lo, b_hi] = interval ? interval_bins(col, *interval) : std::pair{-1, -1};
    marks.push_back(timer.mark(cmd));
    if (!interval || b_hi < 0) {  // nothing can match: hi below the column's minimum
      if (words) c.vk.vkCmdFillBuffer(cmd, out->words.handle(), 0, words * 4, 0);
      query_stats.bytes += words * 4;
    } else if (options.refine == Refine::in_select) {
      record_select_exact(col, *out, b_lo, b_hi, *interval, cmd);
    } else {
      if (diagnostic != DpBisDiagnostic::refine_only) {
        count_select_bytes(b_lo, b_hi);
        if (options.sieve_vectors) {
          SieveParams sp{col.vectors.address(),
                         out->words.address(),
                         static_cast<uint32_t>(n),
                         static_cast<uint32_t>(words),
                         b_lo,
                         b_hi,
                         bins,
                         static_cast<uint32_t>(sieve_vector_stride(words))};
          kernel(c, ShaderId::dpbis_sieve_select, sizeof(SieveParams))
              .dispatch(cmd, &sp, (words + 3) / 4);
        } else {
          SelectParams sp{
              col.codes.address(), out->words.address(), static_cast<uint32_t>(n), b_lo, b_hi, 0};
          kernel(c, ShaderId::dpbis_select, sizeof(SelectParams)).dispatch(cmd, &sp, words);
        }
        compute_barrier(c, cmd);
      }
      if (diagnostic != DpBisDiagnostic::select_only) {
        Boundary bb = boundary(col, b_lo, b_hi);
        CandidatesParams cp{col.sorted.address(),
                            col.rows.address(),
                            out->words.address(),
                            bb.begin[0],
                            bb.end[0],
                            bb.begin[1],
                            bb.end[1],
                            interval->first,
                            interval->second};
        kernel(c, ShaderId::dpbis_candidates, sizeof(CandidatesParams))
            .dispatch(cmd, &cp, candidate_items(bb.begin[0], bb.end[0], bb.begin[1], bb.end[1]));
      }
    }
    marks.push_back(timer.mark(cmd));
    return out;
  }

  // Refine::in_select in Vulkan: one pass that sets the inner bins' rows and decides the boundary
  // rows, over the codes from the row-ordered values, over the vectors from the clustered ones
  // (bytes: count_select_exact).
  void record_select_exact(const DpBisColumn& col, BitmapImpl& out, int b_lo, int b_hi,
                           std::pair<uint32_t, uint32_t> interval, VkCommandBuffer cmd) {
    VkContext& c = *ctx;
    uint64_t words = out.word_count();
    count_select_exact(col, b_lo, b_hi, words);
    if (options.sieve_vectors) {
      SieveExactParams sp{col.vectors.address(),
                          col.clustered.address(),
                          col.offsets.address(),
                          out.words.address(),
                          static_cast<uint32_t>(n),
                          static_cast<uint32_t>(words),
                          b_lo,
                          b_hi,
                          bins,
                          static_cast<uint32_t>(sieve_vector_stride(words)),
                          interval.first,
                          interval.second,
                          dpbis_tiles(n),
                          0};
      kernel(c, ShaderId::dpbis_sieve_exact, sizeof(SieveExactParams))
          .dispatch(cmd, &sp, (words + 3) / 4);
    } else {
      SelectExactParams sp{col.codes.address(),
                           col.values.address(),
                           out.words.address(),
                           static_cast<uint32_t>(n),
                           b_lo,
                           b_hi,
                           interval.first,
                           interval.second,
                           0};
      // One invocation per word. Its CUDA twin loops over four words and loads the next word's
      // codes early (0.86 -> 0.98 of the copy ceiling at 1e9 rows, H200); the same loop here
      // measured 0.82 -> 0.83 at 1e9 rows and 0.72 -> 0.68 at 1e8, so Vulkan keeps one word.
      kernel(c, ShaderId::dpbis_select_exact, sizeof(SelectExactParams)).dispatch(cmd, &sp, words);
    }
  }

  // Refine::in_select's candidates and bytes: the codes or the (up to four) vectors read and the
  // bitmap written. From row-ordered values, one 32-byte sector per boundary row, at most all the
  // column's values; from clustered values, 4 bytes per boundary row, and per tile and boundary
  // bin one sector for its offset and one for the run's ragged ends.
  void count_select_exact(const DpBisColumn& col, int b_lo, int b_hi, uint64_t words) {
    uint64_t border_rows = 0;
    const std::vector<int> edges = boundary_bins(b_lo, b_hi);
    for (int b : edges) border_rows += col.starts[b + 1] - col.starts[b];
    query_stats.candidates += border_rows;
    query_stats.bytes += words * 4;
    if (clustered_values())
      query_stats.bytes += border_rows * 4 + edges.size() * uint64_t{dpbis_tiles(n)} * 64;
    else
      query_stats.bytes += std::min(border_rows * 32, (n + 7) / 8 * 32);
    if (options.sieve_vectors) {
      for (int k : {b_hi, b_lo + 1, b_hi + 1, b_lo})
        if (k >= 1 && static_cast<uint32_t>(k) < bins) query_stats.bytes += words * 4;
    } else {
      query_stats.bytes += words * 32;
    }
  }

  // select_one in CUDA: the same kernels' twins, enqueued on the context's stream into `out`
  // (mapped into CUDA already); nothing here waits or allocates.
  void select_one_cuda(const Predicate& p, BitmapImpl& out) {
    VkContext& c = *ctx;
    const DpBisColumn& col = columns[p.column];
    auto interval = accepted_interval(p);
    auto [b_lo, b_hi] = interval ? interval_bins(col, *interval) : std::pair{-1, -1};
    if (!interval || b_hi < 0) {
      cuda::fill_zero(c, out.words);
      query_stats.bytes += out.word_count() * 4;
      return;
    }
    if (options.refine == Refine::in_select) {
      count_select_exact(col, b_lo, b_hi, out.word_count());
      if (options.sieve_vectors)
        cuda::sieve_select_exact(c, col.vectors, col.clustered, col.offsets, out.words, n, b_lo,
                                 b_hi, bins, interval->first, interval->second);
      else
        cuda::codes_select_exact(c, col.codes, col.clustered, col.offsets, out.words, n, b_lo, b_hi,
                                 bins, interval->first, interval->second);
      return;
    }
    if (diagnostic != DpBisDiagnostic::refine_only) {
      if (options.sieve_vectors)
        cuda::sieve_select(c, col.vectors, out.words, n, b_lo, b_hi, bins);
      else
        cuda::codes_select(c, col.codes, out.words, n, b_lo, b_hi);
      count_select_bytes(b_lo, b_hi);
    }
    if (diagnostic != DpBisDiagnostic::select_only) {
      Boundary bb = boundary(col, b_lo, b_hi);
      cuda::refine_candidates(c, col.sorted, col.rows, out.words, bb.begin[0], bb.end[0],
                              bb.begin[1], bb.end[1], interval->first, interval->second);
    }
  }

  // The sorted positions of the (at most two) boundary bins, b_lo's first; an absent one is
  // empty. Counts their values as candidates, 8 bytes each (value and row id).
  struct Boundary {
    uint32_t begin[2] = {0, 0}, end[2] = {0, 0};
  };
  Boundary boundary(const DpBisColumn& col, int b_lo, int b_hi) {
    Boundary bb;
    std::vector<int> bins_checked = boundary_bins(b_lo, b_hi);
    for (size_t i = 0; i < bins_checked.size(); ++i) {
      bb.begin[i] = col.starts[bins_checked[i]];
      bb.end[i] = col.starts[bins_checked[i] + 1];
      query_stats.candidates += bb.end[i] - bb.begin[i];
      query_stats.bytes += uint64_t{bb.end[i] - bb.begin[i]} * 8;
    }
    return bb;
  }

  static std::vector<int> boundary_bins(int b_lo, int b_hi) {
    std::vector<int> boundary;
    if (b_lo >= 0) boundary.push_back(b_lo);
    if (b_hi != b_lo) boundary.push_back(b_hi);
    return boundary;
  }

  // Device bytes of one selection pass (codes or sieving vectors read, bitmap written), as the
  // kernels touch them: the sieve reads a vector only for 1 <= k <= bins - 1 (dpbis_sieve_select).
  void count_select_bytes(int b_lo, int b_hi) {
    uint64_t words = (n + 31) / 32;
    if (options.sieve_vectors) {
      for (int k : {b_hi, b_lo + 1})
        if (k >= 1 && static_cast<uint32_t>(k) < bins) query_stats.bytes += words * 4;
    } else {
      query_stats.bytes += words * 32;  // 32 code bytes per word (codes padded to whole words)
    }
    query_stats.bytes += words * 4;
  }

  // CUDA: every bitmap is taken (from the pool, mapped) before the first event and the host waits
  // once, after the last kernel, so the two events bracket GPU work only: the selections, their
  // refinements and the AND / OR, back to back on one stream, with no API hop.
  Bitmap select_cuda(std::span<const Predicate> preds, Combine combine) {
    VkContext& c = *ctx;
    std::vector<std::shared_ptr<BitmapImpl>> parts;
    for (size_t i = 0; i < std::max<size_t>(preds.size(), 1); ++i)
      parts.push_back(new_bitmap(ctx, n, true, pool));
    cuda::Timer timer(c, 2);
    uint32_t t0 = timer.mark();
    if (preds.empty()) {  // all of nothing: every row; any of nothing: no row
      cuda::fill_zero(c, parts[0]->words);
      if (combine == Combine::all) cuda::bitmap_op(c, parts[0]->words, nullptr, n, kNot);
    }
    for (size_t i = 0; i < preds.size(); ++i) select_one_cuda(preds[i], *parts[i]);
    for (size_t i = 1; i < preds.size(); ++i) {
      cuda::bitmap_op(c, parts[0]->words, &parts[i]->words, n,
                      combine == Combine::all ? kAnd : kOr);
      query_stats.bytes += parts[0]->word_count() * 12;  // two bitmaps read, one written
    }
    uint32_t t1 = timer.mark();
    query_stats.gpu_ms = timer.ms(t0, t1);  // the query's one host wait
    parts[0]->gpu_ms = query_stats.gpu_ms;
    return Bitmap(parts[0]);
  }

  Bitmap select(std::span<const Predicate> preds, Combine combine) {
    VkContext& c = *ctx;
    query_stats = {};
    for (const Predicate& p : preds)
      if (p.column >= columns.size())
        throw Error(Errc::invalid_argument,
                    fmt::format("a predicate names column {} but the table has {} columns",
                                p.column, columns.size()));
    if (options.refine == Refine::in_select && diagnostic != DpBisDiagnostic::none)
      throw Error(Errc::invalid_argument,
                  "DP-BIS refine = in_select selects and refines in one pass: the select_only "
                  "and refine_only diagnostics apply to refine = scatter only");
    if (cuda) return select_cuda(preds, combine);
    std::vector<std::shared_ptr<BitmapImpl>> parts;
    {
      CommandBatch cb(c);
      GpuTimer timer(c, static_cast<uint32_t>(2 * preds.size() + 2));
      timer.reset(cb.cmd());
      std::vector<uint32_t> marks;
      for (const Predicate& p : preds) parts.push_back(select_one(p, timer, cb.cmd(), marks));
      cb.submit_and_wait();
      for (size_t i = 0; i + 1 < marks.size(); i += 2)
        query_stats.gpu_ms += timer.ms(marks[i], marks[i + 1]);
    }
    if (parts.empty()) {  // all of nothing: every row; any of nothing: no row
      auto out = new_bitmap(ctx, n);
      CommandBatch cb(c);
      if (out->word_count())
        c.vk.vkCmdFillBuffer(cb.cmd(), out->words.handle(), 0, out->word_count() * 4, 0);
      cb.submit_and_wait();
      if (combine == Combine::all) bitmap_op(*out, nullptr, kNot);
      return Bitmap(out);
    }
    for (size_t i = 1; i < parts.size(); ++i) {
      bitmap_op(*parts[0], parts[i].get(), combine == Combine::all ? kAnd : kOr);
      query_stats.gpu_ms += parts[0]->gpu_ms;
      query_stats.bytes += parts[0]->word_count() * 12;  // two bitmaps read, one written
    }
    return Bitmap(parts[0]);
  }
};

}  // namespace detail

using detail::DpBisImpl;
using detail::guarded;

DpBisTable::DpBisTable(std::unique_ptr<DpBisImpl> impl) : impl_(std::move(impl)) {}
DpBisTable::DpBisTable(DpBisTable&&) noexcept = default;
DpBisTable& DpBisTable::operator=(DpBisTable&&) noexcept = default;
DpBisTable::~DpBisTable() = default;

Result<DpBisTable> DpBisTable::build(const Context& ctx,
                                     std::span<const std::span<const uint32_t>> columns,
                                     const DpBisOptions& options) {
  return guarded(ctx.vk(), [&]() -> DpBisTable {
    auto impl = std::make_unique<DpBisImpl>();
    impl->ctx = ctx.shared();
    impl->options = options;
    impl->build(columns);
    return DpBisTable(std::move(impl));
  });
}

Result<Bitmap> DpBisTable::select(std::span<const Predicate> predicates, Combine combine) {
  return guarded(*impl_->ctx, [&] { return impl_->select(predicates, combine); });
}

uint64_t DpBisTable::rows() const {
  return impl_->n;
}
uint32_t DpBisTable::columns() const {
  return static_cast<uint32_t>(impl_->columns.size());
}
Backend DpBisTable::backend() const {
  return impl_->cuda ? Backend::cuda : Backend::vulkan;
}
const DpBisBuildStats& DpBisTable::build_stats() const {
  return impl_->build_stats;
}
const DpBisQueryStats& DpBisTable::last_stats() const {
  return impl_->query_stats;
}
void DpBisTable::set_diagnostic(DpBisDiagnostic diagnostic) {
  impl_->diagnostic = diagnostic;
}

}  // namespace raydb
