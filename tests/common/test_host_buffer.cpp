// raydb::HostBuffer: pinned host memory that pipelined lookups and index builds copy from and
// into in place. Lookups through it are checked in test_pipelined_lookups.cpp; here, what the
// buffer promises on its own (size, alignment, the budget's refusal, and that the context forgets
// it when it goes, so that no later call copies into memory the buffer no longer owns) and builds
// from keys and values in it.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/vk/host_buffers.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/host_buffer.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
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

TEST_CASE("host buffer: indexes built from keys and values in host buffers answer as the CPU") {
  // The upload reads them in place (backend/vk/commands.cpp, record_upload) instead of staging.
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<uint32_t> keys;
  for (uint64_t k : test::edge_keys(false)) keys.push_back(static_cast<uint32_t>(k));
  while (keys.size() < 5000) keys.push_back(static_cast<uint32_t>(rng()));
  std::vector<uint32_t> values(keys.size());
  for (auto& v : values) v = static_cast<uint32_t>(rng());
  auto kbuf = HostBuffer::allocate(test::context(), keys.size() * 4 + 16).value();
  auto vbuf = HostBuffer::allocate(test::context(), values.size() * 4 + 16).value();
  // At an offset, so that a copy from the buffer's start would be caught.
  auto* kat = static_cast<uint32_t*>(kbuf.data()) + 4;
  auto* vat = static_cast<uint32_t*>(vbuf.data()) + 4;
  std::memcpy(kat, keys.data(), keys.size() * 4);
  std::memcpy(vat, values.data(), values.size() * 4);
  KeySpan pinned_keys(std::span<const uint32_t>(kat, keys.size()));
  std::span<const uint32_t> pinned_values(vat, values.size());
  RxReference ref(KeySpan(keys), values);
  std::vector<uint32_t> probes;
  for (int i = 0; i < 3000; ++i)
    probes.push_back(i % 2 ? keys[rng() % keys.size()] : static_cast<uint32_t>(rng()));
  auto want = ref.lookup(KeySpan(probes));
  auto rx = RxIndex::build(test::context(), pinned_keys, pinned_values).value();
  test::check_lookups(rx.lookup(KeySpan(probes)).value(), want, "rx from host buffers");
  auto sorted = SortedIndex::build(test::context(), pinned_keys, pinned_values).value();
  test::check_lookups(sorted.lookup(KeySpan(probes)).value(), want, "sorted from host buffers");
  auto hash = HashIndex::build(test::context(), pinned_keys, pinned_values).value();
  test::check_lookups(hash.lookup(KeySpan(probes)).value(), want, "hash from host buffers");
}
