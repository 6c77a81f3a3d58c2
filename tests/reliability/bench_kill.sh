#!/usr/bin/env bash
# A bench run killed with SIGKILL midway leaves its results file with whole JSON lines only
# (src/common/append_file.hpp). Kills `raydb bench rx` at growing delays (some before, some while
# it writes), lets the last run finish, and parses the file line by line.
# Usage: tests/reliability/bench_kill.sh <raydb executable>
set -euo pipefail
raydb=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
  "$raydb" bench rx --size tiny --index rx,sorted,hash --hit-rate 1,0.5,0 --range-width 0,16 \
    --repeats 1 --warmup 0 --build-repeats 1 --out "$out" >/dev/null 2>&1
}
killed=0
for delay in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 1.0 1.2 1.5 2.0; do
  run &
  pid=$!
  sleep "$delay"
  if kill -KILL "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null || true
done
run  # one whole run, so the file exists and has rows
python3 - "$out" "$killed" <<'PY'
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1]).rglob("*.jsonl"))
assert files, "no results file written"
lines = 0
for f in files:
    data = f.read_bytes()
    assert data.endswith(b"\n"), f"{f}: ends in a partial line"
    for n, line in enumerate(data.split(b"\n")[:-1], 1):
        try:
            json.loads(line)
        except ValueError as e:
            sys.exit(f"{f}:{n}: not a whole JSON line ({e}): {line[:80]!r}")
        lines += 1
print(f"bench_kill: {sys.argv[2]} runs killed, {lines} whole lines in {len(files)} file(s)")
PY
