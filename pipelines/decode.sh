#!/usr/bin/env bash
# Hardware decode, zero copy: an H.264 (or H.265) file decoded by NVDEC
# straight into CUDA memory, analysed and equalized there, with no download
# or upload in between; prints the histogram messages of the first frames and
# the frame rate. Needs an NVIDIA GPU with NVDEC and GStreamer's nvcodec
# plugin (nvh264dec / nvh265dec), and the plugin on GST_PLUGIN_PATH.
#
#   pipelines/decode.sh FILE.mp4|FILE.mkv [SINK]
#
# SINK defaults to "cudadownload ! fakesink" (use e.g. "cudadownload !
# videoconvert ! autovideosink" to watch). The pipeline:
#   gst-launch-1.0 filesrc location=FILE ! qtdemux ! h264parse ! nvh264dec !
#     'video/x-raw(memory:CUDAMemory)' ! cudaintegral ! cudaboxfilter radius-x=4 radius-y=4 !
#     cudahistogram bins=16 ! cudahistequalize ! cudadownload ! fakesink
# (H.265 Main 10 decodes to P010_10LE, which the elements take once high bit
# depth is in.) GST_LAUNCH overrides gst-launch-1.0 (e.g. the 1.26 bundle's
# "run.sh gst-launch-1.0" on the GPU machine).
set -euo pipefail
file=${1:?usage: decode.sh FILE.mp4|FILE.mkv [SINK]}
sink=${2:-cudadownload ! fakesink}
launch=${GST_LAUNCH:-gst-launch-1.0}
case "$file" in
  *.mkv|*.webm) demux=matroskademux ;;
  *) demux=qtdemux ;;
esac
# the codec from the file name: h265/hevc, else H.264
case "$(basename "$file")" in
  *265*|*hevc*) parse=h265parse; dec=nvh265dec ;;
  *) parse=h264parse; dec=nvh264dec ;;
esac
$launch -m filesrc location="$file" ! $demux ! $parse ! $dec ! \
  'video/x-raw(memory:CUDAMemory)' ! cudaintegral ! \
  cudaboxfilter radius-x=4 radius-y=4 ! cudahistogram bins=16 ! cudahistequalize ! \
  $sink 2>&1 | awk '/histogram, /{ if (n++ < 3) print; next } /Execution ended|ERROR|WARNING/{ print }'
