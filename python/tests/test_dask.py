"""raydb.dask on a LocalCluster of three worker processes: partitioned lookups in input order."""

import numpy as np
import pytest

import raydb

distributed = pytest.importorskip("distributed")
import raydb.dask as rdask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                       dashboard_address=None, env={"LP_NUM_THREADS": "1"})
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_partitioned_lookup(client, rng):
    keys = rng.integers(0, 10**5, 5000).astype(np.uint32)
    values = rng.integers(0, 1000, keys.size).astype(np.uint32)
    index = rdask.PartitionedIndex(client, keys, values)
    assert sum(index.sizes) == keys.size and len(index.sizes) == 3
    points = np.concatenate([rng.integers(0, 11 * 10**4, 3000), [0, 2**32 - 1]]).astype(np.uint32)
    got = index.lookup(points)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    csum = np.concatenate([[0], np.cumsum(values[order], dtype=np.uint64)])
    lo, hi = np.searchsorted(sk, points, "left"), np.searchsorted(sk, points, "right")
    np.testing.assert_array_equal(got["count"], hi - lo)
    np.testing.assert_array_equal(got["sum"], csum[hi] - csum[lo])
    hit = hi > lo
    np.testing.assert_array_equal(keys[got["first_row"][hit]], points[hit])

