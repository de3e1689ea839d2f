#!/usr/bin/env bash
# The main demo: builds the suite if needed, then runs the elements on a
# built-in test source on whatever is available (GPU if a CUDA device works,
# else the CPU) and prints what they did. It ends with a gallery of pictures
# (PNGs and an index.html) in build/pictures: input and box-filtered frames,
# histograms drawn onto frames, equalized and halftoned frames.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/setup.sh" >&2
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
pics="$build/pictures"
mkdir -p "$pics"

if command -v nvidia-smi >/dev/null 2>&1 && gpu=$(nvidia-smi -L 2>/dev/null | head -n 1) && [ -n "$gpu" ]; then
  echo "== running on the GPU (compute=auto): $gpu"
else
  echo "== no CUDA device: the elements run their CPU reference path (compute=auto)"
fi
echo
echo "== cudaintegral: summed area table of every frame; the app reads the meta"
echo "   and checks a rectangle sum against the frame's own pixels"
"$build/pipelines/integral-rect" --frames 5 --width 1280 --height 720 --format NV12
if [ -f "$build/gst-libs/GstCudaImgproc-1.0.typelib" ] &&
    python3 -c 'import gi' 2>/dev/null; then
  echo
  echo "== the same from Python (PyGObject): integral and histogram metas read"
  echo "   from an appsink through GObject introspection, checked in Python"
  GI_TYPELIB_PATH="$build/gst-libs${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}" \
  LD_LIBRARY_PATH="$build/gst-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    python3 "$top/pipelines/integral_probe.py" --frames 2 --width 640 --height 360 | tail -n 12
fi

echo
echo "== the same as a gst-launch line, timed"
t0=$(date +%s%N)
gst-launch-1.0 -q videotestsrc num-buffers=100 ! video/x-raw,format=GRAY8,width=1920,height=1080 ! \
  cudaintegral sat-type=u64 squared=true ! fakesink
t1=$(date +%s%N)
echo "   100 frames of 1920x1080 (source included) in $(( (t1 - t0) / 1000000 )) ms"

echo
echo "== cudahistogram: luma histograms of a live source (30 fps), summed over"
echo "   500 ms intervals and posted as bus messages"
bash "$top/pipelines/histogram-print.sh" 30 16 500000000
echo "   and painted onto the frames (draw=true):"
bash "$top/pipelines/histogram-draw.sh" "$pics"

echo
echo "== cudaboxfilter: box filter on the SAT; with cudaintegral upstream it reuses"
echo "   that table instead of computing its own (one SAT for both elements)"
for chain in "cudaboxfilter radius-x=15 radius-y=15" \
             "cudaintegral ! cudaboxfilter radius-x=15 radius-y=15"; do
  t0=$(date +%s%N)
  gst-launch-1.0 -q videotestsrc num-buffers=100 ! video/x-raw,format=NV12,width=1920,height=1080 ! \
    $chain ! fakesink
  t1=$(date +%s%N)
  echo "   $chain: 100 frames of 1920x1080 (source included) in $(( (t1 - t0) / 1000000 )) ms"
done
bash "$top/pipelines/blur.sh" 15 "$pics/blur"

echo
echo "== cudahistequalize: histogram equalization of a dark scene (a camera when"
echo "   /dev/video0 exists, else a darkened test source), global and CLAHE;"
echo "   before/after pictures:"
bash "$top/pipelines/equalize.sh" "$pics"

echo
echo "== cudahalftone: error diffusion (Floyd-Steinberg, Atkinson), ordered"
echo "   dithering and colour halftoning; before/after pictures:"
bash "$top/pipelines/halftone.sh" "$pics"

echo; echo "== tracking videotestsrc's ball from the integral image meta (pipelines/track):"
"$build/pipelines/track" -q --frames 90 --width 640 --height 360 --strip-width 0 --check-ball --strip-dir "$pics/track" | grep -E "fps|search per|ball check|PNG strip:"

echo
echo "== pictures: every PNG above, in one folder, with an index.html to look at them"
{
  echo "<!doctype html><meta charset=utf-8><title>cudaimgproc pictures</title>"
  echo "<body style='background:#222;color:#ddd;font-family:sans-serif'>"
  for f in "$pics"/*.png; do
    n=$(basename "$f")
    echo "<figure style='display:inline-block;margin:8px'><img src='$n' width=480><figcaption>$n</figcaption></figure>"
  done
  echo "</body>"
} > "$pics/index.html"
ls -1 "$pics" | sed 's/^/   /'
echo "   $pics"
