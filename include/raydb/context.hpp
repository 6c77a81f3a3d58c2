// raydb::Context: the Vulkan device raydb works on. Either raydb creates its own instance and
// device (the best ray-tracing device present, or one chosen by name or index), or it adopts a
// host application's instance, device and queue.
//
// Ownership: a Context shares its state with every index built from it; the Vulkan objects live
// until the last of them is destroyed. An adopted device is never destroyed by raydb.
// Thread-safety: a Context and the operators made from it may be used from several threads at
// once. Every call that reaches the device takes the Context's one lock, so the calls on one
// Context run one at a time (they share one queue and, per operator, per-call buffers); use
// several Contexts for work that should overlap. Moving or destroying an object while another
// thread uses it is the caller's error, as for any C++ object; getters of last-call statistics
// report the latest call of any thread. An adopted device's queue must not be used by the host
// while a raydb call runs (Vulkan requires queue access to be externally synchronised).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "raydb/diagnostics.hpp"
#include "raydb/error.hpp"
#include "raydb/vulkan_handles.hpp"

namespace raydb {

namespace detail {
struct VkContext;
}

/// How rays are traversed. A capability of the device, not a build choice.
enum class TraversalMode {
  automatic,  ///< the ray-tracing pipeline if the device has it, else ray queries
  pipeline,   ///< VK_KHR_ray_tracing_pipeline: raygen / any-hit / intersection / miss + SBT
  ray_query,  ///< VK_KHR_ray_query from compute shaders
};
const char* to_string(TraversalMode mode);
Result<TraversalMode> parse_traversal_mode(std::string_view text);

/// Which API traces an operator's rays where it has an OptiX twin (docs/optix.md): Vulkan, or
/// NVIDIA OptiX on the same device (optional; see optix_support() in raydb/optix.hpp).
enum class RayTracingApi { vulkan, optix };

/// Which API runs the plain data-parallel kernels (sort, bitmaps, sieving, refinement). Every CUDA
/// kernel has a Vulkan compute twin with the same results, so this changes speed, never answers.
enum class Backend {
  automatic,  ///< CUDA where Context::cuda() says it is available, else Vulkan
  vulkan,     ///< Vulkan compute
  cuda,       ///< CUDA over memory shared with Vulkan; Errc::unsupported where unavailable
};
const char* to_string(Backend backend);
Result<Backend> parse_backend(std::string_view text);  ///< auto | vulkan | cuda

/// Whether this process can run raydb's CUDA kernels on the context's device: a build with CUDA,
/// a CUDA device that is the same GPU as the Vulkan device (equal UUIDs), and on the Vulkan side
/// VK_KHR_external_memory_fd, VK_KHR_external_semaphore_fd and timeline semaphores.
struct CudaSupport {
  bool available = false;  ///< whether the CUDA kernels run on this context's device
  std::string reason;      ///< why not, in words; empty when available
  int ordinal = -1;        ///< the CUDA device number, when available
  std::string name;        ///< the CUDA device's name, when available
};

/// What a Vulkan physical device offers raydb (as `raydb info` prints it); a plain value.
struct DeviceInfo {
  uint32_t index = 0;  ///< position in vkEnumeratePhysicalDevices
  std::string name;    ///< VkPhysicalDeviceProperties::deviceName
  std::string type;    ///< "discrete GPU", "integrated GPU", "virtual GPU", "CPU", "other"
  ///@{
  /// PCI vendor and device ids (VkPhysicalDeviceProperties).
  uint32_t vendor_id = 0, device_id = 0;
  ///@}
  std::string api_version;  ///< e.g. "1.4.305"
  ///@{
  /// VkPhysicalDeviceDriverProperties::driverName and driverInfo.
  std::string driver_name, driver_info;
  ///@}
  std::string driver_version;  ///< decoded the vendor's way where known
  std::string uuid;            ///< VkPhysicalDeviceIDProperties::deviceUUID in hex (matches CUDA's)
  ///@{
  /// VK_KHR_acceleration_structure, VK_KHR_ray_tracing_pipeline, VK_KHR_ray_query: present and
  /// with their features (raydb needs the first and one of the others).
  bool acceleration_structure = false, ray_tracing_pipeline = false, ray_query = false;
  ///@}
  /// rayTraversalPrimitiveCulling (optional: enabled when present): a ray-tracing pipeline that
  /// traces one kind of primitive tells the driver to skip the other, as OptiX's
  /// usesPrimitiveTypeFlags does.
  bool primitive_culling = false;
  /// VK_NV_ray_tracing_invocation_reorder (shader execution reordering; raydb does not use it):
  /// "absent", "no reordering" (the extension is there but the driver's hint says it does not
  /// reorder) or "reorders".
  std::string invocation_reorder = "absent";
  ///@{
  /// Required features: bufferDeviceAddress, shaderInt64, scalarBlockLayout.
  bool buffer_device_address = false, shader_int64 = false, scalar_block_layout = false;
  ///@}
  ///@{
  /// Sharing memory and ordering work with CUDA (optional: enabled when present).
  bool external_memory_fd = false, external_semaphore_fd = false, timeline_semaphore = false;
  ///@}
  /// 64-bit atomics on buffers (optional; enabled when present): the SSB engine's group sums.
  bool buffer_int64_atomics = false;
  ///@{
  /// Limits of VkPhysicalDeviceAccelerationStructurePropertiesKHR and
  /// VkPhysicalDeviceRayTracingPipelinePropertiesKHR (0 where the extension is absent).
  uint64_t max_primitive_count = 0, max_instance_count = 0, max_geometry_count = 0;
  ///@}
  ///@{
  /// MaxRayRecursionDepth and shaderGroupHandleSize (bytes) of the ray-tracing pipeline.
  uint32_t max_ray_recursion_depth = 0, shader_group_handle_size = 0;
  ///@}
  /// MaxRayDispatchInvocationCount: the most rays one launch may cast.
  uint32_t max_ray_dispatch_invocation_count = 0;
  double timestamp_period_ns = 0;   ///< GPU timestamp tick, nanoseconds
  bool timestamps = false;          ///< whether the compute queue writes timestamps (GPU times)
  uint64_t device_local_bytes = 0;  ///< largest device-local heap

  /// Has what raydb needs: acceleration structures, one traversal mode, device addresses, int64.
  bool usable() const;
  /// Why not usable(), in words; empty when usable.
  std::string missing() const;
};

/// How Context::create or Context::adopt chooses and sets up the device.
struct ContextOptions {
  /// Which device: "" picks the best usable one (discrete GPU first, then integrated, virtual,
  /// CPU); a number picks that index; any other text picks the first device whose name contains
  /// it (case-insensitive). When empty, the RAYDB_DEVICE environment variable is used.
  std::string device;
  /// automatic: the pipeline where available, else ray queries. RAYDB_TRAVERSAL
  /// (pipeline | ray_query) overrides automatic.
  TraversalMode traversal = TraversalMode::automatic;
  /// Enable VK_LAYER_KHRONOS_validation (also RAYDB_VALIDATION=1). Messages of warning or error
  /// severity are counted (Context::validation_messages) and passed to on_validation_message,
  /// which by default prints them to stderr.
  bool validation = false;
  std::function<void(std::string_view)> on_validation_message;  ///< called from any thread
  /// Who runs the data-parallel kernels of operators that take no backend of their own (bitmap
  /// algebra of full_scan's bitmaps, ...). When automatic, RAYDB_BACKEND (auto | vulkan | cuda)
  /// overrides it. cuda where unavailable makes those operators fail with Errc::unsupported.
  Backend backend = Backend::automatic;
  /// Device memory raydb may hold through this Context, bytes; 0: no budget but the device's. An
  /// allocation past it fails with Errc::out_of_memory naming the allocation, its size and the
  /// budget, as a real VK_ERROR_OUT_OF_DEVICE_MEMORY does (so that case is testable on any
  /// device). (The raydb CLI fills it from RAYDB_MEMORY_BUDGET; the library reads no such
  /// variable.) Without a budget the Context keeps a build's largest temporaries (its uploaded
  /// columns, the sort's buffers, CUDA's kernel scratch) for the next build of that size, about
  /// 1.25 GiB for 2^26 32-bit keys with values; an allocation that runs out of memory frees them
  /// first. With a budget it keeps none.
  uint64_t memory_budget_bytes = 0;
  /// Experiment switches (raydb/diagnostics.hpp); the defaults are what raydb ships.
  Diagnostics diagnostics;
};

/// A host application's Vulkan objects, for Context::adopt. The device must have been created
/// with raydb's extensions and features enabled: DeviceFeatureChain (raydb/vulkan_device.hpp)
/// fills them into the VkDeviceCreateInfo and returns this structure.
struct HostVulkan {
  VkInstance instance = nullptr;               ///< the host's instance (raydb never destroys it)
  VkPhysicalDevice physical_device = nullptr;  ///< the device's physical device
  VkDevice device = nullptr;                   ///< the host's device (raydb never destroys it)
  VkQueue queue = nullptr;  ///< must support compute; raydb submits to it and waits on fences
  uint32_t queue_family_index = 0;  ///< the family `queue` belongs to
  uint32_t api_version = 0;         ///< VkApplicationInfo::apiVersion of the instance; at least 1.2
  /// PFN_vkGetInstanceProcAddr to load functions through; null: the system's Vulkan loader.
  void* get_instance_proc_addr = nullptr;
  /// Which of DeviceFeatureChain::optional_extensions the host enabled; raydb uses no other.
  std::vector<std::string> enabled_optional_extensions;
  /// Whether the host enabled VkPhysicalDeviceVulkan12Features::timelineSemaphore.
  bool timeline_semaphore = false;
  /// Whether the host enabled VkPhysicalDeviceRayTracingPipelineFeaturesKHR::
  /// rayTraversalPrimitiveCulling (optional; pipelines then skip the primitives they never trace).
  bool primitive_culling = false;
};

/// A Vulkan device (created or adopted) and what raydb keeps on it: every index, table and
/// engine is made from one. Ownership, lifetime and thread-safety: see the file comment.
class Context {
 public:
  /// Opens a device of its own: options.device, else the best usable one. Errc::unsupported
  /// names what the devices lack.
  static Result<Context> create(const ContextOptions& options = {});
  /// Uses a host application's device (see HostVulkan, DeviceFeatureChain). The host keeps
  /// ownership and destroys its objects after every raydb object made from this Context.
  static Result<Context> adopt(const HostVulkan& host, const ContextOptions& options = {});
  /// Every physical device of the system loader, usable or not.
  static Result<std::vector<DeviceInfo>> list_devices();

  const DeviceInfo& device() const;  ///< The device in use.
  TraversalMode traversal() const;   ///< never automatic
  /// Validation messages (warning or error) seen since creation; 0 without validation.
  uint64_t validation_messages() const;
  /// Bytes raydb has allocated on the device right now.
  uint64_t allocated_bytes() const;
  /// Whether the CUDA fast path can run here, and why not. Probed on first call (this loads the
  /// CUDA runtime); a missing driver or device is an answer, never an error.
  const CudaSupport& cuda() const;
  /// `backend` resolved for this context: automatic becomes cuda or vulkan; cuda fails with
  /// Errc::unsupported (and the reason) where CUDA is unavailable.
  Result<Backend> resolve(Backend backend) const;

  /// raydb's own Vulkan state, for raydb's operators (internal: not a stable API).
  detail::VkContext& vk() const { return *impl_; }
  /// The same, shared: how an operator keeps its Context alive (internal).
  std::shared_ptr<detail::VkContext> shared() const { return impl_; }

 private:
  explicit Context(std::shared_ptr<detail::VkContext> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<detail::VkContext> impl_;
};

}  // namespace raydb
