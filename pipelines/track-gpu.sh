#!/usr/bin/env bash
# The tracking example's GPU checks, on the GPU machine (issue 17), with the
# GStreamer bundle in .gpu/gst and a build staged by tests/stage-gpu.sh:
#   1. 1920x1080, 300 frames on CUDA memory (cudaupload): within 4 px of the
#      ball on every frame, and the very same track as the CPU path (the
#      tables are bit-exact, so every line must match);
#   2. 3840x2160 on CUDA memory, upload of preloaded frames + cudaintegral +
#      the search: >= 60 fps and the ball check;
#   3. the same decoded by nvh264dec from H264_FILE (pipelines/make-ball-h264.sh)
#      when the bundle has h264parse and nvh264dec.
# Usage: pipelines/track-gpu.sh [STAGED_BUILD] [H264_FILE]
#   (defaults .gpu/build and .gpu/ball-2160p.h264); output also in $OUT.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/.gpu/build}
h264=${2:-$top/.gpu/ball-2160p.h264}
out=${OUT:-/tmp}
source "$top/.gpu/gst/env.sh"
export GST_PLUGIN_PATH="$build/plugins"
t="$build/pipelines/track"
fail=0
step () {
  local name=$1; shift
  echo "==== $name: track $*"
  timeout 300 "$t" "$@" > "$out/track-$name.txt" 2>&1
  local rc=$?
  grep '^#' "$out/track-$name.txt" | grep -v '^# pipeline'
  tail -n 3 "$out/track-$name.txt" | grep -v '^[#0-9]'
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
if [ -s "$h264" ] && gst-inspect-1.0 h264parse > /dev/null 2>&1 &&
   gst-inspect-1.0 nvh264dec > /dev/null 2>&1; then
  step decode-2160p --source "filesrc location=$h264 ! h264parse ! nvh264dec" \
    --radius 80 --compute gpu --check-ball --strip-every 0 --quiet --min-fps 60
else
  echo "decode-2160p: SKIPPED (needs $h264, h264parse and nvh264dec)"
fi
exit $fail
