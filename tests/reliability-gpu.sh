#!/usr/bin/env bash
# The long reliability runs on the GPU machine (issue 18), in one command of
# under 10 minutes on one H100, each test alone (test_faults fills the device
# and the memory checks are device-wide): fault injection on every path
# (test_faults), live-property races (test_liveprops), 1,000 reconnect cycles
# per element and path (test_churn) and 100,000 1080p frames through the five
# chained elements on the GPU plus 20,000 on the CPU path (test_soak); logs
# in $OUT/reliability-<test>.log. Usage:
#   tests/reliability-gpu.sh [BUILD_DIR [BUNDLE]]
# (default .gpu/build and .gpu/gst, staged by tests/stage-gpu.sh; for
# GStreamer 1.26: tests/reliability-gpu.sh .gpu/build126 .gpu/gst126, a
# bundle with a run.sh starting every executable through its own loader).
# CIP_SOAK_FRAMES, CIP_SOAK_CPU_FRAMES and CIP_CHURN_CYCLES override the
# counts, CIP_RELIABILITY_TIMEOUT (default 300 s) bounds each test,
# CIP_RELIABILITY_TESTS picks tests. On an H100 (1.22): faults 33 s, live
# properties 7 s, churn 67 s, soak 212 s.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/.gpu/build}
bundle=${2:-$top/.gpu/gst}
out=${OUT:-/tmp}
source "$top/tests/gpu-bundle.sh"
use_bundle "$bundle" || exit 1
export GST_PLUGIN_PATH="$build/plugins" CIP_REQUIRE_GPU=1 CK_FORK=no
export CK_DEFAULT_TIMEOUT=3600 GST_REGISTRY="/tmp/cip-reliability-registry-$(basename "$bundle").bin"
export CIP_SOAK_FRAMES=${CIP_SOAK_FRAMES:-100000} CIP_SOAK_CPU_FRAMES=${CIP_SOAK_CPU_FRAMES:-20000}
export CIP_CHURN_CYCLES=${CIP_CHURN_CYCLES:-1000}
fail=0
total=$SECONDS
for t in ${CIP_RELIABILITY_TESTS:-test_faults test_liveprops test_churn test_soak}; do
  start=$SECONDS
  timeout "${CIP_RELIABILITY_TIMEOUT:-300}" ${runner[@]+"${runner[@]}"} "$build/tests/$t" \
    > "$out/reliability-$t.log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] && r=PASS || { r="FAIL ($rc)"; fail=1; }
  [ "$rc" -eq 124 ] && r="FAIL (timeout)"
  echo "$t: $r in $((SECONDS - start)) s"
  grep -E "frames|cycles|full device|device-id|CUDA device|Checks|:F:|:E:" \
    "$out/reliability-$t.log" | tail -n 40
done
echo "reliability: $([ "$fail" -eq 0 ] && echo "all passed" || echo FAILURES) in $((SECONDS - total)) s (logs in $out)"
exit $fail
