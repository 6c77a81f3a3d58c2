// raydb::Error as Python exceptions: raydb.Error (a RuntimeError) and one subclass per
// raydb::Errc, each carrying the library's message and its code name in `.code`.
#include <array>

#include "common.hpp"

namespace raydb::python {
namespace {

struct ErrorClass {
  Errc code;
  const char* name;
  PyObject* extra_base;  // a built-in base users may already catch (ValueError, ...), or null
  const char* doc;
};

PyObject* g_error = nullptr;
std::array<PyObject*, 10> g_by_code{};

PyObject* make_class(py::module_& m, const char* name, PyObject* bases, const char* doc) {
  std::string qualified = std::string("raydb.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases, nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::reinterpret_borrow<py::object>(cls));
  return cls;
}

}  // namespace

[[noreturn]] void invalid(const std::string& message) {
  throw Error(Errc::invalid_argument, message);
}

void bind_errors(py::module_& m) {
  g_error = make_class(m, "Error", PyExc_RuntimeError,
                       "Base of every raydb error. `code` names the raydb::Errc; the message "
                       "names the cause.");
  const ErrorClass classes[] = {
      {Errc::invalid_argument, "InvalidArgument", PyExc_ValueError,
       "Bad input: empty where not allowed, lo > hi, wrong dtype or length, ..."},
      {Errc::unsupported, "Unsupported", nullptr,
       "The device lacks a feature raydb needs (e.g. no ray tracing)."},
      {Errc::out_of_memory, "OutOfMemory", PyExc_MemoryError, "Host or device memory ran out."},
      {Errc::device_lost, "DeviceLost", nullptr, "The Vulkan device was lost."},
      {Errc::limit_exceeded, "LimitExceeded", nullptr,
       "A device or raydb limit was exceeded (primitive count, rays per range, ...)."},
      {Errc::output_too_small, "OutputTooSmall", nullptr,
       "A caller-sized output cannot hold the result; nothing was dropped silently."},
      {Errc::io, "IoError", PyExc_OSError, "A file or stream error."},
      {Errc::vulkan, "VulkanError", nullptr, "Any other Vulkan error."},
      {Errc::cuda, "CudaError", nullptr, "Any other CUDA error."},
      {Errc::internal, "InternalError", nullptr, "A bug in raydb."},
  };
  for (const ErrorClass& c : classes) {
    PyObject* bases =
        c.extra_base ? PyTuple_Pack(2, g_error, c.extra_base) : PyTuple_Pack(1, g_error);
    if (!bases) throw py::error_already_set();
    PyObject* cls = make_class(m, c.name, bases, c.doc);
    Py_DECREF(bases);
    g_by_code.at(static_cast<size_t>(c.code)) = cls;
    PyObject_SetAttrString(cls, "code", py::str(to_string(c.code)).ptr());
  }
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      size_t i = static_cast<size_t>(e.code());
      PyObject* cls = i < g_by_code.size() && g_by_code[i] ? g_by_code[i] : g_error;
      PyErr_SetString(cls, e.what());
    }
  });
}

}  // namespace raydb::python
