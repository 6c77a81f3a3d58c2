# Sourced by bench/gpu/{rx,rtscan,ssb,bandwidth}.sh with the script's arguments, on the GPU
# machine: installs the Vulkan loader (.gl, see bench/gpu/README.md), sets $OUT (results under
# $OUT/results/<device>/), $R (the carried raydb binary), `part NAME` (whether NAME or `all` was
# asked for; no arguments means all), `label KEY [FILL]` (an experiment label of
# bench/registry.toml, bench/gpu/label.sh), and writes the GPU and raydb's view of it to
# $OUT/gpu.txt.
source .gl/enter.sh
source "$(dirname "${BASH_SOURCE[0]}")/label.sh"
OUT=${OUT:-/tmp/raydb-out}
mkdir -p "$OUT/results"
R=${R:-build/src/raydb}
what=" ${*:-all} "
part() { [[ $what == *" all "* || $what == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
$R info >> "$OUT/gpu.txt"
