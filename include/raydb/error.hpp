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

/// What kind of failure an Error is (its message names the cause).
enum class Errc {
  invalid_argument,  ///< bad input: empty where not allowed, lo > hi, wrong width, NaN, ...
  unsupported,       ///< the device lacks a feature raydb needs (e.g. no ray tracing)
  out_of_memory,     ///< host or device memory ran out
  device_lost,       ///< the Vulkan device was lost
  limit_exceeded,    ///< a device or raydb limit (primitive count, rays per range, ...)
  output_too_small,  ///< a caller-sized output cannot hold the result; nothing was dropped silently
  io,                ///< file or stream error
  vulkan,            ///< any other Vulkan error
  cuda,              ///< any other CUDA error
  internal,          ///< a bug in raydb
};

/// The enumerator's name ("invalid_argument", ...); a static string.
const char* to_string(Errc code);

/// A failure: a code and a message naming its cause (option, file, line, limit). Thrown by
/// Result::value() on an error; a plain value otherwise (copyable, no shared state).
class Error : public std::runtime_error {
 public:
  /// An error of kind `code`; `message` is what what() returns.
  Error(Errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Errc code() const { return code_; }  ///< The kind of failure.

 private:
  Errc code_;
};

/// Either a T or the Error that prevented it. Owns the value; not synchronized (like any value,
/// one Result is used from one thread at a time).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      ///< A Result holding `value`.
  Result(Error error) : v_(std::move(error)) {}  ///< A Result holding `error`.

  bool ok() const { return v_.index() == 0; }      ///< Whether it holds a value (not an Error).
  explicit operator bool() const { return ok(); }  ///< ok().

  /// The value; throws the Error when there is none.
  T& value() & {
    throw_if_error();
    return std::get<0>(v_);
  }
  /// The value, moved out; throws the Error when there is none.
  T value() && {
    throw_if_error();
    return std::get<0>(std::move(v_));
  }
  /// The value; throws the Error when there is none.
  const T& value() const& {
    throw_if_error();
    return std::get<0>(v_);
  }
  T* operator->() { return &value(); }  ///< &value().
  T& operator*() & { return value(); }  ///< value().

  /// The Error; only when !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  void throw_if_error() const {
    if (!ok()) throw std::get<1>(v_);
  }
  std::variant<T, Error> v_;
};

/// The Result of a call that returns nothing: success or an Error. A value, as Result.
class [[nodiscard]] Status {
 public:
  Status() = default;  ///< Success.
  /// A failure.
  Status(Error error) : error_(std::move(error)) {}
  bool ok() const { return !error_.has_value(); }  ///< Whether it succeeded.
  explicit operator bool() const { return ok(); }  ///< ok().
  /// The Error; only when !ok().
  const Error& error() const { return *error_; }
  /// Throws the Error, if any (for callers who prefer exceptions).
  void value() const {
    if (error_) throw *error_;
  }

 private:
  std::optional<Error> error_;
};

}  // namespace raydb
