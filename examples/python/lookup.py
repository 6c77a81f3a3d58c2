"""Point and range lookups on an RX index, checked against numpy."""

import numpy as np

import raydb

ctx = raydb.Context()
print("device:", ctx.info["name"])
rng = np.random.default_rng(7)
keys = rng.integers(0, 10**6, 100_000).astype(np.uint32)
values = rng.integers(0, 100, keys.size).astype(np.uint32)
index = raydb.RxIndex(ctx, keys, values)

points = rng.integers(0, 10**6, 10_000).astype(np.uint32)
hits = index.lookup(points)  # structured: first_row, count, sum
sk = np.sort(keys)
want = np.searchsorted(sk, points, "right") - np.searchsorted(sk, points, "left")
assert np.array_equal(hits["count"], want)
print(f"{(hits['count'] > 0).sum()} of {points.size} points hit")

ranges = np.array([[0, 999], [500_000, 500_999]], dtype=np.uint32)
print("keys in ranges:", index.lookup_ranges(ranges)["count"])
