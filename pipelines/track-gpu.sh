#!/usr/bin/env bash
# The tracking example's GPU checks, on the GPU machine (issue 17), with a
# build staged by tests/stage-gpu.sh (or stage-gpu-126.sh):
#   1. 1920x1080, 300 frames on CUDA memory (cudaupload): within 4 px of the
#      ball on every frame, and the very same track as the CPU path (the
#      tables are bit-exact, so every line must match);
#   2. 3840x2160 on CUDA memory, upload of preloaded frames + cudaintegral +
#      the search: >= 60 fps and the ball check;
#   3. the same decoded by nvh264dec from MEDIA_DIR/ball-2160p.mp4
#      (tests/make-media.sh) when the bundle has qtdemux, h264parse and
#      nvh264dec.
# Usage: pipelines/track-gpu.sh [STAGED_BUILD] [BUNDLE] [MEDIA_DIR]
#   (defaults .gpu/build, .gpu/gst, .gpu/media); outputs also under $OUT.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/.gpu/build}" && pwd)
bundle=$(cd "${2:-$top/.gpu/gst}" && pwd)
media=${3:-$top/.gpu/media}
out=${OUT:-/tmp}
export GST_PLUGIN_PATH="$build/plugins"
source "$top/tests/gpu-bundle.sh"
use_bundle "$bundle" || exit 1
fail=0
step () {
  local name=$1; shift
  echo "==== $name: track $*"
  timeout 300 ${runner[@]+"${runner[@]}"} "$build/pipelines/track" "$@" > "$out/track-$name.txt" 2>&1
  local rc=$?
  grep '^#' "$out/track-$name.txt" | grep -v '^# pipeline'
  grep -v '^[#0-9]' "$out/track-$name.txt" | tail -n 5
  if [ "$rc" -eq 0 ]; then echo "$name: PASS"; else echo "$name: FAIL ($rc)"; fail=1; fi
}
step cpu-1080p --compute cpu --check-ball --strip-every 0
step gpu-1080p --upload --compute gpu --check-ball --strip-every 60 \
  --strip-dir "$out/track-strip"
if diff <(grep -v '^#' "$out/track-cpu-1080p.txt") \
        <(grep -v '^#' "$out/track-gpu-1080p.txt") > /dev/null; then
  echo "gpu-1080p: the same track as the CPU path on all frames"
else
  echo "gpu-1080p: FAIL: the track differs from the CPU path"; fail=1
fi
step upload-2160p --width 3840 --height 2160 --radius 80 --upload --compute gpu \
  --preload --check-ball --strip-every 0 --quiet --min-fps 60
if [ -s "$media/ball-2160p.mp4" ] &&
   ${runner[@]+"${runner[@]}"} gst-inspect-1.0 nvh264dec > /dev/null 2>&1; then
  step decode-2160p --source "filesrc location=$media/ball-2160p.mp4 ! qtdemux ! h264parse ! nvh264dec" \
    --radius 80 --compute gpu --check-ball --strip-every 0 --quiet --min-fps 60
else
  echo "decode-2160p: SKIPPED (needs $media/ball-2160p.mp4 from tests/make-media.sh, and nvh264dec)"
fi
exit $fail
