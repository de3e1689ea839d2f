/* Host side of the halftone family: names, argument checks, the temporal
 * band, workspace layout, and the GPU entry points of CPU-only builds. */
#include "cip/halftone.h"

#include <atomic>
#include <cmath>
#include <cstdint>

#include "detail/halftone_internal.h"
#include "detail/halftone_math.h"

namespace cip {

const char *
halftone_kernel_name (HalftoneKernel k)
{
  switch (k) {
    case HalftoneKernel::floyd_steinberg: return "floyd-steinberg";
    case HalftoneKernel::jarvis_judice_ninke: return "jarvis-judice-ninke";
    case HalftoneKernel::stucki: return "stucki";
    case HalftoneKernel::burkes: return "burkes";
    case HalftoneKernel::sierra: return "sierra";
    case HalftoneKernel::sierra_lite: return "sierra-lite";
    case HalftoneKernel::atkinson: return "atkinson";
  }
  return "?";
}

const char *
halftone_method_name (HalftoneMethod m)
{
  switch (m) {
    case HalftoneMethod::error_diffusion: return "error-diffusion";
    case HalftoneMethod::ordered: return "ordered";
  }
  return "?";
}

const char *
halftone_algorithm_name (HalftoneAlgorithm a)
{
  switch (a) {
    case HalftoneAlgorithm::automatic: return "automatic";
    case HalftoneAlgorithm::skss: return "skss";
    case HalftoneAlgorithm::wavefront: return "wavefront";
    case HalftoneAlgorithm::single_block: return "single-block";
  }
  return "?";
}

int
halftone_level (int k, int levels)
{
  if (levels < halftone_min_levels || levels > halftone_max_levels || k < 0 ||
      k >= levels)
    return -1;
  return (int) detail::ht_level_value ((uint32_t) k, detail::ht_quant (levels));
}

namespace {

std::atomic<int> g_cap (0);

struct Range {
  uintptr_t lo = 0, hi = 0;     /* [lo, hi); empty when lo == hi */
  bool overlaps (const Range &o) const {
    return lo < hi && o.lo < o.hi && lo < o.hi && o.lo < hi;
  }
};

Range
span (const void *p, size_t pitch, int w, int h, int step)
{
  Range r;
  if (!p || w <= 0 || h <= 0)
    return r;
  r.lo = (uintptr_t) p;
  r.hi = r.lo + (size_t) (h - 1) * pitch + (size_t) (w - 1) * step + 1;
  return r;
}

Range
src_span (const HalftonePlane &p)
{
  return span (p.src.data, p.src.pitch, p.src.width, p.src.height, p.src.step);
}

Range
dst_span (const HalftonePlane &p)
{
  return span (p.dst, p.dst_pitch, p.src.width, p.src.height, p.dst_step);
}

Range
hist_span (const HalftonePlane &p)
{
  return span (p.history, p.history_pitch, p.src.width, p.src.height, 1);
}

bool
valid_kernel (HalftoneKernel k)
{
  return (int) k >= 0 && (int) k <= (int) HalftoneKernel::atkinson;
}

}  // namespace

void
halftone_debug_max_blocks (int n)
{
  g_cap.store (n > 0 ? n : 0);
}

namespace detail {

int
halftone_debug_cap ()
{
  return g_cap.load ();
}

int
halftone_band (int levels, float s)
{
  if (!(s > 0.f) || levels < 2)
    return 0;
  if (s > 1.f)
    s = 1.f;
  const double step = 255.0 * 256.0 / (levels - 1);
  return (int) std::lround ((1.0 + s) * 0.5 * step);
}

Status
halftone_validate (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params, const void *ws, size_t ws_bytes)
{
  if (n_planes < 0 || n_planes > halftone_max_planes)
    return Status::invalid_argument;
  if (n_planes > 0 && !planes)
    return Status::invalid_argument;
  if (params.method != HalftoneMethod::error_diffusion &&
      params.method != HalftoneMethod::ordered)
    return Status::invalid_argument;
  if (!valid_kernel (params.kernel))
    return Status::invalid_argument;
  if (params.levels < halftone_min_levels || params.levels > halftone_max_levels)
    return Status::invalid_argument;
  if (!(params.temporal_stability >= 0.f && params.temporal_stability <= 1.f))
    return Status::invalid_argument;    /* NaN too */
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (!view_is_valid (p.src) || p.dst_step < 1)
      return Status::invalid_argument;
    if (p.src.width > halftone_max_side || p.src.height > halftone_max_side)
      return Status::invalid_argument;
    if (halftone_plane_empty (p))
      continue;
    const size_t w = (size_t) p.src.width, h = (size_t) p.src.height;
    if (!p.dst || (h > 1 && p.dst_pitch < (w - 1) * (size_t) p.dst_step + 1))
      return Status::invalid_argument;
    if (p.history && h > 1 && p.history_pitch < w)
      return Status::invalid_argument;
  }
  Range wsr;
  if (ws && ws_bytes > 0) {
    wsr.lo = (uintptr_t) ws;
    wsr.hi = wsr.lo + ws_bytes;
  }
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (halftone_plane_empty (p))
      continue;
    const Range d = dst_span (p), hs = hist_span (p);
    if (d.overlaps (wsr) || src_span (p).overlaps (wsr) || hs.overlaps (wsr))
      return Status::invalid_argument;
    for (int j = 0; j < n_planes; j++) {
      const HalftonePlane &q = planes[j];
      if (halftone_plane_empty (q))
        continue;
      if (d.overlaps (src_span (q)) || d.overlaps (hist_span (q)))
        return Status::invalid_argument;
      if (hs.overlaps (src_span (q)))
        return Status::invalid_argument;
      if (j != i && (q.dst == p.dst || hs.overlaps (hist_span (q))))
        return Status::invalid_argument;
    }
  }
  return Status::ok;
}

HtLayout
halftone_layout (const HalftonePlane *planes, int n_planes)
{
  HtLayout l;
  if (!planes || n_planes < 0 || n_planes > halftone_max_planes)
    return l;
  size_t off = kHtCtlBytes;
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (halftone_plane_empty (p) || p.src.width < 0 || p.src.height < 0)
      continue;
    const size_t groups = ((size_t) p.src.height + 31) / 32;
    const size_t wp = ((size_t) p.src.width + 31) / 32 * 32;
    l.edge_stride[i] = 2 * wp * sizeof (uint64_t);
    l.edge_offset[i] = off;
    off += groups * l.edge_stride[i];
    l.state_offset[i] = off;
    off += groups * 32 * kHtStateWords * sizeof (int32_t);
    off = (off + 255) / 256 * 256;
  }
  l.total = off;
  return l;
}

}  // namespace detail

size_t
halftone_workspace_bytes (const HalftonePlane *planes, int n_planes)
{
  return detail::halftone_layout (planes, n_planes).total;
}

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points exist and say so. */
Status
halftone_workspace_init (void *, size_t, Stream)
{
  return Status::unsupported;
}

Status
halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params, void *d_ws, size_t ws_bytes, Stream,
    HalftoneAlgorithm algo)
{
  if ((int) algo < 0 || (int) algo > (int) HalftoneAlgorithm::single_block)
    return Status::invalid_argument;
  Status st = detail::halftone_validate (planes, n_planes, params, d_ws,
      ws_bytes);
  return st != Status::ok ? st : Status::unsupported;
}
#endif

}  // namespace cip
