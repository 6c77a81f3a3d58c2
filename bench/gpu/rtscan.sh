#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the RTScan tests on the NVIDIA device, then
# the paper's main sweep and its side experiments. Binaries are built on the developer machine and
# carried in build/; results go to $OUT/results/<device>/ and are copied into bench/results/.
# Usage: bench/gpu/rtscan.sh [tests] [main] [variants] [baselines] [params] [skew] [tpch]
#        [transfer] | all
# 'tests main' is one call (under 9 minutes); the other parts go in a second call ('tests tpch
# transfer' fit one call: about 1 + 3 + 1 minutes).
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"

if part tests; then
  echo "== RTScan tests on the GPU (pipeline traversal; no validation layer on this machine)"
  RAYDB_TEST_NO_VALIDATION=1 timeout 120 build/tests/raydb_tests -tc='rtscan*,bitmap reader*' > "$OUT/tests-rtscan.txt" 2>&1
  grep -E "ERROR|FATAL" -A14 "$OUT/tests-rtscan.txt" | head -80
  grep -E "test cases|assertions" "$OUT/tests-rtscan.txt"
fi

B="timeout 420 $R bench rtscan --out $OUT/results"
if part main; then
  # The paper's main sweep: 3 columns, 1e8 rows, each a permutation of 0..1e8-1, K = 128, the 11
  # lt queries (selectivity 0, 0.1, ..., 1 per column). Index build (encode + sieve + BVH) and
  # BVH size are in every row; the full scan on the same data beside it. Counting run included.
  echo "== main sweep: rtscan vs full scan, 1e8 x 3 permutation, K 128"
  t0=$SECONDS
  $B --label "$(label paper_main)" --rows 1e8 --columns 3 --dist permutation --bins 128 \
    --baseline full_scan --repeats 5 --warmup 2
  echo "main sweep: $((SECONDS - t0)) s"
  grep -h '"index":"rtscan"' "$OUT"/results/*/rtscan.jsonl | head -1 | grep -oE \
    '"(index_build_ms|build_parts_ms|build_upload_ms|build_encode_ms|build_encode_host_ms|build_sieve_ms|build_bvh_ms)":[0-9.]+'
fi
if part variants; then
  echo "== RT variants and baselines at 1e7 rows (RTc1/RTc3 trace far more)"
  $B --label "$(label variants)" --rows 1e7 --columns 3 --dist uniform --mode rtscan,rtc3,rtc1 \
    --selectivity 0.1,0.5,0.9 --baseline full_scan,sieve,dpbis,cpu_bindex --repeats 3 --warmup 1
  echo "== RTIndex-style scan (one ray per predicate over all its keys) at 1e6 rows"
  $B --label "$(label variants_rtindex)" --rows 1e6 --columns 3 --dist uniform --mode rtindex,rtscan \
    --selectivity 0.1,0.5 --baseline full_scan --counts false --repeats 1 --warmup 0
  echo "== 4 predicates: 3+1 against 2+2"
  for g in 3+1 2+2; do
    $B --label "$(label groups "$g")" --rows 1e8 --columns 4 --dist permutation --groups $g \
      --selectivity 0.2,0.5,0.9 --baseline none --repeats 3 --warmup 1
  done
fi
if part baselines; then
  echo "== the main sweep's data against every baseline: full scan, GPU sieve (BinDex-style), DP-BIS, CPU BinDex"
  $B --label "$(label paper_baselines)" --rows 1e8 --columns 3 --dist permutation --bins 128 \
    --baseline full_scan,sieve,dpbis,cpu_bindex --repeats 3 --warmup 1
fi
if part params; then
  echo "== K, I, S, L sweeps at 1e8 rows (I = S = w is the paper's best)"
  $B --label "$(label sweep_bins)" --rows 1e8 --dist permutation --bins 32,64,128 --selectivity 0.2,0.5,0.9 \
    --baseline none --counts true --repeats 3 --warmup 1
  # Not 0.5: on a permutation with K = 128 it falls on sieve borders and nothing is refined.
  $B --label "$(label sweep_is)" --rows 1e8 --dist permutation --interval 20833,41667,83333 \
    --spacing 1,41667,83333 --selectivity 0.2,0.9 --baseline none --repeats 3 --warmup 1
  $B --label "$(label sweep_l)" --rows 1e8 --dist permutation --segment 1e5,1111111,1e7 --selectivity 0.2,0.9 \
    --baseline none --repeats 3 --warmup 1
fi
if part skew; then
  echo "== distributions at selectivity 0.9 and the sweep: uniform, Zipf 1.1/1.3/1.5, normal, 2^6"
  $B --label "$(label skew)" --rows 1e8 --dist uniform,normal,small-range --selectivity 0.1,0.5,0.9 \
    --baseline full_scan,sieve --repeats 3 --warmup 1
  for z in 1.1 1.3 1.5; do
    $B --label "$(label zipf "$z")" --rows 1e8 --dist zipf --zipf $z --selectivity 0.1,0.5,0.9 \
      --baseline full_scan,sieve --repeats 3 --warmup 1
  done
fi
if part tpch; then
  # TPC-H Q3, Q6, Q17 predicates at SF 10 (about 6e7 LINEITEM rows x 3 columns per query) through
  # RTScan and every baseline, each result checked whole against the CPU scan.
  echo "== TPC-H Q3, Q6, Q17 at SF 10: rtscan vs full scan, GPU sieve, DP-BIS, CPU BinDex"
  t0=$SECONDS
  $B --label "$(label tpch)" --workload tpch --sf 10 --bins 128 \
    --baseline full_scan,sieve,dpbis,cpu_bindex --repeats 5 --warmup 2
  echo "tpch: $((SECONDS - t0)) s"
fi
if part transfer; then
  # The result transfer at 1e8 rows (12.5 MB bitmaps) through the persistent host-cached reader
  # (transfer_ms = transfer_device_ms + transfer_host_copy_ms + waits) against the old per-call
  # staging (transfer_per_call_ms) and the device-side count (count_ms).
  echo "== result transfer at 1e8 rows: reader vs per-call staging vs count only"
  t0=$SECONDS
  $B --label "$(label transfer)" --rows 1e8 --columns 3 --dist permutation --selectivity 0.1,0.5,1 \
    --baseline full_scan --counts false --repeats 5 --warmup 2
  echo "transfer: $((SECONDS - t0)) s"
  grep -h "\"label\":\"$(label transfer)\"" "$OUT"/results/*/rtscan.jsonl | grep -oE \
    '"(index|selectivity|transfer_ms|transfer_device_ms|transfer_host_copy_ms|transfer_host_cached|transfer_per_call_ms|count_ms)":[^,]+' | paste -sd' ' | sed 's/"index"/\n&/g'
fi
