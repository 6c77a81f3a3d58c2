#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the test suite on the NVIDIA device, then the
# RX benchmarks at the paper's sizes. Binaries are built on the developer machine and carried in
# build/; results go to $OUT/results/<device>/ and are copied into bench/results/ afterwards.
# Usage: bench/gpu/rx.sh [tests|points|ranges|dpbis|variants|all] (all takes more than one
# 10-minute call: run the parts as separate calls)
set -uo pipefail
source .gl/enter.sh
OUT=${OUT:-/tmp/raydb-out}
mkdir -p "$OUT/results"
R=build/src/raydb
what=${1:-all}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
$R info >> "$OUT/gpu.txt"

if [ "$what" = all ] || [ "$what" = tests ]; then
  echo "== tests on the GPU (pipeline traversal; no validation layer on this machine)"
  RAYDB_TEST_NO_VALIDATION=1 build/tests/raydb_tests > "$OUT/tests.txt" 2>&1
  grep -E "ERROR|FATAL" -A14 "$OUT/tests.txt" | head -120
  grep -E "test cases|assertions" "$OUT/tests.txt"
fi

B="$R bench rx --out $OUT/results"
if [ "$what" = all ] || [ "$what" = points ]; then
  echo "== 32-bit keys, 2^26 keys, 2^27 point lookups: hit rates, probe order"
  $B --label paper-points --index rx,sorted,hash --method any_hit,hit_and_scan --hit-rate 1,0.5,0 --order unsorted,sorted
  echo "== 64-bit keys"
  $B --label key64 --key-bits 64 --hit-rate 1,0 --order unsorted,sorted --build-repeats 2
fi
if [ "$what" = all ] || [ "$what" = ranges ]; then
  echo "== range lookups on dense keys (hits per lookup = width), 2^24 lookups"
  $B --label ranges --key-dist dense --lookups 2^24 --range-width 1,4,16,64,256 --index rx,sorted --method any_hit,hit_and_scan --hit-rate 1 --order unsorted,sorted --build-repeats 1
fi
if [ "$what" = all ] || [ "$what" = dpbis ]; then
  echo "== DP-BIS against the full scan, 5e7 and 1e8 rows, 1 and 3 columns"
  $R bench dpbis --out $OUT/results --combine all,any --selectivity 0.01,0.1,0.5
fi
if [ "$what" = all ] || [ "$what" = variants ]; then
  echo "== primitive type and key-order vs row-order layout"
  $B --label primitive-layout --primitive triangles,aabbs --layout key,row --hit-rate 1 --order unsorted,sorted --build-repeats 2
  for p in fast_trace fast_build; do
    echo "== build preference $p"
    $B --label prefer-$p --prefer $p --hit-rate 1 --order unsorted,sorted --build-repeats 3
  done
fi
