#!/usr/bin/env bash
# Two builds of raydb timed back to back on the same GPU, alternating, so that a change that must
# not move performance (a refactor) is judged against the code before it on the same machine and
# not only against committed numbers. Carry .gl and both build folders.
#
# Usage: bench/gpu/ab.sh BEFORE_BUILD AFTER_BUILD [rx] [ssb] [rtscan] | all
#   rx      RX point lookups, 2^26 keys, 2^27 lookups, unsorted and sorted (about 1 min a build)
#   ssb     the 13 SSB queries at SF 1 on the RT engine, checked against SQLite (about 1 min)
#   rtscan  RTScan's main sweep: 1e8 x 3 permutation columns, K 128, 11 queries (a few minutes)
# Rows go to $OUT/results/<device>/ with the labels layout-before and layout-after.
set -euo pipefail
A=$1 B=$2
shift 2
R=$B/src/raydb
source "$(dirname "$0")/common.sh" "$@"
run() {  # run WHICH BUILD SUBCOMMAND ARGS...
  local which=$1 build=$2 sub=$3
  shift 3
  echo "== $which: $sub $*"
  "$build/src/raydb" bench "$sub" --out "$OUT/results" --label "$(label layout_ab "$which")" "$@"
}
for round in 1 2; do
  if part rx; then
    for w in before after; do
      [ $w = before ] && b=$A || b=$B
      run $w "$b" rx --keys 2^26 --lookups 2^27 --index rx --order unsorted,sorted --repeats 5 \
        --warmup 2
    done
  fi
  if part ssb; then
    for w in before after; do
      [ $w = before ] && b=$A || b=$B
      run $w "$b" ssb --sf 1 --engine rt --check-max-sf 1 --repeats 5 --warmup 2
    done
  fi
done
if part rtscan; then
  for w in before after; do
    [ $w = before ] && b=$A || b=$B
    run $w "$b" rtscan --rows 1e8 --columns 3 --dist permutation --bins 128 --baseline none \
      --repeats 5 --warmup 2
  done
fi
