#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing,
# builds, and runs every test. Without a GPU the GPU cases skip; with one they
# run too (set CIP_REQUIRE_GPU=1 to make a missing GPU a failure).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/scripts/setup.sh"
meson test -C "$build" --suite cpu --print-errorlogs "$@"
