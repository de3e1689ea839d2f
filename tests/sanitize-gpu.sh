#!/usr/bin/env bash
# compute-sanitizer over every kernel and element test on the GPU machine:
# memcheck, racecheck, synccheck and initcheck, CIP_SANITIZE_JOBS runs at
# once (default: as many as tools), every test in its small-size mode
# (CIP_TEST_SMALL=1: large frames skipped, fewer repeats) so that racecheck
# finishes. Kernel tests run their GPU case only (their CPU case touches no
# device). Logs to $OUT/sanitize-<tool>-<test>.log; a tool error, a failed
# test or a timeout is a failure. Usage: tests/sanitize-gpu.sh [BUILD_DIR]
# (default .gpu/build, staged by tests/stage-gpu.sh); CIP_SANITIZE_TIMEOUT
# (default 420 s) bounds each run. Each log line starts with the seconds
# since its run started, and every test's TAP line comes as it ends, so a log
# shows what each test cost and where a run that timed out was; the summary
# names the last test that ended. CIP_SANITIZE_TOOLS and CIP_SANITIZE_TESTS
# (space-separated, default all) run a subset, e.g. CIP_SANITIZE_TOOLS=racecheck
# CIP_SANITIZE_TESTS="test_halftone test_cudahalftone"; CIP_SANITIZE_PAIRS lists
# tool:test pairs instead (in that order), e.g. "racecheck:test_halftone
# initcheck:test_integral"; a pair may name the tests of the executable to
# run (GST_CHECKS, comma-separated), e.g.
# "racecheck:test_histogram:test_gpu_hbd,test_gpu_hbd_carry", so that one
# executable's tests can be split over runs; its log name then ends in
# -partN, N the pair's position in the list.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/.gpu/build}
out=${OUT:-/tmp}
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$cs" ] || { echo "sanitize: no compute-sanitizer"; exit 1; }
list="$build/tests/test-executables.list"
[ -s "$list" ] || { echo "sanitize: $list missing (stage with tests/stage-gpu.sh)"; exit 1; }
# the kernel and element tests (the reliability tests repeat what these run)
mapfile -t names < <(grep -E '^test_(integral|histogram|boxfilter|equalize|halftone|cuda[a-z]+|regressions)$' "$list")
if [ -n "${CIP_SANITIZE_TESTS:-}" ]; then
  mapfile -t names < <(printf '%s\n' "${names[@]}" | grep -Fx -f <(tr ' ' '\n' <<< "$CIP_SANITIZE_TESTS"))
fi
[ "${#names[@]}" -gt 0 ] || { echo "sanitize: no test selected"; exit 1; }
read -r -a tools <<< "${CIP_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}"
# the 1.22 bundle, with its font for timeoverlay (test_regressions)
source "$top/tests/gpu-bundle.sh"
use_bundle "$top/.gpu/gst" || exit 1
export GST_PLUGIN_PATH="$build/plugins" CIP_REQUIRE_GPU=1 CK_FORK=no
export CK_DEFAULT_TIMEOUT=600 CIP_TEST_SMALL=1 CK_TAP_LOG_FILE_NAME=-
export GST_REGISTRY="/tmp/cip-sanitize-registry.bin"
# halftone's skss watchdog traps a wait longer than 10 s; under the tools a
# tall plane's last strip legitimately waits longer (for every strip above):
# 300 s, below the run's timeout, so that a real hang still traps
export CIP_HT_WATCHDOG_S=${CIP_HT_WATCHDOG_S:-300}
# one registry scan before the tools start in parallel
gst-inspect-1.0 cudaintegral > /dev/null 2>&1 || true

# one tool over one test; prints its summary line, fails on any error
run_one () {
  local tool=$1 t=$2 checks=${3:-} part=${4:-}
  local log="$out/sanitize-$tool-$t${checks:+-part$part}.log" start=$SECONDS case=""
  case $t in test_integral|test_histogram|test_boxfilter|test_equalize|test_halftone) case=gpu ;; esac
  # racecheck and synccheck track mbarriers (halftone's skss: 16 a block)
  # in a table sized from what the compiler reports, which can undercount;
  # an overflow gives wrong results or a bogus launch failure
  local extra=()
  case $tool in racecheck|synccheck) extra=(--num-cuda-barriers 64) ;; esac
  local envs=(CK_RUN_CASE=$case)
  [ -n "$checks" ] && envs+=(GST_CHECKS=$checks)
  env "${envs[@]}" timeout "${CIP_SANITIZE_TIMEOUT:-420}" "$cs" --tool "$tool" \
    --error-exitcode 99 --target-processes all --print-limit 20 \
    ${extra[@]+"${extra[@]}"} "$build/tests/$t" 2>&1 |
    while IFS= read -r l; do echo "$((SECONDS - start)) $l"; done > "$log"
  local rc=${PIPESTATUS[0]} summary last r
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)
  last=$(grep -E "^[0-9]+ (not )?ok [0-9]+ - " "$log" | tail -n 1 | cut -c1-160)
  if [ "$rc" -eq 0 ]; then r=PASS; else r="FAIL ($rc)"; fi
  [ "$rc" -eq 124 ] && r="FAIL (timeout)"
  [ "$rc" -eq 0 ] && last="" || last=" (last test ended: ${last:-none})"
  echo "$tool $t${checks:+ ($checks)}: $r in $((SECONDS - start)) s: ${summary:-no summary}$last"
  return $(( rc != 0 ))
}
export -f run_one
export out cs build

# every (tool, test) pair, CIP_SANITIZE_JOBS of them at once (default: one
# per tool, each tool's tests in turn)
jobs=${CIP_SANITIZE_JOBS:-${#tools[@]}}
pairs () {
  if [ -n "${CIP_SANITIZE_PAIRS:-}" ]; then
    tr ' ' '\n' <<< "$CIP_SANITIZE_PAIRS" | grep . |
      awk -F: '{ print $1, $2, ($3 == "" ? "\"\"" : $3), NR }'
    return
  fi
  for tool in "${tools[@]}"; do
    for t in "${names[@]}"; do echo "$tool $t \"\" 0"; done
  done | sort -k2,2 -s
}
pairs | xargs -P "$jobs" -L 1 bash -c 'run_one "$0" "$1" "$2" "$3"' > "$out/sanitize.summary" 2>&1
fail=$?
sort "$out/sanitize.summary"
[ "$fail" -eq 0 ] && echo "sanitize: all clean" || echo "sanitize: FAILURES (logs in $out)"
exit $fail
