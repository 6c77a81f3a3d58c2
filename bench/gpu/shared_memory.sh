#!/usr/bin/env bash
# Memory shared by Vulkan and CUDA, before and after CUDA allocates it (cuMemCreate, imported into
# Vulkan; src/backend/cuda/shared_memory.cpp) instead of Vulkan (exported, imported into CUDA).
# Two builds timed back to back on one GPU; carry .gl and both build folders.
#
# Usage: bench/gpu/shared_memory.sh BEFORE_BUILD AFTER_BUILD [tests] [cuda] [rx] [optix] | all
#   tests  AFTER's CUDA and OptiX test cases (each against the CPU reference and its Vulkan twin)
#   cuda   DP-BIS, the sieve and the bitmap ops in CUDA, passes alone, 1e8 and 1e9 rows
#          (bench/gpu/bandwidth.sh's cuda part): fractions of the copy ceiling
#   rx     RX through Vulkan with CUDA's sort of the probe order (Vulkan reads CUDA's memory)
#   optix  RX and RTScan through OptiX: AFTER reads the shared records and keys without a copy
# Rows go to $OUT/results/<device>/ labelled cuda-memory-before and cuda-memory-after.
set -uo pipefail
A=$1 B=$2
shift 2
R=$B/src/raydb
source "$(dirname "$0")/common.sh" "$@"
rc=0
each() {  # each SUBCOMMAND ARGS...: the subcommand with both builds, before then after
  local sub=$1
  shift
  for w in before after; do
    [ $w = before ] && b=$A || b=$B
    echo "== $w: $sub $*"
    timeout 240 "$b/src/raydb" bench "$sub" --out "$OUT/results" \
      --label "$(label cuda_memory_ab "$w")" "$@" || rc=$?
  done
}
if part tests; then
  # No validation layer on the GPU machine (bench/gpu/cuda.sh): the layer's checks run on lavapipe.
  echo "== AFTER's CUDA and OptiX test cases"
  RAYDB_TEST_NO_VALIDATION=1 timeout 300 "$B/tests/raydb_tests" -tc='*CUDA*,*cuda*,*OptiX*,*optix*' \
    > "$OUT/tests-shared-memory.txt" 2>&1 || rc=$?
  grep -E "ERROR|FATAL" -A14 "$OUT/tests-shared-memory.txt" | head -80
  grep -E "test cases|assertions|skipped" "$OUT/tests-shared-memory.txt" | head
fi
if part cuda; then
  each dpbis --rows 1e8,1e9 --columns 1 --selectivity 0.01,0.5 --backend cuda \
    --index dpbis,dpbis_select,sieve,sieve_select,bitmap_ops
fi
if part rx; then
  each rx --keys 2^26 --lookups 2^27 --index rx --order unsorted,sorted --repeats 5 --warmup 2
fi
if part optix; then
  each rx --api optix --keys 2^26 --lookups 2^27 --index rx --order unsorted,sorted \
    --prefer fast_trace --build-repeats 2 --repeats 5 --warmup 2
  each rtscan --api optix --rows 1e8 --columns 3 --dist permutation --bins 128 \
    --selectivity 0.2,0.9 --baseline none --counts false --repeats 5 --warmup 2
fi
exit $rc
