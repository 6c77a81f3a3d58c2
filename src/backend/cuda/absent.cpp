// The CUDA backend of a build without nvcc: CUDA is never available, so the Vulkan twins run.
// Only probe() is reachable in practice; the rest fail like require() would.
#include "backend/cuda/cuda.hpp"

namespace raydb::detail::cuda {

[[noreturn]] void unavailable() {
  throw Error(Errc::unsupported, "the CUDA backend is unavailable: raydb was built without CUDA");
}

bool built() {
  return false;
}

CudaSupport probe(VkContext&) {
  CudaSupport s;
  s.reason = "raydb was built without CUDA (no nvcc at build time, or RAYDB_CUDA=OFF)";
  return s;
}

void cuda_after(VkContext&, CommandBatch&) {
  unavailable();
}
void vulkan_after(VkContext&, CommandBatch&) {
  unavailable();
}
void finish(VkContext&) {}
Buffer shared_buffer(VkContext&, VkDeviceSize, VkBufferUsageFlags, const std::string&) {
  unavailable();
}
void map(VkContext&, const Buffer&) {
  unavailable();
}

uint64_t pool_reserved_bytes(VkContext&) {
  unavailable();
}

void fill_zero(VkContext&, const Buffer&) {
  unavailable();
}
void sort_pairs(VkContext&, const Buffer&, const Buffer&, uint64_t, bool) {
  unavailable();
}
void bitmap_op(VkContext&, const Buffer&, const Buffer*, uint64_t, uint32_t) {
  unavailable();
}
uint64_t bitmap_count(VkContext&, const Buffer&, uint64_t) {
  unavailable();
}
uint64_t bitmap_to_rows(VkContext&, const Buffer&, uint64_t, const Buffer&) {
  unavailable();
}
void upload(VkContext&, const Buffer&, const void*, uint64_t) {
  unavailable();
}
void set_timer_hold(VkContext&, double) {}
uint64_t set_timer_flush(VkContext&, bool) {
  return 0;
}

Timer::Timer(VkContext& ctx, uint32_t capacity) : ctx_(ctx), capacity_(capacity) {
  unavailable();
}
Timer::~Timer() = default;
uint32_t Timer::mark() {
  unavailable();
}
double Timer::ms(uint32_t, uint32_t) {
  unavailable();
}

}  // namespace raydb::detail::cuda
