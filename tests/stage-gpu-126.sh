#!/usr/bin/env bash
# Builds the project against GStreamer 1.26 (Debian 13) for the GPU machine
# and stages everything a GPU run needs, here (CPU work only):
#   .gpu/gst126     GStreamer 1.26 with its own C library and loader (run.sh),
#                   from ../shared/gpu/gst-bundle-trixie.sh, plus the plugins
#                   the tests use (videocrop, pango, videofilter; coretracers:
#                   test_faults counts live objects with the leaks tracer)
#   .gpu/build126   plugin, test executables and their list, bench_element,
#                   decode test (as tests/stage-gpu.sh stages a 1.22 build)
#   .gpu/media126   H.264/H.265 inputs of the decode test (tests/make-media.sh;
#                   CIP_MEDIA_FRAMES=N caps them at N frames, for a tight carry)
#   .gpu/gpu126.tar.xz  the three above, for carrying (tests/run-gpu-126.sh
#                   unpacks it); it and the working tree must fit a call's 64 MiB
# The build runs inside the Debian 13 root ${TRIXIE_ROOT:-/tmp/trixie-gst},
# with /usr/local/cuda and this checkout bind-mounted, into build-gpu126.
# On the GPU machine: bash tests/run-gpu-126.sh (tests, decode, bench).
# Usage: tests/stage-gpu-126.sh [--no-build]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tools=${GPU_TOOLS:-$top/../shared/gpu}
root=${TRIXIE_ROOT:-/tmp/trixie-gst}
cd "$top"
# the inputs' cap, checked now rather than after minutes of bundling and
# building (digits only once checked, so safe in in_root's command line)
frames=${CIP_MEDIA_FRAMES:-0}
CIP_MEDIA_FRAMES=$frames bash tests/make-media.sh --check || exit 2
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root \
    PATH=/usr/local/cuda/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive bash -c "$1"
}

# 1. the root (made by the bundle script) and what building needs in it
[ -x "$root/usr/bin/gst-launch-1.0" ] || bash "$tools/gst-bundle-trixie.sh" .gpu/gst126
pkgs="meson ninja-build pkg-config gcc g++ libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libgl-dev gstreamer1.0-x gstreamer1.0-plugins-ugly"
missing=$(in_root "for p in $(echo $pkgs); do dpkg -s \$p >/dev/null 2>&1 || echo \$p; done")
if [ -n "$missing" ]; then
  echo "== installing in $root: $missing"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends $(echo $missing) >/tmp/cip-apt.log 2>&1"
fi

# 2. the bundle, with the extra plugins the element tests use
extra=$(mktemp -d)
for p in videocrop pango videofilter coretracers; do
  ln -s "$root/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgst$p.so" "$extra/"
done
bash "$tools/gst-bundle-trixie.sh" .gpu/gst126 "$extra" | sed 's/^/bundle: /'
rm -rf "$extra"
# a font for timeoverlay (tests/gpu-bundle.sh points fontconfig at it)
mkdir -p .gpu/gst126/fonts
cp -L "$root/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" .gpu/gst126/fonts/
[ -f .gpu/gst126/plugins/libgstcoretracers.so ] ||
  { echo "stage-gpu-126: no libgstcoretracers.so in the bundle (test_faults needs it)" >&2; exit 1; }

# 3. build inside the root
mkdir -p "$root/usr/local/cuda" "$root/src/cip"
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount --bind /usr/local/cuda "$root/usr/local/cuda"; mounted+=("$root/usr/local/cuda")
mount -o remount,bind,ro "$root/usr/local/cuda"
mount --bind "$top" "$root/src/cip"; mounted+=("$root/src/cip")
if [ "${1:-}" != "--no-build" ]; then
  in_root "cd /src/cip && { [ -f build-gpu126/build.ninja ] || meson setup build-gpu126 -Dcuda-arch=sm_90 -Dcuda=enabled -Dbench=enabled; } && ninja -j2 -C build-gpu126"
fi

# 4. stage the build; decode inputs, encoded in the root (x264enc, x265enc)
bash tests/stage-gpu.sh build-gpu126 .gpu/build126 .gpu/gst126
in_root "cd /src/cip && CIP_MEDIA_FRAMES=$frames bash tests/make-media.sh .gpu/media126"
cleanup; mounted=()

# 5. one file to carry, and whether it fits beside the working tree
rm -f .gpu/gpu126.tar
tar -cf - .gpu/gst126 .gpu/build126 .gpu/media126 | xz -9 -T0 > .gpu/gpu126.tar.xz.part
mv .gpu/gpu126.tar.xz.part .gpu/gpu126.tar.xz
du -sh .gpu/gst126 .gpu/build126 .gpu/media126 .gpu/gpu126.tar.xz
# what travels with it: tracked files and untracked ones git does not ignore
tree=$(git ls-files -z -co --exclude-standard | du -cb --files0-from=- 2>/dev/null |
  tail -n 1 | cut -f1 || true)
art=$(stat -c %s .gpu/gpu126.tar.xz)
echo "carry: working tree $((${tree:-0} >> 20)) MiB + gpu126.tar.xz $((art >> 20)) MiB (a call: 64 MiB)"
if [ $((${tree:-0} + art)) -ge $((64 << 20)) ]; then
  echo "stage-gpu-126: too big to carry with the working tree: remove .gpu/media126 and" \
    "stage again with CIP_MEDIA_FRAMES=40 (and --no-build)" >&2
  exit 1
fi
