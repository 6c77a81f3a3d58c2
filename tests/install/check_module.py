"""Imports raydb, which must come from the folder given (an installed copy, not a build tree),
and checks an RX lookup on random keys whole against numpy with no validation message. Run by
pip_install.sh and python_install.sh in an empty environment: check_module.py <site folder>."""

import os
import sys

import numpy as np

import raydb

site = os.path.realpath(sys.argv[1])
if not os.path.realpath(raydb.__file__).startswith(site + os.sep):
    sys.exit(f"check_module: raydb came from {raydb.__file__}, not from {site}")
rng = np.random.default_rng()
keys = rng.integers(0, 2**32 - 1, 5000, dtype=np.uint64).astype(np.uint32)
values = rng.integers(0, 1000, keys.size).astype(np.uint32)
# hits, random misses and the key range's edges
points = np.concatenate([keys[:1000], rng.integers(0, 2**32 - 1, 1000), [0, 2**32 - 1]])
points = points.astype(np.uint32)
ctx = raydb.Context()
got = raydb.RxIndex(ctx, keys, values).lookup(points)
order = np.argsort(keys, kind="stable")
sk = keys[order]
csum = np.concatenate([[0], np.cumsum(values[order], dtype=np.uint64)])
lo, hi = np.searchsorted(sk, points, "left"), np.searchsorted(sk, points, "right")
np.testing.assert_array_equal(got["count"], hi - lo)
np.testing.assert_array_equal(got["sum"], csum[hi] - csum[lo])
hit = hi > lo
np.testing.assert_array_equal(keys[got["first_row"][hit]], points[hit])
assert (got["first_row"][~hit] == raydb.MISS_ROW).all()
assert ctx.validation_messages == 0, f"{ctx.validation_messages} validation messages"
print(f"check_module: raydb from {os.path.dirname(raydb.__file__)}: {points.size} RX lookups "
      f"({int(hit.sum())} hits) equal numpy on {ctx.info['name']}")
