#!/bin/sh
# Shows that each layout check can fail: builds small trees with one violation each and expects
# the check to name it, and a clean tree to pass.
# Usage: selftest.sh <tests/layout directory>
set -u
here=${1:?usage: selftest.sh <tests/layout directory>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
expect() {  # expect <0|1> <what> <script> <tree> <text the output must contain>
  out=$("$here/$3" "$4" 2>&1)
  rc=$?
  if [ "$rc" -ne "$1" ] || ! printf '%s' "$out" | grep -qF "$5"; then
    echo "FAIL: $2: exit $rc (wanted $1), output:"
    echo "$out"
    status=1
  else
    echo "ok: $2"
  fi
}
mk() { mkdir -p "$tmp/$1/src/backend/vk" "$tmp/$1/src/ops/rx" "$tmp/$1/src/cli"; }

mk clean
echo 'int f() { return std::getenv("RAYDB_DEVICE") != nullptr; }' > "$tmp/clean/src/backend/vk/a.cpp"
echo 'const char* h = std::getenv("HOME");' > "$tmp/clean/src/cli/b.cpp"
echo '#include "backend/vk/a.hpp"' > "$tmp/clean/src/ops/rx/c.cpp"
expect 0 "clean tree: getenv" check_getenv.sh "$tmp/clean" "reads only"
expect 0 "clean tree: sizes" check_file_size.sh "$tmp/clean" "none over"
expect 0 "clean tree: dependencies" check_layout.sh "$tmp/clean" "one way"

mk env
echo 'auto* v = std::getenv("RAYDB_OPTIX_STACK");' > "$tmp/env/src/ops/rx/a.cpp"
expect 1 "getenv of an undocumented name" check_getenv.sh "$tmp/env" "src/ops/rx/a.cpp:1"
mk envvar
echo 'bool on(const char* n) { return getenv(n); }' > "$tmp/envvar/src/backend/vk/a.cpp"
expect 1 "getenv of a name that is no literal" check_getenv.sh "$tmp/envvar" "src/backend/vk/a.cpp:1"

mk big
seq 1 601 | sed 's#^#// #' > "$tmp/big/src/ops/rx/long.cpp"
expect 1 "a 601-line file" check_file_size.sh "$tmp/big" "src/ops/rx/long.cpp: 601 lines"
{ echo '// Over 600 lines: a reason.'; seq 1 700 | sed 's#^#// #'; } > "$tmp/big/src/ops/rx/long.cpp"
expect 0 "a long file whose top says why" check_file_size.sh "$tmp/big" "none over"

mk dep
echo '#include "ops/rx/rx_impl.hpp"' > "$tmp/dep/src/backend/vk/a.cpp"
expect 1 "backend including an operator" check_layout.sh "$tmp/dep" "src/backend/vk/a.cpp:1"
exit "$status"
