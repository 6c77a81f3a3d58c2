// The compiled part of the `raydb` Python package (imported as raydb._raydb; raydb/__init__.py
// re-exports it).
#include "common.hpp"

PYBIND11_MODULE(_raydb, m) {
  m.doc() =
      "raydb: database operators on GPU ray tracing (Vulkan). Indexes, scans, joins and the SSB "
      "engine over numpy arrays.";
  using namespace raydb::python;
  bind_errors(m);
  bind_context(m);
  bind_scan(m);
  bind_indexes(m);
  bind_rtscan(m);
  bind_dpbis(m);
  bind_join(m);
  bind_ssb(m);
#ifdef RAYDB_PY_HAS_SQL
  bind_sql(m);
#endif
}
