// Builds from ordinary host memory through the staging chunks (backend/vk/staged_upload.hpp):
// keys and values cut into many small pieces, more than the ring has chunks, at offsets that are
// not multiples of 4. Every index's lookups are compared whole with the CPU reference, and with
// the same build from HostBuffers (which the copy engines read in place, unstaged).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

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

}  // namespace

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
