#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): host-to-host time of key lookups and builds
# with keys, queries and results in host memory (docs/e2e.md). 2^26 keys, 2^27 lookups, unsorted
# and sorted; each row holds, measured in the same run: the GPU times of whole batches (upload,
# probe, download: the PCIe transfer and GPU times), every call's wall clock (the first apart),
# and the pipelined calls' wall clock and GPU time; builds from host memory against upload + GPU
# build. Results go to $OUT/results/<device>/rx.jsonl, label e2e (bench/registry.toml).
# Usage: bench/gpu/e2e.sh [rx] [baselines] [key64] [chunks] [builds] [direct] [sorted-probes] [builds-ab] [span] [compact-ab] [sort-ab] [carry-ab] [ramp-ab] | all   (all: about 7 minutes on the H100)
#   chunks: RX unsorted with pipelined chunks of 2^20, 2^21 and 2^23 lookups (2^22 is the default)
#   builds: the builds of 2^26 keys alone (2^20 lookups), each row with where its host time went
#   (build_host_split: allocate, release, pipeline, wait, copy, other; raydb/host_time.hpp)
#   direct: RX and the hash table with each --result-path: download (a copy queue) and direct
#   (kernels write results straight into pinned memory), one run each (docs/e2e.md)
#   sorted-probes: the pipelined calls that sort each chunk on the GPU (RX --order gpu_sorted)
#   and cgRX's pipelined calls (bucket size 32), not part of all
#   builds-ab: the builds part (and RX with 64-bit keys) through R_BASE (a raydb built from the
#   commit before, label e2e-builds-base) and $R (e2e-builds-now), alternating for BUILD_ROUNDS
#   rounds (default 2) on the same machine (allocation times differ by 10% from machine to
#   machine); not part of all
#   sort-ab: RX's pipelined calls that sort each chunk (--order gpu_sorted, 2^26 keys), then 2^22
#   keys unsorted and gpu_sorted, through R_BASE (label e2e-sort-base) and $R (e2e-sort-now),
#   alternating for SORT_ROUNDS rounds (default 2); not part of all (about 4 minutes)
#   carry-ab: RX's pipelined calls that sort each chunk (--order gpu_sorted), their results
#   downloaded on a copy queue (--result-path download, label e2e-carry-download) and carried
#   out by the next chunk's trace (the default, e2e-carry-carried), alternating for CARRY_ROUNDS
#   rounds (default 2); not part of all
#   span: RX unsorted and gpu_sorted, each pinned call's whole timeline summed (pinned_span: where
#   a call's time beyond its kernels goes); not part of all
#   compact-ab: RX builds of 2^26 32- and 64-bit keys with compaction always (--compact-min-saving
#   0, label e2e-compact-always) and where it saves 10% (the default, e2e-compact-default),
#   alternating for COMPACT_ROUNDS rounds (default 2) on one binary; not part of all
#   ramp-ab: RX unsorted and gpu_sorted through R_BASE (label e2e-ramp-base) and $R (e2e-ramp-now),
#   alternating for RAMP_ROUNDS rounds (default 2): the chunks' sizes at a call's ends; not part
#   of all
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
{ nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; } >> "$OUT/gpu.txt"

B="$R bench rx --out $OUT/results --label $(label e2e) --pinned"
if part rx; then
  echo "== RX, 32-bit keys: 2^26 keys, 2^27 point lookups, unsorted and sorted"
  $B --index rx --method hit_and_scan --order unsorted,sorted --build-repeats 3
fi
if part baselines; then
  echo "== the sorted array and the hash table through the same pipelined lookups"
  $B --index sorted,hash --order unsorted,sorted --build-repeats 3
fi
if part key64; then
  echo "== RX, 64-bit keys"
  $B --index rx --key-bits 64 --method hit_and_scan --order unsorted --build-repeats 3
fi
if part chunks; then
  echo "== RX, 32-bit keys, unsorted: other pipelined chunk sizes"
  for c in 1048576 2097152 8388608; do
    $B --index rx --method hit_and_scan --order unsorted --build-repeats 1 --lookup-chunk $c
  done
fi
if part builds; then
  echo "== builds from host memory and from HostBuffers: where the host time goes"
  $R bench rx --out $OUT/results --label $(label e2e_builds) --pinned --keys 67108864 \
    --lookups 1048576 --index rx,sorted,hash --method hit_and_scan --order unsorted \
    --build-repeats 3
fi
# ab ROUNDS KEY FN: runs `FN EXE LABEL` through R_BASE (label KEY-base) and $R (KEY-now),
# alternating on this machine, ROUNDS times.
ab() {
  for _ in $(seq "$1"); do
    for build in base now; do
      local exe=$R
      [[ $build == base ]] && exe=${R_BASE:?an A/B part needs R_BASE, a raydb built from the commit before}
      "$3" "$exe" "$(label "$2" $build)"
    done
  done
}
builds_ab() {
  $1 bench rx --out $OUT/results --label "$2" --pinned --keys 67108864 --lookups 1048576 \
    --index rx,sorted,hash --method hit_and_scan --order unsorted --build-repeats 3
  $1 bench rx --out $OUT/results --label "$2" --pinned --keys 67108864 --lookups 1048576 \
    --index rx --key-bits 64 --method hit_and_scan --order unsorted --build-repeats 3
}
sorted_chunks() {
  $1 bench rx --out $OUT/results --label "$2" --pinned --index rx --method hit_and_scan \
    --order gpu_sorted --build-repeats 1
}
sorted_chunks_dense() {
  $1 bench rx --out $OUT/results --label "$2" --pinned --keys 4194304 --index rx \
    --method hit_and_scan --order unsorted,gpu_sorted --build-repeats 1
}
if [[ $what == *" builds-ab "* ]]; then
  echo "== builds from host memory: the binary before (R_BASE) and this one, alternating"
  ab "${BUILD_ROUNDS:-2}" e2e_builds_ab builds_ab
fi
if [[ $what == *" span "* ]]; then
  echo "== RX unsorted and gpu_sorted: where a pipelined call's time beyond its kernels goes"
  $R bench rx --out $OUT/results --label "$(label e2e_span)" --pinned --index rx \
    --method hit_and_scan --order unsorted,gpu_sorted --build-repeats 1
fi
if [[ $what == *" compact-ab "* ]]; then
  echo "== RX builds with compaction always, then where it saves 10% (the default), alternating"
  for _ in $(seq "${COMPACT_ROUNDS:-2}"); do
    for saving in 0 0.1; do
      for bits in 32 64; do
        $R bench rx --out $OUT/results --label "$(label e2e_compact_ab "$([[ $saving == 0 ]] &&
          echo always || echo default)")" --pinned --keys 67108864 --lookups 1048576 --index rx \
          --key-bits $bits --method hit_and_scan --order unsorted --build-repeats 3 \
          --compact-min-saving $saving
      done
    done
  done
fi
if [[ $what == *" sort-ab "* ]]; then
  echo "== chunks sorted on the GPU: the binary before (R_BASE) and this one, alternating"
  ab "${SORT_ROUNDS:-2}" e2e_sort_ab sorted_chunks
  ab 1 e2e_sort_ab sorted_chunks_dense
fi
if [[ $what == *" carry-ab "* ]]; then
  echo "== chunks sorted on the GPU: results downloaded, then carried out by the next chunk's trace"
  for _ in $(seq "${CARRY_ROUNDS:-2}"); do
    for path in download auto; do
      $R bench rx --out $OUT/results --label "$(label e2e_carry_ab ${path/auto/carried})" \
        --pinned --result-path $path --index rx --method hit_and_scan --order gpu_sorted \
        --build-repeats 1
    done
  done
fi
ramp_calls() {
  $1 bench rx --out $OUT/results --label "$2" --pinned --index rx --method hit_and_scan \
    --order unsorted,gpu_sorted --build-repeats 1
}
if [[ $what == *" ramp-ab "* ]]; then
  echo "== chunk sizes at the calls' ends: the binary before (R_BASE) and this one, alternating"
  ab "${RAMP_ROUNDS:-2}" e2e_ramp_ab ramp_calls
fi
if part direct; then
  echo "== results downloaded by a copy queue, then written by the kernels into pinned memory"
  for path in download direct; do
    $R bench rx --out $OUT/results --label $(label e2e_direct) --pinned --result-path $path \
      --index rx,hash --method hit_and_scan --order unsorted,sorted --build-repeats 1
  done
fi
if [[ $what == *" sorted-probes "* ]]; then
  echo "== pipelined calls sorting each chunk on the GPU (RX), and cgRX"
  $B --index rx --method hit_and_scan --order gpu_sorted --build-repeats 1
  $R bench cgrx --out $OUT/results --label $(label e2e) --pinned --bucket-size 32 \
    --order unsorted --build-repeats 1
fi
