#!/usr/bin/python3
"""bench rx's longest rows are saved (cli/results.cpp): each results line must fit one page
(common/append_file.hpp), or the run fails after all its work, with nothing saved. Runs the
combination with the most fields (pinned calls, GPU-sorted chunks, ranges, 64-bit keys, five
repeats, more chunks than the row's timeline keeps) with --out, and fails unless it exits 0 and
every saved line leaves room for the longer numbers of a full-size run.

Usage: longest_rows.py --raydb PATH
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

PAGE = 4096
# A 2^26-key run's times and counts take more digits than this tiny one's.
ROOM = 384


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raydb", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        cmd = [a.raydb, "bench", "rx", "--size", "tiny", "--validation", "--out", out, "--pinned",
               "--index", "rx,cgrx", "--order", "sorted,gpu_sorted", "--range-width", "0,16",
               "--key-bits", "64", "--lookup-chunk", "64", "--repeats", "5", "--warmup", "1",
               "--build-repeats", "3"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{' '.join(cmd)} exited {run.returncode}:\n{run.stderr}")
        lines = [l for f in glob.glob(os.path.join(out, "*", "rx.jsonl")) for l in open(f)]
        # RX in both orders, cgRX in caller-sorted order only (it sorts no chunks), two widths each.
        if len(lines) != 6:
            sys.exit(f"expected 6 rows, found {len(lines)}")
        for l in lines:
            row = json.loads(l)
            n = len(l.rstrip())
            where = f"{row['index']} {row['probe_order']} width {row['range_width']}"
            if n > PAGE - ROOM:
                sys.exit(f"{where}: a row of {n} bytes leaves less than {ROOM} of a {PAGE}-byte page")
            print(f"{where}: {n} bytes")


if __name__ == "__main__":
    main()
