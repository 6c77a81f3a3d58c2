// Turns raydb's internal exceptions into Result / Status at the public API boundary.
#pragma once

#include <new>
#include <type_traits>

#include "raydb/error.hpp"

namespace raydb::detail {

template <class F>
auto capture(F&& f)
    -> std::conditional_t<std::is_void_v<decltype(f())>, Status, Result<decltype(f())>> {
  try {
    if constexpr (std::is_void_v<decltype(f())>) {
      f();
      return Status{};
    } else {
      return f();
    }
  } catch (const Error& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return Error(Errc::out_of_memory, "host memory exhausted");
  }
}

}  // namespace raydb::detail
