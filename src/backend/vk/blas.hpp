// The one BLAS build sequence every operator uses: allocate, record (with the step that writes the
// primitives), time, barrier, wait, compact.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "backend/vk/accel.hpp"
#include "backend/vk/commands.hpp"

namespace raydb::detail {

// One BLAS to build: its request, its name, and `prepare`, recorded just before its build in the
// same command buffer (the kernel that writes its primitives and the barrier from it to the
// build); empty when the primitives are already there.
struct BlasBuild {
  BuildRequest req;
  std::string name;
  std::function<void(VkCommandBuffer)> prepare;
};

// GPU ms, summed over the BLAS of one build_blas call, and the bytes before compaction.
struct BlasTimes {
  double prepare_ms = 0;  // the prepare steps
  double build_ms = 0;    // the builds
  double compact_ms = 0;  // the compaction copies; 0 without compaction
  uint64_t uncompacted_bytes = 0;
};

// Records builds[k] into targets[k] (an in-place update from itself when `update`), each as
// timestamp, prepare, timestamp, build, timestamp (3 marks a build, appended to `marks`). One
// scratch buffer at `scratch` serves them all: a barrier separates one build from the next one's
// prepare. Ends without the barrier to the readers (accel_write_barrier).
void record_blas_builds(VkContext& ctx, VkCommandBuffer cmd, GpuTimer& timer,
                        std::vector<uint32_t>& marks, std::span<const BlasBuild> builds,
                        std::span<AccelStruct> targets, VkDeviceAddress scratch, bool update);

// The device memory of one build_blas call: the BLAS of each build, sized by its request, and one
// scratch buffer for them all. Made ahead (make_blas_memory) where the host would otherwise wait,
// while an upload runs, say; build_blas makes it itself otherwise.
struct BlasMemory {
  std::vector<AccelStruct> targets;
  Scratch scratch;
};
BlasMemory make_blas_memory(VkContext& ctx, std::span<const BlasBuild> builds);

// Builds `builds` in one submission with one scratch buffer (sized for the largest), times each
// prepare and build, ends with accel_write_barrier and waits. Then frees `inputs` (what the builds
// read; may be null) and the scratch, and, where the requests allow compaction (all alike),
// compacts every BLAS in one round trip, freeing the uncompacted ones; all of these on the
// context's release queue. Returns the BLAS in the order of `builds`.
// `memory`, when given, is make_blas_memory's for requests of the same sizes.
std::vector<AccelStruct> build_blas(VkContext& ctx, std::span<const BlasBuild> builds,
                                    BlasTimes& times, Buffer* inputs = nullptr,
                                    BlasMemory* memory = nullptr);
// The same for one BLAS.
AccelStruct build_blas(VkContext& ctx, const BlasBuild& build, BlasTimes& times,
                       Buffer* inputs = nullptr);

}  // namespace raydb::detail
