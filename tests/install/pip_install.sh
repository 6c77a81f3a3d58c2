#!/usr/bin/env bash
# `pip install .` as a user runs it, offline: copies the checkout's files (tracked and untracked,
# not ignored) into a temporary folder, installs from there with Debian's pip into a --target
# folder (no index, no build isolation: Debian's setuptools and cmake, nothing downloaded), then
# imports raydb from that folder with Debian's python3 in an empty environment and checks an RX
# lookup on random keys whole against numpy, with the validation layer on. Leaves nothing in the
# checkout (it checks). Run by ctest (python_pip_install; about a minute once tools/test.sh's
# build/ has filled ccache); by hand: tests/install/pip_install.sh [source folder]
# Environment: CCACHE_DISABLE=1 for a cold build; RAYDB_CMAKE_ARGS adds CMake arguments.
set -euo pipefail
src=$(realpath "${1:-$(dirname "$0")/../..}")
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/raydb-pip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
say() { echo "pip_install: $*"; }
fail() { echo "pip_install: FAILED: $*" >&2; exit 1; }

# What a build in the checkout would leave (egg-info, build/ folders, changed files); build
# folders and __pycache__ that ctest's other entries write at the same time are left out.
changes() {
  git -C "$src" status --porcelain --ignored -- . ':(exclude,glob)build*' \
    ':(exclude,glob)build*/**' ':(exclude,glob)**/__pycache__' ':(exclude,glob)**/__pycache__/**'
}
before=$(changes)
mkdir -p "$tmp/src"
git -C "$src" ls-files -z --cached --others --exclude-standard |
  (cd "$src" && xargs -0 cp --parents -t "$tmp/src" 2>/dev/null) ||
  fail "copying the checkout $src"
say "copied $(find "$tmp/src" -type f | wc -l) files of $src"

# The CI build's flags (-Werror included) and ccache across temporary paths, so that the objects
# of a build/ in a checkout (tools/test.sh's) serve this build; without ccache they are left out.
cmake_args=(-G Ninja -DRAYDB_WERROR=ON)
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=$tmp/src CCACHE_NOHASHDIR=1
  # at the depth of a CMake build/ in the checkout: ccache's keys match that build's objects
  export RAYDB_CMAKE_BUILD_DIR=$tmp/src/build
fi
export RAYDB_CMAKE_ARGS="${cmake_args[*]} ${RAYDB_CMAKE_ARGS:-}"
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
start=$(date +%s)
# --no-index: pip may not reach any package index; a missing build dependency fails here.
(cd "$tmp" && PIP_NO_INDEX=1 nice "$python" -m pip install --no-index --no-build-isolation \
  --no-deps --no-cache-dir --target "$tmp/site" "$tmp/src" >"$tmp/pip.log" 2>&1) ||
  { tail -40 "$tmp/pip.log"; fail "pip install (log above)"; }
say "pip install took $(($(date +%s) - start)) s"
ls "$tmp"/site/raydb/_raydb*.so >/dev/null 2>&1 || fail "no raydb/_raydb*.so in the --target folder"

# An empty environment (no PYTHONPATH to a build tree), run outside both trees.
cd "$tmp"
env -i PATH=/usr/bin:/bin HOME="$tmp" PYTHONPATH="$tmp/site" RAYDB_VALIDATION=1 \
  "$python" "$src/tests/install/check_module.py" "$tmp/site" ||
  fail "importing and using raydb from the --target folder"
after=$(changes)
[ "$before" = "$after" ] || fail "the checkout changed: $(diff <(echo "$before") <(echo "$after"))"
say "all passed"
