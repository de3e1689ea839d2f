#!/usr/bin/env bash
# GPU machine: hardware decode + elements throughput, all in CUDA memory.
# - fps of nvh264dec alone, + cudahistequalize, + the whole chain
#   (cudaintegral ! cudaboxfilter ! cudahistogram ! cudahistequalize), at 1080p
#   and 4K (sync=false: as fast as the GPU goes);
# - how many 1080p30 streams one GPU carries through cudahistequalize: N
#   decode+equalize pipelines in one process (one gst-launch with N branches),
#   each stream's fps = its frames (MEDIA_DIR/frames, else 300) / the run's
#   time; N streams are carried when that is >= 30.
# Writes lines to stdout and JSON lines to $OUT/bench-decode.json.
# Usage: bench/decode.sh STAGED_BUILD BUNDLE MEDIA_DIR [N ...]
set -uo pipefail
build=$(cd "${1:?usage: decode.sh STAGED_BUILD BUNDLE MEDIA_DIR [N ...]}" && pwd)
bundle=$(cd "${2:?}" && pwd); media=$(cd "${3:?}" && pwd); shift 3
counts=${*:-1 2 4 8 12 16 24 32}
export GST_PLUGIN_PATH="$build/plugins"
if [ -x "$bundle/run.sh" ]; then launch() { "$bundle/run.sh" gst-launch-1.0 "$@"; }
else source "$bundle/env.sh"; launch() { gst-launch-1.0 "$@"; }; fi
json=${OUT:-/tmp}/bench-decode.json
gst=$(launch --version | awk '/GStreamer/{print $2; exit}')
# seconds from gst-launch's "Execution ended after H:MM:SS.nnnnnnnnn"
timed() { launch "$@" 2>&1 | awk -F'after ' '/Execution ended/{split($2,t,":"); print t[1]*3600+t[2]*60+t[3]} /ERROR/{print > "/dev/stderr"}'; }
# an input's frame count: from MEDIA_DIR/frames (tests/make-media.sh), else
# make-media's defaults
frames() {
  local n; n=$(awk -v f="$1" '$1 == f {print $2}' "$media/frames" 2>/dev/null)
  [ -n "$n" ] && echo "$n" || case "$1" in *1080p*) echo 300 ;; *) echo 120 ;; esac
}
dec="qtdemux ! h264parse ! nvh264dec ! video/x-raw(memory:CUDAMemory)"
full="cudaintegral ! cudaboxfilter radius-x=4 radius-y=4 ! cudahistogram ! cudahistequalize"
for f in h264-1080p.mp4 h264-2160p.mp4; do
  n=$(frames $f)
  for what in "decode only|identity" "decode + cudahistequalize|cudahistequalize" "decode + 4 elements|$full"; do
    label=${what%%|*}; chain=${what#*|}
    s=$(timed filesrc location="$media/$f" ! $dec ! $chain ! fakesink sync=false)
    [ -n "$s" ] || { echo "$f $label: FAILED"; continue; }
    fps=$(awk -v n=$n -v s=$s 'BEGIN{printf "%.1f", n/s}')
    echo "$f $label: $fps fps ($n frames in $s s, GStreamer $gst)"
    echo "{\"bench\": \"decode\", \"file\": \"$f\", \"frames\": $n, \"chain\": \"$label\", \"fps\": $fps, \"gst\": \"$gst\"}" >> "$json"
  done
done
for N in $counts; do
  branches=""
  for i in $(seq $N); do
    branches+=" filesrc location=$media/h264-1080p.mp4 ! $dec ! cudahistequalize ! fakesink sync=false"
  done
  s=$(timed $branches)
  [ -n "$s" ] || { echo "$N streams: FAILED"; break; }
  n=$(frames h264-1080p.mp4)
  per=$(awk -v n=$n -v s=$s 'BEGIN{printf "%.1f", n/s}')
  ok=$(awk -v p=$per 'BEGIN{print (p >= 30) ? "carried" : "NOT carried"}')
  echo "$N x 1080p30 decode + cudahistequalize in one process: $per fps per stream ($n frames in $s s): $ok"
  echo "{\"bench\": \"decode-streams\", \"streams\": $N, \"frames\": $n, \"fps_per_stream\": $per, \"gst\": \"$gst\"}" >> "$json"
done
