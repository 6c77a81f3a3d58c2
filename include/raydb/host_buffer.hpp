// Pinned host memory for lookups from host memory at PCIe speed.
//
// A lookup call from ordinary host memory (std::vector) is pipelined through raydb's own pinned
// slots: the host copies the queries in and the results out, which costs host memory bandwidth
// (about 7.5 GB of DRAM traffic for 2^27 point lookups, docs/e2e.md). Queries and results placed
// in a HostBuffer skip those copies: the copy engines read and write them in place, as with
// cudaHostAlloc'd memory in CUDA.
//
// Use: allocate once, fill through data() or span<T>(), pass spans of it to the lookup calls
// (RxIndex, SortedIndex, HashIndex: lookup and lookup_ranges, into a caller-sized output).
// Either side, or both, may be in a HostBuffer; the rest of a call works as before.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "raydb/context.hpp"
#include "raydb/error.hpp"

namespace raydb {

/// Host memory the device reaches directly (pinned, host-cached), made on a Context.
/// Ownership: owns its memory and keeps its Context alive; move-only. Thread-safety: the bytes
/// are the caller's to synchronise; do not destroy a buffer while a call on another thread reads
/// or writes it. Counts against ContextOptions::memory_budget_bytes like device memory.
class HostBuffer {
 public:
  /// `bytes` of pinned memory (uninitialised). Errc::out_of_memory where the driver refuses.
  static Result<HostBuffer> allocate(const Context& ctx, uint64_t bytes);
  HostBuffer(HostBuffer&&) noexcept;             ///< Takes the memory; the source is left empty.
  HostBuffer& operator=(HostBuffer&&) noexcept;  ///< Frees own memory, then takes the source's.
  ~HostBuffer();                                 ///< Frees the memory.

  void* data() const;     ///< the first byte (16-byte aligned at least)
  uint64_t size() const;  ///< in bytes
  /// The memory as elements of T (size() / sizeof(T) of them).
  template <class T>
  std::span<T> span() const {
    return {static_cast<T*>(data()), static_cast<size_t>(size() / sizeof(T))};
  }

 private:
  struct Impl;
  explicit HostBuffer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace raydb
