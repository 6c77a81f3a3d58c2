// Where CUDA kernels stall, on a GPU machine that has the driver but no profiler: a CUPTI
// injection library that samples every kernel's warps (PC sampling, continuous mode: kernels run
// as they would) and, at exit, prints the stall reasons of the kernels whose names contain
// $PCS_FILTER, summed over their launches, and their most-sampled instructions. Built here (CUPTI
// comes with the toolkit) and carried with libcupti.so.13; bench/gpu/pc_sampling.sh says how and
// runs it:
//   g++ -O2 -shared -fPIC bench/gpu/pc_sampling.cpp -I$CUDA/include -L$CUDA/lib -lcupti -o pcs.so
// On the GPU machine, with libcupti.so.13 on LD_LIBRARY_PATH:
//   CUDA_INJECTION64_PATH=$PWD/pcs.so PCS_FILTER=sieve_select raydb bench dpbis ...
// PCS_PERIOD sets the sampling period (2^PCS_PERIOD cycles; 10 when unset). Sampled kernels run
// about as fast as unsampled ones (the sieve: 0.190 against 0.189 ms on the H100).
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct PcKey {
  std::string function;
  uint64_t pc;
  bool operator<(const PcKey& o) const {
    return function != o.function ? function < o.function : pc < o.pc;
  }
};

struct State {
  std::mutex mutex;
  CUpti_SubscriberHandle subscriber{};
  CUcontext ctx = nullptr;
  std::vector<uint32_t> reason_index;
  std::vector<std::string> reason_name;
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<std::vector<CUpti_PCSamplingStallReason>> pc_reasons;
  CUpti_PCSamplingData data{};
  std::map<PcKey, std::map<uint32_t, uint64_t>> samples;  // (function, pc) -> reason -> samples
  uint64_t total = 0, dropped = 0;
  bool printed = false;
  std::vector<std::vector<char>> cubins;  // every module loaded, for PC -> source line
};

State& state() {
  static State* s = new State;  // never destroyed: the exit handlers use it
  return *s;
}

constexpr size_t kMaxPcs = 50000;  // distinct PCs the sampling data buffer holds

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  std::fprintf(stderr, "pc_sampling: %s: %s\n", what, msg ? msg : "?");
}

// Points the sampling data buffer at empty per-PC records.
void reset_buffer(State& s) {
  for (size_t i = 0; i < s.pcs.size(); ++i) {
    s.pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    s.pcs[i].stallReasonCount = s.reason_index.size();
    s.pcs[i].stallReason = s.pc_reasons[i].data();
  }
  s.data.size = sizeof(CUpti_PCSamplingData);
  s.data.collectNumPcs = s.pcs.size();
  s.data.pPcData = s.pcs.data();
}

// Moves the PCs in the sampling data buffer into State::samples.
void collect(State& s) {
  s.total += s.data.totalSamples;
  s.dropped += s.data.droppedSamples;
  for (size_t i = 0; i < s.data.totalNumPcs && i < s.pcs.size(); ++i) {
    const CUpti_PCSamplingPCData& pc = s.pcs[i];
    auto& reasons = s.samples[{pc.functionName ? pc.functionName : "?", pc.pcOffset}];
    for (size_t k = 0; k < pc.stallReasonCount; ++k)
      reasons[pc.stallReason[k].pcSamplingStallReasonIndex] += pc.stallReason[k].samples;
  }
  if (s.data.remainingNumPcs != 0)
    std::fprintf(stderr, "pc_sampling: %zu PCs did not fit\n", s.data.remainingNumPcs);
}

// "file:line" of a PC, where the module was built with -lineinfo; "" otherwise.
std::string source_line(const State& s, const std::string& function, uint64_t pc) {
  for (const std::vector<char>& cubin : s.cubins) {
    CUpti_GetSassToSourceCorrelationParams p{};
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = cubin.data();
    p.cubinSize = cubin.size();
    p.functionName = function.c_str();
    p.pcOffset = pc;
    if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) continue;
    std::string where = p.fileName ? p.fileName : "?";
    if (auto slash = where.rfind('/'); slash != std::string::npos) where = where.substr(slash + 1);
    std::free(p.fileName);
    std::free(p.dirName);
    return where + ":" + std::to_string(p.lineNumber);
  }
  return "";
}

std::string reason_name(const State& s, uint32_t index) {
  for (size_t i = 0; i < s.reason_index.size(); ++i)
    if (s.reason_index[i] == index) return s.reason_name[i];
  return "reason " + std::to_string(index);
}

void print(State& s) {
  if (s.printed) return;
  s.printed = true;
  const char* filter = std::getenv("PCS_FILTER");
  std::map<std::string, std::map<uint32_t, uint64_t>> per_function;
  for (const auto& [key, reasons] : s.samples) {
    if (filter && !std::strstr(key.function.c_str(), filter)) continue;
    for (const auto& [r, n] : reasons) per_function[key.function][r] += n;
  }
  std::printf("pc_sampling: %llu samples, %llu dropped\n", static_cast<unsigned long long>(s.total),
              static_cast<unsigned long long>(s.dropped));
  for (const auto& [function, reasons] : per_function) {
    uint64_t sum = 0;
    for (const auto& [r, n] : reasons) sum += n;
    std::printf("== %s: %llu samples\n", function.c_str(), static_cast<unsigned long long>(sum));
    std::vector<std::pair<uint64_t, uint32_t>> sorted;
    for (const auto& [r, n] : reasons) sorted.push_back({n, r});
    std::sort(sorted.rbegin(), sorted.rend());
    for (const auto& [n, r] : sorted)
      if (n * 200 >= sum)  // 0.5% and up
        std::printf("  %6.2f%%  %s\n", 100.0 * n / sum, reason_name(s, r).c_str());
    // Samples per source line (modules built with -lineinfo).
    std::map<std::string, uint64_t> per_line;
    for (const auto& [key, rs] : s.samples) {
      if (key.function != function) continue;
      std::string line = source_line(s, function, key.pc);
      if (line.empty()) continue;
      for (const auto& [r, c] : rs) per_line[line] += c;
    }
    std::vector<std::pair<uint64_t, std::string>> lines;
    for (const auto& [line, n] : per_line) lines.push_back({n, line});
    std::sort(lines.rbegin(), lines.rend());
    for (size_t i = 0; i < lines.size() && i < 16; ++i)
      std::printf("  line %-22s %6.2f%%\n", lines[i].second.c_str(), 100.0 * lines[i].first / sum);
    // The instructions with the most samples, each with its two largest reasons.
    std::vector<std::pair<uint64_t, uint64_t>> pcs;  // samples, pc
    for (const auto& [key, rs] : s.samples) {
      if (key.function != function) continue;
      uint64_t n = 0;
      for (const auto& [r, c] : rs) n += c;
      pcs.push_back({n, key.pc});
    }
    std::sort(pcs.rbegin(), pcs.rend());
    for (size_t i = 0; i < pcs.size() && i < 16; ++i) {
      const auto& rs = s.samples[{function, pcs[i].second}];
      std::vector<std::pair<uint64_t, uint32_t>> top;
      for (const auto& [r, c] : rs) top.push_back({c, r});
      std::sort(top.rbegin(), top.rend());
      std::printf("  pc 0x%05llx %6.2f%% %-22s", static_cast<unsigned long long>(pcs[i].second),
                  100.0 * pcs[i].first / sum, source_line(s, function, pcs[i].second).c_str());
      for (size_t k = 0; k < top.size() && k < 2; ++k)
        std::printf("  %s %.0f%%", reason_name(s, top[k].second).c_str(),
                    100.0 * top[k].first / pcs[i].first);
      std::printf("\n");
    }
  }
  std::fflush(stdout);
}

// In continuous mode CUPTI hands every PC over into the configured buffer when sampling is
// disabled (caller holds the mutex).
void finish(State& s) {
  if (!s.ctx) return;
  CUpti_PCSamplingDisableParams d{};
  d.size = CUpti_PCSamplingDisableParamsSize;
  d.ctx = s.ctx;
  check(cuptiPCSamplingDisable(&d), "cuptiPCSamplingDisable");
  s.ctx = nullptr;
  collect(s);
  print(s);
}

void enable(State& s, CUcontext ctx) {
  if (s.ctx) return;  // one context: raydb uses the primary one
  CUpti_PCSamplingEnableParams e{};
  e.size = CUpti_PCSamplingEnableParamsSize;
  e.ctx = ctx;
  check(cuptiPCSamplingEnable(&e), "cuptiPCSamplingEnable");
  size_t n = 0;
  CUpti_PCSamplingGetNumStallReasonsParams np{};
  np.size = CUpti_PCSamplingGetNumStallReasonsParamsSize;
  np.ctx = ctx;
  np.numStallReasons = &n;
  check(cuptiPCSamplingGetNumStallReasons(&np), "cuptiPCSamplingGetNumStallReasons");
  s.reason_index.resize(n);
  std::vector<std::vector<char>> names(n, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
  std::vector<char*> name_ptrs(n);
  for (size_t i = 0; i < n; ++i) name_ptrs[i] = names[i].data();
  CUpti_PCSamplingGetStallReasonsParams rp{};
  rp.size = CUpti_PCSamplingGetStallReasonsParamsSize;
  rp.ctx = ctx;
  rp.numStallReasons = n;
  rp.stallReasonIndex = s.reason_index.data();
  rp.stallReasons = name_ptrs.data();
  check(cuptiPCSamplingGetStallReasons(&rp), "cuptiPCSamplingGetStallReasons");
  for (size_t i = 0; i < n; ++i) s.reason_name.push_back(names[i].data());
  s.pcs.resize(kMaxPcs);
  s.pc_reasons.assign(kMaxPcs, std::vector<CUpti_PCSamplingStallReason>(n));
  reset_buffer(s);

  std::vector<CUpti_PCSamplingConfigurationInfo> info(7);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[0].attributeData.stallReasonData.stallReasonCount = n;
  info[0].attributeData.stallReasonData.pStallReasonIndex = s.reason_index.data();
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[1].attributeData.samplingDataBufferData.samplingDataBuffer = &s.data;
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[2].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
  info[3].attributeData.samplingPeriodData.samplingPeriod =
      std::getenv("PCS_PERIOD") ? static_cast<uint32_t>(std::atoi(std::getenv("PCS_PERIOD"))) : 10;
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE;
  info[4].attributeData.scratchBufferSizeData.scratchBufferSize = size_t{256} << 20;
  info[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE;
  info[5].attributeData.hardwareBufferSizeData.hardwareBufferSize = size_t{512} << 20;
  info[6].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[6].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  CUpti_PCSamplingConfigurationInfoParams cp{};
  cp.size = CUpti_PCSamplingConfigurationInfoParamsSize;
  cp.ctx = ctx;
  cp.numAttributes = info.size();
  cp.pPCSamplingConfigurationInfo = info.data();
  check(cuptiPCSamplingSetConfigurationAttribute(&cp), "cuptiPCSamplingSetConfigurationAttribute");
  s.ctx = ctx;
}

// CUPTI's worker thread moves samples from the hardware buffer into its scratch buffer (256 MiB),
// one record per PC, until the context goes or the process exits; then they are printed.
void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    const auto* r = static_cast<const CUpti_ResourceData*>(data);
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) enable(s, r->context);
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* m = static_cast<const CUpti_ModuleResourceData*>(r->resourceDescriptor);
      if (m && m->pCubin) s.cubins.emplace_back(m->pCubin, m->pCubin + m->cubinSize);
    }
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && r->context == s.ctx) finish(s);
  }
}

void at_exit() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  finish(s);
}

}  // namespace

extern "C" int InitializeInjection() {
  State& s = state();
  check(cuptiSubscribe(&s.subscriber, on_callback, nullptr), "cuptiSubscribe");
  check(cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
        "cuptiEnableCallback");
  check(cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
        "cuptiEnableCallback");
  check(cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_MODULE_LOADED),
        "cuptiEnableCallback");
  std::atexit(at_exit);
  return 1;
}
