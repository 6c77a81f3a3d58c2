#!/usr/bin/env bash
# Installs a built raydb into a temporary prefix, then builds examples/ out of tree against the
# installed package twice, through find_package(raydb) and through pkg-config, and runs what was
# built with the Vulkan validation layer on (any message fails). Run by ctest
# ("install: ..."); by hand: tests/install/check_install.sh <build folder> <source folder>.
set -euo pipefail
build=$(realpath "${1:?usage: check_install.sh <build folder> <source folder>}")
src=$(realpath "${2:?usage: check_install.sh <build folder> <source folder>}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/raydb-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
say() { echo "check_install: $*"; }
fail() { echo "check_install: FAILED: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install $build"
say "installed into $prefix: $(cd "$prefix" && find . -type f | wc -l) files"
for f in include/raydb/rx_index.hpp include/raydb/version.hpp bin/raydb lib/pkgconfig/raydb.pc \
  lib/cmake/raydb/raydbConfig.cmake lib/cmake/raydb/raydbConfigVersion.cmake \
  lib/cmake/raydb/raydbTargets.cmake; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
ls "$prefix"/lib/libraydb.* >/dev/null 2>&1 || fail "no lib/libraydb.* installed"
# Nothing raydb uses privately may be asked of the user's compile line.
if grep -nE 'fmt::|Vulkan::|volk|vk_mem_alloc' "$prefix"/lib/cmake/raydb/raydbTargets*.cmake; then
  fail "the exported targets name a private dependency (above)"
fi
version=$("$prefix/bin/raydb" --version) || fail "raydb --version"
say "$version"
want=$(sed -n 's/^#define RAYDB_VERSION "\(.*\)"/\1/p' "$prefix/include/raydb/version.hpp")
[[ "$version" == "raydb $want "* ]] || fail "raydb --version says '$version', version.hpp '$want'"

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
export RAYDB_VALIDATION=1
"$prefix/bin/raydb" gen ssb --sf 0.01 --out "$tmp/ssb" >/dev/null || fail "raydb gen ssb"

run_examples() {  # <folder with the built examples> <how they were built>
  "$1/lookup" || fail "lookup ($2)"
  "$1/ssb" "$tmp/ssb" 2.1 || fail "ssb ($2)"
  "$1/vulkan_app" || fail "vulkan_app ($2)"
}

# 1. CMake: find_package(raydb CONFIG REQUIRED), raydb::raydb.
cmake -S "$src/examples" -B "$tmp/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >"$tmp/cmake.log" ||
  { cat "$tmp/cmake.log"; fail "configuring examples/ with find_package(raydb)"; }
cmake --build "$tmp/cmake" >"$tmp/build.log" ||
  { cat "$tmp/build.log"; fail "building examples/ with find_package(raydb)"; }
say "examples built with find_package(raydb)"
run_examples "$tmp/cmake" "find_package"

# The components say what version.hpp says was built: find_package(... COMPONENTS x) succeeds
# exactly when raydb::built_with_x is true.
for comp in cuda optix; do
  built=$(sed -n "s/.*built_with_$comp = \([a-z0-9]*\);/\1/p" "$prefix/include/raydb/version.hpp")
  mkdir -p "$tmp/comp-$comp"
  printf 'cmake_minimum_required(VERSION 3.25)\nproject(c CXX)\nfind_package(raydb CONFIG REQUIRED COMPONENTS %s)\n' \
    "$comp" >"$tmp/comp-$comp/CMakeLists.txt"
  if cmake -S "$tmp/comp-$comp" -B "$tmp/comp-$comp/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
    found=1
  else
    found=0
  fi
  [ "$found" = "$built" ] || fail "find_package(raydb COMPONENTS $comp) found=$found, version.hpp built_with_$comp=$built"
done
say "components cuda and optix agree with version.hpp"

# 2. pkg-config; a static libraydb needs --static for its private libraries.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
static=()
[ -e "$prefix/lib/libraydb.so" ] || static=(--static)
flags=$(pkg-config "${static[@]}" --cflags --libs raydb) || fail "pkg-config raydb"
say "pkg-config ${static[*]} raydb: $flags"
mkdir -p "$tmp/pc"
vulkan_flags=$(pkg-config --cflags --libs vulkan) || fail "pkg-config vulkan"
for ex in lookup ssb vulkan_app/main; do
  extra=""
  [ "$ex" = vulkan_app/main ] && extra=$vulkan_flags  # it links the system's Vulkan loader too
  # shellcheck disable=SC2086  # the flags are words
  ${CXX:-c++} -std=c++20 -O1 -o "$tmp/pc/${ex%/main}" "$src/examples/$ex.cpp" $flags $extra ||
    fail "building examples/$ex.cpp with pkg-config"
done
say "examples built with pkg-config"
LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run_examples "$tmp/pc" "pkg-config"
say "all passed"
