#!/usr/bin/env bash
# Installs everything raydb needs to build and test on Debian 12 (bookworm). Idempotent: prints
# nothing when all is present. Run as root (or with sudo available).
#
# Ubuntu 24.04: apt install build-essential cmake ninja-build pkg-config libvulkan-dev
#   libvulkan-volk-dev glslc glslang-tools spirv-tools vulkan-validationlayers vulkan-tools
#   doctest-dev libcli11-dev nlohmann-json3-dev libfmt-dev libsqlite3-dev mesa-vulkan-drivers
#   libvulkan-memory-allocator-dev; lavapipe needs Mesa >= 25 for ray tracing (the kisak-mesa PPA
#   or Ubuntu 25.04+), and Ubuntu 24.04's VMA package must be 3.x.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "setup: not root and no sudo; install the packages listed in tools/setup.sh by hand" >&2
    exit 1
  fi
fi

say() { echo "setup: $*" >&2; }
fail() { echo "setup: ERROR: $*" >&2; exit 1; }

if ! grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null; then
  say "this script targets Debian 12 (bookworm); see its header for Ubuntu 24.04. Trying anyway."
fi

PACKAGES=(build-essential cmake ninja-build pkg-config libvulkan-dev libvulkan-volk-dev glslc
  glslang-tools spirv-tools vulkan-validationlayers vulkan-tools doctest-dev libcli11-dev
  nlohmann-json3-dev libfmt-dev libsqlite3-dev python3 python3-pytest python3-matplotlib
  pybind11-dev python3-numpy python3-dask python3-distributed python3-pandas python3-setuptools
  clang libclang-rt-14-dev  # clang and libFuzzer: tests/fuzz
  libpg-query-dev glslang-dev zlib1g-dev  # the SQL engine (RAYDB_SQL)
  doxygen  # the API reference (--target docs, a ctest entry)
  python3-pip python3-wheel  # pip install . offline (tests/install/pip_install.sh)
  libedit-dev  # line editing and history in the raydb sql shell (BSD licence, unlike readline)
  python3-numpy  # tests/cli/lookup_check.py writes .npy files
  ccache)  # tools/test.sh: the pip-install test rebuilds the library from build/'s objects

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# Mesa >= 25 (lavapipe with acceleration structures and ray tracing) comes from bookworm-backports.
mesa_ok() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
  [ -n "$v" ] && dpkg --compare-versions "$v" ge 25
}
backports_listed() { grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; }

updated=0
apt_update() {
  if [ $updated -eq 0 ]; then
    $SUDO apt-get update -qq >/dev/null || fail "apt-get update failed (no network to Debian's mirrors?)"
    updated=1
  fi
}

# The Debian mirror this machine already uses for bookworm (from its apt sources, deb822 or
# one-line format, as apt itself reads them), so that backports and trixie come from the same
# place, which may be a local or corporate mirror. deb.debian.org only where none is configured.
debian_mirror() {
  local uri
  # shellcheck disable=SC2016  # $(REPO_URI) is apt's format syntax, not the shell's
  uri=$(apt-get indextargets --no-release-info --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
    awk '$2 == "bookworm" { print $1; exit }')
  if [ -z "$uri" ]; then
    say "no bookworm suite in the apt sources; using http://deb.debian.org/debian/"
    uri=http://deb.debian.org/debian/
  fi
  echo "${uri%/}"
}

if ! mesa_ok && ! backports_listed; then
  mirror=$(debian_mirror)
  say "adding the bookworm-backports suite from $mirror (for Mesa 25 lavapipe)"
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror" |
    $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null ||
    fail "could not install: ${missing[*]}"
fi

if ! mesa_ok; then
  say "installing Mesa 25 lavapipe from bookworm-backports"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers >/dev/null ||
    fail "could not install mesa-vulkan-drivers from bookworm-backports"
  mesa_ok || fail "mesa-vulkan-drivers is older than 25 after installing; lavapipe will lack ray tracing"
fi

# Vulkan Memory Allocator: a header-only package that bookworm lacks; Debian trixie's is
# architecture-independent and depends on nothing, so it is fetched from trixie and installed.
if [ ! -f /usr/include/vk_mem_alloc.h ]; then
  say "installing Vulkan Memory Allocator (header package from Debian trixie)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial" "$tmp/parts"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(debian_mirror) trixie main" >"$tmp/sources.list"
  o=(-o "Dir::State::Lists=$tmp/lists" -o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=$tmp/parts")
  $SUDO apt-get "${o[@]}" update -qq >/dev/null 2>&1 || fail "could not read Debian trixie's package list"
  (cd "$tmp" && $SUDO apt-get "${o[@]}" download libvulkan-memory-allocator-dev >/dev/null 2>&1) ||
    fail "could not download libvulkan-memory-allocator-dev from Debian trixie"
  $SUDO dpkg -i "$tmp"/libvulkan-memory-allocator-dev_*.deb >/dev/null || fail "could not install the VMA package"
fi

# A last check that a ray-tracing Vulkan device is visible.
if ! (vulkaninfo 2>/dev/null || true) | grep -c 'VK_KHR_acceleration_structure' >/dev/null; then
  say "warning: no Vulkan device with VK_KHR_acceleration_structure is visible (vulkaninfo)"
fi
