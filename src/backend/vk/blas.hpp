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
  double compact_ms = 0;  // the compaction copies; 0 without them
  uint64_t uncompacted_bytes = 0;
  uint64_t compacted_bytes = 0;  // what the driver reported; 0 where compaction was not allowed
};

// Compaction copies each BLAS into a structure of its compacted size: one more allocation, a copy,
// and both copies held at the peak. On the H100 it saved 4% of RX's 4.55 GB BVH and cost about 15
// ms of a 160 ms build (docs/e2e.md), so it runs only where it saves at least this fraction of the
// bytes. RxBuildOptions::compact_min_saving and CgrxBuildOptions' have the same default.
inline constexpr double kCompactMinSaving = 0.10;

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
// read; may be null) and the scratch. Where the requests allow compaction (all alike), their
// compacted sizes are queried in the same submission, and where the sum saves at least
// `compact_min_saving` (a fraction of the bytes) every BLAS is copied into a structure of its
// compacted size in one more round trip and the uncompacted ones freed. Frees go on the
// context's release queue. Returns the BLAS in the order of `builds`.
// `memory`, when given, is make_blas_memory's for requests of the same sizes.
std::vector<AccelStruct> build_blas(VkContext& ctx, std::span<const BlasBuild> builds,
                                    BlasTimes& times, Buffer* inputs = nullptr,
                                    BlasMemory* memory = nullptr,
                                    double compact_min_saving = kCompactMinSaving);
// The same for one BLAS.
AccelStruct build_blas(VkContext& ctx, const BlasBuild& build, BlasTimes& times,
                       Buffer* inputs = nullptr, double compact_min_saving = kCompactMinSaving);

}  // namespace raydb::detail
