// Uploads from ordinary host memory at the copy engines' speed. A build's keys and values went
// through one staging buffer that the host filled whole before the GPU copied it (record_upload);
// that staging is memory of the device which the host writes across PCIe, about 21 GB/s on the
// H100 against the copy engines' 50 (docs/e2e.md). Here the host streams each piece into one of a
// few pinned, host-cached chunks while a copy queue moves the piece before it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/vk/buffer.hpp"

namespace raydb::detail {

struct StagedCopy {
  const Buffer* dst;  // must not be in use by the GPU until the upload is waited for
  VkDeviceSize dst_offset;
  const void* src;
  uint64_t bytes;
};

// Whether an upload of `bytes` from `src` goes through a StagedUpload: large ones from memory that
// is not a HostBuffer's (those the copy engines read in place), on a device with timeline
// semaphores.
bool worth_staging(VkContext& ctx, const void* src, uint64_t bytes);

// Tests: uploads of at least `threshold` bytes are staged in chunks of `chunk` bytes (0, 0: the
// defaults, 32 MiB and 16 MiB). Process-wide.
void set_staged_upload_sizes(uint64_t threshold, uint64_t chunk);

// The copies, in order, through the context's ring of staging chunks (kept between uploads). Where
// the context has a copy queue they run on a thread of their own from the constructor on, so that
// the caller makes its next buffers meanwhile; else on the context's queue, within the
// constructor. The caller holds the call lock until wait() has returned.
//
// Each copy signals a value of `semaphore()` once its last piece is done, so that work that needs
// only the first copies may start while the rest go up: a build sorts its keys while its values
// go up (docs/e2e.md).
//
// The driver may hold each of the copy thread's submissions while another thread allocates device
// memory: on the H100 a build's allocations beside its upload held them for 4-14 ms, and the
// copy engines sat idle (docs/e2e.md). So the caller allocates nothing large between the
// constructor and wait_submitted(), and makes its buffers while the GPU works instead.
class StagedUpload {
 public:
  StagedUpload(VkContext& ctx, std::vector<StagedCopy> copies);
  StagedUpload(const StagedUpload&) = delete;
  StagedUpload& operator=(const StagedUpload&) = delete;
  ~StagedUpload();  // waits; a failure wait() did not collect is dropped

  // Returns once the last piece of copy `copy` (by default the last copy) is submitted (the GPU
  // may still be copying), rethrowing a failure of the copies. A submission that waits for
  // done_value(copy) may then go.
  void wait_submitted(size_t copy = kLast);
  // Returns once every byte is in place, rethrowing a failure of the copies. `done_value` of
  // `semaphore()` is then signalled: a submission that reads the destinations waits for it, which
  // makes the copy queue's writes visible to it.
  void wait();
  VkSemaphore semaphore() const;
  // The value signalled once copy `copy` and every copy before it are in place.
  uint64_t done_value(size_t copy = kLast) const;
  // Records, into a command buffer of the context's queue that waits for done_value(copy), the
  // destination's hand-over from the copy queue's family (nothing where the families agree).
  void record_acquire(VkCommandBuffer cmd, size_t copy) const;
  // The copies' GPU time summed over the pieces, in ms (0 where the queue keeps no timestamps):
  // the copy engines' time, without the gaps where they waited for the host's next piece.
  double gpu_ms() const { return gpu_ms_; }

  static constexpr size_t kLast = ~size_t{0};

 private:
  void run();
  void mark_submitted(size_t copies, bool failed);
  void settle() noexcept;  // after a failure: waits for the pieces already submitted
  size_t index(size_t copy) const { return copy == kLast ? copies_.size() - 1 : copy; }
  VkContext& ctx_;
  std::vector<StagedCopy> copies_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable submitted_cv_;
  size_t submitted_ = 0;  // copies whose last piece is submitted (all of them where failed_)
  bool failed_ = false;
  std::exception_ptr failure_;
  std::vector<uint64_t> done_values_;  // per copy
  double gpu_ms_ = 0;
};

}  // namespace raydb::detail
