#!/usr/bin/python3
"""raydb lookup end to end: fresh random keys and queries (duplicates, misses, 0 and the largest
key of the width) written as .npy (uint32, uint64, int32, int64), raw .u32/.u64 and text/CSV; each
file type, every index and each of --format csv, json and table is run, and the parsed output is
compared whole with a reference computed here (sorted keys and bisection), independently of
raydb's own RxReference check.

Usage: lookup_check.py --raydb PATH [--seed N]
"""
import argparse
import bisect
import csv
import io
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np


def reference(keys, values, queries, width):
    """(count, first_row, sum) per query; width 0: point lookups, else [q, q + width - 1]."""
    order = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    sk = [keys[i] for i in order]
    out = []
    for q in queries:
        lo, hi = (q, q) if width == 0 else (q, q + width - 1)
        a, b = bisect.bisect_left(sk, lo), bisect.bisect_right(sk, hi)
        rows = [order[i] for i in range(a, b)]
        out.append((len(rows), min(rows) if rows else None,
                    sum(values[r] for r in rows) if values is not None else None))
    return out


def parse(text, fmt):
    """The output rows as dicts of ints (None for an empty first_row)."""
    if fmt == "json":
        return json.loads(text)
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
    else:  # table: a header, a rule of dashes, then whitespace-separated cells
        lines = text.splitlines()
        head = lines[0].split()
        assert set(lines[1].replace(" ", "")) == {"-"}, lines[1]
        rows = []
        for line in lines[2:]:
            cells = line.split()
            # An empty first_row cell (a miss) is the only one that can be blank.
            if len(cells) == len(head) - 1:
                i = head.index("first_row")
                cells.insert(i, "")
            rows.append(dict(zip(head, cells)))
    return [{k: (int(v) if v != "" else None) for k, v in r.items()} for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raydb", required=True)
    ap.add_argument("--seed", type=int, default=0, help="0: a fresh seed")
    args = ap.parse_args()
    seed = args.seed or random.SystemRandom().randrange(1, 2**31)
    rng = random.Random(seed)
    print(f"lookup_check: seed {seed}")
    tmp = tempfile.mkdtemp(prefix="raydb-lookup-")
    failures = 0
    runs = 0

    def run(keys_file, queries_file, index, fmt, width, keys, queries, values=None,
            values_file=None, extra=()):
        nonlocal failures, runs
        cmd = [args.raydb, "lookup", "--keys", keys_file, "--queries", queries_file, "--index",
               index, "--format", fmt, "--validation", *extra]
        if width:
            cmd += ["--range-width", str(width)]
        if values_file:
            cmd += ["--values", values_file]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        runs += 1
        name = " ".join(os.path.basename(c) for c in cmd[1:])
        if p.returncode != 0:
            print(f"FAIL {name}: exit {p.returncode}\n{p.stderr}")
            failures += 1
            return
        got = parse(p.stdout, fmt)
        want = reference(keys, values, queries, width)
        bad = []
        for i, (g, w) in enumerate(zip(got, want)):
            if g["query"] != i or g["count"] != w[0] or g["first_row"] != w[1] or \
                    (values is not None and g["sum"] != w[2]) or \
                    g.get("key", g.get("lo")) != queries[i]:
                bad.append((i, g, w))
        if len(got) != len(want) or bad:
            print(f"FAIL {name}: {len(got)} rows for {len(want)} queries; first differences "
                  f"{bad[:3]}")
            failures += 1
        else:
            print(f"ok   {name}: {len(got)} rows")

    for bits in (32, 64):
        top = 2**bits - 1
        n = 1500
        # Duplicates (a small domain), the edges 0 and the top key, and queries that miss.
        span = min(top, 5000) if bits == 32 else top
        keys = [rng.randrange(0, span) for _ in range(n)] + [0, top, top, 7, 7, 7]
        if bits == 64:
            keys += [2**32, 2**32 - 1]
        rng.shuffle(keys)
        queries = [rng.choice(keys) for _ in range(300)] + \
            [rng.randrange(0, span) for _ in range(300)] + [0, top, 1, top - 1]
        values = [rng.randrange(0, 2**32) for _ in keys]
        dt = np.uint32 if bits == 32 else np.uint64
        kn, qn, vn = (os.path.join(tmp, f"{s}{bits}.npy") for s in ("k", "q", "v"))
        np.save(kn, np.array(keys, dtype=dt))
        np.save(qn, np.array(queries, dtype=dt))
        np.save(vn, np.array(values, dtype=np.uint32))
        kt, qt = (os.path.join(tmp, f"{s}{bits}.csv") for s in ("k", "q"))
        for path, data in ((kt, keys), (qt, queries)):
            with open(path, "w") as f:
                f.write("".join(f"{x}\n" for x in data))
        kb, qb = (os.path.join(tmp, f"{s}.u{bits}") for s in ("k", "q"))
        np.array(keys, dtype=f"<u{bits // 8}").tofile(kb)
        np.array(queries, dtype=f"<u{bits // 8}").tofile(qb)
        for index in ("rx", "cgrx", "sorted", "hash"):
            run(kn, qn, index, "csv", 0, keys, queries, values, vn)
        run(kt, qt, "rx", "json", 0, keys, queries)
        run(kb, qb, "sorted", "table", 0, keys, queries)
        run(kn, qt, "rx", "csv", 0, keys, queries)
        if bits == 32:
            # Range lookups stay below the top key (a range past it is refused, tested apart).
            rq = [q for q in queries if q <= top - 64]
            rqn = os.path.join(tmp, f"rq{bits}.npy")
            np.save(rqn, np.array(rq, dtype=dt))
            for index in ("rx", "cgrx", "sorted"):
                run(kn, rqn, index, "json", 64, keys, rq, values, vn)
    # Signed .npy types whose values are all non-negative are read as keys.
    keys = [rng.randrange(0, 2**31) for _ in range(500)]
    queries = keys[:100] + [rng.randrange(0, 2**31) for _ in range(100)]
    for dt in (np.int32, np.int64):
        kn, qn = os.path.join(tmp, f"ks-{dt.__name__}.npy"), os.path.join(tmp, f"qs-{dt.__name__}.npy")
        np.save(kn, np.array(keys, dtype=dt))
        np.save(qn, np.array(queries, dtype=dt))
        run(kn, qn, "rx", "csv", 0, keys, queries)
    print(f"lookup_check: {runs - failures} of {runs} runs equal the reference (seed {seed})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
