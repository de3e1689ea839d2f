# Sourced by the scripts that run on the GPU machine (which has no GStreamer
# of its own): `use_bundle DIR` makes the staged bundle DIR the GStreamer
# that programs run with. A 1.22 bundle (env.sh, tests/stage-gpu.sh) is
# sourced into the environment; a 1.26 one (run.sh, tests/stage-gpu-126.sh:
# its own C library and loader, the machine's glibc being older) starts each
# program, so callers start programs as
#   ${runner[@]+"${runner[@]}"} PROGRAM ARGS...
# (runner is empty for 1.22; that expansion is safe under set -u).
use_bundle () {
  runner=()
  # timeoverlay (element tests) needs a font: the bundle's fonts/ (staged
  # by tests/stage-gpu.sh and tests/stage-gpu-126.sh), the machine has none
  if [ -d "$1/fonts" ] && [ -z "${FONTCONFIG_FILE:-}" ]; then
    # per bundle: two fontconfig versions must not share a cache
    local tag; tag=$(basename "$1")
    printf '<?xml version="1.0"?><fontconfig><dir>%s</dir><cachedir>/tmp/cip-fc-%s</cachedir></fontconfig>\n' \
      "$(cd "$1/fonts" && pwd)" "$tag" > "/tmp/cip-fonts-$tag.conf"
    export FONTCONFIG_FILE="/tmp/cip-fonts-$tag.conf"
  fi
  if [ -x "$1/run.sh" ]; then
    runner=("$1/run.sh")
  elif [ -f "$1/env.sh" ]; then
    source "$1/env.sh"
  else
    echo "no GStreamer bundle in $1 (tests/stage-gpu.sh or tests/stage-gpu-126.sh stage one)" >&2
    return 1
  fi
}
