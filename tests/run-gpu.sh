#!/usr/bin/env bash
# Runs every test executable of a build on the GPU machine (which has no
# GStreamer and no Meson): sources the GStreamer bundle, requires the GPU
# (CIP_REQUIRE_GPU=1 turns a GPU skip into a failure) and logs to $OUT.
# The executables to run are those the build defines, listed by Meson in
# tests/test-executables.list (copied by tests/stage-gpu.sh): a missing list
# or a missing executable is a failure, never "0 failed".
# Usage: tests/run-gpu.sh [BUILD_DIR [BUNDLE]]   (default build, .gpu/gst)
# A BUNDLE with a run.sh (the 1.26 one, .gpu/gst126) starts every executable
# through its own C library and loader. CIP_TESTS="test_a test_b" runs only
# those (each must be in the list); CIP_TEST_TIMEOUT bounds each (600 s).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
bundle=${2:-$top/.gpu/gst}
out=${OUT:-/tmp}
list="$build/tests/test-executables.list"
if [ ! -s "$list" ]; then
  echo "gpu tests: FAIL: $list is missing or empty (stage with tests/stage-gpu.sh)"
  exit 1
fi
mapfile -t names < <(grep -v '^[[:space:]]*$' "$list")
if [ -n "${CIP_TESTS:-}" ]; then
  for want in $CIP_TESTS; do
    printf '%s\n' "${names[@]}" | grep -qx "$want" ||
      { echo "gpu tests: FAIL: $want is not in $list"; exit 1; }
  done
  names=($CIP_TESTS)
fi
if [ "${#names[@]}" -eq 0 ]; then
  echo "gpu tests: FAIL: $list names no test executable"
  exit 1
fi
source "$top/tests/gpu-bundle.sh"
use_bundle "$bundle" || exit 1
export GST_PLUGIN_PATH="$build/plugins" CIP_REQUIRE_GPU=1 CK_FORK=no
export CK_DEFAULT_TIMEOUT=600 GST_REGISTRY="/tmp/cip-gpu-registry-$(basename "$bundle").bin"
log="$out/gpu-tests.log"
pass=0; fail=0; failed=()
for name in "${names[@]}"; do
  t="$build/tests/$name"
  if [ ! -x "$t" ]; then
    fail=$((fail + 1)); failed+=("$name")
    echo "$name: FAIL (missing: $t)" | tee -a "$log"
    continue
  fi
  start=$(date +%s)
  echo "==== $name" >> "$log"
  timeout "${CIP_TEST_TIMEOUT:-600}" ${runner[@]+"${runner[@]}"} "$t" > "/tmp/$name.log" 2>&1
  rc=$?
  if [ "$rc" -eq 0 ]; then
    pass=$((pass + 1)); r=PASS
  else
    # 77 (no test ran) is a failure too: the GPU cases must run here
    fail=$((fail + 1)); r="FAIL ($rc)"; failed+=("$name")
  fi
  cat "/tmp/$name.log" >> "$log"
  echo "$name: $r in $(( $(date +%s) - start )) s"; tail -n 3 "/tmp/$name.log"
done
echo "gpu tests: $pass passed, $fail failed of ${#names[@]} ${failed[*]:-}"
[ "$fail" -eq 0 ] && [ "$pass" -eq "${#names[@]}" ]
