"""Benchmarks of raydb from Python: ``python -m raydb.bench dask --workers 1,2,3 ...``.

dask: for each worker count N, a PartitionedIndex over N workers (build time, lookup throughput)
and the SSB engine over N fact partitions (query time), plus the per-task overhead of the cluster
(a no-op task pinned to each worker, round trip). Each measurement is one JSON line: device,
driver, N, the timings in ms (median and min over --repeat runs). Lines go to stdout and to --out
(default: $XDG_CACHE_HOME/raydb/bench/dask-<time>.jsonl, outside any checkout).
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import raydb
from raydb._results import append_line


def _noop():
    return None


def _device_info(device):
    from . import dask as rd

    info = rd._worker_context(device).info
    return {"device": info["name"], "driver": f"{info['driver_name']} {info['driver_info']}"}


def _times(fn, repeat):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return {"median_ms": statistics.median(out), "min_ms": min(out), "runs": repeat}


def _default_out():
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "raydb" / "bench" / time.strftime("dask-%Y%m%d-%H%M%S.jsonl")


def bench_dask(args, emit):
    """Runs the dask measurements for every N in args.workers."""
    from distributed import Client, LocalCluster

    from . import dask as rd

    rng = np.random.default_rng(args.seed)
    keys = rng.integers(0, 2**32, args.keys, dtype=np.uint64).astype(np.uint32)
    values = rng.integers(0, 2**32, args.keys, dtype=np.uint64).astype(np.uint32)
    points = keys[rng.integers(0, keys.size, args.lookups)]
    tables = raydb.ssb.Tables.generate(args.sf, seed=args.seed) if args.queries else None
    for n in args.workers:
        cluster = None
        if args.scheduler:
            client = Client(args.scheduler)
        else:
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
        try:
            workers = sorted(client.scheduler_info()["workers"])
            if len(workers) < n:
                raise raydb.InvalidArgument(f"bench dask: {n} workers asked, the cluster has "
                                            f"{len(workers)}")
            workers = workers[:n]
            common = dict(bench="dask", workers=n,
                          **client.submit(_device_info, args.device, workers=[workers[0]],
                                          pure=False).result())

            def overhead():
                rd.await_all(client, [client.submit(_noop, workers=[w], pure=False)
                                      for w in workers], workers)

            overhead()  # the first task on a worker imports raydb
            emit(dict(common, op="task_overhead", tasks=n, **_times(overhead, args.repeat)))
            t0 = time.perf_counter()
            index = rd.PartitionedIndex(client, keys, values, kind=args.index, workers=workers,
                                        device=args.device)
            emit(dict(common, op="index_build", index=args.index, keys=args.keys,
                      build_ms=(time.perf_counter() - t0) * 1e3))
            index.lookup(points[:1000])
            t = _times(lambda: index.lookup(points), args.repeat)
            emit(dict(common, op="lookup", index=args.index, keys=args.keys, lookups=args.lookups,
                      lookups_per_s=args.lookups / (t["median_ms"] / 1e3), **t))
            if tables is not None:
                ssb = rd.DistributedSsb(client, tables, workers=workers, device=args.device)
                for q in args.queries:
                    ssb.run(q)  # warm: shaders and BVHs
                    emit(dict(common, op="ssb_query", query=q, scale_factor=args.sf,
                              **_times(lambda q=q: ssb.run(q), args.repeat)))
        finally:
            client.close()
            if cluster is not None:
                cluster.close()


def _ints(text):
    return [int(x) for x in text.split(",") if x]


def main(argv=None):
    """Command-line entry: ``python -m raydb.bench dask [options]``."""
    p = argparse.ArgumentParser(prog="python -m raydb.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    d = sub.add_parser("dask", help="lookup throughput and SSB query time against N workers")
    d.add_argument("--workers", type=_ints, default=[1, 2, 3], help="worker counts (1,2,3)")
    d.add_argument("--scheduler", default="",
                   help="an existing cluster's scheduler address (its first N workers); default: "
                        "a LocalCluster of N worker processes per N")
    d.add_argument("--device", default="", help="each worker's device (default RAYDB_DEVICE)")
    d.add_argument("--keys", type=int, default=1 << 20, help="index keys (uint32, random)")
    d.add_argument("--lookups", type=int, default=1 << 20, help="point lookups per batch")
    d.add_argument("--index", default="rx", choices=["rx", "cgrx", "sorted", "hash"])
    d.add_argument("--sf", type=float, default=0.1, help="SSB scale factor")
    d.add_argument("--queries", type=lambda s: [q for q in s.split(",") if q],
                   default=["q1.1", "q2.1", "q3.1", "q4.1"], help="SSB queries ('' for none)")
    d.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", default="", help="JSON lines file ('-': stdout only)")
    args = p.parse_args(argv)
    if min(args.workers, default=0) < 1 or args.repeat < 1:
        p.error("--workers and --repeat take positive numbers")
    out_path = None if args.out == "-" else Path(args.out or _default_out())
    if out_path:
        out_path.parent.mkdir(parents=True, exist_ok=True)

    def emit(record):
        line = json.dumps(record, sort_keys=True)
        print(line, flush=True)
        if out_path:
            append_line(out_path, line + "\n")  # whole even if the run is killed

    try:
        bench_dask(args, emit)
    finally:
        if out_path:
            print(f"results: {out_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
