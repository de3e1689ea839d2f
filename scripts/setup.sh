#!/usr/bin/env bash
# Installs the build dependencies on Debian 12 / Ubuntu 24.04 when missing and
# builds the project into ${BUILD_DIR:-build}. Sourced or run by the README's
# commands (pipelines/demo.sh, tests/run.sh) and by CI.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$top/build}
export PATH="/usr/local/cuda/bin:$PATH"

pkgs=(meson ninja-build pkg-config gcc g++ libgstreamer1.0-dev
      libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
      gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
      gstreamer1.0-plugins-bad gstreamer1.0-x libgl-dev
      # GObject introspection of the meta library, and Python for its example
      gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0
      gir1.2-gst-plugins-base-1.0 python3-gi
      # NumPy: the CPU self-test of bench/baselines (skipped without it)
      python3-numpy)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  echo "== configuring $build ${MESON_ARGS:-}"
  meson setup "$build" "$top" ${MESON_ARGS:-}
fi
echo "== building"
ninja -C "$build"
