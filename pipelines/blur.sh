#!/usr/bin/env bash
# Blur example: box-filters a test pattern with cudaboxfilter and writes the
# result as a PNG, next to the unfiltered frame, so the effect can be looked at.
#
#   pipelines/blur.sh [RADIUS [OUT_PREFIX [BORDER]]]
#
# Defaults: radius 15, /tmp/cudaboxfilter (writes /tmp/cudaboxfilter-in.png and
# /tmp/cudaboxfilter-r15.png), border clip. The plugin must be on
# GST_PLUGIN_PATH (pipelines/demo.sh sets it). The pipeline:
#   gst-launch-1.0 videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,format=RGBA,width=640,height=360 ! cudaboxfilter radius-x=15 radius-y=15 ! videoconvert ! pngenc ! filesink location=out.png
set -euo pipefail
r=${1:-15} prefix=${2:-/tmp/cudaboxfilter} border=${3:-clip}
src="videotestsrc pattern=smpte num-buffers=1 ! video/x-raw,format=RGBA,width=640,height=360"
gst-launch-1.0 -q $src ! videoconvert ! pngenc ! filesink location="$prefix-in.png"
gst-launch-1.0 -q $src ! cudaboxfilter radius-x="$r" radius-y="$r" border="$border" ! \
  videoconvert ! pngenc ! filesink location="$prefix-r$r.png"
for f in "$prefix-in.png" "$prefix-r$r.png"; do
  [ -s "$f" ] || { echo "blur.sh: $f was not written" >&2; exit 1; }
done
cmp -s "$prefix-in.png" "$prefix-r$r.png" && [ "$r" != 0 ] && {
  echo "blur.sh: radius $r left the frame unchanged" >&2; exit 1; }
echo "wrote $prefix-in.png and $prefix-r$r.png (radius $r, border $border)"
