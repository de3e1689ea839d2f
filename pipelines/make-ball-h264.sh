#!/usr/bin/env bash
# Writes videotestsrc's ball as an H.264 elementary stream (Annex B, High
# profile, no B-frames), the input of the decode measurement of
# pipelines/track-gpu.sh (nvh264dec). Needs x264enc (gstreamer1.0-plugins-ugly);
# 300 frames of 3840x2160 take about a minute on 2 cores and ~120 kB.
#
#   pipelines/make-ball-h264.sh [OUT] [WIDTH] [HEIGHT] [FRAMES]
#
# Defaults: .gpu/ball-2160p.h264 (carried to the GPU machine with .gpu), 3840,
# 2160, 300. The ball's centre in frame n is what pipelines/track --check-ball
# expects, counted from the first frame of the file.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/.gpu/ball-2160p.h264}
w=${2:-3840}; h=${3:-2160}; n=${4:-300}
mkdir -p "$(dirname "$out")"
gst-launch-1.0 -q videotestsrc pattern=ball num-buffers="$n" ! \
  video/x-raw,format=I420,width="$w",height="$h",framerate=30/1 ! \
  x264enc speed-preset=veryfast pass=qual quantizer=20 ! \
  video/x-h264,profile=high,stream-format=byte-stream ! filesink location="$out"
[ -s "$out" ] || { echo "make-ball-h264.sh: $out was not written" >&2; exit 1; }
echo "$out: $n frames of ${w}x$h ($(stat -c %s "$out") bytes)"
