#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): why the sieve, DP-BIS and the bitmap ops fall
# short of the copy ceiling, pass by pass, at 1e8 and 1e9 rows. Binaries are built on the developer
# machine (with nvcc) and carried in build/; results go to $OUT/results/<device>/dpbis.jsonl
# (rows with "pass" other than "all", "cuda_hold_us" > 0 or "cuda_flush_l2" are the diagnostics;
# docs/baselines.md says what each one separates).
# Usage: bench/gpu/bandwidth.sh [tests] [vulkan] [cuda] [hold] [refine] [refine-cuda] [refine-batch]
#   [refine-clustered] [in-select-hold] [sieve-refine] [dpbis-refine] [l2] [fixed-cost]
#   [select-cuda] [select-memory] [sieve-stream] [sieve-warp]
#   | all   (all: about 6 minutes; refine, refine-cuda: under 3 each; select-cuda: about 1; the
#   parts from refine on are not part of all)
#   tests   the CUDA kernel tests (bench/gpu/cuda.sh tests): the rewritten kernels, exact
#   vulkan  Vulkan kernels: whole queries, the selection alone, the refinement alone, bitmap ops,
#           read-only / write-only / copy passes of a bitmap's and of the codes' size, full scan
#   cuda    the same queries and passes with the CUDA kernels, timed as before (launches in)
#   hold    the same again with the CUDA stream held 300 us before each timed region, so the
#           host's launch latency is not timed (the difference to `cuda` is that latency)
#   refine  Vulkan DP-BIS and sieve whole queries with the boundary bins refined after the
#           selection (scatter: atomics) and inside it (in_select: row-ordered values), label
#           refine. 1e9 rows with one column only: three sieve tables of 1e9 rows (16 GB of
#           vectors each, 29 GB with codes, sorted values and row ids) do not fit in 80 GB.
#   refine-cuda  the same with the CUDA kernels (in_select's twins in src/backend/cuda/dpbis.cu),
#           label refine-cuda
#   refine-batch  in_select only, its boundary rows' values loaded four at a time (CUDA and
#           Vulkan), label refine-batch-{cuda,vulkan}; with R_BASE=<a raydb built from the commit
#           before> the same queries through that binary first, label refine-base-{cuda,vulkan};
#           REFINE_BACKENDS=cuda (or vulkan) runs one backend (about 3 minutes each with R_BASE)
#   refine-clustered  the sieve's in_select, its boundary rows' values read from the column
#           clustered by bin (contiguous runs per 4096-row tile) instead of in row order, label
#           refine-clustered-now-{cuda,vulkan}; with R_BASE the binary before first, label
#           refine-clustered-base-{cuda,vulkan} (about 4 minutes with R_BASE)
#   in-select-hold  CUDA in_select queries (DP-BIS, sieve) timed as the README's numbers and with
#           the stream held 300 us before each timed region (label in-select-hold-{0,300}), then
#           the bitmap ops held (label bitmap-hold): GPU time without the host's launch latency,
#           which weighs most at 1e8 rows (about 2 minutes)
#   sieve-refine  the sieve's in_select through R_BASE (when set; label sieve-refine-base, Vulkan
#           sieve-refine-vulkan-base) and this binary (-now) in turn, two rounds, one seed;
#           SIEVE_BACKENDS=cuda (or vulkan) runs one backend (about 1.5 minutes each)
#   dpbis-refine  the same for DP-BIS's in_select (its boundary values clustered by bin), label
#           dpbis-refine-{base,now}, Vulkan dpbis-refine-vulkan-{base,now}; DPBIS_BACKENDS=cuda
#           (or vulkan) runs one backend (about 1.5 minutes each)
#   l2      CUDA in_select (DP-BIS, sieve) through R_BASE (when set) and this binary, each with L2
#           as the query before left it (label l2-{base,now}-warm: the usual timing) and flushed
#           by a read of twice its size before each timed region (--cuda-flush-l2, l2-*-cold);
#           then the bitmap ops held, warm and cold (l2-bitmap-{warm,cold}); two rounds (about
#           4.5 minutes with R_BASE)
#   fixed-cost  CUDA in_select (DP-BIS, sieve) and bitmap ops at 1e5, 1e6 and 1e8 rows, the stream
#           held: what a pass costs whatever its size, against its time at 1e8 rows, label
#           fixed-cost (about 1 minute)
#   sieve-stream  the sieve's CUDA in_select through R_BASE (when set) and this binary in turn,
#           L2 warm and flushed (label sieve-stream-{base,now}-{warm,cold}): two rounds at 1e8
#           rows (1 and 3 columns), one at 1e9 (about 5 minutes with R_BASE)
#   sieve-warp  the same queries (label sieve-warp-{base,now}-{warm,cold}), for the pass whose
#           warps load their tiles' runs together
#   select-cuda  the CUDA selection pass alone (dpbis_select) at 1e9 rows, label
#           bandwidth-cuda-select, to compare with bandwidth-vulkan's (the CUDA selection kernels
#           now run 64-thread blocks with 32-bit indices and read-only loads, as their twins)
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"
rc=0
seed=${SEED:-$((RANDOM * 32768 + RANDOM))}  # one data set for every part of this run

# in_select EXE BACKEND INDEXES LABEL [ARGS...]: INDEXES' in_select queries at selectivities 0.01
# and 0.5 over 1e8 rows (1 and 3 columns) and 1e9 rows (1 column), on $seed's data.
in_select() {
  local q="$1 bench dpbis --out $OUT/results --backend $2 --selectivity 0.01,0.5 --index $3 --refine in_select --seed $seed --label $4 ${*:5}"
  $q --rows 1e8 --columns 1,3 || rc=$?
  $q --rows 1e9 --columns 1 || rc=$?
}
# exe_of BUILD: the binary of BUILD (base: R_BASE, now: R).
exe_of() { [[ $1 == base ]] && echo "$R_BASE" || echo "$R"; }

if part tests; then
  echo "== CUDA kernel tests (each kernel against the CPU reference and its Vulkan twin)"
  bench/gpu/cuda.sh tests || rc=$?
fi

# One column, two selectivities (0.01: the lower boundary bin is absent, one bin refined; 0.5).
B="$R bench dpbis --out $OUT/results --rows 1e8,1e9 --columns 1 --selectivity 0.01,0.5"
PASSES=dpbis,dpbis_select,dpbis_refine,sieve,sieve_select,sieve_refine,bitmap_ops
if part vulkan; then
  echo "== Vulkan: queries, passes alone, streams"
  $B --backend vulkan --label "$(label bandwidth_vulkan)" --index $PASSES,stream,full_scan || rc=$?
fi
if part cuda; then
  echo "== CUDA: queries and passes alone, launches timed as in the README's numbers"
  $B --backend cuda --label "$(label bandwidth_cuda)" --index $PASSES || rc=$?
fi
if part hold; then
  echo "== CUDA with the stream held before each timed region"
  $B --backend cuda --label "$(label bandwidth_cuda_hold)" --cuda-hold-us 300 --index $PASSES || rc=$?
fi
if [[ $what == *" refine "* ]]; then
  echo "== Vulkan: boundary-bin refinement, scatter against in_select"
  RF="$R bench dpbis --out $OUT/results --backend vulkan --selectivity 0.01,0.5 --index dpbis,sieve --refine scatter,in_select --label $(label refine)"
  $RF --rows 1e8 --columns 1,3 || rc=$?
  $RF --rows 1e9 --columns 1 || rc=$?
fi
if [[ $what == *" refine-cuda "* ]]; then
  echo "== CUDA: boundary-bin refinement, scatter against in_select"
  RF="$R bench dpbis --out $OUT/results --backend cuda --selectivity 0.01,0.5 --index dpbis,sieve --refine scatter,in_select --label $(label refine_cuda)"
  $RF --rows 1e8 --columns 1,3 || rc=$?
  $RF --rows 1e9 --columns 1 || rc=$?
fi
# refine_ab KEY_BASE KEY_NOW INDEXES: in_select queries over INDEXES through R_BASE (when set;
# label KEY_BASE) and then $R (label KEY_NOW), per backend, on the same fresh data (one seed).
refine_ab() {
  for backend in ${REFINE_BACKENDS:-cuda vulkan}; do
    for build in ${R_BASE:+base} now; do
      local key=$2
      [[ $build == base ]] && key=$1
      in_select "$(exe_of $build)" "$backend" "$3" "$(label "$key" "$backend")"
    done
  done
}
if [[ $what == *" refine-batch "* ]]; then
  echo "== in_select, boundary rows loaded four at a time; the binary before first (R_BASE)"
  refine_ab refine_base refine_batch dpbis,sieve
fi
if [[ $what == *" refine-clustered "* ]]; then
  echo "== the sieve's in_select, boundary values clustered by bin; the binary before first (R_BASE)"
  refine_ab refine_clustered_base refine_clustered_now sieve
fi
if [[ $what == *" in-select-hold "* ]]; then
  echo "== CUDA in_select, launches timed and stream held; bitmap ops held"
  for hold in 0 300; do
    in_select "$R" cuda dpbis,sieve "$(label in_select_hold "$hold")" --cuda-hold-us "$hold"
  done
  $R bench dpbis --out $OUT/results --backend cuda --rows 1e8,1e9 --columns 1 --seed "$seed" \
    --cuda-hold-us 300 --index bitmap_ops --label "$(label bitmap_hold)" || rc=$?
fi
# rounds_ab KEY INDEX BACKENDS: INDEX's in_select through R_BASE (when set; label KEY-base, for
# Vulkan KEY_vulkan-base) and this binary (-now) in turn, two rounds, one seed.
rounds_ab() {
  for backend in $3; do
    local key=$1
    [[ $backend == vulkan ]] && key=${1}_vulkan
    for round in 1 2; do
      for build in ${R_BASE:+base} now; do
        in_select "$(exe_of $build)" "$backend" "$2" "$(label "$key" "$build")"
      done
    done
  done
}
if [[ $what == *" sieve-refine "* ]]; then
  echo "== the sieve's in_select: the binary before (R_BASE) and this one, two rounds"
  rounds_ab sieve_refine sieve "${SIEVE_BACKENDS:-cuda vulkan}"
fi
if [[ $what == *" dpbis-refine "* ]]; then
  echo "== DP-BIS's in_select: the binary before (R_BASE) and this one, two rounds"
  rounds_ab dpbis_refine dpbis "${DPBIS_BACKENDS:-cuda vulkan}"
fi
if [[ $what == *" l2 "* ]]; then
  echo "== CUDA in_select and bitmap ops, L2 as the query before left it (warm) and flushed (cold)"
  for round in 1 2; do
    for l2 in warm cold; do
      flush=
      [[ $l2 == cold ]] && flush=--cuda-flush-l2
      for build in ${R_BASE:+base} now; do
        in_select "$(exe_of $build)" cuda dpbis,sieve "$(label l2 "$build-$l2")" $flush
      done
      [[ $round == 1 ]] && { $R bench dpbis --out $OUT/results --backend cuda --rows 1e8,1e9 \
        --columns 1 --seed "$seed" --cuda-hold-us 300 $flush --index bitmap_ops \
        --label "$(label l2 "bitmap-$l2")" || rc=$?; }
    done
  done
fi
# sieve_in_select LABEL ROWS COLUMNS: the sieve's CUDA in_select through R_BASE (when set) and R
# in turn, L2 warm and flushed, label LABEL-{base,now}-{warm,cold}.
sieve_in_select() {
  for l2 in warm cold; do
    flush=
    [[ $l2 == cold ]] && flush=--cuda-flush-l2
    for build in ${R_BASE:+base} now; do
      $(exe_of $build) bench dpbis --out $OUT/results --backend cuda --selectivity 0.01,0.5 \
        --index sieve --refine in_select --seed "$seed" --rows "$2" --columns "$3" $flush \
        --label "$(label "$1" "$build-$l2")" || rc=$?
    done
  done
}
if [[ $what == *" sieve-stream "* ]]; then
  echo "== the sieve's CUDA in_select, evict-first loads where the bitmap fits in half of L2"
  for round in 1 2; do sieve_in_select sieve_stream 1e8 1,3; done
  sieve_in_select sieve_stream 1e9 1
fi
if [[ $what == *" sieve-warp "* ]]; then
  echo "== the sieve's CUDA in_select, each tile's runs loaded by its warp, two vectors per bin"
  for round in 1 2; do sieve_in_select sieve_warp 1e8 1,3; done
  sieve_in_select sieve_warp 1e9 1
fi
if [[ $what == *" fixed-cost "* ]]; then
  echo "== CUDA passes at 1e5, 1e6 and 1e8 rows, the stream held: the cost that does not scale"
  $R bench dpbis --seed "$seed" --out $OUT/results --backend cuda --rows 1e5,1e6,1e8 --columns 1 \
    --selectivity 0.5 --index dpbis,sieve,bitmap_ops --refine in_select --cuda-hold-us 300 \
    --label "$(label fixed_cost)" || rc=$?
fi
if [[ $what == *" select-cuda "* ]]; then
  echo "== CUDA selection pass alone at 1e9 rows (was 0.67 of the copy ceiling, Vulkan 1.01)"
  $R bench dpbis --out $OUT/results --rows 1e9 --columns 1 --selectivity 0.01,0.5 \
    --backend cuda --label "$(label bandwidth_cuda_select)" --index dpbis_select || rc=$?
fi
if [[ $what == *" select-memory "* ]]; then
  # The same CUDA pass over cudaMalloc'd copies of the codes and bitmap (RAYDB_CUDA_OWN_MEMORY=1,
  # src/backend/cuda/ops.cpp) and over the imported Vulkan memory, then the Vulkan twin: is the
  # CUDA gap the kernel's or the imported mapping's?
  echo "== CUDA selection pass at 1e9 rows: own memory, imported memory; Vulkan twin"
  for own in 1 0; do
    RAYDB_CUDA_OWN_MEMORY=$own $R bench dpbis --out $OUT/results --rows 1e9 --columns 1 \
      --selectivity 0.01,0.5 --backend cuda --label "$(label bandwidth_cuda_select_own "$own")" \
      --index dpbis_select || rc=$?
  done
  $R bench dpbis --out $OUT/results --rows 1e9 --columns 1 --selectivity 0.01,0.5 \
    --backend vulkan --label "$(label bandwidth_vulkan_select_memory)" --index dpbis_select || rc=$?
fi
exit $rc
