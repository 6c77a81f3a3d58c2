#include <doctest/doctest.h>

#include <string>

#include "raydb/diagnostics.hpp"

using namespace raydb;

namespace {

void check_refused(std::string_view name, std::string_view value) {
  CAPTURE(std::string(name));
  CAPTURE(std::string(value));
  Diagnostics d;
  Status s = set_diagnostic(d, name, value);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code() == Errc::invalid_argument);
  std::string want = std::string(name) + "='" + std::string(value) + "'";
  CHECK(std::string(s.error().what()).find(want) != std::string::npos);
}

}  // namespace

TEST_CASE("diagnostics: every switch is set from its variable's spelling, a bad value is named") {
  Diagnostics d;
  REQUIRE(set_diagnostic(d, "RAYDB_VK_GEOMETRY_FLAGS", "none").ok());
  CHECK(d.vk_geometry_flags == VkGeometryFlagsDiagnostic::none);
  REQUIRE(set_diagnostic(d, "RAYDB_VK_GEOMETRY_FLAGS", "opaque").ok());
  CHECK(d.vk_geometry_flags == VkGeometryFlagsDiagnostic::opaque);
  REQUIRE(set_diagnostic(d, "RAYDB_VK_RT_PIPELINE", "generic").ok());
  CHECK(d.vk_rt_pipeline == VkRtPipelineShape::generic);
  REQUIRE(set_diagnostic(d, "RAYDB_VK_RT_PIPELINE", "lean").ok());
  CHECK(d.vk_rt_pipeline == VkRtPipelineShape::lean);
  REQUIRE(set_diagnostic(d, "RAYDB_CUDA_OWN_MEMORY", "0").ok());
  CHECK(d.cuda_own_memory == CudaOwnMemory::off);
  REQUIRE(set_diagnostic(d, "RAYDB_CUDA_OWN_MEMORY", "1").ok());
  CHECK(d.cuda_own_memory == CudaOwnMemory::on);
  REQUIRE(set_diagnostic(d, "RAYDB_OPTIX_CGRX_IAS", "1").ok());
  CHECK(d.optix_cgrx_ias);
  REQUIRE(set_diagnostic(d, "RAYDB_OPTIX_SSB_VARIANT", "pointer_payload").ok());
  CHECK(d.optix_ssb_variant == OptixSsbVariant::pointer_payload);
  REQUIRE(set_diagnostic(d, "RAYDB_OPTIX_MAX_REGISTERS", "64").ok());
  CHECK(d.optix_max_registers == 64);
  REQUIRE(set_diagnostic(d, "RAYDB_OPTIX_STACK", "computed").ok());
  CHECK(d.optix_stack == OptixStackDiagnostic::computed);
  // An empty value keeps what is there (an unset variable and an empty one read the same).
  REQUIRE(set_diagnostic(d, "RAYDB_OPTIX_STACK", "").ok());
  CHECK(d.optix_stack == OptixStackDiagnostic::computed);

  check_refused("RAYDB_VK_RT_PIPELINE", "fitted");
  check_refused("RAYDB_VK_GEOMETRY_FLAGS", "duplicate");
  check_refused("RAYDB_CUDA_OWN_MEMORY", "yes");
  check_refused("RAYDB_OPTIX_CGRX_IAS", "2");
  check_refused("RAYDB_OPTIX_SSB_VARIANT", "single");
  for (const char* bad : {"15", "256", "-1", "64x", "99999999999"})
    check_refused("RAYDB_OPTIX_MAX_REGISTERS", bad);
  check_refused("RAYDB_OPTIX_STACK", "large");

  Status unknown = set_diagnostic(d, "RAYDB_NO_SUCH_SWITCH", "1");
  REQUIRE_FALSE(unknown.ok());
  CHECK(std::string(unknown.error().what()).find("RAYDB_NO_SUCH_SWITCH") != std::string::npos);
  // Every listed name is accepted by set_diagnostic (the CLI maps exactly these).
  for (std::string_view name : kDiagnosticNames) {
    CAPTURE(std::string(name));
    Diagnostics fresh;
    CHECK(set_diagnostic(fresh, name, "").ok());
    CHECK(set_diagnostic(fresh, name, "?").error().code() == Errc::invalid_argument);
  }
}
