#!/usr/bin/env bash
# The long reliability runs on the GPU machine (issue 18), in one command:
# 1,000 reconnect cycles per element and path (test_churn), 100,000 1080p
# frames through the five chained elements (test_soak), fault injection on
# every path (test_faults) and live-property races (test_liveprops), logged
# to $OUT. Usage: tests/reliability-gpu.sh [BUILD_DIR] (default .gpu/build);
# CIP_SOAK_FRAMES and CIP_CHURN_CYCLES override the counts.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/.gpu/build}
out=${OUT:-/tmp}
source "$top/.gpu/gst/env.sh"
export GST_PLUGIN_PATH="$build/plugins" CIP_REQUIRE_GPU=1 CK_FORK=no
export CK_DEFAULT_TIMEOUT=3600 GST_REGISTRY="/tmp/cip-reliability-registry.bin"
export CIP_SOAK_FRAMES=${CIP_SOAK_FRAMES:-100000} CIP_CHURN_CYCLES=${CIP_CHURN_CYCLES:-1000}
fail=0
for t in test_faults test_liveprops test_churn test_soak; do
  start=$SECONDS
  "$build/tests/$t" > "$out/reliability-$t.log" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] && r=PASS || { r="FAIL ($rc)"; fail=1; }
  echo "$t: $r in $((SECONDS - start)) s"
  grep -E "frames|cycles|full device|device-id|CUDA device|Checks" "$out/reliability-$t.log" | tail -n 25
done
exit $fail
