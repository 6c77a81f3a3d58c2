#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what is missing, builds, runs ctest.
# The Vulkan tests run on the best device present (lavapipe on a machine without a GPU) with the
# validation layer on; any validation message fails them.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRAYDB_WERROR=ON >/dev/null
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)"

# --- reliability (issue 20): sanitizer builds; tests/sanitize.sh says what each runs and why ---
# ASan + UBSan + LSan over the whole suite and TSan over the threads test, both on lavapipe.
# RAYDB_SKIP_SANITIZERS=1 skips them (a quick local run); CI never sets it.
if [ "${RAYDB_SKIP_SANITIZERS:-0}" != 1 ]; then
  tests/sanitize.sh all
fi
# --- end reliability ---
