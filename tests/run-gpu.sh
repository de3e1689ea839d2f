#!/usr/bin/env bash
# Runs every test executable of a build on the GPU machine (which has no
# GStreamer and no Meson): sources the GStreamer bundle, requires the GPU
# (CIP_REQUIRE_GPU=1 turns a GPU skip into a failure) and logs to $OUT.
# Usage: tests/run-gpu.sh [BUILD_DIR]   (default build)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
out=${OUT:-/tmp}
source "$top/.gpu/gst/env.sh"
export GST_PLUGIN_PATH="$build/plugins" CIP_REQUIRE_GPU=1 CK_FORK=no
export CK_DEFAULT_TIMEOUT=600 GST_REGISTRY="/tmp/cip-gpu-registry.bin"
pass=0; fail=0; failed=()
for t in "$build"/tests/test_*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  start=$(date +%s)
  log="$out/gpu-tests.log"
  echo "==== $name" >> "$log"
  if "$t" > /tmp/$name.log 2>&1; then
    pass=$((pass + 1)); r=PASS
  else
    fail=$((fail + 1)); r="FAIL ($?)"; failed+=("$name")
  fi
  cat /tmp/$name.log >> "$log"
  echo "$name: $r in $(( $(date +%s) - start )) s"; tail -n 3 /tmp/$name.log
done
echo "gpu tests: $pass passed, $fail failed ${failed[*]:-}"
[ "$fail" -eq 0 ]
