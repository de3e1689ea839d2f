#!/usr/bin/env bash
# Histogram overlay example: cudahistogram draw=true paints each frame's
# histograms onto it (a bar chart in the bottom-left corner); writes PNGs so
# the chart can be looked at.
#
#   pipelines/histogram-draw.sh [OUT_DIR]
#
# Writes OUT_DIR/histogram-luma.png (the luma histogram of a grey zone plate,
# tones from black to white) and OUT_DIR/histogram-rgb.png (red, green and
# blue histograms of the SMPTE colour bars, mode=rgb) and prints their paths.
# OUT_DIR defaults to build/pictures. The plugin must be on GST_PLUGIN_PATH
# (pipelines/demo.sh sets it). Live, on screen:
#   gst-launch-1.0 videotestsrc ! cudahistogram draw=true post-messages=false ! videoconvert ! autovideosink
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/pictures}
mkdir -p "$out"

shot () {
  local src=$1 caps=$2 props=$3 file=$4
  rm -f "$file"
  gst-launch-1.0 -q $src num-buffers=1 ! videoconvert ! $caps ! \
    cudahistogram draw=true post-messages=false $props ! videoconvert ! \
    pngenc ! filesink location="$file"
  [ -s "$file" ] || { echo "histogram-draw.sh: $file was not written" >&2; exit 1; }
  # the chart must be there: the same frame without it differs
  gst-launch-1.0 -q $src num-buffers=1 ! videoconvert ! $caps ! videoconvert ! \
    pngenc ! filesink location="$file.plain"
  if cmp -s "$file" "$file.plain"; then
    echo "histogram-draw.sh: no chart in $file" >&2; exit 1
  fi
  rm -f "$file.plain"
}

shot "videotestsrc pattern=zone-plate kx2=20 ky2=20" \
  "video/x-raw,format=NV12,width=640,height=360" "bins=64" "$out/histogram-luma.png"
shot "videotestsrc pattern=smpte" \
  "video/x-raw,format=RGBA,width=640,height=360" "mode=rgb bins=64" "$out/histogram-rgb.png"
echo "histograms drawn onto the frames (cudahistogram draw=true):"
echo "  luma: $out/histogram-luma.png"
echo "  rgb:  $out/histogram-rgb.png"
