#!/usr/bin/env bash
# GPU machine, GStreamer 1.26: everything tests/stage-gpu-126.sh staged, in
# one command (logs and results under $OUT):
#   1. every test executable of the 1.26 build (tests/run-gpu.sh, through the
#      bundle's run.sh), test_streams included (stream hand-over, 1.24+);
#   2. the hardware-decode tests (tests/decode-gpu.sh);
#   3. unless --no-bench: the element bench (bench/run-device.sh, element
#      part only, with and without the host wait) and bench/decode.sh.
# Usage: bash tests/run-gpu-126.sh [--no-bench]   (with .gpu/gpu126.tar.xz carried)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# always unpacked: a warm machine may hold an older staging
rm -rf .gpu/gst126 .gpu/build126 .gpu/media126
tar -xJf .gpu/gpu126.tar.xz || { echo "run-gpu-126: cannot unpack .gpu/gpu126.tar.xz" >&2; exit 1; }
rc=0
bash tests/run-gpu.sh .gpu/build126 .gpu/gst126 || rc=1
bash tests/decode-gpu.sh .gpu/build126 .gpu/gst126 .gpu/media126 || rc=1
if [ "${1:-}" != "--no-bench" ]; then
  CIP_GST_BUNDLE=.gpu/gst126 BENCH_ELEMENTS="cudaintegral;cudaboxfilter radius-x=15 radius-y=15;cudahistequalize;cudahistequalize mode=clahe;cudahalftone" \
    bash bench/run-device.sh .gpu/build126 none
  bash bench/decode.sh .gpu/build126 .gpu/gst126 .gpu/media126
fi
exit $rc
