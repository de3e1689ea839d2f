#!/usr/bin/env bash
# Builds the kernel benchmarks on the GPU machine with its nvcc, linking NPP
# when present, so our kernels and the library baselines run side by side in
# one binary. Usage: bench/build-device.sh OUTDIR [arch, default sm_90]
set -euo pipefail
out=${1:?usage: build-device.sh OUTDIR [arch]}; arch=${2:-sm_90}
here=$(cd "$(dirname "$0")" && pwd); top=$(dirname "$here")
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
mkdir -p "$out"
flags=(-O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo
       -I"$top/kernels/include" -I"$top/kernels" -I"$here/common" -DHAVE_CUDA=1)
libs=()
if ls "$root"/lib64/libnppc.so* >/dev/null 2>&1 || ls "$root"/targets/*/lib/libnppc.so* >/dev/null 2>&1; then
  flags+=(-DHAVE_NPP=1); libs+=(-lnppist -lnppif -lnppicc -lnppc)
  echo "NPP found under $root"
else
  echo "NPP not found: library baselines are skipped"
fi
lib_srcs=("$top"/kernels/src/*.cu "$top"/kernels/host/*.cpp "$top"/kernels/ref/*.cpp)
for f in $(ls "$here" | grep -v common); do
  [ -f "$here/$f/bench_$f.cu" ] || continue
  "$nvcc" "${flags[@]}" -o "$out/bench_$f" "$here/$f/bench_$f.cu" "$here/common/bench.cu" \
    "${lib_srcs[@]}" "${libs[@]}" &
done
wait
ls -l "$out"
