#!/bin/sh
# The file-size rule of docs/architecture.md: no source file under src/, include/ or tools/ is over
# 600 lines unless one of its first 15 lines says why, with the words "over 600 lines" (for
# example "// Over 600 lines: one generated table that reads best whole."). Fails naming each
# file and its length.
# Usage: check_file_size.sh <project source directory>
set -u
root=${1:?usage: check_file_size.sh <project source directory>}
limit=600
if [ ! -d "$root/src" ]; then
  echo "check_file_size: $root has no src/ (wrong source directory?)" >&2
  exit 2
fi
status=0
checked=0
for dir in src include tools; do
  [ -d "$root/$dir" ] || continue
  for f in $(find "$root/$dir" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \
             -o -name '*.cu' -o -name '*.cuh' -o -name '*.py' -o -name '*.sh' \) | sort); do
    checked=$((checked + 1))
    n=$(wc -l < "$f")
    [ "$n" -le "$limit" ] && continue
    if head -n 15 "$f" | grep -qi 'over 600 lines'; then continue; fi
    echo "${f#"$root"/}: $n lines, over $limit, and its top does not say why (\"over 600 lines\")"
    status=1
  done
done
if [ "$checked" -eq 0 ]; then
  echo "check_file_size: no sources under $root/src, include or tools" >&2
  exit 2
fi
[ "$status" -eq 0 ] && echo "layout: $checked source files, none over $limit lines without a reason"
exit "$status"
