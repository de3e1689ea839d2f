#!/usr/bin/env bash
# Encodes the inputs of the hardware-decode test, example and bench (never
# committed: made at staging time) with Debian's encoders: x264enc (package
# gstreamer1.0-plugins-ugly) and x265enc (gstreamer1.0-plugins-bad). Caps that
# NVDEC accepts: H.264 High 4:2:0 from I420; H.265 Main 10 from I420_10LE.
#   h264-1080p.mp4        1920x1080, 300 frames at 30 fps (moving SMPTE bars)
#   h264-2160p.mp4        3840x2160, 120 frames (moving zone plate)
#   h265-10bit-1080p.mkv  1920x1080 Main 10, 90 frames
#   ball-2160p.mp4        3840x2160, 300 frames of videotestsrc's ball (the
#                         tracking example's decode run, pipelines/track-gpu.sh)
# DIR/frames lists each input with its frame count (bench/decode.sh reads it).
# CIP_MEDIA_FRAMES=N (at least 30, what tests/decode-gpu.sh needs) caps every
# input at N frames: small inputs for a carry with little room
# (tests/stage-gpu-126.sh; give it a DIR of its own, since a file already
# there is kept with its count).
# Usage: tests/make-media.sh DIR   (files already there are kept)
#        tests/make-media.sh --check (only checks CIP_MEDIA_FRAMES)
set -euo pipefail
dir=${1:?usage: make-media.sh DIR}
cap=${CIP_MEDIA_FRAMES:-0}
if ! [[ "$cap" =~ ^[0-9]+$ ]] || { [ "$((10#$cap))" -ne 0 ] && [ "$((10#$cap))" -lt 30 ]; }; then
  echo "make-media: CIP_MEDIA_FRAMES must be a number of at least 30" >&2; exit 2
fi
cap=$((10#$cap))
[ "$dir" = --check ] && exit 0
mkdir -p "$dir"
touch "$dir/frames"
enc() {  # enc FILE FRAMES CAPS-AND-ENCODER... (after videotestsrc num-buffers=FRAMES)
  local name=$1 n=$2 f=$dir/$1; shift 2
  if [ ! -s "$f" ]; then
    if [ "$cap" -ne 0 ] && [ "$n" -gt "$cap" ]; then n=$cap; fi
    echo "== encoding $f ($n frames)"
    gst-launch-1.0 -q videotestsrc num-buffers="$n" "$@" filesink location="$f.part" ||
      { rm -f "$f.part"; echo "make-media: encoding $f failed" >&2; return 1; }
    mv "$f.part" "$f"
    grep -v -F "$name " "$dir/frames" > "$dir/frames.part" || true
    mv "$dir/frames.part" "$dir/frames"
  fi
  # a file kept from before DIR/frames existed: made with the default count
  grep -q -F "$name " "$dir/frames" || echo "$name $n" >> "$dir/frames"
}
enc h264-1080p.mp4 300 pattern=smpte horizontal-speed=3 ! \
  video/x-raw,format=I420,width=1920,height=1080,framerate=30/1 ! \
  x264enc bitrate=6000 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high ! \
  h264parse ! mp4mux !
enc h264-2160p.mp4 120 pattern=zone-plate kx2=20 ky2=20 kt=1 ! \
  video/x-raw,format=I420,width=3840,height=2160,framerate=30/1 ! \
  x264enc bitrate=20000 speed-preset=veryfast key-int-max=60 ! video/x-h264,profile=high ! \
  h264parse ! mp4mux !
enc h265-10bit-1080p.mkv 90 pattern=smpte horizontal-speed=3 ! \
  video/x-raw,format=I420_10LE,width=1920,height=1080,framerate=30/1 ! \
  x265enc bitrate=4000 speed-preset=ultrafast ! video/x-h265,profile=main-10 ! \
  h265parse ! matroskamux !
enc ball-2160p.mp4 300 pattern=ball ! \
  video/x-raw,format=I420,width=3840,height=2160,framerate=30/1 ! \
  x264enc pass=qual quantizer=20 speed-preset=veryfast ! video/x-h264,profile=high ! \
  h264parse ! mp4mux !
ls -l "$dir"
cat "$dir/frames"
