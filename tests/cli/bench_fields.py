#!/usr/bin/python3
"""A bench suite's rows carry host-to-host times (issue 21): runs `raydb bench <suite> ...
--format json` and fails unless every row has them, each a number >= 0, measured in the same run
as the row's GPU times:

- host_time_ms: the median of host_time_ms_all, one wall-clock time per timed repeat (the row's
  `repeats`), each at least the GPU time of the same repeat (the call holds its GPU spans);
- where the suite builds from host data: build_host_ms (and the suite's other build fields), at
  least the GPU build time it reports;
- where a row ran pipelined lookup calls (rx, cgrx): where the first and the timed calls' host
  time went (pipelined_first_host_split, pipelined_host_split; pinned_* with --pinned), and with
  --pinned the pinned call's whole timeline summed (pinned_span).

The bench must exit 0 (its results equal the CPU or SQLite reference). Before the real rows are
accepted, the checker is shown to reject copies of them with a field dropped, a time negative or
a repeat missing, so this test cannot pass by checking nothing.

Usage: bench_fields.py --raydb PATH bench SUITE [options]
"""
import argparse
import copy
import json
import math
import statistics
import subprocess
import sys

# dpbis stream passes: device buffers alone, no public call to time.
STREAM = {"read_only", "write_only", "copy"}


def is_stream(r):
    return r.get("index") in STREAM


def ssb_fields(r):
    engine = r["engine"]
    if engine == "rt":
        return ["build_host_ms", "create_host_ms"]
    if engine == "sql":
        return ["build_host_ms", "build_first_host_ms"]
    return ["build_host_ms", "host_first_ms"]  # star_join, crystal_cuda


def join_fields(r):
    return ["host_first_ms"] + (["build_host_ms"] if r["index"] == "sorted" else [])


def dpbis_fields(r):
    return [] if is_stream(r) or r["index"].startswith("bitmap_") else ["build_host_ms"]


# Per suite: the GPU times per repeat that host_time_ms_all must cover, the fields besides
# host_time_ms a row must carry, and (wall-clock build, GPU time inside that build) pairs.
SUITES = {
    "ssb": {"gpu_all": "query_ms_all", "fields": ssb_fields,
            "inside": [("build_host_ms", "bvh_build_ms")]},
    "join": {"gpu_all": "count_ms_all", "fields": join_fields,
             "inside": [("build_host_ms", "index_time_ms")]},
    "dpbis": {"gpu_all": "query_time_ms_all", "fields": dpbis_fields,
              "inside": [("build_host_ms", "build_time_ms")]},
    "rtscan": {"gpu_all": "query_time_ms_all", "fields": lambda r: ["build_host_ms"],
               "inside": [("build_host_ms", "index_build_ms"), ("build_host_ms", "build_time_ms")]},
    "rx": {"gpu_all": "probe_time_ms_all",
           "fields": lambda r: ["host_first_ms", "build_host_ms", "build_first_host_ms"],
           "inside": [("build_host_ms", "build_time_ms")]},
}
SUITES["cgrx"] = SUITES["rx"]

# Wall clocks and GPU timestamps are read by different clocks: a GPU span may exceed the wall
# clock around it by this much (ms) before a row fails.
SLACK_MS = 0.05


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def row_errors(suite, r):
    """What is wrong with one row's host-to-host fields (empty: nothing)."""
    spec = SUITES[suite]
    errs = []
    if suite == "dpbis" and is_stream(r):
        # No public call to time: the fields are there and null.
        for f in ("host_time_ms", "host_time_ms_all"):
            if f not in r or r[f] is not None:
                errs.append(f"{f} should be null on a stream pass")
        return errs
    for f in ["host_time_ms"] + spec["fields"](r):
        if f not in r:
            errs.append(f"no {f}")
        elif not number(r[f]):
            errs.append(f"{f} = {r[f]!r} is not a number >= 0")
    host_all = r.get("host_time_ms_all")
    if not isinstance(host_all, list) or len(host_all) != r.get("repeats"):
        errs.append(f"host_time_ms_all = {host_all!r}: not one time per repeat "
                    f"({r.get('repeats')})")
        return errs
    if not all(number(v) for v in host_all):
        errs.append(f"host_time_ms_all = {host_all!r}: not all numbers >= 0")
        return errs
    mid = statistics.median(host_all)
    if number(r.get("host_time_ms")) and not math.isclose(r["host_time_ms"], mid, rel_tol=1e-9,
                                                          abs_tol=1e-9):
        errs.append(f"host_time_ms {r['host_time_ms']} is not the median of host_time_ms_all "
                    f"{host_all}")
    gpu_all = r.get(spec["gpu_all"])
    if isinstance(gpu_all, list) and len(gpu_all) == len(host_all):
        for i, (h, g) in enumerate(zip(host_all, gpu_all)):
            if number(g) and h + SLACK_MS < g:
                errs.append(f"repeat {i}: host {h} ms < GPU {g} ms ({spec['gpu_all']})")
    for build, gpu in spec["inside"]:
        if number(r.get(build)) and number(r.get(gpu)) and r[build] + SLACK_MS < r[gpu]:
            errs.append(f"{build} {r[build]} ms < {gpu} {r[gpu]} ms")
    if suite in ("rx", "cgrx"):
        errs += split_errors(r)
    return errs


SPLIT_PARTS = ("allocate_ms", "release_ms", "pipeline_ms", "wait_ms", "copy_ms", "other_ms")


def ran(r, calls):
    """Whether the row timed `calls` (pipelined, pinned): its median wall clock is above 0."""
    return number(r.get(f"{calls}_host_ms")) and r[f"{calls}_host_ms"] > 0


def split_errors(r):
    """The host splits of the pipelined (and pinned) lookup calls a row timed."""
    errs = []
    for calls in ("pipelined", "pinned"):
        if not ran(r, calls):
            continue
        for f in (f"{calls}_first_host_split", f"{calls}_host_split"):
            split = r.get(f)
            if not isinstance(split, dict):
                errs.append(f"no {f}")
                continue
            # other_ms is the wall clock less the parts, read by the same clock: it may dip a hair.
            bad = [k for k in SPLIT_PARTS
                   if not isinstance(split.get(k), (int, float)) or split[k] < -SLACK_MS]
            if bad:
                errs.append(f"{f}: {bad} are not numbers >= 0")
    # A device whose copy queues keep no timestamps has no timeline to sum (null, and an empty
    # pinned_timeline).
    if ran(r, "pinned") and not (r.get("pinned_span") is None and r.get("pinned_timeline") == []):
        errs += span_errors(r.get("pinned_span"))
    return errs


def span_errors(span):
    """pinned_span: [chunks, first kernel's start, kernels' sum, idle between kernels, last
    kernel's end, last download's end], ms rounded to 0.01: a timeline whose kernels and idle
    time fit between its first kernel and its last, and whose last download follows them."""
    if not (isinstance(span, list) and len(span) == 6 and all(number(v) and v >= 0 for v in span)):
        return [f"pinned_span {span!r} is not 6 numbers >= 0"]
    chunks, first, kernels, idle, last_kernel, last_down = span
    errs = []
    if chunks < 1 or chunks != int(chunks):
        errs.append(f"pinned_span: {chunks} chunks")
    if abs(first + kernels + idle - last_kernel) > 0.05:
        errs.append(f"pinned_span: first kernel {first} + kernels {kernels} + idle {idle} "
                    f"is not the last kernel's end {last_kernel}")
    if last_down < last_kernel - 0.01:
        errs.append(f"pinned_span: the last download ends ({last_down}) before the last kernel "
                    f"({last_kernel})")
    return errs


def name(r):
    keys = ("engine", "api", "index", "query", "output", "key_bits", "multiplicity", "hit_rate",
            "indexed_side", "selectivity", "columns", "combine", "pass", "refine", "range_width")
    return ", ".join(f"{k}={r[k]}" for k in keys if k in r)


def fail(msg):
    sys.exit(f"FAIL {msg}")


def must_reject(suite, rows, what, mutate, pick=lambda r: True):
    """The checker finds the fault `mutate` puts into a copy of the first checkable row that
    `pick` accepts."""
    for r in rows:
        if (suite == "dpbis" and is_stream(r)) or not pick(r):
            continue
        bad = copy.deepcopy(r)
        mutate(bad)
        if not row_errors(suite, bad):
            fail(f"the checker accepts a row with {what}: it cannot fail")
        print(f"ok   the checker rejects a row with {what}")
        return
    fail(f"no row to show that the checker rejects {what}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raydb", required=True)
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if len(a.args) < 2 or a.args[0] != "bench" or a.args[1] not in SUITES:
        fail(f"expected 'bench SUITE ...' with SUITE one of {sorted(SUITES)}, got {a.args}")
    suite = a.args[1]
    cmd = [a.raydb, *a.args, "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    rows = json.loads(p.stdout)
    if not rows:
        fail(f"{' '.join(cmd)}: no rows")

    must_reject(suite, rows, "no host_time_ms", lambda r: r.pop("host_time_ms"))
    must_reject(suite, rows, "a negative host_time_ms", lambda r: r.update(host_time_ms=-1.0))
    must_reject(suite, rows, "a repeat missing from host_time_ms_all",
                lambda r: r.update(host_time_ms_all=r["host_time_ms_all"][1:]))
    gpu = SUITES[suite]["gpu_all"]

    def slow_gpu(r):
        return isinstance(r.get(gpu), list) and any(number(g) and g > SLACK_MS for g in r[gpu])

    def zero_host(r):
        r["host_time_ms_all"] = [0.0] * len(r["host_time_ms_all"])
        r["host_time_ms"] = 0.0

    if any(slow_gpu(r) for r in rows):
        must_reject(suite, rows, "a wall clock shorter than its GPU time", zero_host, pick=slow_gpu)
    fields = SUITES[suite]["fields"]
    if any(fields(r) for r in rows):
        must_reject(suite, rows, "a negative build or first-call time",
                    lambda r: r.update({fields(r)[0]: -1.0}), pick=lambda r: bool(fields(r)))

    if suite in ("rx", "cgrx") and any(ran(r, "pipelined") for r in rows):
        must_reject(suite, rows, "no host split of the first pipelined call",
                    lambda r: r.pop("pipelined_first_host_split"),
                    pick=lambda r: ran(r, "pipelined"))
        must_reject(suite, rows, "a host split part missing",
                    lambda r: r["pipelined_host_split"].pop("wait_ms"),
                    pick=lambda r: ran(r, "pipelined"))
    if suite in ("rx", "cgrx") and any(ran(r, "pinned") for r in rows):
        must_reject(suite, rows, "no pinned_span", lambda r: r.pop("pinned_span"),
                    pick=lambda r: ran(r, "pinned"))
        must_reject(suite, rows, "a pinned_span whose kernels outlast it",
                    lambda r: r["pinned_span"].__setitem__(2, r["pinned_span"][4] + 1),
                    pick=lambda r: ran(r, "pinned"))

    bad = [(name(r), e) for r in rows for e in row_errors(suite, r)]
    for n, e in bad:
        print(f"FAIL {n}: {e}")
    if bad:
        sys.exit(f"FAIL bench {suite}: {len(bad)} faults in {len(rows)} rows")
    print(f"ok   bench {suite}: {len(rows)} rows, each with its host-to-host times")


if __name__ == "__main__":
    main()
