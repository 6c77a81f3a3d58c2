"""Benchmarks of raydb from Python: ``python -m raydb.bench dask --workers 1,2,3 ...``.

dask: for each worker count N, a PartitionedIndex over N workers (build time, lookup throughput)
and the SSB engine over N fact partitions (query time), plus the per-task overhead of the cluster
(a no-op task pinned to each worker, round trip). Each measurement is one JSON line: device,
driver, N, the timings in ms (median and min over --repeat runs). Lines go to stdout and to --out
(default: $XDG_CACHE_HOME/raydb/bench/dask-<time>.jsonl, outside any checkout).

Several GPUs of one host: ``--devices 0,1,2,3`` starts one worker process per device (worker i
with RAYDB_DEVICE=DEVICES[i % len], as dask-cuda pins one GPU per worker). ``--data DIR`` runs the
SSB part on dbgen's .tbl files; ``--check`` first runs every query on one engine over the whole
fact table (the first worker's device, emitted as op "ssb_single") and compares each N's merged
result with it, whole.
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


def _cluster(n, devices):
    """n worker processes of one thread: sharing RAYDB_DEVICE, or one per device of the list."""
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster

    if not devices:
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                            dashboard_address=None)
    workers = {}
    for i in range(n):
        device = str(devices[i % len(devices)])
        workers[f"raydb-{i}-device{device}"] = {
            "cls": Nanny,
            # no memory limit: a worker holds its whole partition (Nanny's "auto" would give each
            # one thread's share of the host's memory)
            "options": {"nthreads": 1, "memory_limit": 0, "env": {"RAYDB_DEVICE": device}}}
    return SpecCluster(workers=workers,
                       scheduler={"cls": Scheduler, "options": {"dashboard_address": None}})


def _ssb_single_build(name, tables, device):
    """One engine over all of lineorder on the worker's device, kept in the worker's store."""
    from . import dask as rd

    rd._worker_state()[name] = raydb.ssb.Engine(rd._worker_context(device), tables)


def _ssb_single_run(name, query):
    """One query on the kept engine: its result and stats."""
    from . import dask as rd

    engine = rd._part(name)
    t0 = time.perf_counter()
    result = engine.run(query)
    return result, dict(engine.last_stats, wall_ms=(time.perf_counter() - t0) * 1e3)


def _ssb_single_drop(name):
    from . import dask as rd

    rd._worker_state().pop(name, None)


def _ssb_reference(client, worker, tables, queries, device, emit):
    """Every query on one engine over the whole fact table on `worker`, one task per query, so
    that each line is written as its query ends: {query: result}."""
    name = f"raydb-bench-single-{time.time_ns()}"
    whole = client.scatter(tables, workers=[worker], hash=False)
    client.submit(_ssb_single_build, name, whole, device, workers=[worker], pure=False).result()
    del whole
    reference = {}
    try:
        for q in queries:
            result, stats = client.submit(_ssb_single_run, name, q, workers=[worker],
                                          pure=False).result()
            reference[q] = result
            emit(dict(op="ssb_single", workers=1, query=q, **stats))
    finally:  # the engine's GPU memory, before the partitions are built
        client.submit(_ssb_single_drop, name, workers=[worker], pure=False).result()
    return reference


def _same(got, want):
    return list(got) == list(want) and all(
        np.asarray(got[c]).tolist() == np.asarray(want[c]).tolist() for c in want)


def _ssb_tables(args, emit):
    if not args.queries:
        return None, None
    if not args.data:
        return raydb.ssb.Tables.generate(args.sf, seed=args.seed), args.sf
    t0 = time.perf_counter()
    tables = raydb.ssb.Tables.load_tbl(args.data)
    # dbgen writes about 6,000,000 lineorder rows per unit of scale factor
    sf = round(tables.lineorder_rows / 6e6, 2)
    emit(dict(bench="dask", op="ssb_load", data=args.data, scale_factor=sf,
              lineorder_rows=tables.lineorder_rows, load_ms=(time.perf_counter() - t0) * 1e3))
    return tables, sf


def _part_stats(stats):
    """The slowest part's GPU times and the parts' total rays: a query ends with its last part."""
    out = {f"max_{k}": max(s[k] for s in stats) for k in ("trace_ms", "bvh_build_ms",
                                                           "encode_ms")}
    out["rays"] = sum(s["rays"] for s in stats)
    return out


def bench_dask(args, emit):
    """Runs the dask measurements for every N in args.workers."""
    from distributed import Client

    from . import dask as rd

    rng = np.random.default_rng(args.seed)
    keys = rng.integers(0, 2**32, args.keys, dtype=np.uint64).astype(np.uint32)
    values = rng.integers(0, 2**32, args.keys, dtype=np.uint64).astype(np.uint32)
    points = keys[rng.integers(0, keys.size, args.lookups)] if args.keys else keys
    tables, sf = _ssb_tables(args, emit)
    reference = None
    for n in args.workers:
        cluster = None
        if args.scheduler:
            client = Client(args.scheduler)
        else:
            cluster = _cluster(n, args.devices)
            client = Client(cluster)
        try:
            workers = sorted(client.scheduler_info()["workers"])
            if len(workers) < n:
                raise raydb.InvalidArgument(f"bench dask: {n} workers asked, the cluster has "
                                            f"{len(workers)}")
            workers = workers[:n]
            infos = [client.submit(_device_info, args.device, workers=[w], pure=False).result()
                     for w in workers]
            common = dict(bench="dask", workers=n, **infos[0],
                          worker_devices=[i["device"] for i in infos])
            if tables is not None and args.check and reference is None:
                # one engine over the whole fact table on the first worker, before any partition
                reference = _ssb_reference(
                    client, workers[0], tables, args.queries, args.device,
                    lambda r: emit(dict(common, scale_factor=sf, **r)))

            def overhead():
                rd.await_all(client, [client.submit(_noop, workers=[w], pure=False)
                                      for w in workers], workers)

            overhead()  # the first task on a worker imports raydb
            emit(dict(common, op="task_overhead", tasks=n, **_times(overhead, args.repeat)))
            if args.keys:
                t0 = time.perf_counter()
                index = rd.PartitionedIndex(client, keys, values, kind=args.index,
                                            workers=workers, device=args.device)
                emit(dict(common, op="index_build", index=args.index, keys=args.keys,
                          build_ms=(time.perf_counter() - t0) * 1e3))
                index.lookup(points[:1000])
                t = _times(lambda: index.lookup(points), args.repeat)
                emit(dict(common, op="lookup", index=args.index, keys=args.keys,
                          lookups=args.lookups,
                          lookups_per_s=args.lookups / (t["median_ms"] / 1e3), **t))
                del index
            if tables is not None:
                t0 = time.perf_counter()
                ssb = rd.DistributedSsb(client, tables, workers=workers, device=args.device)
                emit(dict(common, op="ssb_partition", scale_factor=sf,
                          lineorder_rows=tables.lineorder_rows,
                          load_ms=(time.perf_counter() - t0) * 1e3))
                for q in args.queries:
                    for _ in range(args.warmup):
                        ssb.run(q)  # shaders and BVHs
                    result = {}
                    t = _times(lambda q=q: result.update(r=ssb.run(q)), args.repeat)
                    checked = _same(result["r"], reference[q]) if reference else None
                    emit(dict(common, op="ssb_query", query=q, scale_factor=sf, checked=checked,
                              **t, **_part_stats(ssb.last_stats)))
                    if checked is False:
                        raise raydb.Error(f"bench dask: {q} on {n} workers differs from one "
                                          "engine over the whole fact table")
                del ssb
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
    d.add_argument("--devices", type=_ints, default=[],
                   help="one worker process per device: worker i gets RAYDB_DEVICE=DEVICES[i %% "
                        "len] (e.g. 0,1,2,3); default: a LocalCluster sharing RAYDB_DEVICE")
    d.add_argument("--keys", type=int, default=1 << 20,
                   help="index keys (uint32, random; 0 skips the index)")
    d.add_argument("--lookups", type=int, default=1 << 20, help="point lookups per batch")
    d.add_argument("--index", default="rx", choices=["rx", "cgrx", "sorted", "hash"])
    d.add_argument("--sf", type=float, default=0.1, help="SSB scale factor (generated tables)")
    d.add_argument("--data", default="",
                   help="a folder of dbgen .tbl files for the SSB part instead of --sf")
    d.add_argument("--check", action="store_true",
                   help="compare each N's SSB results with one engine over the whole fact table")
    d.add_argument("--warmup", type=int, default=1, help="untimed runs of each SSB query")
    d.add_argument("--queries", type=lambda s: [q for q in s.split(",") if q],
                   default=["q1.1", "q2.1", "q3.1", "q4.1"], help="SSB queries ('' for none)")
    d.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", default="", help="JSON lines file ('-': stdout only)")
    args = p.parse_args(argv)
    if min(args.workers, default=0) < 1 or args.repeat < 1 or args.warmup < 0:
        p.error("--workers and --repeat take positive numbers, --warmup zero or more")
    if args.devices and args.scheduler:
        p.error("--devices starts its own workers: not with --scheduler")
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
