#!/usr/bin/env bash
# Copies what the GPU machine needs from a build (test executables, the
# plugin, the meta library, example apps, the element bench) into .gpu/build,
# keeping the build's relative layout (and so its $ORIGIN rpaths), so the
# carried tree stays small. Usage: tests/stage-gpu.sh BUILD_DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: stage-gpu.sh BUILD_DIR}
dst="$top/.gpu/build"
rm -rf "$dst"; mkdir -p "$dst"/{tests,plugins,gst-libs,pipelines,bench}
find "$build/tests" -maxdepth 1 -type f -name "test_*" -executable -exec cp {} "$dst/tests/" \;
cp "$build"/plugins/*.so "$dst/plugins/"
find "$build/gst-libs" -maxdepth 1 -name "*.so*" ! -type d -exec cp -P {} "$dst/gst-libs/" \;
cp "$build"/pipelines/integral-rect "$dst/pipelines/" 2>/dev/null || true
cp "$build"/bench/bench_element "$dst/bench/" 2>/dev/null || true
strip --strip-debug "$dst"/tests/* "$dst"/plugins/*.so 2>/dev/null || true
du -sh "$dst"
# the test executables need libgstcheck, which the GStreamer bundle lacks
if [ -d "$top/.gpu/gst/lib" ]; then
  cp -L "$(pkg-config --variable=libdir gstreamer-check-1.0)/libgstcheck-1.0.so.0" "$top/.gpu/gst/lib/"
fi
