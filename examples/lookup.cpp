// Build an RX index over keys in host memory, look some keys up, and check the answers.
// Runs on any Vulkan device with ray tracing: a GPU, or Mesa's lavapipe on the CPU.
//   RAYDB_VALIDATION=1 ./lookup      (with the Vulkan validation layer)
#include <raydb/context.hpp>
#include <raydb/rx_index.hpp>
#include <raydb/version.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  // Errors are values: value() throws raydb::Error (with a message naming the cause) on failure.
  raydb::Context ctx = raydb::Context::create().value();
  std::printf("raydb %s on %s (%s traversal)\n", raydb::version, ctx.device().name.c_str(),
              raydb::to_string(ctx.traversal()));

  // A key column: row i has key keys[i] and value values[i]. Keys may repeat.
  std::vector<uint64_t> keys;
  std::vector<uint32_t> values;
  for (uint32_t row = 0; row < 100000; ++row) {
    keys.push_back(uint64_t{row % 50000} * 3 + (uint64_t{1} << 40));  // each key twice
    values.push_back(row);
  }
  raydb::RxIndex index = raydb::RxIndex::build(ctx, keys, values).value();

  // Point lookups: per query the first matching row, the number of matches, the sum of values.
  std::vector<uint64_t> queries = {uint64_t{1} << 40, (uint64_t{1} << 40) + 3, 7, ~uint64_t{0}};
  std::vector<raydb::RxLookup> found = index.lookup(queries).value();

  // Range lookups [lo, hi], inclusive: how many rows hold keys between two values.
  std::vector<raydb::Range64> ranges = {{uint64_t{1} << 40, (uint64_t{1} << 40) + 299}};
  std::vector<raydb::RxLookup> in_range = index.lookup_ranges(ranges).value();

  // The same answers from a loop over the keys: raydb's results are exact.
  int wrong = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    raydb::RxLookup expect;
    for (uint32_t row = 0; row < keys.size(); ++row)
      if (keys[row] == queries[q]) {
        if (expect.count == 0) expect.first_row = row;
        ++expect.count;
        expect.sum += values[row];
      }
    std::printf("key %llu: %u rows, first row %d, sum %llu\n",
                static_cast<unsigned long long>(queries[q]), found[q].count,
                found[q].hit() ? static_cast<int>(found[q].first_row) : -1,
                static_cast<unsigned long long>(found[q].sum));
    wrong += found[q] != expect;
  }
  uint32_t expect_range = 0;
  for (uint64_t k : keys) expect_range += k >= ranges[0].lo && k <= ranges[0].hi;
  std::printf("keys in [2^40, 2^40 + 299]: %u rows\n", in_range[0].count);
  wrong += in_range[0].count != expect_range;
  if (wrong) std::fprintf(stderr, "lookup: %d answers differ from the loop\n", wrong);
  // With RAYDB_VALIDATION=1 the Vulkan validation layer watches; it must have nothing to say.
  if (ctx.validation_messages() != 0) {
    std::fprintf(stderr, "lookup: %llu validation messages\n",
                 static_cast<unsigned long long>(ctx.validation_messages()));
    return 1;
  }
  return wrong ? 1 : 0;
}
