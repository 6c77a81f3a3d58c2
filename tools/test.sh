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
# The fuzzers of the file readers and parsers, 60 s each (four targets: about 5 minutes with the
# build, well inside CI's 90): long enough to pass the seeds' neighbourhoods on every run, while
# a crash found is kept under tests/fuzz/regressions/ and replayed first on every later run.
tests/fuzz/run.sh 60
