// Large host-to-host copies on several threads with streaming stores: the pipelined lookups move
// gigabytes between the caller's memory and pinned staging per call, and one thread copies only
// 5-10 GB/s, well below PCIe's 25-55 GB/s.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

namespace raydb::detail {

// One copy (src) or fill with `fill_byte` (src == nullptr).
struct HostCopy {
  void* dst;
  const void* src;
  uint64_t bytes;
  uint8_t fill_byte = 0;
};

// Runs the copies in one parallel pass, in blocks of at least 256 KiB, on the shared WorkerPool
// (common/worker_pool.hpp), or on threads of its own while another thread's pass holds the pool.
// Below 4 MiB in all, the calling thread alone. The destination bytes are written with non-temporal
// stores (no read for ownership, no cache pollution): neither the caller's output nor the staging
// memory the GPU reads next is read back by this thread soon. Ranges must not overlap.
void host_copies(std::initializer_list<HostCopy> copies);

// A streaming copy of `bytes` at any alignment, fenced before it returns (so that a GPU told to
// read next sees every byte).
using StreamCopyFn = void (*)(void* dst, const void* src, uint64_t bytes);
struct StreamCopy {
  const char* name;
  StreamCopyFn copy;
};
// The streaming copies this host can run, narrowest stores first; host_copies uses the last one.
// Wider stores stream more per thread: on the H100's host (16 threads, 2 GiB;
// bench/gpu/host_copy_bandwidth.cpp) 16-byte stores copied 61.3 GB/s, 32-byte 69.0, 64-byte 73.1.
std::span<const StreamCopy> stream_copies();

}  // namespace raydb::detail
