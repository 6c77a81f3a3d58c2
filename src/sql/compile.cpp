// glslang's C++ API in process (Debian's shaderc fails at run time), with a SPIR-V cache in
// memory and on disk keyed by the source's hash.
#include <fmt/format.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "sql/codegen.hpp"

namespace raydb::sql::detail {

namespace fs = std::filesystem;

uint64_t source_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

std::once_flag g_init;

EShLanguage language(Stage s) {
  switch (s) {
    case Stage::raygen:
      return EShLangRayGen;
    case Stage::any_hit:
      return EShLangAnyHit;
    case Stage::miss:
      return EShLangMiss;
    case Stage::closest_hit:
      return EShLangClosestHit;
    case Stage::intersection:
      return EShLangIntersect;
    case Stage::compute:
      return EShLangCompute;
  }
  return EShLangCompute;
}

}  // namespace

ShaderCompiler::ShaderCompiler(std::string dir) : dir_(std::move(dir)) {
  std::call_once(g_init, [] { glslang::InitializeProcess(); });
}
ShaderCompiler::~ShaderCompiler() = default;

const std::vector<uint32_t>& ShaderCompiler::compile(const std::string& source, Stage stage,
                                                     bool& cached, double& ms) {
  // The stage is part of the key: one text may serve two stages.
  uint64_t h = source_hash(source + "\n//stage " + std::to_string(static_cast<int>(stage)));
  if (auto it = memory_.find(h); it != memory_.end()) {
    cached = true;
    return it->second;
  }
  fs::path file = dir_ == "-" ? fs::path() : fs::path(dir_) / fmt::format("{:016x}.spv", h);
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (in) {
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
      if (!bytes.empty() && bytes.size() % 4 == 0) {
        std::vector<uint32_t> words(bytes.size() / 4);
        std::memcpy(words.data(), bytes.data(), bytes.size());
        if (words[0] == 0x07230203u) {
          cached = true;
          return memory_.emplace(h, std::move(words)).first->second;
        }
      }
    }
  }
  cached = false;
  auto t0 = std::chrono::steady_clock::now();
  EShLanguage lang = language(stage);
  glslang::TShader shader(lang);
  const char* text = source.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, lang, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  auto msgs = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 460, false, msgs))
    throw Error(Errc::internal, fmt::format("generated GLSL does not compile: {}\n{}",
                                            shader.getInfoLog(), source));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(msgs))
    throw Error(Errc::internal,
                fmt::format("generated GLSL does not link: {}\n{}", program.getInfoLog(), source));
  std::vector<uint32_t> spirv;
  glslang::SpvOptions opt;
  opt.disableOptimizer = false;
  glslang::GlslangToSpv(*program.getIntermediate(lang), spirv, &opt);
  ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!file.empty()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    // Written aside and renamed, so a concurrent reader never sees half a file; a cache that
    // cannot be written only costs the next run a compile.
    fs::path tmp = file;
    tmp += fmt::format(".{}.tmp", static_cast<unsigned long>(::getpid()));
    {
      std::ofstream out(tmp, std::ios::binary);
      out.write(reinterpret_cast<const char*>(spirv.data()),
                static_cast<std::streamsize>(spirv.size() * 4));
    }
    fs::rename(tmp, file, ec);
  }
  return memory_.emplace(h, std::move(spirv)).first->second;
}

}  // namespace raydb::sql::detail
