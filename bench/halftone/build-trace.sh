#!/usr/bin/env bash
# Builds bench_halftone with the skss kernel's trace stamps (CIP_HT_TRACE in
# kernels/src/halftone.cu): `OUT/bench_halftone_trace --trace [--quick]`
# prints, per strip, when its compute warp starts, what its first chunks
# cost, how long it waits for the strip above and the hand-off latency.
# A diagnostic build, never the library's. Usage:
#   build-trace.sh OUTDIR [arch]          every kernel (~10 min on 2 cores)
#   build-trace.sh --fs8 OUTDIR [arch]    8-bit Floyd-Steinberg by skss only
#                                         (~2 min; run with --trace --probe)
set -euo pipefail
fs8=0
if [ "${1:-}" = "--fs8" ]; then fs8=1; shift; fi
out=${1:?usage: build-trace.sh [--fs8] OUTDIR [arch]}; arch=${2:-sm_90}
here=$(cd "$(dirname "$0")/.." && pwd); top=$(dirname "$here")
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$out"
if [ $fs8 = 1 ]; then
  srcs=("$top"/kernels/src/{halftone,common}.cu "$top"/kernels/host/{halftone_host,common}.cpp
        "$top"/kernels/ref/halftone_ref.cpp)
  defs=(-DCIP_HT_FS8_ONLY=1)
else
  srcs=("$top"/kernels/src/*.cu "$top"/kernels/host/*.cpp "$top"/kernels/ref/*.cpp)
  defs=()
fi
"$nvcc" -O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo \
  -I"$top/kernels/include" -I"$top/kernels" -I"$here/common" -DHAVE_CUDA=1 \
  -DCIP_HT_TRACE=1 ${defs[@]+"${defs[@]}"} ${CIP_TRACE_DEFS:-} -o "$out/bench_halftone_trace" \
  "$here/halftone/bench_halftone.cu" "$here/common/bench.cu" "${srcs[@]}"
