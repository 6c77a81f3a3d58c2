#!/bin/sh
# The layering rule of docs/architecture.md: dependencies run one way, cli -> ops -> backend ->
# common. Fails naming each file and line that includes from a layer above its own:
#   src/common            includes nothing from backend, ops, workload or cli
#   src/backend/{vk,cuda,optix}  nothing from ops, workload or cli (infrastructure only)
#   src/workload          nothing from ops or cli (generators feed operators, not the reverse)
#   src/ops               nothing from cli
# Usage: check_layout.sh <project source directory>
set -u
root=${1:?usage: check_layout.sh <project source directory>}
src="$root/src"
if [ ! -d "$src/backend" ] || [ ! -d "$src/ops" ]; then
  echo "check_layout: $src has no backend/ or ops/ (wrong source directory?)" >&2
  exit 2
fi

status=0
# check <folder under src> <extended regex of forbidden include prefixes>
check() {
  dir="$src/$1"
  [ -d "$dir" ] || return 0
  files=$(find "$dir" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' \
          -o -name '*.cuh' \) | sort)
  if [ -z "$files" ]; then
    echo "check_layout: no sources under src/$1" >&2
    status=1
    return
  fi
  # shellcheck disable=SC2086
  hits=$(grep -nHE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($2)/" $files)
  if [ -n "$hits" ]; then
    echo "src/$1 must not include from $(echo "$2" | sed 's/|/, /g'):"
    echo "$hits" | sed "s#^$root/##"
    status=1
  fi
}

check common 'backend|ops|workload|cli'
check backend 'ops|workload|cli'
check workload 'ops|cli'
check ops 'cli'

if [ "$status" -eq 0 ]; then
  echo "layout: dependencies run one way (cli -> ops -> backend -> common)"
fi
exit "$status"
