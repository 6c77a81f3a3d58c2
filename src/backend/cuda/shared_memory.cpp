// Buffers that CUDA and Vulkan share, allocated by CUDA and imported into Vulkan.
//
// Why this direction: over memory that Vulkan allocated and exported, CUDA's kernels read at
// about 0.67 of the copy ceiling on an H100, against 1.0 over CUDA's own allocations and over the
// same bytes in Vulkan (docs/baselines.md, "select-memory"). Memory made by CUDA's virtual
// memory API (cuMemCreate with a POSIX fd handle) is CUDA's own: its kernels read it at full
// speed, and Vulkan reads it through the import as it reads its own.
//
// The driver API is reached through cudaGetDriverEntryPointByVersion, so the library does not
// link libcuda and still loads where no NVIDIA driver is installed.
#include <cuda.h>
#include <fmt/format.h>

#include <mutex>

#include "backend/cuda/runtime.hpp"
#include "common/host_time.hpp"

namespace raydb::detail::cuda {

namespace {

// The driver's virtual-memory calls, each with the signature of CUDA 12.0's, the oldest this
// code was written against (the entry points are versioned by it).
struct VirtualMemory {
  decltype(&::cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&::cuMemCreate) create = nullptr;
  decltype(&::cuMemRelease) release = nullptr;
  decltype(&::cuMemAddressReserve) reserve = nullptr;
  decltype(&::cuMemAddressFree) address_free = nullptr;
  decltype(&::cuMemMap) map = nullptr;
  decltype(&::cuMemUnmap) unmap = nullptr;
  decltype(&::cuMemSetAccess) set_access = nullptr;
  decltype(&::cuMemExportToShareableHandle) export_handle = nullptr;
};

template <class F>
void load(F& fn, const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found), name);
  if (found != cudaDriverEntryPointSuccess || !p)
    throw Error(Errc::unsupported, fmt::format("the CUDA driver has no {} (CUDA 12.0 ABI)", name));
  fn = reinterpret_cast<F>(p);
}

const VirtualMemory& virtual_memory() {
  static VirtualMemory vm;
  static std::once_flag once;
  std::call_once(once, [] {
    load(vm.granularity, "cuMemGetAllocationGranularity");
    load(vm.create, "cuMemCreate");
    load(vm.release, "cuMemRelease");
    load(vm.reserve, "cuMemAddressReserve");
    load(vm.address_free, "cuMemAddressFree");
    load(vm.map, "cuMemMap");
    load(vm.unmap, "cuMemUnmap");
    load(vm.set_access, "cuMemSetAccess");
    load(vm.export_handle, "cuMemExportToShareableHandle");
  });
  return vm;
}

void drive(CUresult r, const char* what, const std::string& name, uint64_t bytes) {
  if (r == CUDA_SUCCESS) return;
  Errc code = r == CUDA_ERROR_OUT_OF_MEMORY ? Errc::out_of_memory : Errc::cuda;
  throw Error(code, fmt::format("{} failed for {} ({} bytes): CUresult {}", what, name, bytes,
                                static_cast<int>(r)));
}

// One cuMemCreate allocation, mapped at `ptr` with read-write access for its device.
struct Allocation : DeviceView {
  CUmemGenericAllocationHandle handle = 0;
  CUdeviceptr address = 0;
  size_t bytes = 0;
  bool mapped = false;
  ~Allocation() override {
    // Vulkan's import holds its own reference to the memory; this releases CUDA's.
    const VirtualMemory& vm = virtual_memory();
    cudaSetDevice(device);
    if (mapped) vm.unmap(address, bytes);
    if (address) vm.address_free(address, bytes);
    if (handle) vm.release(handle);
  }
};

}  // namespace

Buffer shared_buffer(VkContext& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                     const std::string& name) {
  HostPhaseScope timed(HostPhase::allocate);
  Runtime& rt = runtime(ctx);
  const VirtualMemory& vm = virtual_memory();
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = rt.device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  drive(vm.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
        "cuMemGetAllocationGranularity", name, size);
  uint64_t bytes = std::max<uint64_t>(size, 256);
  bytes = (bytes + granularity - 1) / granularity * granularity;
  check_budget(ctx, bytes, name);  // before CUDA takes the memory, as Vulkan's allocations do

  auto a = std::make_shared<Allocation>();
  a->device = rt.device;
  a->allocated_by_cuda = true;
  a->bytes = bytes;
  CUresult made = vm.create(&a->handle, bytes, &prop, 0);
  // Memory handed to the release queue may not be free yet.
  if (made == CUDA_ERROR_OUT_OF_MEMORY && ctx.drain_releases())
    made = vm.create(&a->handle, bytes, &prop, 0);
  drive(made, "cuMemCreate", name, bytes);
  drive(vm.reserve(&a->address, bytes, granularity, 0, 0), "cuMemAddressReserve", name, bytes);
  drive(vm.map(a->address, bytes, 0, a->handle, 0), "cuMemMap", name, bytes);
  a->mapped = true;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  drive(vm.set_access(a->address, bytes, &access, 1), "cuMemSetAccess", name, bytes);
  a->ptr = reinterpret_cast<void*>(a->address);
  int fd = -1;
  drive(vm.export_handle(&fd, a->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle", name, bytes);
  return Buffer::import_fd(ctx, fd, size, bytes, usage, name, std::shared_ptr<DeviceView>(a));
}

}  // namespace raydb::detail::cuda
