#!/usr/bin/env bash
# The main job on a fresh machine: installs what is missing, builds, and runs the default RX
# benchmark on the best Vulkan device present (lavapipe, at a small size, if there is no GPU).
# Extra arguments go to `raydb bench rx` (see `build/src/raydb bench rx --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build >/dev/null
exec build/src/raydb bench rx "$@"
