#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): the Vulkan-vs-OptiX cross-API test, then
# `raydb bench rx --api vulkan,optix` at the paper's sizes, each lookup result compared whole with
# the CPU reference and between the two APIs, and RTScan's refine through both APIs
# (`raydb bench rtscan --api vulkan,optix`, docs/optix.md). Binaries are built on the developer
# machine WITH OptiX headers (cmake -DOptiX_ROOT=...; see the README) and carried in build/ (or
# $RAYDB_BUILD). Output: $OUT/results/<device>/tests-optix.txt, rx.jsonl and rtscan.jsonl.
# Usage: bench/gpu/optix.sh [tests] [points] [variants] [prefer] [key64] [ranges] [boxes] [rtscan]
#        [rtscan-memory] [memory] [ias] [build] [ssb] [ssb-variants] [join] [cgrx] [cgrx-prefer] [cgrx-ias]
#        [vk-pipeline-cgrx] [vk-pipeline-rx] [vk-pipeline-rtscan] [vk-pipeline-ssb]
#        [ssb-optix-limits] [ssb-prefer] [rtscan-rtindex] [cgrx-join] [cgrx-diagnostics]
#        [vk-build-alone] | gaps | all
# vk-pipeline-<op>: Vulkan pipelines before / fitted / fitted + culling flag (RAYDB_VK_RT_PIPELINE);
# ssb-optix-limits: OptiX's SSB with its stack computed and with register caps;
# ssb-prefer: SSB at SF 10 under the build preferences none and fast_build, both APIs;
# rtscan-rtindex: RTScan's rtindex mode (triangles, any-hit) through both APIs, 1e6 rows;
# cgrx-join: the cgRX join through both APIs; cgrx-diagnostics: trace_only / no_trace, both APIs;
# vk-build-alone: Vulkan build times with and without the OptiX twin in the process;
# cgrx-ias: the OptiX cgRX twin through an IAS over its GAS, both APIs (about 2 min);
# cgrx-prefer: cgRX under the fast_trace and fast_build preferences, both APIs (about 4 min);
# cgrx: the cgRX index through both APIs, 2^26 keys, 2^27 lookups, buckets 32 and 256 (~3-4 min);
# join: the RX join through both APIs, 2^23 x 2^25 (167 s on the H100);
# ssb: the SSB engine through both APIs at SF 1 and 10 (164 s on the H100); ssb-variants: two
# OptiX variants of it (RAYDB_OPTIX_SSB_VARIANT);
# memory: RX over OptiX's own copy of the records vs the imported ones (about 2 minutes);
# ias: OptiX through an IAS over the GAS, Vulkan's hierarchy (about 1 minute);
# build: the fast_build build gap, with Vulkan geometry flags and compaction switched (1-2 min).
# tests runs every "optix*" case: RX, RTScan, SSB, join and cgRX cross-API (about a minute).
# rtscan: 1e8 x 3 permutation, K 128, the 11 lt queries, both APIs (estimated 2-3 minutes).
# gaps = variants prefer key64 ranges boxes: the measurements docs/optix.md ("Gaps") waits for
# (estimated 6-8 minutes on an H100; if it runs short, 'variants prefer' then 'key64 ranges
# boxes'). all (default) = tests points rtscan + gaps: more than one call's time.
set -uo pipefail
source .gl/enter.sh
source "$(dirname "$0")/label.sh"
OUT=${OUT:-/tmp/raydb-out}
BUILD=${RAYDB_BUILD:-build}
R=$BUILD/src/raydb
T=$BUILD/tests/raydb_tests
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
device=$(echo "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
device=${device:-unknown-device}
mkdir -p "$OUT/results/$device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
$R info | tee -a "$OUT/gpu.txt" | grep -E "raydb would use|CUDA|OptiX"
if ! $R info | grep -q "^OptiX backend: yes"; then
  echo "FAIL: the OptiX backend is not available to this binary (see 'OptiX backend:' above;" \
       "was it built with -DOptiX_ROOT?)" >&2
  exit 2
fi

what=" ${*:-all} "
part() {
  [[ $what == *" all "* || $what == *" $1 "* ||
     ($what == *" gaps "* && " variants prefer key64 ranges boxes " == *" $1 "*) ]]
}
status=0

if part tests; then
  log="$OUT/results/$device/tests-optix.txt"
  echo "== cross-API tests on $name: every OptiX lookup, RTScan bitmap and SSB table against Vulkan and the CPU"
  # -s for the MESSAGE lines (seeds, skips); the passing assertions' blocks are dropped from the
  # saved log (the cgRX case alone passes ~80,000 checks).
  RAYDB_TEST_NO_VALIDATION=1 $T -tc="optix*" -s > "$log.full" 2>&1
  rc=$?
  awk 'BEGIN { RS = ""; ORS = "\n\n" } !/: SUCCESS: /' "$log.full" > "$log"
  rm -f "$log.full"
  grep -E "ERROR|FATAL" -A14 "$log" | head -120
  grep -E "test cases|assertions" "$log"
  if grep -q "skipped: no OptiX device" "$log"; then
    echo "FAIL: the OptiX cases were skipped on the GPU machine:" >&2
    grep -m1 "skipped: no OptiX device" "$log" >&2
    status=3
  elif [[ $rc -ne 0 ]]; then
    echo "FAIL: the OptiX tests failed (exit $rc); see $log" >&2
    status=$rc
  else
    echo "OK: OptiX lookups and RTScan bitmaps equal Vulkan's and the CPU reference ($log)"
  fi
fi

# Same build flags in both APIs: prefer fast trace, allow compaction, compacted.
# The OptiX artifact compacts its GAS: the Vulkan BVH beside it compacts always too (bench/gpu/rx.sh).
B="$R bench rx --out $OUT/results --api vulkan,optix --prefer fast_trace --compact-min-saving 0"
if part points; then
  echo "== 2^26 32-bit keys, 2^27 point lookups: hit_and_scan (opaque rays) and any_hit"
  $B --label "$(label optix_points)" --method hit_and_scan,any_hit --hit-rate 1,0 --order unsorted,sorted \
    --build-repeats 2 --warmup 2 || status=5
fi
if part variants; then
  echo "== the probe gap, one switch at a time: OptiX twins per --optix-variant (docs/optix.md)"
  # Half the paper's size and hit rate 1 only: five twins at 2^26 keys / 2^27 lookups and two hit
  # rates did not fit one call. The gap is the same shape at 2^25 keys (README table).
  $B --label "$(label optix_variants)" --keys 2^25 --lookups 2^26 --method hit_and_scan --hit-rate 1 \
    --order unsorted,sorted --optix-variant base,multi_anyhit,launch2d,o3,o0 --build-repeats 1 \
    --warmup 2 || status=5
fi
if part prefer; then
  # The size per key is what this part is for: 2^24 keys are enough and quick.
  echo "== GAS vs BVH size under each build preference (both APIs), 2^24 keys and lookups"
  for p in none fast_trace fast_build; do
    $R bench rx --out $OUT/results --api vulkan,optix --prefer $p --label "$(label optix_prefer "$p")" \
      --keys 2^24 --lookups 2^24 --method hit_and_scan --hit-rate 1 --order unsorted \
      --optix-variant base,multi_anyhit --build-repeats 1 --warmup 1 || status=5
  done
fi
if part key64; then
  echo "== 64-bit keys, hit_and_scan"
  $B --label "$(label optix_key64)" --key-bits 64 --method hit_and_scan --hit-rate 1 \
    --order unsorted,sorted --build-repeats 1 --warmup 2 || status=5
fi
if part ranges; then
  echo "== range lookups on dense keys (hits per lookup = width), 2^24 lookups"
  $B --label "$(label optix_ranges)" --key-dist dense --lookups 2^24 --range-width 1,16,256 \
    --method hit_and_scan,any_hit --hit-rate 1 --order unsorted --build-repeats 1 --warmup 2 \
    || status=5
fi
if part boxes; then
  echo "== boxes (intersection programs): points and 16-key ranges, 2^24 lookups"
  $B --label "$(label optix_boxes)" --key-dist dense --lookups 2^24 --range-width 0,16 --primitive aabbs \
    --method hit_and_scan,any_hit --order unsorted --build-repeats 1 --warmup 2 || status=5
fi
if part rtscan; then
  # RTScan's main sweep (docs/rtscan.md) with the refine through both APIs: the same table,
  # cubes, build flags (fast trace, compaction), lattice and queries; every bitmap compared whole
  # with the CPU scan and between the APIs. No counting run and no baseline, to stay short.
  echo "== RTScan: 1e8 x 3 permutation, K 128, the 11 lt queries, refine in Vulkan and in OptiX"
  t0=$SECONDS
  timeout 300 $R bench rtscan --out $OUT/results --label "$(label optix_rtscan)" --api vulkan,optix \
    --rows 1e8 --columns 3 --dist permutation --bins 128 --baseline none --counts false \
    --repeats 5 --warmup 2 || status=5
  echo "rtscan part: $((SECONDS - t0)) s"
fi
if part rtscan-rtindex; then
  # RTScan's rtindex mode (triangles re-checked by any-hit, one ray per predicate over all its
  # keys) through both APIs, at the size of bench/gpu/rtscan.sh's rtindex variant (1e6 rows).
  echo "== RTScan rtindex: 1e6 x 3 uniform, selectivity 0.1 and 0.5, refine in Vulkan and in OptiX"
  timeout 200 $R bench rtscan --out $OUT/results --label "$(label optix_rtscan_rtindex)" --api vulkan,optix \
    --rows 1e6 --columns 3 --dist uniform --mode rtindex --selectivity 0.1,0.5 --baseline none \
    --counts false --repeats 3 --warmup 1 || status=5
fi
if part rtscan-memory; then
  # The OptiX refine reading its keys from cudaMalloc'd copies (RAYDB_CUDA_OWN_MEMORY=1) instead of
  # the Vulkan memory CUDA imports: does the mapping of imported memory explain the gap?
  echo "== RTScan refine in OptiX with the keys in CUDA's own memory, 1e8 x 3, selectivity 0.2, 0.9"
  RAYDB_CUDA_OWN_MEMORY=1 timeout 200 $R bench rtscan --out $OUT/results \
    --label "$(label optix_rtscan_own_keys)" --api vulkan,optix --rows 1e8 --columns 3 --dist permutation \
    --bins 128 --selectivity 0.2,0.9 --baseline none --counts false --repeats 5 --warmup 2 ||
    status=5
fi
if part ssb; then
  # The SSB engine (RTCUDB) through both APIs on the same tables and encoding: every result table
  # compared with the other API's, and with SQLite at SF 1.
  echo "== SSB: the 13 queries at SF 1 and 10, RT engine through Vulkan and OptiX"
  t0=$SECONDS
  timeout 420 $R bench ssb --out $OUT/results --label "$(label optix_ssb)" --engine rt --api vulkan,optix \
    --sf 1,10 --repeats 5 --warmup 2 || status=5
  echo "ssb part: $((SECONDS - t0)) s"
fi
if part ssb-variants; then
  # Which difference moves the SSB gap: OptiX without REQUIRE_SINGLE_ANYHIT_CALL, and the run
  # through memory instead of payload registers (RAYDB_OPTIX_SSB_VARIANT). SF 1 with both APIs
  # (checked against SQLite and Vulkan), SF 10 OptiX only.
  for v in multi_anyhit pointer_payload; do
    echo "== SSB through OptiX, variant $v"
    RAYDB_OPTIX_SSB_VARIANT=$v timeout 150 $R bench ssb --out $OUT/results \
      --label "$(label optix_ssb_variant "$v")" --engine rt --api vulkan,optix --sf 1 --repeats 5 --warmup 2 || status=5
    RAYDB_OPTIX_SSB_VARIANT=$v timeout 150 $R bench ssb --out $OUT/results \
      --label "$(label optix_ssb_variant "$v")" --engine rt --api optix --sf 10 --repeats 5 --warmup 2 || status=5
  done
fi
if part join; then
  # The RX join through both APIs at the thesis's sizes (bench/gpu/rx.sh thesis-join): counting
  # pass and collect pass, either side indexed; every result checked against the CPU join.
  echo "== the RX join through Vulkan and OptiX, 2^23 build x 2^25 probe"
  t0=$SECONDS
  timeout 300 $R bench join --out $OUT/results --label "$(label optix_join)" --index rx --api vulkan,optix \
    --build 2^23 --probe 2^25 --output aggregate,pairs --indexed build,probe --repeats 3 \
    --warmup 1 || status=5
  echo "join part: $((SECONDS - t0)) s"
fi
if part cgrx-join; then
  # The cgRX join through both APIs at the RX join's sizes: the counting pass and the run lookups
  # of pairs through CgrxOptixIndex (the copy of the runs stays a Vulkan pass); buckets of 32.
  echo "== the cgRX join through Vulkan and OptiX, 2^23 build x 2^25 probe, buckets of 32"
  t0=$SECONDS
  timeout 300 $R bench join --out $OUT/results --label "$(label optix_cgrx_join)" --index cgrx \
    --bucket-size 32 --api vulkan,optix --build 2^23 --probe 2^25 --output aggregate,pairs \
    --indexed build,probe --repeats 3 --warmup 1 || status=5
  echo "cgrx-join part: $((SECONDS - t0)) s"
fi
if part cgrx-diagnostics; then
  # Where cgRX's time goes in each API (docs/cgrx.md's split, now for the OptiX twin too):
  # trace_only (the rays alone; results are buckets and ray counts, compared between the APIs)
  # and no_trace (a binary search instead of rays; exact). Sorted lookups: the one cgRX gap.
  t0=$SECONDS
  for d in trace_only no_trace; do
    echo "== cgRX --diagnostic $d, 2^26 keys, 2^27 sorted lookups, buckets 32 and 256, both APIs"
    timeout 200 $R bench cgrx --out $OUT/results --label "$(label optix_cgrx_diagnostic "$d")" \
      --api vulkan,optix --diagnostic $d --keys 2^26 --lookups 2^27 --bucket-size 32,256 \
      --hit-rate 1 --order sorted,unsorted --build-repeats 1 --warmup 2 || status=5
  done
  echo "cgrx-diagnostics part: $((SECONDS - t0)) s"
fi
if part vk-build-alone; then
  # Vulkan BVH builds timed in a process that runs Vulkan alone against one that also runs the
  # OptiX twin (CUDA context and OptiX device context alive): SSB at SF 10 showed 166-252 ms
  # against 69-81 ms for the same builds (docs/optix.md). SSB Q1.1 and Q3.1, then RX at 2^24.
  t0=$SECONDS
  for api in vulkan vulkan,optix; do
    echo "== Vulkan builds with --api $api: SSB SF 10 Q1.1, Q3.1"
    timeout 120 $R bench ssb --out $OUT/results --label "$(label optix_vk_build_alone "$api")" --engine rt \
      --api $api --sf 10 --query 1.1,3.1 --repeats 3 --warmup 1 || status=5
    echo "== Vulkan builds with --api $api: RX 2^24 keys, 5 builds"
    timeout 100 $R bench rx --out $OUT/results --label "$(label optix_vk_build_alone "$api")" --api $api \
      --prefer fast_trace --keys 2^24 --lookups 2^24 --method hit_and_scan --hit-rate 1 \
      --order unsorted --build-repeats 5 --warmup 1 || status=5
  done
  echo "vk-build-alone part: $((SECONDS - t0)) s"
fi
if part memory; then
  # RX's programs read the index's records from cudaMalloc'd copies (the default) or from the
  # Vulkan memory CUDA imports (RAYDB_CUDA_OWN_MEMORY=0): how much of the RX gap is the import?
  # The variants' size (2^25 keys, 2^26 lookups), hit rate 1, so the rows compare with them.
  echo "== RX through OptiX over own vs imported records, 2^25 keys, 2^26 lookups"
  for own in 1 0; do
    lbl=$(label optix_rx_own_records)
    [[ $own == 0 ]] && lbl=$(label optix_rx_imported_records)
    RAYDB_CUDA_OWN_MEMORY=$own $B --label "$lbl" --keys 2^25 --lookups 2^26 \
      --method hit_and_scan,any_hit --hit-rate 1,0 --order unsorted,sorted --build-repeats 1 \
      --warmup 2 || status=5
  done
fi
if part ias; then
  # The hierarchy difference: OptiX through an instance AS over the GAS (Vulkan's TLAS + BLAS).
  echo "== RX through OptiX with an IAS over the GAS, 2^25 keys, 2^26 lookups"
  $B --label "$(label optix_ias)" --keys 2^25 --lookups 2^26 --method hit_and_scan --hit-rate 1,0 \
    --order unsorted,sorted --optix-variant base,ias --build-repeats 1 --warmup 2 || status=5
fi
if part build; then
  # The one gap in OptiX's favour: with fast_build OptiX built 2^24 keys in 19.2 ms, Vulkan in
  # 26.7. Does a Vulkan geometry flag (RAYDB_VK_GEOMETRY_FLAGS) or compaction move it?
  echo "== build time at 2^24 keys under fast_build: geometry flags and compaction, both APIs"
  F="$R bench rx --out $OUT/results --api vulkan,optix --prefer fast_build --keys 2^24 \
     --lookups 2^24 --method hit_and_scan --hit-rate 1 --order unsorted --build-repeats 5 --warmup 1"
  $F --label "$(label optix_build_base)" || status=5
  $F --label "$(label optix_build_no_compact)" --no-compact || status=5
  RAYDB_VK_GEOMETRY_FLAGS=none $F --label "$(label optix_build_vk_flags none)" --optix-variant multi_anyhit ||
    status=5
  RAYDB_VK_GEOMETRY_FLAGS=opaque $F --label "$(label optix_build_vk_flags opaque)" || status=5
  for p in none fast_trace; do
    $R bench rx --out $OUT/results --api vulkan,optix --prefer $p --keys 2^24 --lookups 2^24 \
      --method hit_and_scan --hit-rate 1 --order unsorted --build-repeats 5 --warmup 1 \
      --label "$(label optix_build_prefer "$p")" || status=5
  done
fi
if part cgrx; then
  # cgRX through both APIs (docs/optix.md, "cgRX through OptiX"): the same representatives,
  # markers, records and rays; every result compared whole with the CPU reference and between the
  # APIs. cgRX sets no build preference in either API; compaction on in both.
  echo "== cgRX: 2^26 32-bit keys, 2^27 point lookups, buckets 32 and 256, Vulkan and OptiX"
  t0=$SECONDS
  timeout 420 $R bench cgrx --out $OUT/results --label "$(label optix_cgrx)" --api vulkan,optix \
    --keys 2^26 --lookups 2^27 --bucket-size 32,256 --hit-rate 1 --order unsorted,sorted \
    --build-repeats 1 --warmup 2 || status=5
  echo "cgrx part: $((SECONDS - t0)) s"
fi
if part cgrx-prefer; then
  # The cgRX gap runs OptiX's way (its long first rays are faster): does a build preference,
  # given to both APIs, move either? Labels optix-cgrx-prefer-<preference>.
  for p in fast_trace fast_build; do
    echo "== cgRX with --prefer $p, both APIs"
    timeout 250 $R bench cgrx --out $OUT/results --label "$(label optix_cgrx_prefer "$p")" --api vulkan,optix \
      --prefer $p --keys 2^26 --lookups 2^27 --bucket-size 32,256 --hit-rate 1 \
      --order unsorted,sorted --build-repeats 1 --warmup 2 || status=5
  done
fi
if part cgrx-ias; then
  # cgRX's sorted lookups are faster in OptiX: is it the missing second level? The OptiX twin
  # through an instance AS over its GAS (RAYDB_OPTIX_CGRX_IAS=1), label optix-cgrx-ias.
  echo "== cgRX through OptiX with an IAS over the GAS, both APIs"
  RAYDB_OPTIX_CGRX_IAS=1 timeout 250 $R bench cgrx --out $OUT/results --label "$(label optix_cgrx_ias)" \
    --api vulkan,optix --keys 2^26 --lookups 2^27 --bucket-size 32,256 --hit-rate 1 \
    --order unsorted,sorted --build-repeats 1 --warmup 2 || status=5
fi
# Vulkan's ray-tracing pipelines fitted to what they trace (RtShaders in src/backend/vk/
# pipelines.hpp: only the hit group and hit shaders a pipeline uses, plus rayTraversalPrimitive-
# Culling's SKIP_AABBS / SKIP_TRIANGLES, the twin of OptiX's usesPrimitiveTypeFlags) against the
# pipelines before (RAYDB_VK_RT_PIPELINE=generic: both hit groups, every shader, no flag) and
# fitted without the flag (=lean). The default shape (culled) runs OptiX too, for the ratio.
shapes() {  # $1: what to run per shape, given the shape and its --api list
  for shape in generic lean culled; do
    api=vulkan
    [[ $shape == culled ]] && api=vulkan,optix
    RAYDB_VK_RT_PIPELINE=$shape "$1" "$shape" "$api"
  done
}
if part vk-pipeline-cgrx; then
  cgrx_shape() {
    echo "== Vulkan pipeline $1: cgRX, 2^26 keys, 2^27 lookups, buckets 32 and 256 ($2)"
    timeout 170 $R bench cgrx --out $OUT/results --label "$(label optix_vk_pipeline "$1")" --api $2 \
      --keys 2^26 --lookups 2^27 --bucket-size 32,256 --hit-rate 1 --order unsorted,sorted \
      --build-repeats 1 --warmup 2 || status=5
  }
  t0=$SECONDS
  shapes cgrx_shape
  echo "vk-pipeline-cgrx part: $((SECONDS - t0)) s"
fi
if part vk-pipeline-rx; then
  rx_shape() {
    echo "== Vulkan pipeline $1: RX, 2^25 keys, 2^26 lookups, hit_and_scan ($2)"
    timeout 100 $R bench rx --out $OUT/results --label "$(label optix_vk_pipeline "$1")" --api $2 \
      --prefer fast_trace --keys 2^25 --lookups 2^26 --method hit_and_scan --hit-rate 1 \
      --order unsorted,sorted --build-repeats 1 --warmup 2 || status=5
  }
  t0=$SECONDS
  shapes rx_shape
  echo "vk-pipeline-rx part: $((SECONDS - t0)) s"
fi
if part vk-pipeline-rtscan; then
  rtscan_shape() {  # cubes: the pipeline skips triangles
    echo "== Vulkan pipeline $1: RTScan refine, 1e8 x 3, selectivity 0.2 and 0.9 ($2)"
    timeout 100 $R bench rtscan --out $OUT/results --label "$(label optix_vk_pipeline "$1")" --api $2 \
      --rows 1e8 --columns 3 --dist permutation --bins 128 --selectivity 0.2,0.9 \
      --baseline none --counts false --repeats 5 --warmup 2 || status=5
  }
  t0=$SECONDS
  shapes rtscan_shape
  echo "vk-pipeline-rtscan part: $((SECONDS - t0)) s"
fi
if part vk-pipeline-ssb; then
  ssb_shape() {
    echo "== Vulkan pipeline $1: SSB at SF 10 ($2)"
    timeout 200 $R bench ssb --out $OUT/results --label "$(label optix_vk_pipeline "$1")" --engine rt \
      --api $2 --sf 10 --repeats 5 --warmup 2 || status=5
  }
  t0=$SECONDS
  shapes ssb_shape
  echo "vk-pipeline-ssb part: $((SECONDS - t0)) s"
fi
if part ssb-optix-limits; then
  # The OptiX side of the SSB gap: the programs' continuation stack set to what they need
  # (RAYDB_OPTIX_STACK=computed; OptiX's default otherwise) and a register cap
  # (RAYDB_OPTIX_MAX_REGISTERS). SF 10, OptiX only; each table still checked for stability.
  t0=$SECONDS
  echo "== SSB through OptiX, SF 10, stack computed"
  RAYDB_OPTIX_STACK=computed timeout 120 $R bench ssb --out $OUT/results \
    --label "$(label optix_ssb_stack_computed)" --engine rt --api optix --sf 10 --repeats 5 --warmup 2 ||
    status=5
  for r in 64 128; do
    echo "== SSB through OptiX, SF 10, at most $r registers"
    RAYDB_OPTIX_MAX_REGISTERS=$r timeout 120 $R bench ssb --out $OUT/results \
      --label "$(label optix_ssb_registers "$r")" --engine rt --api optix --sf 10 --repeats 5 --warmup 2 ||
      status=5
  done
  echo "ssb-optix-limits part: $((SECONDS - t0)) s"
fi
if part ssb-prefer; then
  # Is the SSB gap the tree? The same triangles and rays under the other build preferences in both
  # APIs (bench ssb --prefer; fast_trace is the default and the ssb part's), SF 10.
  t0=$SECONDS
  for p in none fast_build; do
    echo "== SSB at SF 10 with --prefer $p, Vulkan and OptiX"
    timeout 200 $R bench ssb --out $OUT/results --label "$(label optix_ssb_prefer "$p")" --engine rt \
      --api vulkan,optix --prefer $p --sf 10 --repeats 5 --warmup 2 || status=5
  done
  echo "ssb-prefer part: $((SECONDS - t0)) s"
fi
[[ $status -eq 0 ]] && echo "OK: every part ran and every result matched" || echo "FAILED: status $status" >&2
exit $status
