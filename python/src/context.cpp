// raydb.Context: create, list devices, device info.
#include "common.hpp"

namespace raydb::python {
namespace {

py::dict device_dict(const DeviceInfo& d) {
  py::dict o;
  o["index"] = d.index;
  o["name"] = d.name;
  o["type"] = d.type;
  o["vendor_id"] = d.vendor_id;
  o["device_id"] = d.device_id;
  o["api_version"] = d.api_version;
  o["driver_name"] = d.driver_name;
  o["driver_info"] = d.driver_info;
  o["driver_version"] = d.driver_version;
  o["uuid"] = d.uuid;
  o["acceleration_structure"] = d.acceleration_structure;
  o["ray_tracing_pipeline"] = d.ray_tracing_pipeline;
  o["ray_query"] = d.ray_query;
  o["buffer_int64_atomics"] = d.buffer_int64_atomics;
  o["max_primitive_count"] = d.max_primitive_count;
  o["device_local_bytes"] = d.device_local_bytes;
  o["timestamps"] = d.timestamps;
  o["usable"] = d.usable();
  o["missing"] = d.missing();
  return o;
}

}  // namespace

TraversalMode parse_traversal(const std::string& text) {
  return unwrap(parse_traversal_mode(text));
}
Backend parse_backend_arg(const std::string& text) {
  return unwrap(parse_backend(text));
}

void bind_context(py::module_& m) {
  py::class_<PyContext, std::shared_ptr<PyContext>>(
      m, "Context",
      "The Vulkan device raydb works on. Every index, table and engine keeps its context alive.\n"
      "Objects made from one context may be used from several Python threads: their GPU calls are "
      "serialised on the context (the GIL is released while the GPU works).")
      .def(py::init([](const std::string& device, const std::string& traversal, bool validation,
                       const std::string& backend) {
             ContextOptions o;
             o.device = device;
             o.traversal = parse_traversal(traversal);
             o.validation = validation;
             o.backend = parse_backend_arg(backend);
             auto p = std::make_shared<PyContext>(PyContext{unwrap([&] {
               py::gil_scoped_release release;
               return Context::create(o);
             }())});
             return p;
           }),
           py::arg("device") = "", py::arg("traversal") = "automatic",
           py::arg("validation") = false, py::arg("backend") = "automatic",
           "Create a context. device: '' picks the best usable device (or RAYDB_DEVICE), a number "
           "picks that index, other text the first device whose name contains it. traversal: "
           "automatic | pipeline | ray_query. validation: enable the Vulkan validation layer "
           "(also RAYDB_VALIDATION=1). backend: auto | vulkan | cuda.")
      .def_static(
          "list_devices",
          [] {
            auto devices = unwrap(Context::list_devices());
            py::list out;
            for (const DeviceInfo& d : devices) out.append(device_dict(d));
            return out;
          },
          "Every physical device of the system's Vulkan loader, usable or not, as dicts.")
      .def_property_readonly(
          "info", [](const PyContext& c) { return device_dict(c.ctx.device()); },
          "The context's device, as a dict (name, type, driver, ray-tracing features, limits).")
      .def_property_readonly(
          "traversal", [](const PyContext& c) { return std::string(to_string(c.ctx.traversal())); },
          "How rays are traversed here: 'pipeline' or 'ray_query'.")
      .def_property_readonly(
          "validation_messages", [](const PyContext& c) { return c.ctx.validation_messages(); },
          "Validation-layer warnings and errors seen since creation (0 without validation).")
      .def_property_readonly(
          "allocated_bytes", [](const PyContext& c) { return c.ctx.allocated_bytes(); },
          "Bytes raydb has allocated on the device right now.")
      .def("__repr__", [](const PyContext& c) {
        return "<raydb.Context device='" + c.ctx.device().name +
               "' traversal=" + to_string(c.ctx.traversal()) + ">";
      });
}

}  // namespace raydb::python
