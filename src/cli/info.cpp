// raydb info: what Vulkan devices are present and what raydb would do with them.
#include <fmt/format.h>

#include "cli/cli.hpp"
#include "raydb/optix.hpp"

namespace raydb::cli {

namespace {
std::string human_bytes(uint64_t b) {
  return b >= (1ull << 30) ? fmt::format("{:.1f} GiB", b / double(1ull << 30))
                           : fmt::format("{} MiB", b >> 20);
}
}  // namespace

void register_info(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("info", "list Vulkan devices, drivers, ray-tracing support and limits");
  cmd->alias("devices");
  auto format = std::make_shared<OutputFormat>(OutputFormat::table);
  // csv: one row per device (the fields of json's "devices"); json adds what raydb would use.
  add_format_option(*cmd, *format);
  cmd->add_flag_callback(
      "--json", [format] { *format = OutputFormat::json; }, "the same as --format json");
  cmd->callback([format] {
    const bool json = *format != OutputFormat::table;
    auto devices = Context::list_devices().value();
    nlohmann::json all = nlohmann::json::array();
    std::string chosen;
    nlohmann::json cuda = {{"available", false}}, optix = {{"available", false}};
    std::string cuda_line, optix_line = "no Vulkan device";
    {
      auto ctx = Context::create();
      chosen = ctx ? fmt::format("device {} ({}), traversal: {}", ctx->device().index,
                                 ctx->device().name, to_string(ctx->traversal()))
                   : std::string("none: ") + ctx.error().what();
      if (ctx) {
        const CudaSupport& s = ctx->cuda();
        cuda = {{"available", s.available}, {"reason", s.reason}, {"device", s.name}};
        cuda_line = s.available ? fmt::format("yes, CUDA device {} ({}): the CUDA kernels run",
                                              s.ordinal, s.name)
                                : "no (" + s.reason + "): the Vulkan compute twins run";
        const OptixSupport& os = optix_support(*ctx);
        optix = {{"available", os.available}, {"reason", os.reason}, {"version", os.version}};
        optix_line = os.available ? fmt::format("yes, OptiX {} (bench rx --api optix)", os.version)
                                  : "no (" + os.reason + ")";
      } else {
        cuda_line = "no Vulkan device";
      }
    }
    for (const DeviceInfo& d : devices) {
      if (json) {
        all.push_back({{"index", d.index},
                       {"name", d.name},
                       {"type", d.type},
                       {"vulkan_api", d.api_version},
                       {"driver", d.driver_name},
                       {"driver_info", d.driver_info},
                       {"driver_version", d.driver_version},
                       {"acceleration_structure", d.acceleration_structure},
                       {"ray_tracing_pipeline", d.ray_tracing_pipeline},
                       {"ray_query", d.ray_query},
                       {"invocation_reorder", d.invocation_reorder},
                       {"primitive_culling", d.primitive_culling},
                       {"max_primitive_count", d.max_primitive_count},
                       {"max_instance_count", d.max_instance_count},
                       {"max_ray_dispatch_invocation_count", d.max_ray_dispatch_invocation_count},
                       {"shader_group_handle_size", d.shader_group_handle_size},
                       {"device_local_bytes", d.device_local_bytes},
                       {"external_memory_fd", d.external_memory_fd},
                       {"external_semaphore_fd", d.external_semaphore_fd},
                       {"timeline_semaphore", d.timeline_semaphore},
                       {"usable", d.usable()}});
        continue;
      }
      fmt::print("[{}] {} ({})\n", d.index, d.name, d.type);
      fmt::print("    Vulkan {}, driver {} {} ({})\n", d.api_version, d.driver_name, d.driver_info,
                 d.driver_version);
      fmt::print("    device-local memory {}\n", human_bytes(d.device_local_bytes));
      fmt::print(
          "    VK_KHR_acceleration_structure {}  VK_KHR_ray_tracing_pipeline {}  VK_KHR_ray_query "
          "{}\n",
          d.acceleration_structure ? "yes" : "no", d.ray_tracing_pipeline ? "yes" : "no",
          d.ray_query ? "yes" : "no");
      fmt::print("    VK_NV_ray_tracing_invocation_reorder: {}  rayTraversalPrimitiveCulling {}\n",
                 d.invocation_reorder, d.primitive_culling ? "yes" : "no");
      if (d.acceleration_structure)
        fmt::print("    maxPrimitiveCount {}  maxInstanceCount {}  maxGeometryCount {}\n",
                   d.max_primitive_count, d.max_instance_count, d.max_geometry_count);
      if (d.ray_tracing_pipeline)
        fmt::print(
            "    maxRayDispatchInvocationCount {}  shaderGroupHandleSize {}  maxRayRecursionDepth "
            "{}\n",
            d.max_ray_dispatch_invocation_count, d.shader_group_handle_size,
            d.max_ray_recursion_depth);
      fmt::print(
          "    CUDA interop: VK_KHR_external_memory_fd {}  VK_KHR_external_semaphore_fd {}  "
          "timelineSemaphore {}\n",
          d.external_memory_fd ? "yes" : "no", d.external_semaphore_fd ? "yes" : "no",
          d.timeline_semaphore ? "yes" : "no");
      fmt::print("    usable by raydb: {}\n",
                 d.usable() ? "yes" : "no (lacks " + d.missing() + ")");
    }
    if (*format == OutputFormat::csv)
      fmt::print("{}", render(table_of(all), OutputFormat::csv));
    else if (json)
      fmt::print(
          "{}\n",
          nlohmann::json{
              {"devices", all}, {"raydb_would_use", chosen}, {"cuda", cuda}, {"optix", optix}}
              .dump(2));
    else
      fmt::print("raydb would use: {}\nCUDA fast path: {}\nOptiX backend: {}\n", chosen, cuda_line,
                 optix_line);
  });
}

}  // namespace raydb::cli
