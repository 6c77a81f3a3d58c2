// Errors as values. Every public raydb call that can fail returns Result<T> (or Status): either
// the value or an Error with a code and a message that names the cause. Result::value() on an
// error throws that Error, for callers who prefer exceptions.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace raydb {

enum class Errc {
  invalid_argument,  // bad input: empty where not allowed, lo > hi, wrong width, NaN, ...
  unsupported,       // the device lacks a feature raydb needs (e.g. no ray tracing)
  out_of_memory,     // host or device memory ran out
  device_lost,       // the Vulkan device was lost
  limit_exceeded,    // a device or raydb limit (primitive count, rays per range, ...)
  output_too_small,  // a caller-sized output cannot hold the result; nothing was dropped silently
  io,                // file or stream error
  vulkan,            // any other Vulkan error
  cuda,              // any other CUDA error
  internal,          // a bug in raydb
};

const char* to_string(Errc code);

class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Errc code() const { return code_; }

 private:
  Errc code_;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    throw_if_error();
    return std::get<0>(v_);
  }
  T value() && {
    throw_if_error();
    return std::get<0>(std::move(v_));
  }
  const T& value() const& {
    throw_if_error();
    return std::get<0>(v_);
  }
  T* operator->() { return &value(); }
  T& operator*() & { return value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  void throw_if_error() const {
    if (!ok()) throw std::get<1>(v_);
  }
  std::variant<T, Error> v_;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }
  void value() const {
    if (error_) throw *error_;
  }

 private:
  std::optional<Error> error_;
};

}  // namespace raydb
