// The SQL engine's compute star join (see compute_exec.hpp).
#include "sql/compute_exec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "backend/vk/commands.hpp"
#include "backend/vk/pipelines.hpp"

namespace raydb::sql::detail {

using namespace raydb::detail;

namespace {

void collect_columns(const Expr& e, std::vector<int>& out) {
  if (e.op == 'c' && std::find(out.begin(), out.end(), e.column) == out.end())
    out.push_back(e.column);
  for (const Expr& k : e.kids) collect_columns(k, out);
}

std::vector<int> aggregate_columns(const BoundQuery& q) {
  std::vector<int> cols;
  for (const Aggregate& a : q.aggs)
    if (!a.star && a.func != AggFunc::count) collect_columns(a.expr, cols);
  return cols;
}

// The address table: aggregate columns, then per dimension table its join index and shares, per
// fact attribute its codes and mask, the counts, one array per aggregate.
struct Layout {
  uint32_t dims = 0, fact = 0, counts = 0, aggs = 0, size = 0;
};
Layout layout(const BoundQuery& q, const ComputePlan& p) {
  Layout l;
  l.dims = static_cast<uint32_t>(p.fact_columns.size());
  l.fact = l.dims + 2 * static_cast<uint32_t>(p.dims.size());
  l.counts = l.fact + 2 * static_cast<uint32_t>(p.fact.size());
  l.aggs = l.counts + 1;
  l.size = l.aggs + static_cast<uint32_t>(q.aggs.size());
  return l;
}

struct Params {
  uint64_t table;
  uint32_t rows, first;
};
static_assert(sizeof(Params) == 16);

}  // namespace

ComputePlan plan_compute(const BoundQuery& q, const Catalog& cat, PlanCache& cache) {
  const Table& fact = cat.tables[size_t(q.fact)];
  ComputePlan p;
  p.rows = fact.rows;
  p.empty = p.rows == 0;
  for (const Dim& d : q.dims) dim_rows(cache, cat, q.fact, d);  // inner joins: every key resolves
  // Slots: the first group attribute most significant, so slot order is value order.
  p.group_stride.assign(q.group.size(), 1);
  for (size_t g = q.group.size(); g-- > 0;) {
    AttrRef a = q.group[g];
    int table = a.dim < 0 ? q.fact : q.dims[size_t(a.dim)].table;
    const Dictionary& d = dictionary(cache, cat, table, a.column);
    p.group_dicts.insert(p.group_dicts.begin(), &d);
    p.group_stride[g] = p.slots;
    uint64_t size = std::max<uint32_t>(d.size(), 1);
    if (p.slots > kMaxComputeSlots / size)
      throw Error(Errc::limit_exceeded,
                  fmt::format("the GROUP BY attributes' value combinations exceed the compute "
                              "path's {} group slots (2^28)",
                              kMaxComputeSlots));
    p.slots *= size;
  }
  auto fact_attr = [&](int column) -> ComputePlan::FactAttr& {
    for (auto& f : p.fact)
      if (f.column == column) return f;
    ComputePlan::FactAttr f;
    f.name = fact.name + "." + fact.columns[size_t(column)].name;
    f.column = column;
    f.codes = &dictionary(cache, cat, q.fact, column).code;
    p.fact.push_back(std::move(f));
    return p.fact.back();
  };
  std::map<int, ComputePlan::DimTable> dims;
  auto dim_table = [&](int dim) -> ComputePlan::DimTable& {
    auto [it, fresh] = dims.try_emplace(dim);
    if (fresh) {
      it->second.dim = dim;
      it->second.share.assign(cat.tables[size_t(q.dims[size_t(dim)].table)].rows, 0);
    }
    return it->second;
  };
  for (const Filter& f : q.filters) {
    int table = f.attr.dim < 0 ? q.fact : q.dims[size_t(f.attr.dim)].table;
    const Dictionary& d = dictionary(cache, cat, table, f.attr.column);
    std::vector<bool> sel = selected_codes(f, column_of(cat, q, f.attr), d);
    if (std::find(sel.begin(), sel.end(), true) == sel.end()) p.empty = true;
    if (std::find(sel.begin(), sel.end(), false) == sel.end()) continue;  // selects everything
    if (f.attr.dim < 0) {
      auto& fa = fact_attr(f.attr.column);
      fa.mask.assign((sel.size() + 31) / 32, 0);
      for (size_t c = 0; c < sel.size(); ++c)
        if (sel[c]) fa.mask[c / 32] |= 1u << (c % 32);
    } else {
      auto& dt = dim_table(f.attr.dim);
      for (size_t r = 0; r < dt.share.size(); ++r)
        if (!sel[d.code[r]]) dt.share[r] = kComputeNone;
    }
  }
  for (size_t g = 0; g < q.group.size(); ++g) {
    AttrRef a = q.group[g];
    if (a.dim < 0) {
      fact_attr(a.column).stride = p.group_stride[g];
      continue;
    }
    auto& dt = dim_table(a.dim);
    const Dictionary& d = *p.group_dicts[g];
    for (size_t r = 0; r < dt.share.size(); ++r)
      if (dt.share[r] != kComputeNone)
        dt.share[r] += static_cast<uint32_t>(d.code[r] * p.group_stride[g]);
  }
  for (auto& [k, dt] : dims) p.dims.push_back(std::move(dt));
  p.fact_columns = aggregate_columns(q);
  p.explain_notes +=
      fmt::format("  group slots: {} (mixed radix over the GROUP BY dictionaries)\n", p.slots);
  for (const auto& dt : p.dims) {
    const Dim& d = q.dims[size_t(dt.dim)];
    p.explain_notes += fmt::format(
        "  dimension {}: {} rows, share table (filters and group digits) through the join "
        "index\n",
        cat.tables[size_t(d.table)].name, dt.share.size());
  }
  for (const auto& f : p.fact)
    p.explain_notes +=
        fmt::format("  fact attribute {}:{}{}\n", f.name,
                    f.mask.empty() ? "" : " filter by code mask", f.stride ? " group digit" : "");
  return p;
}

std::string generate_compute(const BoundQuery& q, const ComputePlan& p) {
  Layout l = layout(q, p);
  std::string s =
      "#version 460\n"
      "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
      "#extension GL_EXT_buffer_reference : require\n"
      "#extension GL_EXT_scalar_block_layout : require\n"
      "#extension GL_EXT_shader_atomic_int64 : require\n"
      "layout(buffer_reference, scalar, buffer_reference_align = 4) buffer U32s { uint v[]; };\n"
      "layout(buffer_reference, scalar, buffer_reference_align = 8) readonly buffer I64s "
      "{ int64_t v[]; };\n"
      "layout(buffer_reference, scalar, buffer_reference_align = 8) buffer U64s "
      "{ uint64_t v[]; };\n"
      "layout(push_constant, scalar) uniform Params { uint64_t table; uint rows, first; } pc;\n"
      "uint64_t T(uint i) { return U64s(pc.table).v[i]; }\n"
      "layout(local_size_x = 64) in;\n"
      "void main() {\n"
      "  uint row = pc.first + (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +"
      " gl_LocalInvocationID.x;\n"
      "  if (row >= pc.rows) return;\n"
      "  uint g = 0u;\n";
  for (size_t i = 0; i < p.dims.size(); ++i)
    s += fmt::format(
        "  {{\n    uint s = U32s(T({}u)).v[U32s(T({}u)).v[row]];\n"
        "    if (s == 0xffffffffu) return;\n    g += s;\n  }}\n",
        l.dims + 2 * i + 1, l.dims + 2 * i);
  for (size_t i = 0; i < p.fact.size(); ++i) {
    const auto& f = p.fact[i];
    s += fmt::format("  {{  // {}\n    uint c = U32s(T({}u)).v[row];\n", f.name, l.fact + 2 * i);
    if (!f.mask.empty())
      s += fmt::format("    if ((U32s(T({}u)).v[c >> 5] & (1u << (c & 31u))) == 0u) return;\n",
                       l.fact + 2 * i + 1);
    if (f.stride) s += fmt::format("    g += c * {}u;\n", f.stride);
    s += "  }\n";
  }
  s += fmt::format("  atomicAdd(U32s(T({}u)).v[g], 1u);\n", l.counts);
  for (size_t i = 0; i < q.aggs.size(); ++i) {
    const Aggregate& a = q.aggs[i];
    if (a.func == AggFunc::count) continue;
    std::string v = expr_glsl(a.expr, p.fact_columns, 0);
    uint32_t slot = l.aggs + static_cast<uint32_t>(i);
    if (a.func == AggFunc::sum || a.func == AggFunc::avg)
      s += fmt::format("  atomicAdd(U64s(T({}u)).v[g], uint64_t({}));\n", slot, v);
    else
      s += fmt::format("  {}(U64s(T({}u)).v[g], uint64_t({}) ^ 0x8000000000000000ul);\n",
                       a.func == AggFunc::min ? "atomicMin" : "atomicMax", slot, v);
  }
  s += "}\n";
  return s;
}

uint64_t compute_device_bytes(const BoundQuery& q, const Catalog& cat, PlanCache& cache,
                              uint64_t& slots) {
  slots = 1;
  for (AttrRef a : q.group) {
    int table = a.dim < 0 ? q.fact : q.dims[size_t(a.dim)].table;
    uint64_t size = std::max<uint32_t>(dictionary(cache, cat, table, a.column).size(), 1);
    slots = slots > kMaxComputeSlots / size ? kMaxComputeSlots + 1 : slots * size;
  }
  uint64_t rows = cat.tables[size_t(q.fact)].rows;
  uint64_t bytes = rows * 8 * aggregate_columns(q).size() + rows * 4 * q.dims.size();
  for (const Dim& d : q.dims) bytes += cat.tables[size_t(d.table)].rows * 4;
  // Fact attributes' codes (filters and groups on the fact table itself).
  for (const Filter& f : q.filters) bytes += f.attr.dim < 0 ? rows * 4 : 0;
  for (AttrRef a : q.group) bytes += a.dim < 0 ? rows * 4 : 0;
  // The group slots' counts and aggregates, on the device and read back.
  return bytes + 2 * std::min(slots, kMaxComputeSlots) * (4 + 8 * q.aggs.size());
}

struct ComputeExecutor::Impl {
  std::shared_ptr<VkContext> ctx;
  std::map<uint64_t, std::unique_ptr<ComputePipeline>> pipes;
  ComputePipeline* cur = nullptr;
  // Device copies kept between queries, keyed by the host array (valid until forget()).
  std::map<const void*, Buffer> resident;

  uint64_t resident_address(const void* data, uint64_t bytes, const char* name) {
    auto it = resident.find(data);
    if (it != resident.end()) return it->second.address();
    Buffer b(*ctx, std::max<uint64_t>(bytes, 16), kStorageUsage, MemoryUse::device, name);
    if (bytes) {
      CommandBatch batch(*ctx);
      Buffer staging;
      record_upload(*ctx, batch.cmd(), staging, b, data, bytes);
      memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, *ctx);
      batch.submit_and_wait();
    }
    return resident.emplace(data, std::move(b)).first->second.address();
  }
};

ComputeExecutor::ComputeExecutor(std::shared_ptr<VkContext> ctx) : impl_(std::make_unique<Impl>()) {
  impl_->ctx = std::move(ctx);
  if (!impl_->ctx->info.buffer_int64_atomics)
    throw Error(Errc::unsupported,
                fmt::format("device '{}' lacks shaderBufferInt64Atomics, which the SQL engine's "
                            "64-bit aggregates need",
                            impl_->ctx->info.name));
}
ComputeExecutor::~ComputeExecutor() = default;
ComputeExecutor::ComputeExecutor(ComputeExecutor&&) noexcept = default;
ComputeExecutor& ComputeExecutor::operator=(ComputeExecutor&&) noexcept = default;

void ComputeExecutor::forget() {
  impl_->resident.clear();
}

void ComputeExecutor::prepare(const std::string& glsl, ShaderCompiler& compiler, SqlStats& stats,
                              uint64_t& hash) {
  hash = source_hash(glsl);
  auto& slot = impl_->pipes[hash];
  bool cached = true;
  if (!slot) {
    auto code = compiler.compile(glsl, Stage::compute, cached, stats.compile_ms);
    slot = std::make_unique<ComputePipeline>(*impl_->ctx, code, sizeof(Params));
  }
  stats.shader_cached = cached;
  impl_->cur = slot.get();
}

GroupResults ComputeExecutor::run(const BoundQuery& q, const ComputePlan& p, const Catalog& cat,
                                  PlanCache& cache, SqlStats& stats,
                                  std::vector<std::vector<uint32_t>>& tuples) {
  Impl& m = *impl_;
  VkContext& c = *m.ctx;
  const Table& fact = cat.tables[size_t(q.fact)];
  GroupResults res;
  stats.rows = p.rows;
  tuples.clear();
  if (p.empty) {
    if (q.group.empty()) {
      tuples.push_back({});
      res.counts.assign(1, 0);
      res.aggs.assign(q.aggs.size(), std::vector<uint64_t>(1, 0));
      for (size_t i = 0; i < q.aggs.size(); ++i)
        if (q.aggs[i].func == AggFunc::min) res.aggs[i][0] = ~uint64_t{0};
    }
    return res;
  }
  Layout l = layout(q, p);
  std::vector<uint64_t> table(l.size, 0);
  uint64_t slots = p.slots;
  std::vector<Buffer> keep;
  Buffer readback;
  {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < p.fact_columns.size(); ++i) {
      const auto& col = fact.columns[size_t(p.fact_columns[i])].ints;
      table[i] = m.resident_address(col.data(), col.size() * 8, "sql fact column");
    }
    CommandBatch batch(c);
    std::vector<Buffer> staging;
    auto up = [&](const void* data, uint64_t bytes, const char* name) {
      keep.emplace_back(c, std::max<uint64_t>(bytes, 16), kStorageUsage, MemoryUse::device, name);
      staging.emplace_back();
      record_upload(c, batch.cmd(), staging.back(), keep.back(), data, bytes);
      return keep.back().address();
    };
    for (size_t i = 0; i < p.dims.size(); ++i) {
      const RowVector<uint32_t>& rows = dim_rows(cache, cat, q.fact, q.dims[size_t(p.dims[i].dim)]);
      table[l.dims + 2 * i] = m.resident_address(rows.data(), rows.size() * 4, "sql join index");
      table[l.dims + 2 * i + 1] =
          up(p.dims[i].share.data(), p.dims[i].share.size() * 4, "sql dimension shares");
    }
    for (size_t i = 0; i < p.fact.size(); ++i) {
      const auto& f = p.fact[i];
      table[l.fact + 2 * i] = m.resident_address(f.codes->data(), f.codes->size() * 4, "sql codes");
      if (!f.mask.empty())
        table[l.fact + 2 * i + 1] = up(f.mask.data(), f.mask.size() * 4, "sql mask");
    }
    auto out = [&](uint64_t bytes, uint32_t fill, const char* name) {
      keep.emplace_back(c, std::max<uint64_t>(bytes, 16), kStorageUsage, MemoryUse::device, name);
      c.vk.vkCmdFillBuffer(batch.cmd(), keep.back().handle(), 0, VK_WHOLE_SIZE, fill);
      return keep.back().address();
    };
    size_t first_out = keep.size();
    table[l.counts] = out(slots * 4, 0, "sql group counts");
    for (size_t i = 0; i < q.aggs.size(); ++i)
      table[l.aggs + i] =
          out(slots * 8, q.aggs[i].func == AggFunc::min ? 0xffffffffu : 0u, "sql aggregates");
    uint64_t tbl = up(table.data(), table.size() * 8, "sql address table");
    memory_barrier(batch.cmd(), VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, c);
    batch.submit_and_wait();
    stats.upload_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    uint64_t out_bytes = slots * 4 + q.aggs.size() * slots * 8;
    readback = Buffer(c, std::max<uint64_t>(out_bytes, 16), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      MemoryUse::readback, "sql readback");
    CommandBatch run(c);
    VkCommandBuffer cmd = run.cmd();
    GpuTimer timer(c, 2);
    timer.reset(cmd);
    uint32_t t1 = timer.mark(cmd);
    Params pc{tbl, static_cast<uint32_t>(p.rows), 0};
    uint64_t slice = m.cur->max_items();
    for (uint64_t first = 0; first < p.rows; first += slice) {
      pc.first = static_cast<uint32_t>(first);
      m.cur->dispatch(cmd, &pc, std::min<uint64_t>(slice, p.rows - first));
    }
    uint32_t t2 = timer.mark(cmd);
    memory_barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT, c);
    uint64_t at = 0;
    for (size_t i = first_out; i < first_out + 1 + q.aggs.size(); ++i) {
      uint64_t bytes = i == first_out ? slots * 4 : slots * 8;
      VkBufferCopy cp{0, at, bytes};
      c.vk.vkCmdCopyBuffer(cmd, keep[i].handle(), readback.handle(), 1, &cp);
      at += bytes;
    }
    memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT, c);
    run.submit_and_wait();
    stats.trace_ms = timer.ms(t1, t2);
  }
  readback.invalidate();
  const char* src = readback.as<char>();
  std::vector<uint32_t> counts(slots);
  std::memcpy(counts.data(), src, slots * 4);
  for (uint64_t s = 0; s < slots; ++s) {
    if (counts[s] == 0 && !q.group.empty()) continue;
    std::vector<uint32_t> t(q.group.size());
    for (size_t g = 0; g < q.group.size(); ++g)
      t[g] = static_cast<uint32_t>(s / p.group_stride[g] %
                                   std::max<uint32_t>(p.group_dicts[g]->size(), 1));
    tuples.push_back(std::move(t));
    res.counts.push_back(counts[s]);
  }
  res.aggs.assign(q.aggs.size(), {});
  for (size_t i = 0; i < q.aggs.size(); ++i) {
    const char* a = src + slots * 4 + i * slots * 8;
    for (uint64_t s = 0; s < slots; ++s) {
      if (counts[s] == 0 && !q.group.empty()) continue;
      uint64_t v;
      std::memcpy(&v, a + s * 8, 8);
      res.aggs[i].push_back(v);
    }
  }
  stats.groups = res.counts.size();
  stats.rows_hit = 0;
  for (uint32_t k : res.counts) stats.rows_hit += k;
  return res;
}

}  // namespace raydb::sql::detail
