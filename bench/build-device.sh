#!/usr/bin/env bash
# Builds the kernel benchmarks on the GPU machine with its nvcc, linking NPP
# when present, so our kernels and the library baselines run side by side in
# one binary. The kernel sources the families need are compiled once, all in
# parallel, then each bench is linked against them.
# Usage: [CIP_NVCC_DEFINES="-DX=1 ..."] bench/build-device.sh OUTDIR [arch [family ...]]
# (arch default sm_90; families default: every bench/<family>/bench_<family>.cu)
set -euo pipefail
out=${1:?usage: build-device.sh OUTDIR [arch [family ...]]}; arch=${2:-sm_90}
shift; [ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd); top=$(dirname "$here")
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
mkdir -p "$out/obj"
flags=(-O3 -std=c++17 -arch="$arch" --expt-relaxed-constexpr -lineinfo
       -I"$top/kernels/include" -I"$top/kernels" -I"$here/common" -DHAVE_CUDA=1)
# CIP_NVCC_DEFINES: extra -D flags, for builds of a kernel's variants side by side
read -r -a extra <<< "${CIP_NVCC_DEFINES:-}"
flags+=(${extra[@]+"${extra[@]}"})
libs=()
if ls "$root"/lib64/libnppc.so* >/dev/null 2>&1 || ls "$root"/targets/*/lib/libnppc.so* >/dev/null 2>&1; then
  flags+=(-DHAVE_NPP=1); libs+=(-L"$root/lib64" -lnppist -lnppif -lnppicc -lnppc)
  echo "NPP found under $root"
else
  echo "NPP not found: library baselines are skipped"
fi
families=("$@")
if [ ${#families[@]} -eq 0 ]; then
  for f in $(ls "$here" | grep -v common); do
    [ -f "$here/$f/bench_$f.cu" ] && families+=("$f")
  done
fi
# the kernel sources the families need (each links only what it calls; the
# heaviest sources take minutes to compile)
declare -A needs=( [integral]="integral" [histogram]="histogram"
  [boxfilter]="boxfilter integral" [equalize]="equalize histogram"
  [halftone]="halftone" )
srcs=("$top/kernels/src/common.cu")
for f in $(for f in "${families[@]}"; do echo ${needs[$f]:-ALL}; done | tr ' ' '\n' | sort -u); do
  if [ "$f" = ALL ]; then srcs=("$top"/kernels/src/*.cu); break; fi
  srcs+=("$top/kernels/src/$f.cu")
done
pids=()
for src in $(printf '%s\n' "${srcs[@]}" | sort -u) "$here/common/bench.cu"; do
  "$nvcc" "${flags[@]}" -c -o "$out/obj/$(basename "$src").o" "$src" & pids+=($!)
done
for src in "$top"/kernels/host/*.cpp "$top"/kernels/ref/*.cpp; do
  "$nvcc" "${flags[@]}" -x cu -c -o "$out/obj/$(basename "$src").o" "$src" & pids+=($!)
done
for f in "${families[@]}"; do
  "$nvcc" "${flags[@]}" -c -o "$out/obj/main_$f.o" "$here/$f/bench_$f.cu" & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
rm -f "$out/libcip.a"
ar rcs "$out/libcip.a" $(ls "$out"/obj/*.o | grep -v -e '/main_' -e '/bench.cu.o')
for f in "${families[@]}"; do
  "$nvcc" -arch="$arch" -o "$out/bench_$f" "$out/obj/main_$f.o" "$out/obj/bench.cu.o" \
    "$out/libcip.a" "${libs[@]}" &
done
wait
ls -l "$out"
