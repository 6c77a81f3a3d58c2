#define DOCTEST_CONFIG_IMPLEMENT
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "support.hpp"

namespace raydb::test {

namespace {
std::unique_ptr<Context> g_context;
std::atomic<uint64_t> g_messages{0};  // also counts messages while the context is destroyed
}  // namespace

Context& context() {
  if (!g_context) {
    ContextOptions o;
    // The GPU machine has no validation layer; its test script sets RAYDB_TEST_NO_VALIDATION=1.
    o.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
    o.on_validation_message = [](std::string_view text) {
      g_messages.fetch_add(1);
      std::fprintf(stderr, "%.*s\n", static_cast<int>(text.size()), text.data());
    };
    auto c = Context::create(o);
    if (!c) {
      std::fprintf(stderr, "cannot create the test's Vulkan context: %s\n", c.error().what());
      std::exit(2);
    }
    g_context = std::make_unique<Context>(std::move(c).value());
  }
  return *g_context;
}

uint64_t fresh_seed() {
  if (const char* s = std::getenv("RAYDB_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  uint64_t seed = (uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  MESSAGE("seed " << seed << " (set RAYDB_TEST_SEED to replay)");
  return seed;
}

}  // namespace raydb::test

int main(int argc, char** argv) {
  doctest::Context runner(argc, argv);
  int rc = runner.run();
  if (runner.shouldExit()) return rc;
  raydb::test::g_context.reset();
  if (uint64_t m = raydb::test::g_messages.load(); m != 0) {
    std::fprintf(stderr, "FAIL: %llu Vulkan validation message(s) during the run\n",
                 static_cast<unsigned long long>(m));
    return rc ? rc : 1;
  }
  return rc;
}
