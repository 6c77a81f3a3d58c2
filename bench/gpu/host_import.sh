#!/usr/bin/env bash
# Runs on the GPU machine (see bench/gpu/README.md): what importing a caller's std::vector into
# Vulkan costs (VK_EXT_external_memory_host; bench/gpu/host_import_probe.cpp, docs/e2e.md): import
# and free times at 64 MiB to 2 GiB, repeated and chunked imports, and the copy engines' copies from
# and into imported memory against pinned memory, every copy's bytes checked. Builds nothing: the
# probe is built on the developer machine (its header has the command) and carried.
# Usage: bench/gpu/host_import.sh PROBE [probe options]   (about a minute on the H100, by estimate)
# Output: $OUT/results/<device>/e2e/host-import.txt; exit status the probe's (1: MISMATCH, 2: a
# missing extension, memory type or queue, named in the output).
set -uo pipefail
probe=${1:?usage: bench/gpu/host_import.sh PROBE [probe options]}
shift
[ -x "$probe" ] || { echo "host_import.sh: $probe is not an executable (carry the built probe)"; exit 2; }
source .gl/enter.sh
OUT=${OUT:-/tmp/raydb-out}
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
device=$(echo "$name" | tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g')
device=${device:-unknown-device}
mkdir -p "$OUT/results/$device/e2e"
log="$OUT/results/$device/e2e/host-import.txt"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
  nproc; grep -m1 "model name" /proc/cpuinfo; free -g | head -2; } > "$OUT/gpu.txt"
cat "$OUT/gpu.txt"
timeout 540 "$probe" "$@" > "$log" 2>&1
rc=$?
cat "$log"
echo "host_import.sh: probe exit status $rc; output in $log"
exit $rc
