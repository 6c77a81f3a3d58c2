#!/usr/bin/env bash
# Installs a raydb .deb on a clean Debian 12 (bookworm) made with debootstrap, the way a user
# would (`apt install ./raydb_*.deb`, bookworm-backports enabled for Mesa 25's lavapipe), then runs
# `raydb --version` and `raydb devices` inside it. Not in CI: the first run downloads a minimal
# bookworm (about 100 MB) and takes minutes. Needs root (chroot, mount) and debootstrap.
#
# Usage: tests/install/clean_debian.sh [--bootstrap-only] [raydb_*.deb]
#   RAYDB_DEBIAN_ROOT  where the pristine bookworm is kept between runs (default
#                      $TMPDIR/raydb-bookworm); each run installs into a fresh copy of it.
# The mirror is the one this machine's apt sources use for bookworm (as tools/setup.sh finds it).
set -euo pipefail
say() { echo "clean_debian: $*"; }
fail() { echo "clean_debian: FAILED: $*" >&2; exit 1; }

bootstrap_only=0
if [ "${1:-}" = "--bootstrap-only" ]; then bootstrap_only=1; shift; fi
deb=${1:-}
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, chroot and mount)"
command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
if [ $bootstrap_only -eq 0 ]; then
  [ -n "$deb" ] || fail "usage: clean_debian.sh [--bootstrap-only] raydb_*.deb"
  [ -f "$deb" ] || fail "$deb: no such file"
  deb=$(realpath "$deb")
fi

# shellcheck disable=SC2016  # $(REPO_URI) is apt's format syntax
mirror=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
  awk '$2 == "bookworm" { print $1; exit }')
mirror=${mirror:-http://deb.debian.org/debian/}
mirror=${mirror%/}
pristine=${RAYDB_DEBIAN_ROOT:-${TMPDIR:-/tmp}/raydb-bookworm}

if [ ! -x "$pristine/usr/bin/apt-get" ]; then
  say "debootstrap bookworm (minbase) from $mirror into $pristine"
  start=$(date +%s)
  rm -rf "$pristine.partial"
  debootstrap --variant=minbase bookworm "$pristine.partial" "$mirror" >"$pristine.log" 2>&1 ||
    fail "debootstrap (log: $pristine.log)"
  printf 'deb %s bookworm main\ndeb %s bookworm-backports main\n' "$mirror" "$mirror" \
    >"$pristine.partial/etc/apt/sources.list"
  mv "$pristine.partial" "$pristine"
  say "bootstrapped in $(($(date +%s) - start)) s"
fi
[ $bootstrap_only -eq 1 ] && exit 0

root=$(mktemp -d "${TMPDIR:-/tmp}/raydb-debian.XXXXXX")
cleanup() {
  for m in proc dev/pts dev; do umount "$root/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
cp -a "$pristine/." "$root/"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive "$@"; }

in_root apt-get update -qq || fail "apt-get update in the chroot"
name=$(basename "$deb")
say "apt install ./$name (as a user would, Recommends included)"
in_root sh -c "cd /tmp && apt-get install -y -qq ./$name" || fail "apt install ./$name"
mesa=$(in_root dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
say "mesa-vulkan-drivers after the plain install: ${mesa:-not installed}"
if [ -z "$mesa" ] || ! dpkg --compare-versions "$mesa" ge 25; then
  # bookworm's own Mesa (22.3) has no ray tracing in lavapipe; the Recommends asks for >= 25,
  # which apt takes only from backports when told to.
  say "apt install -t bookworm-backports mesa-vulkan-drivers"
  in_root apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers ||
    fail "mesa-vulkan-drivers from bookworm-backports"
fi
version=$(in_root raydb --version) || fail "raydb --version"
say "$version"
# `raydb devices` (an alias of `raydb info` since 0.1.0's lookup and --format work); a package
# built before it has only `raydb info`.
devices=devices
in_root raydb --help | grep -q 'info, devices' || devices=info
in_root raydb "$devices" || fail "raydb $devices"
say "OK: installed and ran on a clean Debian 12"
