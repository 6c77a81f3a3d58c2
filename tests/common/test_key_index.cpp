// raydb::KeyIndex (raydb/key_index.hpp): every key index has the one shape generic code relies on.
// The checks are at compile time; the test case exists so a ctest entry names the contract.
#include <doctest/doctest.h>

#include "raydb/cgrx_index.hpp"
#include "raydb/hash_index.hpp"
#include "raydb/key_index.hpp"
#include "raydb/rx_index.hpp"
#include "raydb/sorted_index.hpp"

namespace raydb {
namespace {

static_assert(KeyIndex<RxIndex>);
static_assert(KeyIndex<CgrxIndex>);
static_assert(KeyIndex<SortedIndex>);
static_assert(KeyIndex<HashIndex>);

static_assert(RangeKeyLookup<RxIndex>);
static_assert(RangeKeyLookup<CgrxIndex>);
static_assert(RangeKeyLookup<SortedIndex>);
static_assert(!RangeKeyLookup<HashIndex>);  // a hash table answers point lookups only

// A type without the shape is refused, so the assertions above can fail.
struct NotAnIndex {
  Status lookup(KeySpan, std::span<RxLookup>);
};
static_assert(!KeyLookup<NotAnIndex> && !KeyIndex<NotAnIndex>);

}  // namespace

TEST_CASE("key index: RxIndex, CgrxIndex, SortedIndex and HashIndex satisfy raydb::KeyIndex") {
  CHECK(KeyIndex<RxIndex>);
  CHECK(KeyIndex<CgrxIndex>);
  CHECK(KeyIndex<SortedIndex>);
  CHECK(KeyIndex<HashIndex>);
}

}  // namespace raydb
