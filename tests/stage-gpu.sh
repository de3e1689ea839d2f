#!/usr/bin/env bash
# Copies what the GPU machine needs from a build (test executables, the
# plugin, the meta library, example apps, the element bench) into .gpu/build,
# keeping the build's relative layout (and so its $ORIGIN rpaths), so the
# carried tree stays small. Usage: tests/stage-gpu.sh BUILD_DIR [DEST [BUNDLE]]
# (default DEST .gpu/build, BUNDLE .gpu/gst; tests/stage-gpu-126.sh stages a
# 1.26 build into .gpu/build126 for the bundle .gpu/gst126).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: stage-gpu.sh BUILD_DIR [DEST [BUNDLE]]}
dst=${2:-$top/.gpu/build}
bundle=${3:-$top/.gpu/gst}
rm -rf "$dst"; mkdir -p "$dst"/{tests,plugins,gst-libs,pipelines,bench}
# the list of test executables the build defines: run-gpu.sh runs exactly
# these and fails on any that is missing
cp "$build/tests/test-executables.list" "$dst/tests/"
while read -r t; do
  [ -n "$t" ] || continue
  cp "$build/tests/$t" "$dst/tests/" || { echo "stage-gpu: $t was not built" >&2; exit 1; }
done < "$build/tests/test-executables.list"
cp "$build"/plugins/*.so "$dst/plugins/"
find "$build/gst-libs" -maxdepth 1 -name "*.so*" ! -type d -exec cp -P {} "$dst/gst-libs/" \;
cp "$build"/pipelines/{integral-rect,track} "$dst/pipelines/" 2>/dev/null || true
cp "$build"/bench/bench_element "$dst/bench/" 2>/dev/null || true
cp "$build"/bench/bench_decode "$dst/bench/" 2>/dev/null || true
strip --strip-debug "$dst"/tests/test_* "$dst"/plugins/*.so 2>/dev/null || true
du -sh "$dst"
# the test executables need libgstcheck, which the 1.22 bundle lacks (a
# bundle with its own loader, run.sh, brought its own)
if [ -d "$bundle/lib" ] && [ ! -x "$bundle/run.sh" ]; then
  cp -L "$(pkg-config --variable=libdir gstreamer-check-1.0)/libgstcheck-1.0.so.0" "$bundle/lib/"
fi
# a font for timeoverlay (tests/gpu-bundle.sh points fontconfig at it)
if [ -d "$bundle/lib" ] && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ]; then
  mkdir -p "$bundle/fonts"
  cp -L /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf "$bundle/fonts/"
fi
# the plugins the tests use beyond the base bundle: videocrop and timeoverlay
# (pango) for test_regressions, the leaks tracer (coretracers) for the
# reliability tests; the bundle script adds them with the libraries they
# load, as tests/stage-gpu-126.sh does for 1.26
if [ -d "$bundle/lib" ] && [ ! -x "$bundle/run.sh" ]; then
  tools=${GPU_TOOLS:-$top/../shared/gpu}
  pdir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
  extra=$(mktemp -d)
  for p in videocrop pango coretracers; do
    ln -s "$pdir/libgst$p.so" "$extra/"
  done
  bash "$tools/gst-bundle.sh" "$bundle" "$extra" | sed 's/^/bundle: /'
  rm -rf "$extra"
fi
