// Finding the CUDA device that is the Vulkan device, importing Vulkan memory and timeline
// semaphores into CUDA, and ordering work between the two APIs.
#include "backend/cuda/runtime.hpp"
#include "backend/cuda/kernels.hpp"
#include "common/host_time.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstring>

namespace raydb::detail::cuda {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  Errc code = e == cudaErrorMemoryAllocation ? Errc::out_of_memory : Errc::cuda;
  throw Error(code,
              fmt::format("{} failed: {} ({})", what, cudaGetErrorName(e), cudaGetErrorString(e)));
}

Runtime::~Runtime() {
  // Errors cannot leave a destructor; a failing release here changes no result.
  if (device >= 0) cudaSetDevice(device);
  if (stream) cudaStreamSynchronize(stream);
  if (pool) cudaMemPoolDestroy(pool);
  if (semaphore) cudaDestroyExternalSemaphore(semaphore);
  if (flush_buffer) cudaFree(flush_buffer);
  if (stream) cudaStreamDestroy(stream);
}

bool built() {
  return true;
}

namespace {

std::array<uint8_t, 16> vulkan_uuid(const VkContext& ctx) {
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &id;
  vkGetPhysicalDeviceProperties2(ctx.physical_device, &props);
  std::array<uint8_t, 16> out{};
  std::memcpy(out.data(), id.deviceUUID, 16);
  return out;
}

// The CUDA device with this UUID, or -1 with `reason` set.
int matching_device(const std::array<uint8_t, 16>& uuid, std::string& reason) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    reason = fmt::format("cudaGetDeviceCount: {} ({})", cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();  // reset the runtime's last error: absence is an answer, not a failure
    return -1;
  }
  if (count == 0) {
    reason = "cudaGetDeviceCount found no device";
    return -1;
  }
  std::string seen;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    if (std::memcmp(prop.uuid.bytes, uuid.data(), 16) == 0) return d;
    seen += fmt::format("{}[{}] {}", seen.empty() ? "" : ", ", d, prop.name);
  }
  reason =
      fmt::format("no CUDA device is the Vulkan device (UUIDs differ; CUDA devices: {})", seen);
  return -1;
}

std::string missing_vulkan(const VkContext& ctx) {
  std::string out;
  auto add = [&out](const char* what) { out += (out.empty() ? "" : ", ") + std::string(what); };
  if (!ctx.external_memory_fd) add("VK_KHR_external_memory_fd");
  if (!ctx.external_semaphore_fd) add("VK_KHR_external_semaphore_fd");
  if (!ctx.timeline_semaphore) add("timelineSemaphore");
  return out;
}

void create_runtime(VkContext& ctx, int device) {
  auto rt = std::make_shared<Runtime>();
  rt->device = device;
  check(cudaSetDevice(device), "cudaSetDevice");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device),
        "cudaDeviceGetAttribute (L2 size)");
  rt->l2_bytes = static_cast<uint64_t>(l2);
  check(cudaStreamCreateWithFlags(&rt->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  check(cudaMemPoolCreate(&rt->pool, &props), "cudaMemPoolCreate");
  // With a budget nothing is kept, as with the spare buffers: the budget bounds what is held.
  uint64_t keep = ctx.memory_budget == 0 ? UINT64_MAX : 0;
  check(cudaMemPoolSetAttribute(rt->pool, cudaMemPoolAttrReleaseThreshold, &keep),
        "cudaMemPoolSetAttribute (release threshold)");
  std::weak_ptr<Runtime> weak = rt;
  ctx.trim_caches = [weak] {
    auto held = weak.lock();
    if (!held) return false;
    // The pool gives back only what it has seen freed in stream order, so the stream is
    // synchronised first, where it has finished: never waited for, as it may be waiting for
    // Vulkan work that the caller has yet to submit.
    cudaSetDevice(held->device);
    if (cudaStreamQuery(held->stream) == cudaSuccess) cudaStreamSynchronize(held->stream);
    uint64_t before = 0, after = 0;
    cudaMemPoolGetAttribute(held->pool, cudaMemPoolAttrReservedMemCurrent, &before);
    cudaMemPoolTrimTo(held->pool, 0);
    cudaMemPoolGetAttribute(held->pool, cudaMemPoolAttrReservedMemCurrent, &after);
    return after < before;
  };
  rt->timeline = std::make_unique<Timeline>(ctx, true);
  cudaExternalSemaphoreHandleDesc desc{};
  desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  desc.handle.fd = rt->timeline->export_fd();
  cudaError_t e = cudaImportExternalSemaphore(&rt->semaphore, &desc);
  if (e != cudaSuccess) close(desc.handle.fd);  // CUDA owns the fd only once imported
  check(e, "cudaImportExternalSemaphore (timeline)");
  ctx.cuda = std::move(rt);
}

}  // namespace

CudaSupport probe(VkContext& ctx) {
  CudaSupport s;
  int device = matching_device(vulkan_uuid(ctx), s.reason);
  if (device < 0) return s;
  if (std::string m = missing_vulkan(ctx); !m.empty()) {
    s.reason = fmt::format("the Vulkan device '{}' lacks {}", ctx.info.name, m);
    return s;
  }
  try {
    create_runtime(ctx, device);
  } catch (const Error& e) {
    s.reason = std::string("CUDA interop setup failed: ") + e.what();
    return s;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  s.available = true;
  s.ordinal = device;
  s.name = prop.name;
  return s;
}

Runtime& runtime(VkContext& ctx) {
  require(ctx);
  // The runtime's current device is per host thread; a context may be used from another thread
  // than the one that probed it (one at a time).
  check(cudaSetDevice(ctx.cuda->device), "cudaSetDevice");
  return *ctx.cuda;
}

namespace {

// Vulkan memory imported into CUDA; Buffer::reset releases it before freeing the memory.
struct Mapping : DeviceView {
  cudaExternalMemory_t memory = nullptr;
  ~Mapping() override {
    cudaSetDevice(device);
    if (ptr) cudaFree(ptr);  // the CUDA docs' way to release a mapped buffer
    if (memory) cudaDestroyExternalMemory(memory);
  }
};

}  // namespace

void* device_ptr(VkContext& ctx, const Buffer& buffer) {
  if (auto& m = buffer.cuda_mapping()) return static_cast<DeviceView*>(m.get())->ptr;
  Runtime& rt = runtime(ctx);
  if (!buffer.is_exportable())
    throw Error(Errc::internal, "a buffer given to CUDA was not made with Buffer::exportable");
  auto m = std::make_shared<Mapping>();
  m->device = rt.device;
  cudaExternalMemoryHandleDesc desc{};
  desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  desc.handle.fd = buffer.export_fd();
  desc.size = buffer.allocation_size();
  desc.flags = cudaExternalMemoryDedicated;
  cudaError_t e = cudaImportExternalMemory(&m->memory, &desc);
  if (e != cudaSuccess) close(desc.handle.fd);
  check(e, "cudaImportExternalMemory");
  cudaExternalMemoryBufferDesc bd{};
  bd.offset = 0;
  bd.size = buffer.allocation_size();
  check(cudaExternalMemoryGetMappedBuffer(&m->ptr, m->memory, &bd),
        "cudaExternalMemoryGetMappedBuffer");
  buffer.cuda_mapping() = std::shared_ptr<DeviceView>(m);  // stored as the base device_ptr reads
  return m->ptr;
}

void map(VkContext& ctx, const Buffer& buffer) {
  device_ptr(ctx, buffer);
}

void cuda_after(VkContext& ctx, CommandBatch& batch) {
  Runtime& rt = runtime(ctx);
  uint64_t v = rt.timeline->next();
  batch.signal(rt.timeline->handle(), v);
  cudaExternalSemaphoreWaitParams p{};
  p.params.fence.value = v;
  check(cudaWaitExternalSemaphoresAsync(&rt.semaphore, &p, 1, rt.stream),
        "cudaWaitExternalSemaphoresAsync");
}

void vulkan_after(VkContext& ctx, CommandBatch& batch) {
  Runtime& rt = runtime(ctx);
  uint64_t v = rt.timeline->next();
  cudaExternalSemaphoreSignalParams p{};
  p.params.fence.value = v;
  check(cudaSignalExternalSemaphoresAsync(&rt.semaphore, &p, 1, rt.stream),
        "cudaSignalExternalSemaphoresAsync");
  batch.wait_for(rt.timeline->handle(), v);
}

void finish(VkContext& ctx) {
  if (!ctx.cuda) return;
  HostPhaseScope timed(HostPhase::wait);
  check(cudaStreamSynchronize(ctx.cuda->stream), "cudaStreamSynchronize");
}

namespace {
struct Events {
  std::vector<cudaEvent_t> events;
  ~Events() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
};
}  // namespace

Timer::Timer(VkContext& ctx, uint32_t capacity) : ctx_(ctx), capacity_(capacity) {
  runtime(ctx);
  auto ev = std::make_shared<Events>();
  for (uint32_t i = 0; i < capacity; ++i) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    ev->events.push_back(e);
  }
  events_ = ev;
}

Timer::~Timer() = default;

uint32_t Timer::mark() {
  if (used_ >= capacity_) throw Error(Errc::internal, "cuda::Timer: out of events");
  auto& ev = static_cast<Events*>(events_.get())->events;
  Runtime& rt = runtime(ctx_);
  if (used_ == 0 && rt.flush_bytes)
    check(kernels::read_through(rt.flush_buffer, rt.flush_bytes, rt.stream),
          "L2 flush kernel (set_timer_flush)");
  if (used_ == 0 && rt.timer_hold_ns)
    check(kernels::hold_stream(rt.timer_hold_ns, rt.stream), "hold kernel (set_timer_hold)");
  check(cudaEventRecord(ev[used_], rt.stream), "cudaEventRecord");
  return used_++;
}

double Timer::ms(uint32_t from, uint32_t to) {
  auto& ev = static_cast<Events*>(events_.get())->events;
  HostPhaseScope timed(HostPhase::wait);
  check(cudaEventSynchronize(ev[to]), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, ev[from], ev[to]), "cudaEventElapsedTime");
  return ms;
}

}  // namespace raydb::detail::cuda
