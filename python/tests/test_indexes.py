"""The four indexes against a numpy reference, whole results, on fresh random data and edges."""

import numpy as np
import pytest

import raydb

INDEXES = [raydb.RxIndex, raydb.CgrxIndex, raydb.SortedIndex, raydb.HashIndex]


def reference(keys, values, points):
    """count and sum of the rows holding each point (numpy, no per-element Python)."""
    order = np.argsort(keys, kind="stable")
    sk, sv = keys[order], values[order].astype(np.uint64)
    csum = np.concatenate([[0], np.cumsum(sv, dtype=np.uint64)])
    lo = np.searchsorted(sk, points, "left")
    hi = np.searchsorted(sk, points, "right")
    return (hi - lo).astype(np.uint32), (csum[hi] - csum[lo]).astype(np.uint64)


def check(result, keys, values, points):
    count, total = reference(keys, values, points)
    assert result.dtype == raydb.LOOKUP_DTYPE
    np.testing.assert_array_equal(result["count"], count)
    np.testing.assert_array_equal(result["sum"], total)
    hit = count > 0
    assert np.all(result["first_row"][~hit] == raydb.MISS_ROW)
    # first_row must be a row that holds the key
    np.testing.assert_array_equal(keys[result["first_row"][hit]], points[hit])


@pytest.mark.parametrize("cls", INDEXES)
@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_point_lookups(ctx, rng, cls, dtype):
    top = np.iinfo(dtype).max
    keys = rng.integers(0, 5000, 3000).astype(dtype)
    keys[:3] = [top, top, 0]  # the largest key, duplicated, and zero
    values = rng.integers(0, 2**32, keys.size, dtype=np.uint64).astype(np.uint32)
    index = cls(ctx, keys, values)
    assert index.size == keys.size
    points = np.concatenate([rng.integers(0, 6000, 2000), [0, 5001]]).astype(dtype)
    points = np.concatenate([points, np.array([top, top - 1], dtype=dtype)])
    check(index.lookup(points), keys, values, points)
    # all misses, and an empty batch
    misses = np.arange(10**4, 10**4 + 100, dtype=dtype)
    check(index.lookup(misses), keys, values, misses)
    assert index.lookup(np.array([], dtype=dtype)).shape == (0,)


def test_rx_last_stats(ctx, rng):
    keys = rng.integers(0, 5000, 3000).astype(np.uint32)
    index = raydb.RxIndex(ctx, keys)
    points = keys[:100]
    check(index.lookup(points), keys, np.zeros(keys.size, np.uint32), points)
    stats = index.last_stats
    # RX's pipelined calls write their results straight into pinned host memory: no download.
    assert stats["results_direct"] is True


@pytest.mark.parametrize("cls", INDEXES[:3])
def test_range_lookups(ctx, rng, cls):
    keys = rng.integers(0, 100000, 4000).astype(np.uint32)
    values = rng.integers(0, 1000, keys.size).astype(np.uint32)
    index = cls(ctx, keys, values)
    lo = rng.integers(0, 100000, 500)
    hi = lo + rng.integers(0, 3000, 500)
    ranges = np.stack([lo, hi], axis=1).astype(np.uint32)
    result = index.lookup_ranges(ranges)
    sk = np.sort(keys)
    order = np.argsort(keys, kind="stable")
    csum = np.concatenate([[0], np.cumsum(values[order], dtype=np.uint64)])
    a, b = np.searchsorted(sk, lo, "left"), np.searchsorted(sk, hi, "right")
    np.testing.assert_array_equal(result["count"], b - a)
    np.testing.assert_array_equal(result["sum"], csum[b] - csum[a])


@pytest.mark.parametrize("min_saving", [0.0, 1.0])
def test_rx_compaction_forced_or_skipped(ctx, rng, min_saving):
    keys = rng.integers(0, 5000, 3000).astype(np.uint32)
    values = rng.integers(0, 1000, keys.size).astype(np.uint32)
    index = raydb.RxIndex(ctx, keys, values, compact_min_saving=min_saving)
    stats = index.build_stats
    # 0 compacts always (the driver's compacted size is kept), 1 never (the BVH as built)
    kept = stats["bvh_compacted_bytes"] if min_saving == 0 else stats["bvh_uncompacted_bytes"]
    assert stats["bvh_bytes"] == kept
    points = np.concatenate([keys[:500], [5001]]).astype(np.uint32)
    check(index.lookup(points), keys, values, points)


def test_errors_carry_messages(ctx):
    with pytest.raises(raydb.InvalidArgument, match="compact_min_saving"):
        raydb.RxIndex(ctx, np.arange(4), compact_min_saving=1.5)
    with pytest.raises(raydb.InvalidArgument, match="negative"):
        raydb.RxIndex(ctx, np.array([-1, 2]))
    with pytest.raises(raydb.InvalidArgument, match="values"):
        raydb.RxIndex(ctx, np.arange(4), np.arange(3))
    index = raydb.SortedIndex(ctx, np.arange(10, dtype=np.uint32))
    with pytest.raises(raydb.InvalidArgument, match="lo 5 > hi 1"):
        index.lookup_ranges(np.array([[5, 1]]))
    assert issubclass(raydb.InvalidArgument, ValueError)
    assert issubclass(raydb.OutOfMemory, raydb.Error)
    assert raydb.DeviceLost.code == "device lost"


def test_context_info(ctx):
    devices = raydb.Context.list_devices()
    assert any(d["usable"] for d in devices)
    assert ctx.info["name"] in [d["name"] for d in devices]
    assert ctx.traversal in ("pipeline", "ray_query")
