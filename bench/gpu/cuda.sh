#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the CUDA kernel tests, each against the CPU
# reference and its Vulkan twin, through buffers and timeline semaphores shared by Vulkan and CUDA.
# Binaries are built on the developer machine (with nvcc) and carried in build/; the output goes to
# $OUT/results/<device>/tests-cuda.txt. Fails loudly when the CUDA cases were skipped: on this
# machine they must really run.
# Usage: bench/gpu/cuda.sh [tests] [bench]   (default: tests; bench: DP-BIS in Vulkan, then CUDA)
set -uo pipefail
source .gl/enter.sh
source "$(dirname "$0")/label.sh"
OUT=${OUT:-/tmp/raydb-out}
R=build/src/raydb
T=build/tests/raydb_tests
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
device=$(echo "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
device=${device:-unknown-device}
mkdir -p "$OUT/results/$device"
log="$OUT/results/$device/tests-cuda.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
$R info | tee -a "$OUT/gpu.txt" | grep -E "raydb would use|CUDA"

what=" ${*:-tests} "
if [[ $what == *" bench "* ]]; then
  for b in vulkan cuda; do
    echo "== DP-BIS and the sieve with kernels in $b (1e8 rows, results checked)"
    $R bench dpbis --backend $b --rows 1e8 --columns 1,3 --selectivity 0.01,0.1 \
      --index dpbis,sieve,full_scan --out "$OUT/results" --label "$(label backend "$b")" || exit 5
  done
fi
[[ $what == *" tests "* ]] || exit 0

echo "== CUDA kernel tests on $name"
RAYDB_TEST_NO_VALIDATION=1 $T -tc="*cuda*" -s > "$log" 2>&1
rc=$?
grep -E "ERROR|FATAL" -A14 "$log" | head -120
grep -E "test cases|assertions" "$log"
if grep -q "skipped: no CUDA device" "$log"; then
  echo "FAIL: the CUDA cases were skipped on the GPU machine:" >&2
  grep -m1 "skipped: no CUDA device" "$log" >&2
  exit 3
fi
if ! grep -q "cuda kernels: radix sort" "$log"; then
  echo "FAIL: the CUDA kernel tests did not run (is this a build with CUDA?)" >&2
  exit 4
fi
if [[ $rc -ne 0 ]]; then
  echo "FAIL: the CUDA tests failed (exit $rc); see $log" >&2
  exit $rc
fi
echo "OK: every CUDA kernel equals the CPU reference and its Vulkan twin ($log)"
