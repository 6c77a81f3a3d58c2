#!/bin/sh
# The switches rule of docs/architecture.md: the library reads only the documented environment
# variables RAYDB_DEVICE, RAYDB_TRAVERSAL, RAYDB_VALIDATION and RAYDB_BACKEND; every other switch
# is an option field, which the CLI (src/cli, the only exception) may fill from the environment.
# Fails naming each file and line under src/ (outside src/cli) that calls getenv on another name
# or on a name that is not a string literal.
# Usage: check_getenv.sh <project source directory>
set -u
root=${1:?usage: check_getenv.sh <project source directory>}
src="$root/src"
if [ ! -d "$src/backend" ]; then
  echo "check_getenv: $src has no backend/ (wrong source directory?)" >&2
  exit 2
fi
allowed='RAYDB_DEVICE|RAYDB_TRAVERSAL|RAYDB_VALIDATION|RAYDB_BACKEND'
hits=$(find "$src" -path "$src/cli" -prune -o -type f \( -name '*.cpp' -o -name '*.hpp' \
         -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sort |
       xargs grep -nHE '(^|[^[:alnum:]_])(secure_)?getenv[[:space:]]*\(' |
       grep -vE "getenv[[:space:]]*\([[:space:]]*\"($allowed)\"[[:space:]]*\)")
if [ -n "$hits" ]; then
  echo "src/ outside src/cli reads an environment variable other than ${allowed}"
  echo "(make it an option field; the CLI may map the variable onto it):"
  echo "$hits" | sed "s#^$root/##"
  exit 1
fi
echo "layout: the library reads only $(echo "$allowed" | sed 's/|/, /g') from the environment"
