#!/usr/bin/env bash
# Equalization example: writes before/after PNGs of a dark scene through
# cudahistequalize, global and CLAHE, so the effect can be looked at.
#
#   pipelines/equalize.sh [OUT_DIR]
#
# The scene is a camera (v4l2src) when /dev/video0 exists, else a built-in
# dark test source (videotestsrc smpte darkened by videobalance: luma 0..54,
# mean 20 of 255). OUT_DIR defaults
# to build/pictures. Writes OUT_DIR/equalize-before.png, equalize-global.png
# and equalize-clahe.png and prints their paths. The plugin must be on
# GST_PLUGIN_PATH (pipelines/demo.sh sets it). The pipeline:
#   gst-launch-1.0 videotestsrc pattern=smpte num-buffers=1 ! videobalance brightness=-0.15 contrast=0.35 ! video/x-raw,format=NV12,width=640,height=360 ! cudahistequalize mode=clahe tiles-x=4 tiles-y=4 clip-limit=8 ! videoconvert ! pngenc ! filesink location=out.png
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/pictures}
mkdir -p "$out"

caps="video/x-raw,format=NV12,width=640,height=360"
if [ -e /dev/video0 ] && gst-inspect-1.0 v4l2src >/dev/null 2>&1; then
  # a camera: skip the first frames (exposure settles), take one
  scene="v4l2src device=/dev/video0 num-buffers=15 ! videoconvert ! videoscale ! $caps"
  what="camera /dev/video0"
  frame="multifilesink"
else
  scene="videotestsrc pattern=smpte num-buffers=1 ! videoconvert ! \
videobalance brightness=-0.15 contrast=0.35 ! videoconvert ! $caps"
  what="built-in dark test source"
  frame="filesink"
fi

# One PNG of the scene through `filter` (identity for the 'before' picture).
# A camera gives 15 frames while its exposure settles: multifilesink with a
# fixed name overwrites the file, so the last frame stays (and smoothing, if
# set, has seen the frames before it).
shot () {
  local filter=$1 file=$2
  rm -f "$file"
  if [ "$frame" = multifilesink ]; then
    gst-launch-1.0 -q $scene ! $filter ! videoconvert ! pngenc ! \
      multifilesink location="$file"
  else
    gst-launch-1.0 -q $scene ! $filter ! videoconvert ! pngenc snapshot=true ! \
      filesink location="$file"
  fi
  [ -s "$file" ] || { echo "equalize.sh: $file was not written" >&2; exit 1; }
}

shot identity "$out/equalize-before.png"
shot "cudahistequalize" "$out/equalize-global.png"
shot "cudahistequalize mode=clahe tiles-x=4 tiles-y=4 clip-limit=8" "$out/equalize-clahe.png"

for f in global clahe; do
  cmp -s "$out/equalize-before.png" "$out/equalize-$f.png" && {
    echo "equalize.sh: $f equalization left the frame unchanged" >&2; exit 1; }
done
echo "equalization of a $what:"
echo "  before: $out/equalize-before.png"
echo "  global: $out/equalize-global.png"
echo "  clahe:  $out/equalize-clahe.png"
