#!/usr/bin/env bash
# Halftone example: writes before/after PNGs through cudahalftone, so the
# patterns can be looked at.
#
#   pipelines/halftone.sh [OUT_DIR]
#
# The picture is a camera frame (v4l2src) when /dev/video0 exists, else a
# built-in grey zone plate (tones from black to white, and fine detail that
# shows how each method renders it) and, in colour, the SMPTE bars. OUT_DIR
# defaults to build/pictures. Writes OUT_DIR/halftone-before.png,
# halftone-floyd-steinberg.png, halftone-atkinson.png, halftone-ordered.png
# and halftone-color.png and prints their paths. The plugin must be on
# GST_PLUGIN_PATH (pipelines/demo.sh sets it). A pipeline:
#   gst-launch-1.0 videotestsrc pattern=zone-plate kx2=20 ky2=20 num-buffers=1 ! video/x-raw,format=GRAY8,width=480,height=320 ! cudahalftone ! videoconvert ! pngenc ! filesink location=out.png
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/pictures}
mkdir -p "$out"

caps="video/x-raw,format=GRAY8,width=480,height=320"
ccaps="video/x-raw,format=RGBA,width=480,height=320"
if [ -e /dev/video0 ] && gst-inspect-1.0 v4l2src >/dev/null 2>&1; then
  src="v4l2src device=/dev/video0 num-buffers=1 ! videoconvert ! videoscale"
  csrc=$src
  what="camera /dev/video0"
else
  src="videotestsrc pattern=zone-plate kx2=20 ky2=20 num-buffers=1"
  csrc="videotestsrc pattern=smpte num-buffers=1"
  what="built-in zone plate and colour bars"
fi

shot () {
  local source=$1 c=$2 filter=$3 file=$4
  rm -f "$file"
  gst-launch-1.0 -q $source ! videoconvert ! $c ! $filter ! videoconvert ! \
    pngenc snapshot=true ! filesink location="$file"
  [ -s "$file" ] || { echo "halftone.sh: $file was not written" >&2; exit 1; }
}

shot "$src" "$caps" identity "$out/halftone-before.png"
shot "$src" "$caps" "cudahalftone" "$out/halftone-floyd-steinberg.png"
shot "$src" "$caps" "cudahalftone kernel=atkinson" "$out/halftone-atkinson.png"
shot "$src" "$caps" "cudahalftone method=ordered" "$out/halftone-ordered.png"
shot "$csrc" "$ccaps" "cudahalftone color=true levels=2" "$out/halftone-color.png"
for f in floyd-steinberg atkinson ordered; do
  cmp -s "$out/halftone-before.png" "$out/halftone-$f.png" && {
    echo "halftone.sh: $f left the picture unchanged" >&2; exit 1; }
done
echo "halftoning of a $what:"
for f in before floyd-steinberg atkinson ordered color; do
  echo "  $f: $out/halftone-$f.png"
done
