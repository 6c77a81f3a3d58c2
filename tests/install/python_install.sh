#!/usr/bin/env bash
# `cmake --install` of the Python module: installs a built tree's `python` component into a
# temporary prefix, checks that the folder it lands in is one Debian's python3 searches under its
# prefixes (/usr/local and /usr), then imports raydb from there with Debian's python3 in an empty
# environment (no PYTHONPATH to the build tree) and checks a lookup (check_module.py). Run by
# ctest (python_install); by hand: python_install.sh <build folder> <module folder, relative to
# the prefix, as CMake's RAYDB_PYTHON_INSTALL_DIR>.
set -euo pipefail
build=$(realpath "${1:?usage: python_install.sh <build folder> <module folder>}")
dir=${2:?usage: python_install.sh <build folder> <module folder>}
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/raydb-pyinstall.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "python_install: FAILED: $*" >&2; exit 1; }

case $dir in /*) fail "RAYDB_PYTHON_INSTALL_DIR $dir is absolute: not relative to a prefix" ;; esac
searched=$("$python" -c 'import site; print("\n".join(site.getsitepackages()))')
grep -qxF -e "/usr/local/$dir" -e "/usr/$dir" <<<"$searched" ||
  fail "$dir is not searched by $python under /usr/local or /usr (it searches: $searched)"
cmake --install "$build" --prefix "$tmp/prefix" --component python >"$tmp/install.log" ||
  { cat "$tmp/install.log"; fail "cmake --install $build --component python"; }
ls "$tmp/prefix/$dir"/raydb/_raydb*.so "$tmp/prefix/$dir/raydb/__init__.py" >/dev/null ||
  fail "the module is not in $tmp/prefix/$dir/raydb"
cd "$tmp"
env -i PATH=/usr/bin:/bin HOME="$tmp" PYTHONPATH="$tmp/prefix/$dir" RAYDB_VALIDATION=1 \
  "$python" "$(dirname "$(realpath "$0")")/check_module.py" "$tmp/prefix/$dir" ||
  fail "importing and using raydb installed into $tmp/prefix/$dir"
echo "python_install: $dir (searched under /usr/local and /usr): passed"
