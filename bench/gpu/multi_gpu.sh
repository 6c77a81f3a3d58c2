#!/usr/bin/env bash
# Runs on a GPU machine with several GPUs: RX with its keys split by key range, one partition and
# one process per GPU (RAYDB_DEVICE=i), all GPUs at once, against one GPU alone. Each process
# generates its own partition's 2^26 keys and 2^27 lookups, checks every result against the CPU
# reference, and reports build time, index memory and probe time on its GPU; the script adds each
# process's wall clock. This is the per-GPU work the Dask route (raydb.dask.PartitionedIndex)
# schedules, without Dask: the GPU machine's Python has no dask.distributed.
# Usage: bench/gpu/multi_gpu.sh [N ...]   (GPU counts after one GPU alone; default: every GPU
# nvidia-smi lists)
set -uo pipefail
COUNTS=("$@")
source "$(dirname "$0")/common.sh"
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=("$(nvidia-smi -L | wc -l)")
ARGS=(bench rx --keys 2^26 --lookups 2^27 --index rx --order unsorted,sorted --repeats 5 --warmup 2)
rc=0
echo "== one GPU alone (device 0)"
t0=$(date +%s.%N)
RAYDB_DEVICE=0 timeout 200 $R "${ARGS[@]}" --out "$OUT/results" --label "$(label multi_gpu 1)" \
  > "$OUT/x1-gpu0.txt" 2>&1 || rc=$?
echo "wall $(awk "BEGIN{print $(date +%s.%N) - $t0}") s"
grep -E "^vulkan|built in" "$OUT/x1-gpu0.txt"
for N in "${COUNTS[@]}"; do
  [ "$N" -ge 2 ] || continue
  echo "== $N GPUs at once, one process and one key-range partition each"
  pids=()
  for ((d = 0; d < N; d++)); do
    (
      s=$(date +%s.%N)
      RAYDB_DEVICE=$d timeout 300 $R "${ARGS[@]}" --out "$OUT/gpu$d" \
        --label "$(label multi_gpu "$N")" > "$OUT/x$N-gpu$d.txt" 2>&1
      r=$?
      echo "gpu $d: exit $r, wall $(awk "BEGIN{print $(date +%s.%N) - $s}") s" >> "$OUT/x$N-gpu$d.txt"
      exit $r
    ) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  for ((d = 0; d < N; d++)); do
    echo "-- gpu $d"
    grep -E "^vulkan|built in|wall|device NVIDIA" "$OUT/x$N-gpu$d.txt"
  done
done
exit $rc
