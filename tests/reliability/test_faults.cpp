// Device faults: out of device memory (through the memory budget, which makes it reachable on
// lavapipe), a lost device (through the backend's test hook), and results files written whole
// when the writer is killed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/staged_upload.hpp"
#include "backend/vk/vk_common.hpp"
#include "common/append_file.hpp"
#include "ops/common/lookup_batch.hpp"
#include "raydb/rtscan.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "support.hpp"

namespace raydb {
namespace {

// A Context of its own (a budget, or a device to lose), validation on, its messages counted.
struct OwnContext {
  std::atomic<uint64_t> messages{0};
  std::unique_ptr<Context> ctx;
  explicit OwnContext(uint64_t budget = 0) {
    ContextOptions o;
    o.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
    o.memory_budget_bytes = budget;
    o.on_validation_message = [this](std::string_view text) {
      messages.fetch_add(1);
      MESSAGE(std::string(text));
    };
    auto c = Context::create(o);
    REQUIRE_MESSAGE(c.ok(), std::string(c.ok() ? "" : c.error().what()));
    ctx = std::make_unique<Context>(std::move(c).value());
  }
  ~OwnContext() {
    ctx.reset();
    CHECK_MESSAGE(messages.load() == 0, "Vulkan validation messages");
  }
};

std::vector<uint32_t> random_keys(size_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> k(n);
  for (auto& x : k) x = static_cast<uint32_t>(rng() % (4 * n));
  return k;
}

}  // namespace

TEST_CASE("faults: a build past the memory budget is out_of_memory naming the allocation") {
  OwnContext own(64 * 1024);
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(1 << 16, rng);  // 256 KiB of keys alone: past 64 KiB
  auto index = RxIndex::build(*own.ctx, KeySpan(keys));
  REQUIRE_FALSE(index.ok());
  CHECK(index.error().code() == Errc::out_of_memory);
  std::string what = index.error().what();
  CAPTURE(what);
  // Refused up front (before any allocation), naming the count, the bytes and the budget.
  CHECK(what.find("an RX build of 65536 32-bit keys needs at least ") != std::string::npos);
  CHECK(what.find(" bytes of device memory") != std::string::npos);
  CHECK(what.find("0 bytes held of 65536") != std::string::npos);  // the budget, named
  // Nothing stays allocated from the failed build.
  CHECK(own.ctx->allocated_bytes() == 0);
}

TEST_CASE("faults: builds past the device's limits are refused up front, naming limit and count") {
  Context& ctx = test::context();
  const DeviceInfo& d = ctx.device();
  SUBCASE("more RTScan cubes than maxPrimitiveCount (one BLAS)") {
    // lavapipe's maxPrimitiveCount is 2^24 - 1: one row past it is 64 MiB of host keys.
    if (d.max_primitive_count >= (uint64_t{1} << 30)) {
      MESSAGE("maxPrimitiveCount " << d.max_primitive_count
                                   << ": past 4 GiB of host keys, not tried");
      return;
    }
    std::vector<uint32_t> col(d.max_primitive_count + 1, 7);
    std::span<const uint32_t> cols[] = {col};
    auto t = RtScanTable::build(ctx, cols);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().code() == Errc::limit_exceeded);
    std::string what = t.error().what();
    CAPTURE(what);
    CHECK(what.find(std::to_string(d.max_primitive_count + 1) + " rows") != std::string::npos);
    CHECK(what.find(std::to_string(d.max_primitive_count) + " primitives") != std::string::npos);
  }
  SUBCASE("an RX build larger than the device's memory") {
    // The keys are not read before the check: a span over a small buffer, claiming more keys
    // than the device's heap holds, is refused from its size alone.
    REQUIRE(d.device_local_bytes > 0);
    const uint64_t n = d.device_local_bytes / 8 + 1;
    std::vector<uint64_t> few(16, 1);
    KeySpan huge{std::span<const uint64_t>(few)};
    huge.size = n;
    auto index = RxIndex::build(ctx, huge);
    REQUIRE_FALSE(index.ok());
    std::string what = index.error().what();
    CAPTURE(what);
    if (n > 0xFFFFFFFEull) {
      // A heap past 32 GiB: the 32-bit row ids' limit comes first, also before any work.
      CHECK(index.error().code() == Errc::limit_exceeded);
      CHECK(what.find(std::to_string(n) + " keys given") != std::string::npos);
    } else {
      CHECK(index.error().code() == Errc::out_of_memory);
      CHECK(what.find("an RX build of " + std::to_string(n) + " 64-bit keys") != std::string::npos);
      CHECK(what.find("largest device-local heap (" + std::to_string(d.device_local_bytes) +
                      " bytes)") != std::string::npos);
    }
  }
  SUBCASE("an RX build past the memory budget, with memory already held") {
    // 16 MiB: room for a small index on every driver (NVIDIA's build scratch and BVH for 1,024
    // keys are larger than lavapipe's), while the second build's keys alone exceed it.
    constexpr uint64_t kBudget = 16 << 20;
    OwnContext own(kBudget);
    std::vector<uint32_t> small(1 << 10, 3);
    auto first = RxIndex::build(*own.ctx, KeySpan(small));  // holds part of the budget
    REQUIRE_MESSAGE(first.ok(), std::string(first.ok() ? "" : first.error().what()));
    const uint64_t held = own.ctx->allocated_bytes();
    std::vector<uint32_t> big(kBudget / 4 + 1, 5);  // more than the budget in keys alone
    auto second = RxIndex::build(*own.ctx, KeySpan(big));
    REQUIRE_FALSE(second.ok());
    CHECK(second.error().code() == Errc::out_of_memory);
    std::string what = second.error().what();
    CAPTURE(what);
    CHECK(what.find("an RX build of " + std::to_string(big.size()) +
                    " 32-bit keys needs at least ") != std::string::npos);
    CHECK(what.find(std::to_string(held) + " bytes held of " + std::to_string(kBudget)) !=
          std::string::npos);
    CHECK(own.ctx->allocated_bytes() == held);  // nothing allocated by the refused build
  }
}

TEST_CASE("faults: a lookup past the memory budget fails cleanly; the index stays right") {
  OwnContext own(8 << 20);
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(2000, rng);
  auto index = RxIndex::build(*own.ctx, KeySpan(keys));
  REQUIRE_MESSAGE(index.ok(), std::string(index.ok() ? "" : index.error().what()));
  RxReference ref{KeySpan(keys)};
  // 4 Mi points: 16 MiB of keys to upload, past the 8 MiB budget.
  std::vector<uint32_t> big(4u << 20);
  for (auto& x : big) x = keys[rng() % keys.size()];
  auto failed = index->lookup(KeySpan(big));
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code() == Errc::out_of_memory);
  std::string what = failed.error().what();
  CAPTURE(what);
  CHECK(what.find("budget") != std::string::npos);
  CHECK(what.find("8388608") != std::string::npos);
  // The failure left no half-made state behind: a batch that fits is exact.
  std::vector<uint32_t> small(3000);
  for (auto& x : small) x = rng() % 2 ? keys[rng() % keys.size()] : static_cast<uint32_t>(rng());
  auto got = index->lookup(KeySpan(small));
  REQUIRE_MESSAGE(got.ok(), std::string(got.ok() ? "" : got.error().what()));
  test::check_lookups(*got, ref.lookup(KeySpan(small)), "after out_of_memory");
}

TEST_CASE("faults: Vulkan's out-of-memory results map to Errc::out_of_memory") {
  using detail::errc_of;
  CHECK(errc_of(VK_ERROR_OUT_OF_DEVICE_MEMORY) == Errc::out_of_memory);
  CHECK(errc_of(VK_ERROR_OUT_OF_HOST_MEMORY) == Errc::out_of_memory);
  CHECK(errc_of(VK_ERROR_OUT_OF_POOL_MEMORY) == Errc::out_of_memory);
  CHECK(errc_of(VK_ERROR_DEVICE_LOST) == Errc::device_lost);
  try {
    detail::vk_fail(VK_ERROR_OUT_OF_DEVICE_MEMORY, "allocating rx records (123 bytes)");
    FAIL("vk_fail returned");
  } catch (const Error& e) {
    CHECK(e.code() == Errc::out_of_memory);
    CHECK(std::string(e.what()).find("allocating rx records (123 bytes)") != std::string::npos);
  }
}

TEST_CASE("faults: after a lost device every call on that Context fails with device_lost") {
  OwnContext own;
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(1000, rng);
  auto index = RxIndex::build(*own.ctx, KeySpan(keys));
  REQUIRE(index.ok());
  auto sorted = SortedIndex::build(*own.ctx, KeySpan(keys));
  REQUIRE(sorted.ok());
  RxReference ref{KeySpan(keys)};
  auto before = index->lookup(KeySpan(keys));
  REQUIRE(before.ok());
  test::check_lookups(*before, ref.lookup(KeySpan(keys)), "before the loss");

  detail::inject_device_loss(*own.ctx);
  auto lost = index->lookup(KeySpan(keys));  // its submit is the one that fails
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.error().code() == Errc::device_lost);
  CHECK(std::string(lost.error().what()).find("VK_ERROR_DEVICE_LOST") != std::string::npos);

  // Every later call refuses, on every object of the Context, without touching the device.
  for (int i = 0; i < 3; ++i) {
    auto again = index->lookup(KeySpan(keys));
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code() == Errc::device_lost);
  }
  auto other = sorted->lookup(KeySpan(keys));
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code() == Errc::device_lost);
  auto rebuilt = index->rebuild(KeySpan(keys));
  REQUIRE_FALSE(rebuilt.ok());
  CHECK(rebuilt.error().code() == Errc::device_lost);
  auto fresh = RxIndex::build(*own.ctx, KeySpan(keys));
  REQUIRE_FALSE(fresh.ok());
  CHECK(fresh.error().code() == Errc::device_lost);
  CHECK(std::string(fresh.error().what()).find("create a new one") != std::string::npos);

  // Other Contexts are unaffected.
  auto elsewhere = RxIndex::build(test::context(), KeySpan(keys));
  REQUIRE(elsewhere.ok());
  auto ok = elsewhere->lookup(KeySpan(keys));
  REQUIRE(ok.ok());
  test::check_lookups(*ok, ref.lookup(KeySpan(keys)), "another Context");
}

TEST_CASE("faults: a device lost midway through a pipelined call leaves nothing to wait for") {
  // A pipelined chunk submits its upload, its kernel and, unless the next chunk's kernel carries
  // its results out (RX with sort_probes), its download. A loss at any of them leaves chunks in
  // flight, and a carried chunk whose carrier never ran has a fence that nothing will signal:
  // the Context's destruction must still return (a hang fails by the test's timeout). Losses at
  // the first six submissions cover the first chunks' uploads and kernels, the fourth the kernel
  // that would have signalled the first chunk's fence.
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(1000, rng);
  detail::LookupChunkScope chunks(64);
  for (unsigned submits = 0; submits < 6; ++submits) {
    CAPTURE(submits);
    OwnContext own;
    RxBuildOptions o;
    o.sort_probes = true;
    auto index = RxIndex::build(*own.ctx, KeySpan(keys), {}, o);
    REQUIRE(index.ok());
    detail::inject_device_loss(*own.ctx, submits);
    auto lost = index->lookup(KeySpan(keys));
    REQUIRE_FALSE(lost.ok());
    CHECK(lost.error().code() == Errc::device_lost);
  }
}

TEST_CASE("faults: a device lost midway through a staged build fails cleanly") {
  // From ordinary host memory a build's columns go up in pieces (backend/vk/staged_upload.hpp),
  // on a thread of their own where the device has a copy queue, and the build waits only until
  // the last piece is submitted. A loss at any piece must reach the caller as device_lost, and
  // the Context's destruction must still return (a hang fails by the test's timeout).
  std::mt19937_64 rng(test::fresh_seed());
  auto keys = random_keys(3000, rng);
  std::vector<uint32_t> values(keys.size(), 7);
  struct Pieces {  // 12 KiB of keys and of values in pieces of 1000 bytes
    Pieces() { detail::set_staged_upload_sizes(64, 1000); }
    ~Pieces() { detail::set_staged_upload_sizes(0, 0); }
  } pieces;
  for (unsigned submits : {0u, 1u, 5u, 13u, 20u}) {
    CAPTURE(submits);
    OwnContext own;
    detail::inject_device_loss(*own.ctx, submits);
    auto lost = SortedIndex::build(*own.ctx, KeySpan(keys), values);
    REQUIRE_FALSE(lost.ok());
    CHECK(lost.error().code() == Errc::device_lost);
  }
}

TEST_CASE("faults: a results writer killed midway leaves only whole lines") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("raydb-kill-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "rows.jsonl").string();
  // Lines of 100 to 4000 bytes, so that many would cross a page boundary, prepared before fork:
  // the child only writes. Without fsync (durable = false) the writer spends its time in write(2),
  // where a kill lands: with one O_APPEND write per line, these 40 rounds left 2 or 3 partial lines
  // among ~65,000-95,000 in each of three runs here (ext4, Linux 6.18).
  std::vector<std::string> lines;
  for (int i = 0; i < 64; ++i)
    lines.push_back("{\"row\":" + std::to_string(i) + ",\"pad\":\"" +
                    std::string(static_cast<size_t>(100 + 61 * i), 'x') + "\"}\n");
  const int rounds = 40;
  int kills = 0;
  for (int round = 0; round < rounds; ++round) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (;;)
        for (const auto& l : lines) detail::append_line(file, l, /*durable=*/false);
    }
    ::usleep(static_cast<useconds_t>(2000 + 700 * round));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    kills += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }
  CHECK(kills == rounds);
  std::ifstream in(file, std::ios::binary);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!content.empty());
  CHECK(content.back() == '\n');
  size_t count = 0, bad = 0, pos = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    std::string line = content.substr(pos, end - pos + 1);
    bool known = false;
    // A line may carry trailing spaces: the padding that kept the next line within one page.
    std::string trimmed = line.substr(0, line.find_last_not_of(" \n") + 1) + '\n';
    for (const auto& l : lines) known = known || l == trimmed;
    bad += !known;
    ++count;
    pos = end + 1;
  }
  MESSAGE(count << " lines written by " << rounds << " killed writers");
  CHECK(count > 20);
  CHECK_MESSAGE(bad == 0, bad << " of " << count << " lines are partial or garbled");
  fs::remove_all(dir);
}

}  // namespace raydb
