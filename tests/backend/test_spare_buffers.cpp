// Buffers a context keeps between builds (backend/vk/spare_buffers.hpp).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>

#include "backend/vk/spare_buffers.hpp"
#include "support.hpp"

using namespace raydb;
using namespace raydb::detail;

namespace {

// take()'s `make`, counting how often a buffer had to be made.
auto maker(VkContext& c, int& made, VkDeviceSize bytes) {
  return [&c, &made, bytes] {
    ++made;
    return Buffer(c, bytes, kStorageUsage, MemoryUse::device, "spare test");
  };
}

}  // namespace

TEST_CASE("spare buffers: taken back at their size and kind, counted as if made") {
  test::ValidationGuard guard;
  VkContext& c = test::context().vk();
  c.drain_releases();  // what earlier builds kept
  const uint64_t before = c.allocated_bytes;
  int made = 0;
  Buffer a = SpareBuffers::take(c, SpareSlot::sort_rows, 4096, false, maker(c, made, 4096));
  CHECK(made == 1);
  const VkDeviceAddress address = a.address();
  const uint64_t held = c.allocated_bytes;
  REQUIRE(held > before);
  SpareBuffers::keep(c, SpareSlot::sort_rows, std::move(a));
  CHECK(!a);
  CHECK(c.allocated_bytes == before);  // kept, not counted

  Buffer b = SpareBuffers::take(c, SpareSlot::sort_rows, 4096, false, maker(c, made, 4096));
  CHECK(made == 1);
  CHECK(b.address() == address);
  CHECK(c.allocated_bytes == held);  // counted again
  // A kept buffer of the other kind is not taken (Vulkan's exportable ones stand for CUDA's).
  if (c.external_memory_fd) {
    SpareBuffers::keep(c, SpareSlot::sort_keys,
                       Buffer::exportable(c, 4096, kStorageUsage, "spare test (exportable)"));
    int other = 0;
    Buffer y = SpareBuffers::take(c, SpareSlot::sort_keys, 4096, false, maker(c, other, 4096));
    CHECK(other == 1);
    CHECK(!y.is_exportable());
  }
  SpareBuffers::keep(c, SpareSlot::sort_rows, std::move(b));

  // Another size is made anew; the slots are apart.
  Buffer d = SpareBuffers::take(c, SpareSlot::sort_rows, 8192, false, maker(c, made, 8192));
  CHECK(made == 2);
  CHECK(d.size() == 8192);
  SpareBuffers::keep(c, SpareSlot::sort_keys, std::move(d));
  Buffer e = SpareBuffers::take(c, SpareSlot::sort_rows, 8192, false, maker(c, made, 8192));
  CHECK(made == 3);
  // A smaller buffer does not displace a larger kept one.
  SpareBuffers::keep(c, SpareSlot::sort_keys,
                     Buffer(c, 1024, kStorageUsage, MemoryUse::device, "spare test (small)"));
  Buffer f = SpareBuffers::take(c, SpareSlot::sort_keys, 8192, false, maker(c, made, 8192));
  CHECK(made == 3);

  // drain_releases frees what is kept: the next take makes its buffer.
  SpareBuffers::keep(c, SpareSlot::sort_rows, std::move(e));
  SpareBuffers::keep(c, SpareSlot::sort_keys, std::move(f));
  CHECK(c.allocated_bytes == before);
  CHECK(c.drain_releases());
  CHECK_FALSE(c.drain_releases());
  Buffer g = SpareBuffers::take(c, SpareSlot::sort_rows, 8192, false, maker(c, made, 8192));
  CHECK(made == 4);
}

TEST_CASE("spare buffers: a context with a memory budget keeps nothing") {
  std::atomic<int> messages{0};
  ContextOptions co;
  co.validation = std::getenv("RAYDB_TEST_NO_VALIDATION") == nullptr;
  co.on_validation_message = [&](std::string_view) { messages.fetch_add(1); };
  co.memory_budget_bytes = uint64_t{1} << 30;
  Context ctx = Context::create(co).value();
  VkContext& c = ctx.vk();
  int made = 0;
  Buffer a = SpareBuffers::take(c, SpareSlot::sort_rows, 4096, false, maker(c, made, 4096));
  const uint64_t held = c.allocated_bytes;
  SpareBuffers::keep(c, SpareSlot::sort_rows, std::move(a));
  CHECK(c.allocated_bytes < held);
  Buffer b = SpareBuffers::take(c, SpareSlot::sort_rows, 4096, false, maker(c, made, 4096));
  CHECK(made == 2);
  CHECK_FALSE(SpareBuffers::drop(c));
  CHECK(messages == 0);
}
