#!/usr/bin/env bash
# Runs on a GPU machine with several GPUs: raydb.dask with one worker process per GPU
# (`python -m raydb.bench dask --devices 0,1,...`), and the reference dbgen's SSB tables.
# The machine's Python (3.12, numpy) has no dask: carry a build folder $G holding
#   src/raydb, lib/ (as for the other scripts), py/raydb (the package with its module built for
#   that Python: -DRAYDB_PYTHON=ON -DPython3_EXECUTABLE=<a python3.12>), py/deps.tar.xz (Debian's
#   pure-Python dask, distributed, tornado, tblib, zict, partd, locket), and dbgen/ (the SSB
#   dbgen of anilshanbhag/crystal, test/ssb/dbgen, built here, with its dists.dss).
# Parts, run in this order: gen50 (dbgen SF 50 in the background, ~7 min; it outlives the call
# while the machine stays warm), probe (the Python stack, a check on two workers of GPU 0), sf1
# (dbgen SF 1; the RT engine against SQLite, then DistributedSsb on 1/2/all GPUs against one
# engine), rx (bench/gpu/multi_gpu.sh: one GPU alone, then 2 and all GPUs, no dask), dask-rx
# (PartitionedIndex through dask, 1/2/all workers), sf50 (waits for gen50; all GPUs, 2, then 1;
# SF50_WORKERS overrides the counts). DEADLINE (seconds, default 575) bounds the parts.
# Usage: G=gpu-x bench/gpu/dask.sh PART...   Everything written (results/<device>/*.jsonl,
# results/dask.jsonl, logs) comes back as one archive, $OUT/run.tgz: the device tool returns
# only a few files.
set -uo pipefail
BACK=${OUT:-/tmp/raydb-back}
export OUT=/tmp/raydb-run
rm -rf "$OUT" && mkdir -p "$BACK"
trap 'tar czf "$BACK/run.tgz" -C "$OUT" .' EXIT
G=${G:?set G to the carried build folder}
export R=$G/src/raydb
export LD_LIBRARY_PATH=$PWD/$G/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
source "$(dirname "$0")/common.sh" "$@"
SITE=/tmp/raydb-site
mkdir -p "$SITE" && tar xJf "$G/py/deps.tar.xz" -C "$SITE"
export PYTHONPATH=$PWD/$G/py:$SITE PYTHONUNBUFFERED=1 LP_NUM_THREADS=1
# Debian's distributed (2022.12) reads GPU names as bytes, newer pynvml gives str: off.
export DASK_DISTRIBUTED__DIAGNOSTICS__NVML=False
NGPU=$(nvidia-smi -L | wc -l)
ALL=$(seq -s, 0 $((NGPU - 1)))
COUNTS=$( (echo 1; [ "$NGPU" -ge 2 ] && echo 2; echo "$NGPU") | sort -nu | paste -sd,)
DBGEN=$PWD/$G/dbgen
rc=0
# A part's timeout, cut so that the archive is written before the device call's own limit.
DEADLINE=${DEADLINE:-575}
left() {
  local t=$((DEADLINE - SECONDS - 15))
  ((t < $1)) && echo $((t > 1 ? t : 1)) || echo "$1"
}

gen() {  # gen SF DIR: the reference tables, all at once (-T a), in UTC as the reference was made
  mkdir -p "$2" && cp "$DBGEN/dists.dss" "$2/" &&
    (cd "$2" && TZ=UTC "$DBGEN/dbgen" -s "$1" -T a -f > dbgen.log 2>&1) && rm "$2/dists.dss"
}
DASK=(python3 -m raydb.bench dask --devices "$ALL" --out "$OUT/results/dask.jsonl")

if part gen50; then
  echo "== dbgen SF 50 in the background into /tmp/ssb50"
  rm -rf /tmp/ssb50 /tmp/ssb50.failed
  setsid nohup bash -c "$(declare -f gen); DBGEN=$DBGEN; start=\$(date +%s); gen 50 /tmp/ssb50 &&
    echo \$((\$(date +%s) - start)) > /tmp/ssb50/done || touch /tmp/ssb50.failed" \
    > /dev/null 2>&1 < /dev/null &
fi

if part probe; then
  echo "== probe: $(python3 --version), GPUs: $NGPU"
  python3 - <<'EOF' || rc=$?
import numpy as np, raydb, distributed, dask
print("numpy", np.__version__, "dask", dask.__version__, "distributed", distributed.__version__)
ctx = raydb.Context()
keys = np.random.default_rng(1).integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
got = raydb.RxIndex(ctx, keys).lookup(keys[:1000])
sk = np.sort(keys)
want = np.searchsorted(sk, keys[:1000], "right") - np.searchsorted(sk, keys[:1000], "left")
assert got.dtype == raydb.LOOKUP_DTYPE and got.shape == (1000,), (got.dtype, got.shape)
np.testing.assert_array_equal(got["count"], want)
columns = raydb.ssb.Tables.generate(0.01).to_dict()["date"]
assert len(set(columns["datekey"].tolist())) == columns["datekey"].size == 2556
print("lookup and tables ok on", ctx)
EOF
  timeout "$(left 240)" python3 -m raydb.bench dask --devices 0,0 --workers 1,2 --keys 100000 \
    --lookups 100000 --sf 0.05 --queries q1.1,q2.1,q3.1,q4.1 --check --repeat 2 --out - || rc=$?
fi

if part sf1; then
  echo "== SF 1 (reference dbgen): the RT engine against SQLite, then DistributedSsb"
  start=$(date +%s)
  gen 1 /tmp/ssb1 || { echo "dbgen SF 1 failed"; cat /tmp/ssb1/dbgen.log; exit 1; }
  echo "dbgen SF 1: $(($(date +%s) - start)) s"
  timeout "$(left 150)" $R bench ssb --data /tmp/ssb1 --engine rt --check-max-sf 1 --repeats 1 --warmup 0 \
    --label "$(label dask_ssb sf1-check)" --out "$OUT/results" || rc=$?
  timeout "$(left 300)" "${DASK[@]}" --workers "$COUNTS" --keys 0 --data /tmp/ssb1 --check \
    --queries "$(python3 -c 'import raydb; print(",".join(raydb.ssb.query_names()))')" \
    --repeat 3 || rc=$?
fi

if part rx; then
  echo "== RX, one process per GPU (no dask): 1, 2, $NGPU GPUs"
  timeout "$(left 420)" bash "$(dirname "$0")/multi_gpu.sh" ${COUNTS//,/ } || rc=$?
fi

if part dask-rx; then
  echo "== PartitionedIndex through dask: workers $COUNTS"
  timeout "$(left 300)" "${DASK[@]}" --workers "$COUNTS" --keys $((1 << 26)) --lookups $((1 << 26)) \
    --queries '' --repeat 3 || rc=$?
fi

if part sf50; then
  echo "== SF 50: DistributedSsb on ${SF50_WORKERS:-$(tr , "\n" <<< "$COUNTS" | sort -nr | paste -sd,)} GPUs"
  while [ ! -f /tmp/ssb50/done ] && [ ! -f /tmp/ssb50.failed ] && ((SECONDS < DEADLINE - 200)); do
    sleep 5
  done
  [ -f /tmp/ssb50/done ] || { echo "dbgen SF 50 failed: $(cat /tmp/ssb50/dbgen.log)"; exit 1; }
  echo "dbgen SF 50 took $(cat /tmp/ssb50/done) s; $(du -sh /tmp/ssb50 | cut -f1)"
  # SF50_CHECK=--check adds one engine over all 300 million rows first (minutes more)
  timeout "$(left 560)" "${DASK[@]}" --workers "${SF50_WORKERS:-$(tr , "\n" <<< "$COUNTS" | sort -nr | paste -sd,)}" --keys 0 \
    --data /tmp/ssb50 ${SF50_CHECK:-} --warmup 0 --repeat 1 \
    --queries "$(python3 -c 'import raydb; print(",".join(raydb.ssb.query_names()))')" || rc=$?
fi

exit $rc
