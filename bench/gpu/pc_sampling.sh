#!/usr/bin/env bash
# Runs on the GPU machine: where the CUDA passes' warps stall (bench/gpu/pc_sampling.cpp, a CUPTI
# PC-sampling injection library). The GPU machine has the driver only, so the library and CUPTI are
# built and copied here and carried in $PCS (default pcs/):
#   CUDA=${CUDA:-/usr/local/cuda}; mkdir -p pcs
#   g++ -O2 -shared -fPIC bench/gpu/pc_sampling.cpp -I$CUDA/include -L$CUDA/lib -lcupti \
#     -o pcs/pc_sampling.so && cp $CUDA/lib/libcupti.so.13 pcs/
# A raydb whose CUDA kernels were compiled with -lineinfo also gets source lines per instruction.
# Prints, per pass, its stall reasons and its most-sampled instructions; $OUT/pc_sampling.txt.
# Usage: bench/gpu/pc_sampling.sh   (about 30 seconds on the H100)
set -uo pipefail
source "$(dirname "$0")/common.sh"
PCS=${PCS:-pcs}
export LD_LIBRARY_PATH=$PWD/$PCS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_INJECTION64_PATH=$PWD/$PCS/pc_sampling.so
B="$R bench dpbis --out $OUT/pcs-results --backend cuda --selectivity 0.5 --repeats 3 --warmup 0"
{
  rc=0
  echo "== the sieve's in_select, 1e9 rows"
  PCS_FILTER=VectorQuad $B --rows 1e9 --columns 1 --index sieve --refine in_select || rc=$?
  echo "== DP-BIS in_select, 1e8 rows"
  PCS_FILTER=codes_exact_kernel $B --rows 1e8 --columns 1 --index dpbis --refine in_select || rc=$?
  echo "== bitmap ops, 1e8 rows"
  PCS_FILTER=bitmap_op $B --rows 1e8 --columns 1 --index bitmap_ops || rc=$?
  exit $rc
} 2>&1 | grep -v "^\[dpbis\]" | tee "$OUT/pc_sampling.txt"
exit "${PIPESTATUS[0]}"
