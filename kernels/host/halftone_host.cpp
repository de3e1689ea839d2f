/* Host side of the halftone family: names, the hysteresis band, argument
 * checks, workspace layout, the skss schedule, and the GPU entry points of
 * CPU-only builds. */
#include "cip/halftone.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "detail/halftone_internal.h"

namespace cip {

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
halftone_algorithm_name (HalftoneAlgorithm a)
{
  switch (a) {
    case HalftoneAlgorithm::automatic: return "automatic";
    case HalftoneAlgorithm::skss: return "skss";
    case HalftoneAlgorithm::wavefront: return "wavefront";
    case HalftoneAlgorithm::single_block: return "single_block";
  }
  return "?";
}

int
halftone_hysteresis (int levels, double s, int depth)
{
  if (!(s > 0.0) || levels < halftone_min_levels || levels > halftone_max_levels
      || depth < 1 || depth > 16)
    return 0;
  if (s > 1.0)
    s = 1.0;
  /* half a step widened by s half steps; at s = 1 a whole step, which keeps
   * every error within 128 M */
  return (int) std::floor ((1.0 + s) * (double) ((1 << depth) - 1) *
      kHalftoneErrorOne / (2.0 * (levels - 1)));
}

HalftoneAlgorithm
halftone_pick (const HalftonePlane *, int, const HalftoneOptions &)
{
  return HalftoneAlgorithm::skss;
}

namespace detail {

uint32_t
ht_level_magic (int levels)
{
  const uint64_t d = 2 * (uint64_t) (levels - 1);
  return (uint32_t) (((1ull << 32) + d - 1) / d);
}

bool
ht_reads_history (const HalftoneOptions &o)
{
  return o.method == HalftoneMethod::error_diffusion && o.history_valid &&
      o.temporal_stability > 0.0;
}

namespace {

struct Range {
  uintptr_t lo = 0, hi = 0;     /* [lo, hi); empty when lo == hi */
  bool overlaps (const Range &o) const {
    return lo < hi && o.lo < o.hi && lo < o.hi && o.lo < hi;
  }
};

/* The bytes of w x h samples of `bytes` bytes. */
Range
span (const void *p, size_t pitch, int w, int h, int step, int bytes)
{
  Range r;
  if (!p || w <= 0 || h <= 0)
    return r;
  r.lo = (uintptr_t) p;
  r.hi = r.lo + (size_t) (h - 1) * pitch + (size_t) (w - 1) * step + bytes;
  return r;
}

/* Bytes of a pixel beyond its first that the plane touches. */
int
pixel_extra (const HalftonePlane &p)
{
  return p.rgb_luma ? std::max ({p.rgb_offset[0], p.rgb_offset[1],
          p.rgb_offset[2]}) : 0;
}

Range
src_span (const HalftonePlane &p)
{
  Range r = span (p.src.data, p.src.pitch, p.src.width, p.src.height,
      p.src.step, p.src.bytes);
  if (r.hi > r.lo)
    r.hi += (size_t) pixel_extra (p);
  return r;
}

Range
dst_span (const HalftonePlane &p)
{
  Range r = span (p.dst, p.dst_pitch, p.src.width, p.src.height, p.dst_step,
      p.src.bytes);
  if (r.hi > r.lo)
    r.hi += (size_t) pixel_extra (p);
  return r;
}

/* rgb_luma: 3 .. 8 bytes a pixel, distinct colour offsets inside it, rows
 * long enough for the last pixel's colour bytes. */
bool
valid_rgb (const HalftonePlane &p)
{
  if (!p.rgb_luma)
    return true;
  const int *o = p.rgb_offset;
  if (p.src.step < 3 || p.src.step > 8 || p.dst_step != p.src.step)
    return false;
  for (int c = 0; c < 3; c++)
    if (o[c] < 0 || o[c] >= p.src.step)
      return false;
  if (o[0] == o[1] || o[0] == o[2] || o[1] == o[2])
    return false;
  const size_t row = (size_t) (p.src.width - 1) * p.src.step + pixel_extra (p) + 1;
  return p.src.height <= 1 || (p.src.pitch >= row && p.dst_pitch >= row);
}

Range
hist_span (const HalftonePlane &p)
{
  return span (p.history, p.history_pitch, p.src.width, p.src.height,
      p.src.bytes, p.src.bytes);
}

bool
valid_kernel (HalftoneKernel k)
{
  return (int) k >= 0 && (int) k < kHtNumKernels;
}

}  // namespace

Status
halftone_validate (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &o, const void *ws, size_t ws_bytes)
{
  if (n_planes < 0 || n_planes > halftone_max_planes)
    return Status::invalid_argument;
  if (n_planes > 0 && !planes)
    return Status::invalid_argument;
  if (o.method != HalftoneMethod::error_diffusion &&
      o.method != HalftoneMethod::ordered)
    return Status::invalid_argument;
  if (!valid_kernel (o.kernel))
    return Status::invalid_argument;
  if (o.levels < halftone_min_levels || o.levels > halftone_max_levels)
    return Status::invalid_argument;
  if (!(o.temporal_stability >= 0.0 && o.temporal_stability <= 1.0))
    return Status::invalid_argument;      /* NaN too */
  const bool reads = ht_reads_history (o);
  const ImageView *layout = nullptr;    /* the call's sample layout */
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (!view_is_valid (p.src) || p.dst_step < 1)
      return Status::invalid_argument;
    if (!ht_plane_empty (p) && !valid_rgb (p))
      return Status::invalid_argument;
    /* bytes, or 16-bit words of any depth (rgb_luma: bytes only) */
    if (!p.src.is_8bit () && (p.src.bytes != 2 || p.rgb_luma))
      return Status::unsupported;
    if (ht_plane_empty (p))
      continue;
    if (layout && (layout->bytes != p.src.bytes ||
            layout->depth != p.src.depth || layout->shift != p.src.shift))
      return Status::invalid_argument;    /* one layout a call */
    layout = &p.src;
    const size_t w = (size_t) p.src.width, h = (size_t) p.src.height;
    const size_t b = (size_t) p.src.bytes;
    if (!p.dst || (size_t) p.dst_step < b ||
        (h > 1 && p.dst_pitch < (w - 1) * (size_t) p.dst_step + b))
      return Status::invalid_argument;
    /* 16-bit words are written whole */
    if (b == 2 && (((uintptr_t) p.dst | p.dst_pitch | (size_t) p.dst_step |
                (uintptr_t) p.history | (p.history ? p.history_pitch : 0)) & 1))
      return Status::invalid_argument;
    if (p.history && h > 1 && p.history_pitch < w * b)
      return Status::invalid_argument;
    if (reads && !p.history)
      return Status::invalid_argument;
  }
  Range wsr;
  if (ws && ws_bytes > 0) {
    wsr.lo = (uintptr_t) ws;
    wsr.hi = wsr.lo + ws_bytes;
  }
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (ht_plane_empty (p))
      continue;
    const Range d = dst_span (p), hs = hist_span (p);
    if (d.overlaps (wsr) || src_span (p).overlaps (wsr) || hs.overlaps (wsr))
      return Status::invalid_argument;
    for (int j = 0; j < n_planes; j++) {
      const HalftonePlane &q = planes[j];
      if (ht_plane_empty (q))
        continue;
      if (d.overlaps (src_span (q)) || hs.overlaps (src_span (q)) ||
          hs.overlaps (dst_span (q)))
        return Status::invalid_argument;
      if (j != i && (q.dst == p.dst || hs.overlaps (hist_span (q))))
        return Status::invalid_argument;
    }
  }
  return Status::ok;
}

static size_t
align256 (size_t v)
{
  return (v + 255) / 256 * 256;
}

HtLayout
ht_layout (const HalftonePlane *planes, int n_planes)
{
  HtLayout l;
  if (n_planes < 0 || n_planes > halftone_max_planes || (n_planes > 0 && !planes))
    return l;
  int strips = 0;
  for (int i = 0; i < n_planes; i++) {
    l.first_strip[i] = strips;
    if (!ht_plane_empty (planes[i]) && planes[i].src.height > 0)
      strips += ht_strips (planes[i].src.height);
  }
  l.total_strips = strips;
  size_t off = 256;
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (ht_plane_empty (p) || p.src.width < 0 || p.src.height < 0)
      continue;
    const int s = ht_strips (p.src.height);
    l.bnd[i] = off;
    /* the tagged 64-bit words (8-bit: one a column, 16-bit: two) */
    if (s > 1)
      l.bnd_bytes[i] = (size_t) (s - 1) * 4 * ht_boundary_width (p.src.width) *
          (size_t) ht_error_bytes (p);
    off = align256 (off + l.bnd_bytes[i]);
  }
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (ht_plane_empty (p) || p.src.width < 0 || p.src.height < 0)
      continue;
    l.ring[i] = off;
    off = align256 (off + (size_t) p.src.height * kHtRing * sizeof (int16_t));
  }
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (ht_plane_empty (p) || !p.rgb_luma || p.src.width < 0 || p.src.height < 0)
      continue;
    const size_t bytes = ht_luma_pitch (p.src.width) * (size_t) p.src.height;
    l.luma[i] = off;
    off = align256 (off + bytes);
    l.grey[i] = off;
    off = align256 (off + bytes);
  }
  l.total = off;
  return l;
}

HtSchedule
ht_schedule (const int *strips, int n_planes)
{
  HtSchedule s;
  int level = 0, ticket = 0;
  for (;;) {
    /* planes with more than `level` strips, and the next level where that
     * set shrinks */
    int nact = 0, next = 0;
    int act[halftone_max_planes];
    for (int i = 0; i < n_planes; i++)
      if (strips[i] > level) {
        act[nact++] = i;
        if (next == 0 || strips[i] < next)
          next = strips[i];
      }
    if (nact == 0)
      break;
    const int j = s.nseg++;
    s.level0[j] = level;
    s.base[j] = ticket;
    s.nact[j] = nact;
    for (int k = 0; k < nact; k++)
      s.act[j][k] = act[k];
    ticket += (next - level) * nact;
    level = next;
  }
  s.base[s.nseg] = ticket;
  s.total = ticket;
  return s;
}

static std::atomic<int> g_debug_max_workers (0);

int
ht_debug_max_workers ()
{
  return g_debug_max_workers.load ();
}

}  // namespace detail

void
halftone_debug_max_workers (int n)
{
  detail::g_debug_max_workers.store (n > 0 ? n : 0);
}

size_t
halftone_workspace_bytes (const HalftonePlane *planes, int n_planes)
{
  return detail::ht_layout (planes, n_planes).total;
}

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points exist and say so. */
Status
halftone_workspace_init (void *, size_t, Stream)
{
  return Status::unsupported;
}

Status
halftone (const HalftonePlane *planes, int n_planes, const HalftoneOptions &opt,
    void *d_ws, size_t ws_bytes, Stream, HalftoneAlgorithm algo)
{
  if (algo != HalftoneAlgorithm::automatic && algo != HalftoneAlgorithm::skss &&
      algo != HalftoneAlgorithm::wavefront &&
      algo != HalftoneAlgorithm::single_block)
    return Status::invalid_argument;
  Status st = detail::halftone_validate (planes, n_planes, opt, d_ws, ws_bytes);
  return st != Status::ok ? st : Status::unsupported;
}
#endif

}  // namespace cip
