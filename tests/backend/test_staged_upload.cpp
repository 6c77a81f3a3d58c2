// Builds from ordinary host memory through the staging chunks (backend/vk/staged_upload.hpp):
// keys and values cut into many small pieces, more than the ring has chunks, at offsets that are
// not multiples of 4. Every index's lookups are compared whole with the CPU reference, and with
// the same build from HostBuffers (which the copy engines read in place, unstaged).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "backend/vk/call_lock.hpp"
#include "backend/vk/commands.hpp"
#include "backend/vk/staged_upload.hpp"
#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/host_buffer.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/rx_reference.hpp"
#include "raydb/sorted_index.hpp"
#include "raydb/workload.hpp"
#include "support.hpp"

using namespace raydb;
using detail::Buffer;

namespace {

// Stages every upload of at least `threshold` bytes in chunks of `chunk` bytes for one scope.
struct StagedSizes {
  StagedSizes(uint64_t threshold, uint64_t chunk) {
    detail::set_staged_upload_sizes(threshold, chunk);
  }
  ~StagedSizes() { detail::set_staged_upload_sizes(0, 0); }
};

template <class Index>
void check_index(const Index& index, const workload::KeyColumn& probes,
                 const std::vector<RxLookup>& want, const std::string& what) {
  std::vector<RxLookup> got(want.size(), RxLookup{7, 7, 7});
  REQUIRE(const_cast<Index&>(index).lookup(probes.span(), std::span<RxLookup>(got)).ok());
  test::check_lookups(got, want, what.c_str());
}

// `bytes` of `b` from `offset`, read once the upload's copy `copy` (and those before it) is in
// place, waiting for that copy's value only.
std::vector<uint8_t> read_after(detail::VkContext& c, const detail::StagedUpload& up, size_t copy,
                                const Buffer& b, uint64_t offset, uint64_t bytes) {
  Buffer readback(c, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, detail::MemoryUse::readback,
                  "test readback");
  detail::CommandBatch batch(c);
  up.record_acquire(batch.cmd(), copy);
  batch.wait_for(up.semaphore(), up.done_value(copy), VK_PIPELINE_STAGE_TRANSFER_BIT);
  VkBufferCopy region{offset, 0, bytes};
  c.vk.vkCmdCopyBuffer(batch.cmd(), b.handle(), readback.handle(), 1, &region);
  batch.submit_and_wait();
  readback.invalidate();
  const auto* p = static_cast<const uint8_t*>(readback.mapped());
  return std::vector<uint8_t>(p, p + bytes);
}

}  // namespace

// A build waits for its keys' copy alone before it sorts, and for the values' before the layout
// (ops/common/key_records.cpp): each copy's value must mean that copy is in place.
TEST_CASE("staged upload: each copy signals its own value once in place, an empty one the last") {
  test::ValidationGuard guard;
  detail::VkContext& c = test::context().vk();
  REQUIRE(c.timeline_semaphore);
  StagedSizes sizes(64, 1000);
  std::mt19937_64 rng(test::fresh_seed());
  std::vector<uint8_t> first(5003), second(2501);  // 6 and 3 pieces of 1000 bytes
  for (auto* v : {&first, &second})
    for (auto& x : *v) x = static_cast<uint8_t>(rng());
  using detail::MemoryUse;
  Buffer a(c, 5008, detail::kStorageUsage, MemoryUse::device, "first copy");
  Buffer none(c, 16, detail::kStorageUsage, MemoryUse::device, "empty copy");
  Buffer b(c, 2508, detail::kStorageUsage, MemoryUse::device, "second copy");
  detail::CallLock lock(c);
  detail::StagedUpload up(c, {{&a, 0, first.data(), first.size()},
                              {&none, 0, nullptr, 0},
                              {&b, 4, second.data(), second.size()}});
  CHECK(up.done_value(0) > 0);
  CHECK(up.done_value(1) == up.done_value(0));  // nothing to copy: done with the copy before
  CHECK(up.done_value(2) > up.done_value(0));
  CHECK(up.done_value() == up.done_value(2));
  up.wait_submitted(0);
  CHECK(read_after(c, up, 0, a, 0, first.size()) == first);
  up.wait_submitted();
  CHECK(read_after(c, up, 2, b, 4, second.size()) == second);
  up.wait();
}

TEST_CASE("staged upload: builds from host memory in many small pieces equal the reference") {
  test::ValidationGuard guard;
  std::mt19937_64 rng(test::fresh_seed());
  StagedSizes sizes(64, 1000);
  for (KeyWidth w : {KeyWidth::bits32, KeyWidth::bits64}) {
    CAPTURE(to_string(w));
    const bool wide = w == KeyWidth::bits64;
    std::vector<uint64_t> ks = test::edge_keys(wide);
    while (ks.size() < 3001) ks.push_back(rng() % (wide ? ~uint64_t{0} : 0xFFFFFFFFull));
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    std::shuffle(ks.begin(), ks.end(), rng);
    workload::KeyColumn keys;
    keys.width = w;
    for (uint64_t k : ks) keys.push_back(k);
    std::vector<uint32_t> values(keys.size());
    for (auto& v : values) v = static_cast<uint32_t>(rng());
    workload::KeyColumn probes;
    probes.width = w;
    for (int i = 0; i < 4000; ++i) probes.push_back(i % 3 ? keys[rng() % keys.size()] : rng());
    const RxReference ref(keys.span(), values);
    const auto want = ref.lookup(probes.span());

    check_index(RxIndex::build(test::context(), keys.span(), values).value(), probes, want,
                "rx, staged");
    check_index(RxIndex::build(test::context(), keys.span()).value(), probes,
                RxReference(keys.span(), {}).lookup(probes.span()), "rx without values, staged");
    check_index(SortedIndex::build(test::context(), keys.span(), values).value(), probes, want,
                "sorted, staged");
    check_index(HashIndex::build(test::context(), keys.span(), values).value(), probes, want,
                "hash, staged");
    check_index(CgrxIndex::build(test::context(), keys.span(), values).value(), probes, want,
                "cgrx, staged");

    // The same keys and values in HostBuffers: read in place, not staged.
    const uint64_t kb = keys.span().size * (wide ? 8 : 4);
    auto kbuf = HostBuffer::allocate(test::context(), kb).value();
    auto vbuf = HostBuffer::allocate(test::context(), values.size() * 4).value();
    std::memcpy(kbuf.data(), keys.span().data, kb);
    std::memcpy(vbuf.data(), values.data(), values.size() * 4);
    KeySpan pinned = keys.span();
    pinned.data = kbuf.data();
    check_index(
        RxIndex::build(test::context(), pinned, vbuf.span<const uint32_t>().first(values.size()))
            .value(),
        probes, want, "rx from HostBuffers");
  }
}
