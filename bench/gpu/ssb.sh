#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the SSB tests on the NVIDIA device, then the
# 13 SSB queries on the RT engine and the star-join baseline at SF 1 (every result checked
# against SQLite), 10 and 20.
# Binaries are built on the developer machine and carried in build/; results go to
# $OUT/results/<device>/ and are copied into bench/results/ afterwards.
# Usage: bench/gpu/ssb.sh [tests] [sf1] [sf10] [sf20] | all
# 'all' fits one call: about 5 minutes expected (SF 1 with SQLite took 79 s on lavapipe); the
# timeouts below (45 + 130 + 110 + 240 s) keep it under 9 minutes even if a part stalls.
set -uo pipefail
source .gl/enter.sh
OUT=${OUT:-/tmp/raydb-out}
mkdir -p "$OUT/results"
R=build/src/raydb
what=" ${*:-all} "
part() { [[ $what == *" all "* || $what == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
$R info >> "$OUT/gpu.txt"

if part tests; then
  echo "== SSB tests on the GPU (the reference dbgen files are not on this machine: skipped)"
  RAYDB_TEST_NO_VALIDATION=1 timeout 45 build/tests/raydb_tests -tc='ssb*' -tce='*dbgen*' \
    > "$OUT/tests-ssb.txt" 2>&1
  grep -E "ERROR|FATAL" -A14 "$OUT/tests-ssb.txt" | head -80
  grep -E "test cases|assertions" "$OUT/tests-ssb.txt"
fi
B="$R bench ssb --out $OUT/results"
if part sf1; then
  echo "== SF 1: all 13 queries, every result compared with SQLite"
  timeout 130 $B --label ssb-sf1 --sf 1 --check-max-sf 1 --repeats 5 --warmup 2
fi
for sf in 10 20; do
  if part sf$sf; then
    echo "== SF $sf: all 13 queries (not checked: SQLite is too slow there)"
    timeout $((sf == 10 ? 110 : 240)) $B --label ssb-sf$sf --sf $sf --check-max-sf 1 --repeats 5 --warmup 2
  fi
done
