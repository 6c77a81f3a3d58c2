#!/usr/bin/env bash
# Sanitizer builds of the tests, on lavapipe with the validation layer on (tools/test.sh runs this
# in CI after the plain suite).
#   asan: AddressSanitizer + UndefinedBehaviorSanitizer (with float-cast-overflow, which -fsanitize=
#         undefined leaves out) and LeakSanitizer: the whole ctest suite, library and CLI.
#   tsan: ThreadSanitizer: the threads test only (tests/reliability/test_threads.cpp). TSan slows lavapipe's
#         host side 5-15x and the rest of the suite is single-threaded, so only that test earns it.
# Usage: tests/reliability/sanitize.sh [asan|tsan|all]   (default all). Build folders: build-asan, build-tsan.
#
# Both builds use RAYDB_CUDA=OFF: nothing CUDA runs without a GPU, nvcc's compile of the .cu files
# is the slowest part of a build, and the sanitizers do not see device code anyway. The CUDA
# twins' host code is covered where it runs (the GPU machine).
# RAYDB_PORTABLE_BINARY=OFF: a statically linked libstdc++ hides its allocations and locks from
# the sanitizers' interceptors.
#
# Time on CI (2 cores; measured, see docs/reliability.md): the two builds dominate. The asan suite
# runs with ctest -j so both cores stay busy; the tsan build skips the CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
supp=$PWD/tests/reliability/sanitizers
jobs=$(nproc)

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# RAYDB_WERROR=OFF: the plain build already fails on warnings; GCC's sanitizer instrumentation
# adds false -Wmaybe-uninitialized / -Wstringop-overflow warnings at -O2 that are no bug of ours.
configure() {  # folder, sanitizer flags, extra cmake arguments...
  local dir=$1 flags=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAYDB_WERROR=OFF \
    -DRAYDB_CUDA=OFF -DRAYDB_PORTABLE_BINARY=OFF "${launcher[@]}" \
    "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
    "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags" "$@" >/dev/null
}

if [ "$what" = asan ] || [ "$what" = all ]; then
  start=$SECONDS
  configure build-asan \
    "-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
  cmake --build build-asan
  # Leaks are checked (detect_leaks=1); tests/reliability/sanitizers/lsan.supp lists the only ones forgiven:
  # Mesa's and the Vulkan loader's, which raydb cannot free.
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
  export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Keep Mesa and the layer loaded at exit (loaders from 1.3.261 on), so leak stacks inside them
  # are symbolised and matched by the suppressions rather than shown as <unknown module>.
  export VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
  echo "sanitize: asan+ubsan suite done in $((SECONDS - start)) s"
fi

if [ "$what" = tsan ] || [ "$what" = all ]; then
  start=$SECONDS
  configure build-tsan "-fsanitize=thread -fno-omit-frame-pointer" -DRAYDB_BUILD_CLI=OFF
  cmake --build build-tsan --target raydb_tests
  # No suppressions: with the layer off, lavapipe (not instrumented) gave no report in the runs
  # so far. Should one appear with every frame inside Mesa, suppress exactly that, with a reason.
  # detect_deadlocks=0: LLVM's JIT inside lavapipe holds more than the 64 locks at once that
  # TSan's lock-order detector can track, which aborts TSan itself ("CHECK failed:
  # sanitizer_deadlock_detector.h:67"). Races are still detected.
  # RAYDB_TEST_NO_VALIDATION=1: the validation layer is not instrumented either and hands work to
  # its own threads (reported as races inside libVkLayer_khronos_validation); its thread checks
  # run in the plain suite, which runs this test with the layer on.
  export TSAN_OPTIONS="halt_on_error=1 detect_deadlocks=0"
  RAYDB_TEST_NO_VALIDATION=1 build-tsan/tests/raydb_tests -tc='threads:*'
  echo "sanitize: tsan threads test done in $((SECONDS - start)) s"
fi
