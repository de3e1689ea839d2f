#!/usr/bin/env bash
# GPU machine: hardware decode straight into CUDA memory and the elements on
# it, zero copy. For each input of tests/make-media.sh:
#   nvh264dec/nvh265dec ! cudaintegral ! cudaboxfilter ! cudahistogram !
#   cudahistequalize ! cudadownload ! checksumsink
# must negotiate memory:CUDAMemory on every link from the decoder to
# cudadownload (checked in gst-launch -v's caps of every pad: no
# download/upload in between), and its per-frame checksums must equal those
# of the same chain with compute=cpu behind cudadownload (the CPU references
# on the same decoded frames; NVDEC output is deterministic).
# H.265 Main 10 (P010_10LE) runs when the elements accept P010_10LE (high bit
# depth), else it is skipped with a message.
# Usage: tests/decode-gpu.sh STAGED_BUILD BUNDLE MEDIA_DIR
#   BUNDLE: .gpu/gst (1.22, env.sh) or .gpu/gst126 (1.26, run.sh)
set -uo pipefail
build=$(cd "${1:?usage: decode-gpu.sh STAGED_BUILD BUNDLE MEDIA_DIR}" && pwd)
bundle=$(cd "${2:?}" && pwd); media=$(cd "${3:?}" && pwd)
export GST_PLUGIN_PATH="$build/plugins"
source "$(dirname "$0")/gpu-bundle.sh"
use_bundle "$bundle" || exit 1
launch() { ${runner[@]+"${runner[@]}"} gst-launch-1.0 "$@"; }
inspect() { ${runner[@]+"${runner[@]}"} gst-inspect-1.0 "$@"; }
out=${OUT:-/tmp}/decode; mkdir -p "$out"
chain() {  # chain COMPUTE
  echo "cudaintegral compute=$1 ! cudaboxfilter compute=$1 radius-x=4 radius-y=4 ! \
    cudahistogram compute=$1 ! cudahistequalize compute=$1"
}
fail=0; ran=0
check() {  # check NAME FILE DEMUX PARSE DECODER FORMAT
  local name=$1 file=$media/$2 demux=$3 parse=$4 dec=$5 fmt=$6
  [ -s "$file" ] || { echo "decode $name: FAIL (missing $file: run tests/make-media.sh)"; fail=1; return; }
  local head="filesrc location=$file ! $demux ! $parse ! $dec ! video/x-raw(memory:CUDAMemory),format=$fmt"
  # video/x-raw after cudadownload: system memory with the default strides,
  # as in the CPU chain (checksumsink hashes the whole mapped buffer, and
  # cudadownload passes CUDA memory, pitched, on to a sink that takes ANY)
  launch -v $head ! $(chain gpu) ! cudadownload ! video/x-raw ! checksumsink > "$out/$name-gpu.log" 2>&1
  local rc=$?
  launch $head ! cudadownload ! $(chain cpu) ! checksumsink > "$out/$name-cpu.log" 2>&1
  local rc2=$?
  # caps of every pad between the decoder and cudadownload (gst-launch -v)
  local links bad
  # (by instance name: the decoder's type name differs between releases)
  # (the decoder's sink takes the bitstream; the second capsfilter is after
  # cudadownload)
  links=$(grep -E ':(nvh26[45][a-z]*dec|cudaintegral|cudaboxfilter|cudahistogram|cudahistequalize|capsfilter0|cudadownload)[0-9]*\.GstPad:(src|sink): caps' "$out/$name-gpu.log" | grep -v -E ':cudadownload[0-9]*\.GstPad:src|:nvh26[45][a-z]*dec[0-9]*\.GstPad:sink')
  bad=$(echo "$links" | grep -v 'memory:CUDAMemory' || true)
  grep -E '^[0-9]+:[0-9]+:[0-9.]+ [0-9a-f]+' "$out/$name-gpu.log" | awk '{print $2}' > "$out/$name-gpu.sum"
  grep -E '^[0-9]+:[0-9]+:[0-9.]+ [0-9a-f]+' "$out/$name-cpu.log" | awk '{print $2}' > "$out/$name-cpu.sum"
  local n; n=$(wc -l < "$out/$name-gpu.sum")
  ran=1
  if [ $rc -ne 0 ] || [ $rc2 -ne 0 ]; then
    echo "decode $name: FAIL (gst-launch exit $rc / $rc2; see $out/$name-*.log)"; tail -n 5 "$out/$name-gpu.log"; fail=1
  elif [ "$(echo "$links" | grep -c caps)" -lt 12 ] || [ -n "$bad" ]; then
    echo "decode $name: FAIL (a link is not memory:CUDAMemory, or caps not found):"; echo "${bad:-$links}" | head
    grep -m 8 'caps = ' "$out/$name-gpu.log" | cut -c1-160; fail=1
  elif [ "$n" -lt 30 ] || ! cmp -s "$out/$name-gpu.sum" "$out/$name-cpu.sum"; then
    echo "decode $name: FAIL ($n frames; GPU and CPU checksums differ: diff $out/$name-{gpu,cpu}.sum)"; fail=1
  else
    echo "decode $name: PASS ($n frames equal to compute=cpu; $(echo "$links" | grep -c caps) pad caps all memory:CUDAMemory)"
  fi
}
check h264-1080p h264-1080p.mp4 qtdemux h264parse nvh264dec NV12
check h264-2160p h264-2160p.mp4 qtdemux h264parse nvh264dec NV12
# (captured first: under pipefail, grep -q closing the pipe early fails the inspect)
caps=$(inspect cudahistequalize 2>/dev/null)
if grep -q P010_10LE <<< "$caps"; then
  check h265-10bit-1080p h265-10bit-1080p.mkv matroskademux h265parse nvh265dec P010_10LE
else
  echo "decode h265-10bit-1080p: SKIPPED: the elements do not accept P010_10LE yet (high bit depth not merged)"
fi
[ $ran -eq 1 ] && [ $fail -eq 0 ] && echo "decode tests: PASS" || { echo "decode tests: FAIL"; exit 1; }
