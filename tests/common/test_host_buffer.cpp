// raydb::HostBuffer: pinned host memory that pipelined lookups copy from and into in place. The
// lookups themselves are checked in test_pipelined_lookups.cpp; here, what the buffer promises on
// its own: its size and alignment, the budget's refusal, and that the context forgets it when it
// goes (a later lookup must not copy into memory the buffer no longer owns).
#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "backend/vk/host_buffers.hpp"
#include "raydb/host_buffer.hpp"
#include "support.hpp"

using namespace raydb;

TEST_CASE("host buffer: size, alignment, writes kept, and found by address only while it lives") {
  test::ValidationGuard guard;
  detail::VkContext& vk = test::context().vk();
  const void* where = nullptr;
  {
    auto b = HostBuffer::allocate(test::context(), 1000).value();
    REQUIRE(b.data() != nullptr);
    CHECK(b.size() == 1000);
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % 16 == 0);
    CHECK(b.span<uint32_t>().size() == 250);
    std::memset(b.data(), 0x5A, b.size());
    CHECK(static_cast<const unsigned char*>(b.data())[999] == 0x5A);
    where = b.data();
    auto inside = detail::find_host_buffer(vk, static_cast<const char*>(where) + 100, 900);
    REQUIRE(inside);
    CHECK(inside.offset == 100);
    // A range running past its end is not inside it.
    CHECK_FALSE(detail::find_host_buffer(vk, static_cast<const char*>(where) + 100, 901));
    HostBuffer moved = std::move(b);
    CHECK(moved.data() == where);
    CHECK(b.data() == nullptr);  // a moved-from buffer is empty
    CHECK(b.size() == 0);
  }
  CHECK_FALSE(detail::find_host_buffer(vk, where, 1));
}

TEST_CASE("host buffer: past the memory budget it is refused as out_of_memory, naming it") {
  ContextOptions o;
  o.memory_budget_bytes = uint64_t{1} << 20;
  auto ctx = Context::create(o).value();
  auto b = HostBuffer::allocate(ctx, uint64_t{4} << 20);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().code() == Errc::out_of_memory);
  CHECK(std::string(b.error().what()).find("host buffer") != std::string::npos);
}
