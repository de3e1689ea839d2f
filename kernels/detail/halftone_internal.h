/* Internals of the halftone family shared by the host code, the CPU
 * reference, the GPU kernels, the test and the bench. Plain C++. */
#pragma once

#include "cip/halftone.h"

namespace cip {
namespace detail {

/* Every check that does not depend on the device: shapes, options, the
 * overlap rules of halftone.h, and [ws, ws + ws_bytes) (ws may be null). */
Status halftone_validate (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params, const void *ws, size_t ws_bytes);

/* The hysteresis half-width (fixed point, 1/256 of a level) for `levels` and
 * stability s: 0 (off) for s <= 0, else round ((1 + s) / 2 * step * 256) with
 * step = 255 / (levels - 1). */
int halftone_band (int levels, float s);

/* True when the plane has something to do. */
inline bool
halftone_plane_empty (const HalftonePlane &p)
{
  return p.src.width == 0 || p.src.height == 0;
}

/* Workspace: control words, then per plane one boundary buffer per 32-row
 * group (the errors of its last two rows, 8-byte tagged words), then the
 * wavefront algorithm's saved warp state. */
constexpr size_t kHtCtlBytes = 256;
constexpr int kHtStateWords = 16;       /* per lane, wavefront state */
struct HtLayout {
  size_t edge_offset[halftone_max_planes] = {};
  size_t edge_stride[halftone_max_planes] = {};   /* bytes per 32-row group */
  size_t state_offset[halftone_max_planes] = {};
  size_t total = 0;
};
HtLayout halftone_layout (const HalftonePlane *planes, int n_planes);

/* The cap set by halftone_debug_max_blocks (0: none). */
int halftone_debug_cap ();

}  // namespace detail
}  // namespace cip
