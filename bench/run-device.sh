#!/usr/bin/env bash
# On the GPU machine: builds the kernel benches with the machine's nvcc (NPP
# linked when present), runs them and the element throughput bench, and writes
# bench.txt (tables) and bench.json (JSON lines) under $OUT.
# Usage: bench/run-device.sh STAGED_BUILD [--quick] [family ...]
# Families: integral histogram boxfilter equalize halftone (kernel benches)
# and baselines (bench/baselines/bench_baselines.py: PyTorch on the GPU and
# OpenCV on the CPU at the same sizes, with the machine's python3); all by
# default; "none" runs the element bench only.
# CIP_GST_BUNDLE (default .gpu/gst) picks the GStreamer bundle of the element
# bench; one with a run.sh (.gpu/gst126) starts it through its own loader.
# The element bench runs twice per line on 1.24+ with --consume: the default
# (stream hand-over) and CIP_FORCE_HOST_SYNC=1 (a host wait per frame).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
staged=${1:?usage: run-device.sh STAGED_BUILD [--quick] [family ...]}; shift
quick=""; [ "${1:-}" = "--quick" ] && { quick=--quick; shift; }
families=${*:-integral histogram boxfilter equalize halftone baselines}
[ "$families" = none ] && families=""   # the element bench only
kernel_families=$(echo $families | tr ' ' '\n' | grep -vx baselines | tr '\n' ' ')
out=${OUT:-/tmp}
txt="$out/bench.txt"; json="$out/bench.json"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$txt"
[ -z "${kernel_families// }" ] || bash "$top/bench/build-device.sh" /tmp/cip-bench sm_90 $kernel_families >> "$out/bench-build.log" 2>&1 || true
for f in $kernel_families; do
  b=/tmp/cip-bench/bench_$f
  [ -x "$b" ] || { echo "bench_$f did not build (see bench-build.log)" | tee -a "$txt"; continue; }
  echo "==== bench_$f" | tee -a "$txt"
  timeout 200 stdbuf -oL "$b" --json "$json" $quick ${BENCH_ARGS:-} 2>&1 | tee -a "$txt"
done
if [[ " $families " == *" baselines "* ]]; then
  echo "==== baselines (PyTorch CUDA, OpenCV CPU)" | tee -a "$txt"
  timeout 300 python3 -u "$top/bench/baselines/bench_baselines.py" --json "$json" \
    $quick 2>&1 | tee -a "$txt"
fi
if [ -x "$staged/bench/bench_element" ]; then
  bundle=${CIP_GST_BUNDLE:-$top/.gpu/gst}
  source "$top/tests/gpu-bundle.sh"
  use_bundle "$bundle" || exit 1
  export GST_PLUGIN_PATH="$staged/plugins"
  echo "==== bench_element (4K NV12 CUDA frames, ring of 8)" | tee -a "$txt"
  IFS=";" read -ra elems <<< "${BENCH_ELEMENTS:-cudaintegral;cudaintegral sat-type=u64 squared=true;cudahistogram;cudaboxfilter radius-x=15 radius-y=15;cudaintegral ! cudaboxfilter radius-x=15 radius-y=15;cudahistequalize;cudahistequalize mode=clahe;cudahistogram ! cudahistequalize;cudahalftone;cudahalftone method=ordered}"
  for e in "${elems[@]}"; do
    timeout 60 ${runner[@]+"${runner[@]}"} "$staged/bench/bench_element" --writable --frames 2000 --json "$json" "$e" 2>&1 | tee -a "$txt"
    if [ ${#runner[@]} -gt 0 ]; then
      # 1.26: latency until the data is finished, with and without the host wait
      timeout 60 ${runner[@]+"${runner[@]}"} "$staged/bench/bench_element" --writable --consume --frames 1000 --json "$json" "$e" 2>&1 | tee -a "$txt"
      CIP_FORCE_HOST_SYNC=1 timeout 60 ${runner[@]+"${runner[@]}"} "$staged/bench/bench_element" --writable --consume --frames 1000 --json "$json" "$e" 2>&1 | tee -a "$txt"
    fi
  done
  echo "==== bench_element --serial (one frame at a time: latency without queueing; identity = the harness)" | tee -a "$txt"
  for e in identity cudaintegral cudahistogram; do
    timeout 60 ${runner[@]+"${runner[@]}"} "$staged/bench/bench_element" --writable --serial --frames 2000 --json "$json" "$e" 2>&1 | tee -a "$txt"
  done
  echo "==== bench_element --system-memory (GPU path through pinned staging, and compute=cpu)" | tee -a "$txt"
  IFS=";" read -ra sys_elems <<< "${BENCH_SYSMEM_ELEMENTS:-cudaintegral;cudahistogram;cudaboxfilter radius-x=15 radius-y=15;cudahistequalize}"
  for e in "${sys_elems[@]}"; do
    for size in "1920 1080" "3840 2160"; do
      read -r w h <<< "$size"
      for compute in gpu cpu; do
        timeout 90 ${runner[@]+"${runner[@]}"} "$staged/bench/bench_element" --system-memory --writable --frames 300 \
          --width "$w" --height "$h" --json "$json" "$e compute=$compute" 2>&1 | tee -a "$txt"
      done
    done
  done
fi
