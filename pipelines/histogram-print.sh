#!/usr/bin/env bash
# Prints the luma histograms of a live source. cudahistogram sums the counts
# of every frame of an interval and posts one `histogram` element message per
# interval; gst-launch-1.0 -m prints the messages and this script keeps those
# and draws them (or, with --raw, prints them as they are).
#
#   pipelines/histogram-print.sh [--raw] [FRAMES [BINS [INTERVAL_NS]]]
#
# Defaults: 30 frames of a live 30 fps videotestsrc, 16 bins, 500 ms (so one
# message per 15 frames). The plugin must be on GST_PLUGIN_PATH
# (pipelines/demo.sh sets it; else export GST_PLUGIN_PATH=$PWD/build/plugins).
# The pipeline, as in the element's documentation:
#   gst-launch-1.0 -m videotestsrc is-live=true num-buffers=30 ! cudahistogram bins=16 interval=500000000 ! fakesink
set -euo pipefail
raw=0
if [ "${1:-}" = --raw ]; then
  raw=1
  shift
fi
frames=${1:-30} bins=${2:-16} interval=${3:-500000000}

gst-launch-1.0 -m videotestsrc is-live=true num-buffers="$frames" ! \
  video/x-raw,width=320,height=240,framerate=30/1 ! \
  cudahistogram bins="$bins" interval="$interval" ! fakesink |
if [ "$raw" = 1 ]; then
  grep -F '(element): histogram, '
else
  awk '
  # the value of ", NAME=(type)value" in a gst-launch -m message line
  function field(name,   s) {
    if (!match($0, ", " name "=\\([a-z0-9]+\\)[^,;]*"))
      return ""
    s = substr($0, RSTART, RLENGTH)
    sub(/^[^)]*\)/, "", s)
    return s
  }
  /\(element\): histogram, / {
    n++
    bins = field("bins")
    printf "histogram %d: %d frames from %.3f s (running time) for %.3f s: " \
        "mean %.1f, min %d, median %d, max %d\n", n, field("frames"),
        field("running-time") / 1e9, field("duration") / 1e9,
        field("luma-mean"), field("luma-min"), field("luma-median"),
        field("luma-max")
    match($0, /luma=\(guint64\)< [^>]* >/)
    s = substr($0, RSTART, RLENGTH)
    sub(/^[^<]*< /, "", s)
    sub(/ >$/, "", s)
    k = split(s, c, ", ")
    top = 1
    for (i = 1; i <= k; i++)
      if (c[i] + 0 > top)
        top = c[i] + 0
    w = 256 / bins
    for (i = 1; i <= k; i++) {
      bar = ""
      for (j = 0; j < int(c[i] * 40 / top + 0.5); j++)
        bar = bar "#"
      printf "  %3d-%3d %-40s %d\n", (i - 1) * w, i * w - 1, bar, c[i]
    }
  }
  END {
    if (n == 0) {
      print "no histogram messages" > "/dev/stderr"
      exit 1
    }
  }'
fi
