#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (address + undefined sanitizers) and runs each for
# SECONDS (default 60) from its seed corpus (tests/fuzz/corpus/<name>/). First every saved crash
# (tests/fuzz/regressions/<name>/) is replayed; a crash found now is saved there, to be committed
# as a regression input, and fails the run.
#   tests/fuzz/run.sh [SECONDS] [BUILD_DIR]
# RAYDB_FUZZ_SEED (default 1) fixes libFuzzer's random seed, so that a run is the same sequence of
# inputs on every machine: CI then explores a prefix of what a longer run with the same seed
# explored before landing, and a crash it reports reproduces. RAYDB_FUZZ_SEED=0 picks a fresh
# seed each run, for exploring further (run that for longer, and commit what it finds).
set -euo pipefail
seconds=${1:-60}
seed=${RAYDB_FUZZ_SEED:-1}
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../../build-fuzz}
targets=(counts query_file column_file tbl sql sql_load)

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER} >/dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
  bin="$build/fuzz_$t"
  regressions="$here/regressions/$t"
  mkdir -p "$regressions"
  # Saved crashes first: each must now run clean.
  mapfile -t saved < <(find "$regressions" -type f ! -name '.*' | sort)
  if [ ${#saved[@]} -gt 0 ]; then
    echo "fuzz $t: replaying ${#saved[@]} regression input(s)"
    "$bin" "${saved[@]}" >/dev/null 2>"$build/replay_$t.log" || {
      tail -30 "$build/replay_$t.log"
      failed+=("$t (regression input)")
      continue
    }
  fi
  # A scratch corpus: the seeds plus what this run finds; the committed seeds stay small.
  work="$build/corpus_$t"
  rm -rf "$work" && mkdir -p "$work"
  echo "fuzz $t: ${seconds} s, seed $seed"
  if ! "$bin" -seed="$seed" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$regressions/" "$work" "$here/corpus/$t" \
       >"$build/fuzz_$t.log" 2>&1; then
    tail -40 "$build/fuzz_$t.log"
    echo "fuzz $t: FAILED; the input is saved under tests/fuzz/regressions/$t/ (commit it)"
    failed+=("$t")
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/fuzz_$t.log" |
      tr '\n' ' ' | sed "s/^/fuzz $t: /"
    echo
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets ran ${seconds} s each, no crash"
