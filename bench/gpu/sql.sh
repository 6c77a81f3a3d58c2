#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): SSB SF 1, 10 and 20 through the dedicated RT
# engine and through SqlEngine (`raydb bench ssb --engine sql`, the specification's SQL) on the
# same dbgen-format tables, written by `raydb gen ssb` into a temporary folder and read back with
# --data by every engine. Per query: the query time (median trace of the repeats, GPU timestamps)
# of both, SqlEngine's host planning, upload and BVH build apart, and its shader compile time
# cold (a fresh SPIR-V cache) and cached. SF 1 is checked against SQLite; SF 10 and 20 compare
# SqlEngine's tables with the dedicated engine's. Results: $OUT/results/<device>/ssb.jsonl.
# Usage: two calls, `bench/gpu/sql.sh sf1 sf10` (timeouts add up to 7 minutes) and
# `bench/gpu/sql.sh sf20` (9 minutes); `all` runs the three in one go (16). SQL_PATH=rt|compute|auto
# picks SqlEngine's operator (default rt, the RTCUDB plan the dedicated engine also uses).
# Each scale factor is its own process under its own timeout, so a timeout loses one, not all.
# Not yet run on the H100. Estimates from this machine (SF 1, CPU seconds): `raydb gen ssb` 7.4,
# SqlEngine's load of the .tbl text 5.5 (1.4 GB resident), so at SF 20 about 150 and 110 s on one
# core of that speed, beside the dedicated engine's own load and its 13 queries (ssb.sh gives
# SF 20's RT engine four 70 s flights at 5 repeats; here 1 repeat after 1 warm-up). SqlEngine
# encodes each query on the host (0.4-3.3 s a query at SF 1 on the H100's host before the encoding
# went parallel and lost its sort), so SF 10 and 20 time one repeat after the cold run.
set -uo pipefail
source "$(dirname "$0")/common.sh" "$@"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/raydb-sql-ssb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
B="$R bench ssb --out $OUT/results"
SQL_PATH=${SQL_PATH:-rt}
# SF: generation timeout, bench timeout (seconds).
declare -A GEN=([1]=30 [10]=90 [20]=170) RUN=([1]=90 [10]=240 [20]=370) REPS=([1]=3 [10]=1 [20]=1)
for sf in 1 10 20; do
  part "sf$sf" || continue
  echo "== SF $sf: raydb gen ssb, then the RT engine and SqlEngine (--sql-path $SQL_PATH) on those rows"
  start=$(date +%s)
  timeout "${GEN[$sf]}" $R gen ssb --sf "$sf" --out "$TMP/sf$sf" || { echo "SF $sf: generation failed"; continue; }
  echo "SF $sf generated in $(($(date +%s) - start)) s"
  timeout "${RUN[$sf]}" $B --label "$(label sql_sf "$sf")" --data "$TMP/sf$sf" --engine rt,sql \
    --sql-path "$SQL_PATH" --check-max-sf 1 --repeats "${REPS[$sf]}" --warmup 1
  echo "SF $sf done in $(($(date +%s) - start)) s"
  rm -rf "${TMP:?}/sf$sf"
done
