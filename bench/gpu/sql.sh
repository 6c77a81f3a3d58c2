#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): SSB SF 1, 10 and 20 through the dedicated RT
# engine and through SqlEngine (`raydb bench ssb --engine sql`, the specification's SQL) on the
# same tables, read with --data by every engine. The tables are the reference dbgen's when the
# carried build folder $G holds it ($G/dbgen/dbgen and dists.dss: anilshanbhag/crystal's
# test/ssb/dbgen, built here, never committed; see bench/gpu/dask.sh): all tables at once (-T a),
# in UTC, as the reference tables were made; never dbgen's chunked mode (its chunks repeat the
# first chunk's customer keys and dates). Without it, `raydb gen ssb` writes them; the output says
# which, and so do the JSON rows (label sql-sf<SF>-dbgen or sql-sf<SF>-gen, and the data folder's
# name, dbgen-sf<SF> or gen-sf<SF>). Per query: the query time (median trace of the repeats, GPU
# timestamps) of both, SqlEngine's host planning, staging, upload and BVH build apart, and its
# shader compile time cold (a fresh SPIR-V cache) and cached. SF 1 is checked against SQLite;
# SF 10 and 20 compare SqlEngine's tables with the dedicated engine's. raydb's CUDA Crystal-style
# star join (crystal_cuda) runs beside them on the same rows (issue 21's RT-against-Crystal
# comparison on reference dbgen tables). Results:
# $OUT/results/<device>/ssb.jsonl.
# Parts: sf1, sf10, sf20 (generate, unless a finished earlier call left the tables, then time),
# gen10 and gen20 (generate in the background, outliving the call while the machine stays warm;
# sfN waits for it). Tables stay in $SQL_DATA (default /tmp/raydb-sql-ssb) until their part has
# run. Usage, G=<carried folder> on each call (dbgen takes about 9 s per SF unit on the H100's
# host: SF 20 about 180 s):
#   1. `bench/gpu/sql.sh gen20 sf1 sf10`: SF 20's dbgen in the background; SF 1 (generation
#      timeout 60 s, bench 90 s) and SF 10 (150 s, 240 s) in the foreground; at most 540 s.
#   2. `bench/gpu/sql.sh sf20`, soon after (the tables live only while the machine stays warm):
#      waits for SF 20's tables if gen20 is still running (at most 270 s after it started), then
#      the bench (370 s).
# `all` runs everything in one go (over one call's limit). SQL_SFS (default "1 10 20") names the
# scale factors for a dry run at small ones: `SQL_SFS="0.01 0.05" bench/gpu/sql.sh all`. Below SF
# 1 dbgen scales the date table too (25 rows at 0.01, so most lineorder dates would not join):
# its SF 1 date table (`-T d`, the same calendar) replaces it, as ../shared/data/ssb-dbgen has it.
# SQL_PATH=rt|compute|auto picks SqlEngine's operator (default rt, the RTCUDB plan the dedicated
# engine also uses). Each scale factor is its own process under its own timeout, so a timeout
# loses one, not all. SqlEngine's load of the .tbl text: 47 s at SF 10 on the H100's host. Each
# engine's query time is the median trace of 5 repeats of one built BVH after a warm-up (SqlEngine:
# rerun() after a cold and a warm whole query), so the repeats cost little at every scale.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"

DATA=${SQL_DATA:-/tmp/raydb-sql-ssb}
mkdir -p "$DATA"
B="$R bench ssb --out $OUT/results"
SQL_PATH=${SQL_PATH:-rt}
SFS=${SQL_SFS:-1 10 20}
DBGEN=
if [ -n "${G:-}" ] && [ -x "$G/dbgen/dbgen" ] && [ -f "$G/dbgen/dists.dss" ]; then
  DBGEN=$(cd "$G/dbgen" && pwd)
  echo "== tables: the reference dbgen ($DBGEN/dbgen), all tables at once, TZ=UTC"
else
  echo "== tables: raydb gen ssb (no reference dbgen: set G to a folder holding dbgen/dbgen and dbgen/dists.dss)"
fi
SOURCE=$([ -n "$DBGEN" ] && echo dbgen || echo gen)
# SF: generation timeout, bench timeout (seconds), repeats after the warm-up. Scale factors not
# listed (a dry run's) get the last entry's defaults.
declare -A GEN=([1]=60 [10]=150 [20]=270) RUN=([1]=90 [10]=240 [20]=370) REPS=([1]=5 [10]=5 [20]=5)
gen_timeout() { echo "${GEN[$1]:-60}"; }

# gen SF DIR: the tables into DIR; DIR/done (the seconds it took) is written last, so a folder
# without it is unfinished or failed.
gen() {
  local sf=$1 dir=$2 start
  start=$(date +%s)
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  if [ -n "$DBGEN" ]; then
    cp "$DBGEN/dists.dss" "$dir/" &&
      (cd "$dir" && TZ=UTC "$DBGEN/dbgen" -s "$sf" -T a -f > dbgen.log 2>&1) || return 1
    if awk "BEGIN { exit !($sf < 1) }"; then
      mkdir -p "$dir/d1" && cp "$DBGEN/dists.dss" "$dir/d1/" &&
        (cd "$dir/d1" && TZ=UTC "$DBGEN/dbgen" -s 1 -T d -f > dbgen.log 2>&1) &&
        mv "$dir/d1/date.tbl" "$dir/date.tbl" && rm -rf "$dir/d1" || return 1
    fi
    rm -f "$dir/dists.dss"
  else
    $R gen ssb --sf "$sf" --out "$dir" || return 1
  fi
  echo $(($(date +%s) - start)) > "$dir/done"
}

export -f gen
export DBGEN R
for sf in $SFS; do
  part "gen$sf" || continue
  dir=$DATA/$SOURCE-sf$sf
  echo "== SF $sf: $SOURCE in the background into $dir (log $DATA/gen-sf$sf.log)"
  rm -rf "$dir"
  setsid nohup timeout "$(gen_timeout "$sf")" bash -c 'gen "$0" "$1"' "$sf" "$dir" \
    > "$DATA/gen-sf$sf.log" 2>&1 < /dev/null &
  echo $! > "$DATA/gen-sf$sf.pid"
done

for sf in $SFS; do
  part "sf$sf" || continue
  dir=$DATA/$SOURCE-sf$sf
  echo "== SF $sf ($SOURCE tables): the RT engine and SqlEngine (--sql-path $SQL_PATH) on those rows"
  start=$(date +%s)
  pid=$(cat "$DATA/gen-sf$sf.pid" 2>/dev/null)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    echo "SF $sf: waiting for the background generation (gen$sf)"
    while kill -0 "$pid" 2>/dev/null; do sleep 2; done
  fi
  rm -f "$DATA/gen-sf$sf.pid"
  if [ ! -f "$dir/done" ]; then
    timeout "$(gen_timeout "$sf")" bash -c 'gen "$0" "$1"' "$sf" "$dir" || {
      echo "SF $sf: generation failed or timed out"
      cat "$dir/dbgen.log" "$DATA/gen-sf$sf.log" 2>/dev/null
      continue
    }
  fi
  echo "SF $sf: tables in $dir ($SOURCE, generated in $(cat "$dir/done") s; ready $(($(date +%s) - start)) s into this part)"
  timeout "${RUN[$sf]:-120}" $B --label "$(label sql_sf "$sf-$SOURCE")" --data "$dir" \
    --engine rt,sql,crystal_cuda --sql-path "$SQL_PATH" --check-max-sf 1 --repeats "${REPS[$sf]:-3}" \
    --warmup 1
  echo "SF $sf done in $(($(date +%s) - start)) s"
  rm -rf "${dir:?}"
done
