"""RTScan, DP-BIS and the joins against numpy references on fresh random data."""

import numpy as np
import pytest

import raydb

OPS = {
    "lt": lambda c, v, w: c < v,
    "le": lambda c, v, w: c <= v,
    "gt": lambda c, v, w: c > v,
    "ge": lambda c, v, w: c >= v,
    "eq": lambda c, v, w: c == v,
    "between": lambda c, v, w: (c >= v) & (c <= w),
}


def expected(columns, predicates, combine=np.logical_and):
    mask = None
    for col, op, v, w in predicates:
        m = OPS[op](columns[col], v, w)
        mask = m if mask is None else combine(mask, m)
    return np.flatnonzero(mask).astype(np.uint32)


def random_predicates(rng, ncols, top):
    preds = []
    for col in rng.choice(ncols, size=rng.integers(1, ncols + 1), replace=False):
        op = rng.choice(list(OPS))
        v = int(rng.integers(0, top))
        w = int(rng.integers(v, top + 1))
        preds.append((int(col), str(op), v, w))
    return preds


def test_rtscan(ctx, rng):
    columns = rng.integers(0, 1000, (3, 5000)).astype(np.uint32)
    columns[0, :2] = [0, 2**32 - 1]  # both ends of the value domain
    # a coarse ray lattice (about 150 rays): the default's 400 000 take a minute on lavapipe
    table = raydb.RtScanTable(ctx, columns, interval=5000 / 48, segment=5000 / 3)
    assert (table.rows, table.columns) == (5000, 3)
    for _ in range(6):
        preds = random_predicates(rng, 3, 1000)
        bitmap = table.select(preds)
        want = expected(columns, preds)
        np.testing.assert_array_equal(bitmap.row_ids(), want)
        assert bitmap.count() == want.size
        np.testing.assert_array_equal(np.flatnonzero(bitmap.to_bool()), want)
    # selects nothing
    assert table.select([(1, "gt", 2**32 - 2)]).count() == 0


@pytest.mark.parametrize("combine", ["all", "any"])
def test_dpbis(ctx, rng, combine):
    columns = [rng.integers(0, 10**6, 4000).astype(np.uint32) for _ in range(2)]
    table = raydb.DpBisTable(ctx, columns, bins=64)
    for _ in range(4):
        preds = random_predicates(rng, 2, 10**6)
        objs = [raydb.Predicate(c, op, v, w) for c, op, v, w in preds]
        got = table.select(objs, combine=combine).row_ids()
        how = np.logical_and if combine == "all" else np.logical_or
        np.testing.assert_array_equal(got, expected(columns, preds, how))


def reference_pairs(build, probe):
    b = np.argsort(build, kind="stable")
    sb = build[b]
    lo, hi = np.searchsorted(sb, probe, "left"), np.searchsorted(sb, probe, "right")
    counts = hi - lo
    probe_rows = np.repeat(np.arange(probe.size), counts)
    starts = np.repeat(lo - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    build_rows = b[starts + np.arange(probe_rows.size)]
    pairs = np.empty(probe_rows.size, dtype=raydb.JOIN_PAIR_DTYPE)
    pairs["build_row"], pairs["probe_row"] = build_rows, probe_rows
    return np.sort(pairs, order=["build_row", "probe_row"])


def test_joins(ctx, rng):
    build = rng.integers(0, 3000, 2000).astype(np.uint32)
    probe = rng.integers(0, 4000, 3000).astype(np.uint32)
    values = rng.integers(0, 100, build.size).astype(np.uint32)
    want = reference_pairs(build, probe)
    got = [raydb.join(ctx, build, probe), raydb.join(ctx, build, probe, kind="cgrx"),
           raydb.RxJoin(ctx, build).pairs(probe), raydb.CgrxJoin(ctx, build).pairs(probe),
           raydb.baseline_join(ctx, "hash", build, probe),
           raydb.baseline_join(ctx, "sort_merge", build, probe)]
    for pairs in got:
        np.testing.assert_array_equal(np.sort(pairs, order=["build_row", "probe_row"]), want)
    agg = raydb.join_aggregate(ctx, build, values, probe)
    assert agg["matches"] == want.size
    assert agg["build_value_sum"] == int(values[want["build_row"]].astype(np.uint64).sum())
    # no matches at all
    assert raydb.RxJoin(ctx, build).pairs(probe + 10**6).size == 0
