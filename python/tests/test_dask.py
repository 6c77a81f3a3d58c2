"""raydb.dask on one LocalCluster of three worker processes (shared by the module: starting one
takes seconds): partitioned lookups in input order, distributed star queries against SQLite, a
worker killed during a query."""

import numpy as np
import pytest

import raydb
import star_data

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
    # dask collections in: an array and a dataframe column give the same results in input order
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd

    np.testing.assert_array_equal(index.lookup(da.from_array(points, chunks=700)), got)
    frame = dd.from_pandas(pd.DataFrame({"k": points}), npartitions=3)
    np.testing.assert_array_equal(index.lookup(frame["k"]), got)



@pytest.fixture(scope="module")
def star(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dstar")
    return folder, star_data.write(np.random.default_rng(), folder, fact_rows=2000)


@pytest.mark.skipif(not hasattr(raydb, "SqlEngine"), reason="built without RAYDB_SQL")
def test_distributed_sql_equals_sqlite(client, star):
    folder, db = star
    dist = rdask.DistributedSql(client, folder / "schema.sql", folder, "sales",
                                cache_dir=str(folder / "cache"))
    assert len(set(dist.placement)) == 3
    for query in star_data.QUERIES + star_data.MERGE_QUERIES:
        star_data.assert_equal(dist.sql(query), db, query)
    # two workers of the three: any N
    two = rdask.DistributedSql(client, folder / "schema.sql", folder, "sales",
                               workers=dist.workers[:2], cache_dir=str(folder / "cache"))
    star_data.assert_equal(two.sql(star_data.QUERIES[0]), db, star_data.QUERIES[0])


def test_distributed_ssb_equals_sqlite(client):
    from test_ssb import run_sqlite, sqlite_db

    tables = raydb.ssb.Tables.generate(0.01, seed=int(np.random.default_rng().integers(1, 1000)))
    dist = rdask.DistributedSsb(client, tables)
    db = sqlite_db(tables)
    for query in raydb.ssb.query_names():
        got, want = dist.run(query), run_sqlite(db, query)
        assert list(got) == list(want)
        for name in want:
            assert got[name].tolist() == want[name], (query, name)


def test_bench_smoke(client, tmp_path):
    """python -m raydb.bench dask on this cluster's first 1 and 2 workers: one JSON line per
    measurement, with device, driver, N and positive timings."""
    import json

    import raydb.bench

    out = tmp_path / "dask.jsonl"
    raydb.bench.main(["dask", "--scheduler", client.scheduler.address, "--workers", "1,2",
                      "--keys", "3000", "--lookups", "2000", "--sf", "0.01", "--queries", "q2.1",
                      "--repeat", "2", "--out", str(out)])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    ops = {(r["workers"], r["op"]) for r in lines}
    for n in (1, 2):
        assert {(n, "task_overhead"), (n, "index_build"), (n, "lookup"), (n, "ssb_query")} <= ops
    for r in lines:
        assert r["device"] and r["driver"]
        assert r.get("median_ms", r.get("build_ms", r.get("load_ms"))) > 0


def test_bench_devices_check(tmp_path, monkeypatch):
    """--devices starts one worker per listed device (here twice the same one), --check compares
    every merged SSB answer with one engine over the whole table, and a difference is caught."""
    import json

    import raydb.bench

    monkeypatch.setenv("LP_NUM_THREADS", "1")
    out = tmp_path / "dask.jsonl"
    raydb.bench.main(["dask", "--devices", "0,0", "--workers", "2", "--keys", "0", "--sf", "0.01",
                      "--queries", "q2.1,q3.3", "--check", "--repeat", "1", "--warmup", "0",
                      "--out", str(out)])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    single = [r for r in lines if r["op"] == "ssb_single"]
    queries = [r for r in lines if r["op"] == "ssb_query"]
    assert [r["query"] for r in single] == [r["query"] for r in queries] == ["q2.1", "q3.3"]
    assert all(r["checked"] is True and len(r["worker_devices"]) == 2 for r in queries)
    assert queries[0]["max_trace_ms"] > 0 and queries[0]["rays"] > 0  # q2.1 has rays at any SF
    assert not any(r["op"] in ("index_build", "lookup") for r in lines)  # --keys 0
    a = {"d_year": np.array([1992, 1993]), "revenue": np.array([5, 7])}
    assert raydb.bench._same(a, {k: v.copy() for k, v in a.items()})
    assert not raydb.bench._same(a, {"d_year": a["d_year"], "revenue": np.array([5, 8])})
    assert not raydb.bench._same(a, {"revenue": a["revenue"], "d_year": a["d_year"]})


def _kill_one(client, dist):
    import os
    import signal

    victim = dist.placement[1]
    assert dist.placement.count(victim) == 1
    pid = client.run(os.getpid)[victim]
    return victim, lambda: os.kill(pid, signal.SIGKILL)


def _expected_lookup(keys, values, points):
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    csum = np.concatenate([[0], np.cumsum(values[order], dtype=np.uint64)])
    lo, hi = np.searchsorted(sk, points, "left"), np.searchsorted(sk, points, "right")
    return hi - lo, csum[hi] - csum[lo]


def _assert_lookup(got, keys, values, points):
    count, total = _expected_lookup(keys, values, points)
    np.testing.assert_array_equal(got["count"], count)
    np.testing.assert_array_equal(got["sum"], total)
    hit = count > 0
    np.testing.assert_array_equal(keys[got["first_row"][hit]], points[hit])
    assert (got["first_row"][~hit] == raydb.MISS_ROW).all()


def _arange(n):
    return np.arange(n, dtype=np.uint64)


def test_await_all_large_results(client):
    """Results that take many polls to transfer arrive whole: a gather cut short at each poll made
    the scheduler shut the worker down ("Couldn't gather keys"), as 2^26 lookups did on a GPU."""
    workers = sorted(client.scheduler_info()["workers"])
    n = 8 << 20  # 64 MB per result
    futures = [client.submit(_arange, n + i, workers=[w], pure=False)
               for i, w in enumerate(workers)]
    got = rdask.await_all(client, futures, workers, poll_s=0.001)
    assert len(got) == len(workers)
    for i, g in enumerate(got):
        np.testing.assert_array_equal(g, np.arange(n + i, dtype=np.uint64))
    assert sorted(client.scheduler_info()["workers"]) == workers  # none was shut down


def test_worker_lost_mid_lookups(client, rng):
    """A PartitionedIndex whose worker is killed: PartitionLost without retries; with them, the
    partition is rebuilt on a live worker and every answer is whole. Kills a worker process (the
    nanny starts a new one): runs after the tests that count on three fresh workers."""
    import threading

    client.wait_for_workers(3, timeout=60)
    keys = rng.integers(0, 10**6, 20000).astype(np.uint32)
    values = rng.integers(0, 1000, keys.size).astype(np.uint32)
    points = np.concatenate([rng.integers(0, 11 * 10**5, 20000), [0, 2**32 - 1]]).astype(np.uint32)
    index = rdask.PartitionedIndex(client, keys, values, retries=0)
    _assert_lookup(index.lookup(points), keys, values, points)
    victim, kill = _kill_one(client, index)
    kill()
    with pytest.raises(rdask.PartitionLost, match=victim.replace(".", r"\.")):
        index.lookup(points)

    client.wait_for_workers(3, timeout=60)
    keys_before, values_before = keys.copy(), values.copy()
    index = rdask.PartitionedIndex(client, keys, values, retries=2)
    keys[:] = 0  # the caller's arrays change: a rebuild must use the copy the index keeps
    victim, kill = _kill_one(client, index)
    results, errors, killed = [], [], threading.Event()

    def run():
        try:
            while not killed.is_set():
                results.append(index.lookup(points))
            results.append(index.lookup(points))  # started after the kill: needs the rebuild
        except Exception as e:  # reported by the assertion below
            errors.append(e)

    runner = threading.Thread(target=run)
    runner.start()
    while not results and runner.is_alive():
        runner.join(0.01)
    kill()  # during the second lookup, or between two
    killed.set()
    runner.join(120)
    assert not runner.is_alive() and not errors, errors
    assert len(results) >= 2 and victim not in index.placement
    for got in results:
        _assert_lookup(got, keys_before, values_before, points)


@pytest.mark.skipif(not hasattr(raydb, "SqlEngine"), reason="built without RAYDB_SQL")
def test_worker_lost_mid_query(client, star):
    """Runs last in this module: it kills worker processes (the nanny starts new ones)."""
    import threading
    import time

    folder, db = star
    query = star_data.QUERIES[1]
    # no retries: a clear error naming the lost worker
    dist = rdask.DistributedSql(client, folder / "schema.sql", folder, "sales", retries=0,
                                cache_dir=str(folder / "cache"))
    victim, kill = _kill_one(client, dist)
    kill()
    with pytest.raises(rdask.PartitionLost, match=victim.replace(".", r"\.")):
        dist.sql(query)
    # with a retry, the lost part is loaded again on a live worker: the result is whole
    client.wait_for_workers(3, timeout=60)
    dist = rdask.DistributedSql(client, folder / "schema.sql", folder, "sales", retries=2,
                                cache_dir=str(folder / "cache"))
    out = {}

    def run():
        out["result"] = dist.sql(query)

    runner = threading.Thread(target=run)
    victim, kill = _kill_one(client, dist)
    runner.start()
    time.sleep(0.05)  # the parts' tasks are out; the query usually takes longer than this
    kill()
    runner.join(120)
    assert not runner.is_alive()
    # Whether the victim's part was still running, or done with its result not yet gathered, when
    # it was killed depends on the machine's speed; either way the query ends, with a whole answer
    # (a retry on a live worker where the part or its result was lost).
    star_data.assert_equal(out["result"], db, query)
