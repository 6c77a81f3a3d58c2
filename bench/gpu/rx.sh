#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the test suite on the NVIDIA device, then the
# RX benchmarks at the paper's sizes. Binaries are built on the developer machine and carried in
# build/; results go to $OUT/results/<device>/ and are copied into bench/results/ afterwards.
# Usage: bench/gpu/rx.sh [tests] [points] [ranges] [baselines] [sweeps] [newer] [join = join-rx join-cgrx] [diagnostics] [dpbis] [variants] [cgrx] [thesis = thesis-rx thesis-join] | all
#        bench/gpu/rx.sh sorted-layout [sorted-layout-more]   (neither part of all; each about 2-3
#        minutes: the sorted array's two layouts, fences and lines, side by side at 2^26 keys /
#        2^27 lookups, label sorted-layout; -more: 64-bit keys and ranges of width 16)
# (all takes more than one 10-minute call: run a few parts per call; 'tests points' fit in one)
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"

if part tests; then
  echo "== tests on the GPU (pipeline traversal; no validation layer on this machine)"
  RAYDB_TEST_NO_VALIDATION=1 build/tests/raydb_tests > "$OUT/tests.txt" 2>&1
  grep -E "ERROR|FATAL" -A14 "$OUT/tests.txt" | head -120
  grep -E "test cases|assertions" "$OUT/tests.txt"
fi

# One bench call per hit rate: each appends its rows when done, so a run cut short keeps the rest.
# The papers compact their BVH: these runs compact always (RxBuildOptions::compact_min_saving 0,
# where the library's default skips a compaction that saves under 10%), to compare like for like.
B="$R bench rx --out $OUT/results --compact-min-saving 0"
if part points; then
  for h in 1 0.5 0; do
    echo "== 32-bit keys, 2^26 keys, 2^27 point lookups, hit rate $h: methods, baselines, order"
    $B --label "$(label paper_points)" --index rx,sorted,hash --method hit_and_scan,any_hit --opaque on,off \
      --hit-rate $h --order unsorted,sorted --build-repeats 2
  done
fi
if part ranges; then
  echo "== range lookups on dense keys (hits per lookup = width), 2^24 lookups"
  $B --label "$(label ranges)" --key-dist dense --lookups 2^24 --range-width 1,16,256 --index rx,sorted \
    --method hit_and_scan,any_hit --hit-rate 1 --order unsorted,sorted --build-repeats 1
  echo "== any_hit over aabbs (once over-counting multi-line ranges on NVIDIA): ranges and points"
  $B --label "$(label aabb_any_hit)" --key-dist dense --lookups 2^24 --range-width 0,16 --primitive aabbs \
    --method any_hit,hit_and_scan --order unsorted --build-repeats 1
  # Uniform 32-bit keys (1 in 64 present) and ranges of 2^24 values: about three lines each.
  $B --label "$(label aabb_any_hit)" --lookups 2^12 --range-width 2^24 --primitive aabbs,triangles \
    --method any_hit,hit_and_scan --order unsorted --build-repeats 1
  echo "== 64-bit keys"
  $B --label "$(label key64)" --key-bits 64 --method hit_and_scan --hit-rate 1,0 --order unsorted,sorted \
    --build-repeats 2
fi
if part baselines; then
  echo "== RX probe order (unsorted, sorted by the generator, sorted on the GPU) and the baselines"
  $B --label "$(label paper_points)" --index rx,sorted,hash --method hit_and_scan --hit-rate 1 \
    --order unsorted,sorted,gpu_sorted --build-repeats 2
  $B --label "$(label paper_points)" --index sorted,hash --hit-rate 0.5,0 --order unsorted,sorted \
    --build-repeats 2
fi
if part sweeps; then
  echo "== key count sweep: RX and the baselines, 2^27 unsorted lookups, hit rate 1"
  for k in 2^20 2^22 2^24; do
    $B --label "$(label key_sweep)" --keys $k --index rx,sorted,hash --method hit_and_scan --hit-rate 1 \
      --order unsorted --build-repeats 1 --repeats 3 --warmup 2
  done
  echo "== DP-BIS, sieve and full scan over 5e8 rows, 3 columns"
  $R bench dpbis --out $OUT/results --label "$(label rows_5e8)" --rows 5e8 --columns 1,3 \
    --selectivity 0.01,0.1 --index dpbis,sieve,full_scan
fi
if part newer; then
  echo "== cgRX at the paper's size, RX partitioned builds, bitmap operations"
  $B --label "$(label cgrx)" --index cgrx --bucket-size 32,256 --hit-rate 1 --order unsorted,sorted \
    --build-repeats 1 --repeats 3 --warmup 2
  $B --label "$(label partitions)" --index rx --partitions 1,4,16 --hit-rate 1 --order unsorted \
    --build-repeats 1 --repeats 3 --warmup 2
  $R bench dpbis --out $OUT/results --label "$(label bitmap_ops)" --rows 1e8 --columns 1 --selectivity 0.5 \
    --index bitmap_ops
fi
if part join || part join-rx; then
  # One bench call per configuration so each appends its rows when done (on the H100 a join of
  # 2^26 probe keys takes about 25 s with its CPU reference, warm-up and repeats).
  echo "== ray-traced join: either side indexed, against the sort-merge, sorted-array and hash joins"
  for m in 1 4; do
    $R bench join --out $OUT/results --label "$(label join)" --build 2^24 --probe 2^26 --multiplicity $m \
      --hit-rate 1 --indexed build,probe --index rx,sort_merge,sorted_array,hash \
      --output aggregate,pairs --repeats 3 --warmup 1
  done
  echo "== duplicate compression"
  $B --label "$(label compress)" --index rx --multiplicity 8 --compress-duplicates --partitions 1,4 \
    --hit-rate 1 --order unsorted --build-repeats 1 --repeats 3 --warmup 2
fi
if part join || part join-cgrx; then
  # A part of its own: with the RX join's calls above it would not fit one 10-minute call.
  echo "== the cgRX join (buckets of 32), either side indexed"
  for m in 1 4; do
    $R bench join --out $OUT/results --label "$(label join)" --build 2^24 --probe 2^26 --multiplicity $m \
      --hit-rate 1 --indexed build,probe --index cgrx --bucket-size 32 \
      --output aggregate,pairs --repeats 3 --warmup 1
  done
fi
if part diagnostics; then
  echo "== where sorted-probe time goes: full lookup, trace without the exact re-check, no trace"
  for d in none trace_only no_trace; do
    $B --label "$(label diagnostic "$d")" --diagnostic $d --index rx --method hit_and_scan --hit-rate 1 \
      --order unsorted,sorted --build-repeats 1
  done
fi
if part dpbis; then
  echo "== DP-BIS, sieve, full scan, CPU BinDex and CPU scan at 1e8 rows; then 1e9 rows, 1 column"
  for b in vulkan cuda; do
    idx=dpbis,sieve,full_scan,bitmap_ops
    [ $b = vulkan ] && idx=$idx,cpu_bindex,cpu_scan
    $R bench dpbis --out $OUT/results --label "$(label backend "$b")" --backend $b --rows 1e8 --columns 1,3 \
      --selectivity 0.01,0.1,0.5 --combine all,any --index $idx
  done
  $R bench dpbis --out $OUT/results --label "$(label rows_1e9)" --rows 1e9 --columns 1 \
    --selectivity 0.01,0.1 --index dpbis,full_scan
fi
if [[ $what == *" sorted-layout "* ]]; then
  echo "== sorted array, layouts fences and lines: 2^26 keys, 2^27 point lookups, hit rate 1 and 0"
  $B --label "$(label sorted_layout)" --keys 2^26 --lookups 2^27 --index sorted \
    --sorted-layout fences,lines --hit-rate 1,0 --order unsorted,sorted --build-repeats 1
fi
if [[ $what == *" sorted-layout-more "* ]]; then
  echo "== the same with 64-bit keys, and ranges (lower bound, then the walk) at width 16"
  $B --label "$(label sorted_layout)" --keys 2^26 --lookups 2^27 --index sorted \
    --sorted-layout fences,lines --hit-rate 1 --order unsorted,sorted --key-bits 64 \
    --build-repeats 1
  $B --label "$(label sorted_layout)" --key-dist dense --lookups 2^24 --range-width 16 --index sorted \
    --sorted-layout fences,lines --hit-rate 1 --order unsorted,sorted --build-repeats 1
fi
if part variants; then
  echo "== primitive type and key-order vs row-order layout"
  $B --label "$(label primitive_layout)" --primitive triangles,aabbs --layout key,row --hit-rate 1 --order unsorted,sorted --build-repeats 2
  for p in fast_trace fast_build; do
    echo "== build preference $p"
    $B --label "$(label prefer "$p")" --prefer $p --hit-rate 1 --order unsorted,sorted --build-repeats 3
  done
fi
if part cgrx; then
  echo "== cgRX at the paper's size: windowed vs whole-line first ray, and where the time goes"
  $B --label "$(label cgrx_ray)" --index cgrx --bucket-size 32,256 --cgrx-rays window,full --hit-rate 1 \
    --order unsorted,sorted --build-repeats 1 --repeats 3 --warmup 1
  for d in trace_only no_trace; do
    $B --label "$(label cgrx_diagnostic "$d")" --diagnostic $d --index cgrx --bucket-size 32 \
      --cgrx-rays window,full --hit-rate 1 --order unsorted,sorted --build-repeats 1 --repeats 3 \
      --warmup 1
  done
fi
if part thesis || part thesis-rx || part thesis-join; then
  # The thesis's sweeps (seed 002, Ch. 5) at its default sizes: 2^23 32-bit keys, 2^25 lookups
  # (TK / TL: log2 of keys and lookups, smaller for a smoke test). Labels thesis-* feed
  # tools/report.py's "Where each optimization helps". About 7 minutes on an H100 (estimated, not
  # yet run); should one call not suffice, run 'thesis-rx' and 'thesis-join' apart.
  TK=${TK:-23} TL=${TL:-25}
  T="$B --keys 2^$TK --build-repeats 1 --repeats 3 --warmup 1"
fi
if part thesis || part thesis-rx; then
  echo "== thesis: range lookups, original (any_hit) vs revised (hit_and_scan), 2^2..2^10 hits (Fig 5.5)"
  $T --label "$(label thesis_range_hits)" --key-dist dense --lookups 2^$((TL - 7)) \
    --range-width 4,16,64,256,1024 --method any_hit,hit_and_scan --order unsorted
  echo "== thesis: duplicates, original vs revised vs compressed; baselines (Figs 5.6, 5.10, 5.20)"
  for m in 1 16 256 1024; do
    $T --label "$(label thesis_multiplicity)" --multiplicity $m --lookups 2^$((TL - 7)) --method any_hit \
      --order unsorted
    $T --label "$(label thesis_multiplicity)" --multiplicity $m --lookups 2^$((TL - 7)) --method hit_and_scan \
      --index rx,cgrx,sorted,hash --order unsorted
    $T --label "$(label thesis_multiplicity)" --multiplicity $m --lookups 2^$((TL - 7)) --method hit_and_scan \
      --compress-duplicates --order unsorted
  done
  echo "== thesis: sub-BVHs 1..256 (Figs 5.7-5.9)"
  $T --label "$(label thesis_partitions)" --lookups 2^$TL --partitions 1,4,16,64,256 --order unsorted
  echo "== thesis: sorted probes, sort time apart, points and 16-key ranges (Figs 5.12-5.13)"
  for l in $((TL - 4)) $((TL - 2)) $TL; do
    $T --label "$(label thesis_sorted_probes)" --key-dist dense --lookups 2^$l --range-width 0,16 \
      --order unsorted,gpu_sorted
  done
  echo "== thesis: build size 2^15..2^23, every index (Figs 5.17-5.18)"
  for k in 15 17 19 21 23; do
    [ $k -gt $TK ] && continue
    $B --label "$(label thesis_build_size)" --keys 2^$k --lookups 2^$((TL - 5)) --index rx,cgrx,sorted,hash \
      --order sorted --build-repeats 2 --repeats 3 --warmup 1
  done
  echo "== thesis: probe size 2^17..2^25, probes sorted, every index (Fig 5.19)"
  for l in 17 19 21 23 25; do
    [ $l -gt $TL ] && continue
    $T --label "$(label thesis_probe_size)" --lookups 2^$l --index rx,cgrx,sorted,hash --order sorted
  done
  echo "== thesis: misses (hit rates 1, 0.5, 0; Fig 5.22)"
  $T --label "$(label thesis_hit_rate)" --lookups 2^$TL --index rx,cgrx,sorted,hash --hit-rate 1,0.5,0 \
    --order sorted
  echo "== thesis: cgRX bucket size 2^5 / 2^8, windowed vs whole-line first ray"
  $T --label "$(label thesis_bucket_size)" --lookups 2^$TL --index cgrx --bucket-size 32,256 \
    --cgrx-rays window,full --order unsorted,sorted
fi
if part thesis || part thesis-join; then
  echo "== thesis: inverse mapping (Fig 5.14): build 2^21 x probe 2^23, and the reverse"
  J="$R bench join --out $OUT/results --label $(label thesis_inverse) --output aggregate --repeats 3 --warmup 1"
  $J --build 2^$((TK - 2)) --probe 2^$TK --indexed build
  $J --build 2^$TK --probe 2^$((TK - 2)) --indexed build,probe
  $J --build 2^$TK --probe 2^$((TK - 2)) --indexed build,probe --index cgrx --bucket-size 32
  echo "== thesis: the RX and cgRX joins against the sort-merge (merge path and per-key search),"
  echo "   sorted-array and hash joins; one call per multiplicity, so a call cut short keeps the rest"
  for m in 1 4; do
    $R bench join --out $OUT/results --label "$(label thesis_join)" --build 2^$TK --probe 2^$TL \
      --multiplicity $m --hit-rate 1 --index rx,cgrx,sort_merge,sort_search,sorted_array,hash \
      --bucket-size 32,256 --output aggregate --repeats 3 --warmup 1
    $R bench join --out $OUT/results --label "$(label thesis_join)" --build 2^$((TK - 2)) \
      --probe 2^$((TL - 2)) --multiplicity $m --hit-rate 1 \
      --index rx,cgrx,sort_merge,sort_search,sorted_array,hash --bucket-size 32,256 \
      --output pairs --repeats 3 --warmup 1
  done
fi
