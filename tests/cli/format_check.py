#!/usr/bin/python3
"""--format csv and json on stdout: each command's stdout parses as the format says and holds
the same rows in both, and nothing else (notes go to stderr). Covers raydb info (and its alias
raydb devices), a bench suite (bench rx, every row checked against the CPU reference) and raydb
ssb --check (every query's result equal to SQLite's).

Usage: format_check.py --raydb PATH
"""
import argparse
import csv
import io
import json
import subprocess
import sys


def out(raydb, *args):
    p = subprocess.run([raydb, *args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAIL raydb {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL {what}")
    print(f"ok   {what}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raydb", required=True)
    raydb = ap.parse_args().raydb

    info = json.loads(out(raydb, "info", "--format", "json"))
    devices = csv_rows(out(raydb, "devices", "--format", "csv"))
    check(len(info["devices"]) >= 1, "info --format json lists a device")
    check([d["name"] for d in devices] == [d["name"] for d in info["devices"]],
          "devices --format csv names the devices info --format json names")
    check(all(str(j["max_primitive_count"]) == c["max_primitive_count"]
              for j, c in zip(info["devices"], devices)), "csv and json device fields agree")

    common = ["bench", "rx", "--size", "tiny", "--no-save", "--repeats", "1", "--warmup", "0",
              "--index", "rx,sorted,hash", "--seed", "7"]
    rows_json = json.loads(out(raydb, *common, "--format", "json"))
    rows_csv = csv_rows(out(raydb, *common, "--format", "csv"))
    check(len(rows_json) == len(rows_csv) >= 3, f"bench rx: {len(rows_json)} rows in json and csv")
    check(all(r["checked_result"] == "ok" for r in rows_json) and
          all(r["checked_result"] == "ok" for r in rows_csv),
          "bench rx: every row's checked_result is ok (equal to the CPU reference)")
    keys = ("index", "range_width", "seed", "suite")
    check([tuple(str(r.get(k)) for k in keys) for r in rows_json] ==
          [tuple(r.get(k) for k in keys) for r in rows_csv],
          "bench rx: csv and json hold the same configurations in the same order")

    ssb = ["ssb", "--sf", "0.01", "--query", "1.1,2.1,3.1,4.1", "--check"]
    queries = json.loads(out(raydb, *ssb, "--format", "json"))
    check([q["query"] for q in queries] == ["1.1", "2.1", "3.1", "4.1"] and
          all(q["sqlite"] == "MATCH" for q in queries), "ssb --format json: 4 queries equal SQLite")
    check(sum(len(q["rows"]) for q in queries) > 4, "ssb: the queries return rows to compare")
    flat = csv_rows(out(raydb, *ssb, "--format", "csv"))
    for q in queries:
        mine = [r for r in flat if r["query"] == q["query"]]
        cols = list(q["rows"][0].keys()) if q["rows"] else []
        check(len(mine) == len(q["rows"]) and
              all(str(j[c]) == r[c] for j, r in zip(q["rows"], mine) for c in cols),
              f"ssb Q{q['query']}: csv rows equal json rows ({len(mine)})")


if __name__ == "__main__":
    main()
