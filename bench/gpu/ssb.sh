#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the SSB tests on the NVIDIA device (the CUDA
# baseline's too), then the 13 SSB queries on the RT engine and the two star-join baselines
# (star_join in Vulkan, crystal_cuda in CUDA, Crystal's style) at SF 1 (every result checked
# against SQLite), 10 and 20.
# Binaries are built on the developer machine and carried in build/; results go to
# $OUT/results/<device>/ and are copied into bench/results/ afterwards.
# Usage: bench/gpu/ssb.sh [tests] [crystal] [sf1] [sf10] [sf20] [ab] [geometry] [geometry-large]
#        | all
# 'geometry' (about 4 minutes) and 'geometry-large' (about 8) time SsbEngineOptions::geometry's
# two placements (docs/ssb.md, "Geometry").
# 'tests crystal' is a short first call (about 2 minutes, capped at 60 + 150 s): the SSB tests,
# then the two star-join baselines alone at SF 1 (checked) and 10, no RT engine.
# 'sf1 sf20' fits one call (about 6 minutes expected; its timeouts add up to 8.5 minutes);
# 'tests sf10 ab' is another call (about 5 minutes; 'all' no longer fits one call's 9 minutes).
# 'ab' runs the four slowest RT queries at SF 10 three ways: the engine as the first H100 run
# had it (1,024 lanes, 2^16 target rays, atomics per row), only the atomics per row, and the
# defaults, so the time splits into parallelism (rays) and atomic contention. sf20 runs
# as five processes (the two star-join baselines, then the RT engine per query flight), each writing
# its rows when it ends, so a timeout loses one flight, not the scale factor. Each regenerates
# SF 20 (about 13 s; SF 10 took 6.5 s on the H100's host) and encodes 2.7 s per query at SF 10.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"

if part tests; then
  echo "== SSB tests on the GPU (the reference dbgen files are not on this machine: skipped)"
  RAYDB_TEST_NO_VALIDATION=1 timeout 60 build/tests/raydb_tests -tc='ssb*' -tce='*dbgen*' \
    > "$OUT/tests-ssb.txt" 2>&1
  grep -E "ERROR|FATAL" -A14 "$OUT/tests-ssb.txt" | head -80
  grep -E "skipped: " "$OUT/tests-ssb.txt"  # the CUDA baseline's test must not skip here
  grep -E "test cases|assertions" "$OUT/tests-ssb.txt"
fi
B="$R bench ssb --out $OUT/results"
ALL="--engine rt,star_join,crystal_cuda"
if part crystal; then
  echo "== SF 1 and 10: star_join (Vulkan) and crystal_cuda (CUDA) only; SF 1 checked"
  timeout 150 $B --label "$(label ssb_crystal)" --sf 1,10 --check-max-sf 1 --repeats 5 --warmup 2 \
    --engine star_join,crystal_cuda
fi
if part sf1; then
  echo "== SF 1: all 13 queries, every result compared with SQLite"
  timeout 150 $B --label "$(label ssb_sf1)" --sf 1 --check-max-sf 1 --repeats 5 --warmup 2 $ALL
fi
if part sf10; then
  echo "== SF 10: all 13 queries (not checked: SQLite is too slow there)"
  timeout 150 $B --label "$(label ssb_sf10)" --sf 10 --check-max-sf 1 --repeats 5 --warmup 2 $ALL
fi
if part sf20; then
  echo "== SF 20: both star-join baselines, then the RT engine a query flight at a time (unchecked)"
  timeout 80 $B --label "$(label ssb_sf20)" --sf 20 --check-max-sf 1 --repeats 5 --warmup 2 \
    --engine star_join,crystal_cuda
  for flight in 1.1,1.2,1.3 2.1,2.2,2.3 3.1,3.2,3.3,3.4 4.1,4.2,4.3; do
    timeout 70 $B --label "$(label ssb_sf20)" --sf 20 --check-max-sf 1 --repeats 5 --warmup 2 --engine rt \
      --query $flight
  done
fi
if part geometry; then
  echo "== SF 1 and 10: the RT engine's two geometries in both APIs (each table compared whole with"
  echo "   value_group in Vulkan; SF 1 also with SQLite), crystal_cuda beside them"
  timeout 300 $B --label "$(label ssb_geometry sf1-10)" --sf 1,10 --check-max-sf 1 --repeats 5 \
    --warmup 2 --engine rt,crystal_cuda --api vulkan,optix --geometry value_group,filter_only
fi
if part geometry-large; then
  echo "== Q3.x at SF 20 in both geometries; all 13 at SF 25 (150 M rows) in filter_only"
  timeout 150 $B --label "$(label ssb_geometry sf20)" --sf 20 --query 3.1,3.2,3.3,3.4 --repeats 3 \
    --warmup 1 --engine rt --geometry value_group,filter_only
  timeout 240 $B --label "$(label ssb_geometry sf25)" --sf 25 --repeats 3 --warmup 1 \
    --engine rt,crystal_cuda --geometry filter_only
  echo "== Q3.3 at SF 25 in value_group (stopped after 60 s)"
  timeout 60 $B --label "$(label ssb_geometry sf25)" --sf 25 --query 3.3 --repeats 1 --warmup 0 \
    --engine rt --geometry value_group
  echo "exit $?"
fi
if part ab; then
  echo "== SF 10, Q1.1 Q2.1 Q3.1 Q4.1 on the RT engine: old rays and atomics, old atomics, now"
  Q="--sf 10 --check-max-sf 1 --repeats 5 --warmup 2 --engine rt --query 1.1,2.1,3.1,4.1"
  timeout 60 $B --label "$(label ssb_ab_old)" $Q --max-lanes 1024 --target-rays 65536 --per-row-atomics
  timeout 60 $B --label "$(label ssb_ab_per_row)" $Q --per-row-atomics
  timeout 60 $B --label "$(label ssb_ab_now)" $Q
fi
