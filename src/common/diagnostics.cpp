// Parsing the experiment switches of raydb/diagnostics.hpp as their environment variables spell
// them; the CLI is the only caller that reads the environment.
#include "raydb/diagnostics.hpp"

#include <fmt/format.h>

#include <charconv>
#include <initializer_list>
#include <string>
#include <utility>

namespace raydb {

namespace {

Error bad_value(std::string_view name, std::string_view value, std::string_view accepted) {
  return Error(Errc::invalid_argument,
               fmt::format("{}='{}': expected {}", name, value.substr(0, 40), accepted));
}

// Sets `out` to the choice spelled `value`; else names the variable, the value and the choices.
template <class T>
Status choose(std::string_view name, std::string_view value,
              std::initializer_list<std::pair<std::string_view, T>> choices, T& out) {
  std::string accepted;
  for (const auto& [text, choice] : choices) {
    if (value == text) {
      out = choice;
      return {};
    }
    accepted += fmt::format("{}{}", accepted.empty() ? "" : " or ", text);
  }
  return bad_value(name, value, accepted);
}

}  // namespace

Status set_diagnostic(Diagnostics& d, std::string_view name, std::string_view value) {
  if (value.empty()) return {};
  using G = VkGeometryFlagsDiagnostic;
  using P = VkRtPipelineShape;
  using M = CudaOwnMemory;
  using V = OptixSsbVariant;
  using S = OptixStackDiagnostic;
  if (name == "RAYDB_VK_GEOMETRY_FLAGS")
    return choose<G>(name, value,
                     {{"none", G::none}, {"opaque", G::opaque}, {"standard", G::standard}},
                     d.vk_geometry_flags);
  if (name == "RAYDB_VK_RT_PIPELINE")
    return choose<P>(name, value,
                     {{"culled", P::culled}, {"lean", P::lean}, {"generic", P::generic}},
                     d.vk_rt_pipeline);
  if (name == "RAYDB_CUDA_OWN_MEMORY")
    return choose<M>(name, value, {{"1", M::on}, {"0", M::off}}, d.cuda_own_memory);
  if (name == "RAYDB_OPTIX_CGRX_IAS")
    return choose<bool>(name, value, {{"1", true}, {"0", false}}, d.optix_cgrx_ias);
  if (name == "RAYDB_OPTIX_SSB_VARIANT")
    return choose<V>(name, value,
                     {{"multi_anyhit", V::multi_anyhit}, {"pointer_payload", V::pointer_payload}},
                     d.optix_ssb_variant);
  if (name == "RAYDB_OPTIX_STACK")
    return choose<S>(name, value, {{"computed", S::computed}, {"print", S::print}}, d.optix_stack);
  if (name == "RAYDB_OPTIX_MAX_REGISTERS") {
    uint32_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 16 || n > 255)
      return bad_value(name, value, "16 to 255");
    d.optix_max_registers = n;
    return {};
  }
  return Error(Errc::invalid_argument, fmt::format("no diagnostic switch is named '{}'", name));
}

}  // namespace raydb
