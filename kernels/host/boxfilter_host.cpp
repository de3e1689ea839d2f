/* Host side of the box filter: names, algorithm choice, argument checks,
 * workspace layout, and the GPU entry points of CPU-only builds. */
#include "cip/boxfilter.h"

#include <cstdint>

#include "cip/integral.h"
#include "detail/boxfilter_plan.h"

namespace cip {

/* BoxAlgorithm::automatic: the direct kernel up to this radius (both
 * directions), the SAT one above, as measured by bench/boxfilter on an H200
 * (3840x2160: direct 0.023-0.044 ms for r = 1..16 against 0.075 ms for SAT +
 * gather). With a precomputed SAT only the gather remains (0.027 ms), which
 * the direct kernel beats up to about r = 4. */
static constexpr int direct_auto_max_radius = boxfilter_direct_max_radius;
static constexpr int direct_auto_max_radius_with_sat = 4;

const char *
box_algorithm_name (BoxAlgorithm a)
{
  switch (a) {
    case BoxAlgorithm::automatic: return "automatic";
    case BoxAlgorithm::sat: return "sat";
    case BoxAlgorithm::direct: return "direct";
  }
  return "?";
}

const char *
box_border_name (BoxBorder b)
{
  switch (b) {
    case BoxBorder::clip: return "clip";
    case BoxBorder::replicate: return "replicate";
  }
  return "?";
}

BoxAlgorithm
boxfilter_pick (const BoxPlane &plane)
{
  if (plane.src.bytes == 2)
    return BoxAlgorithm::sat;         /* the only algorithm for 16-bit planes */
  const int lim = plane.sat ? direct_auto_max_radius_with_sat :
      direct_auto_max_radius;
  if (plane.rx <= lim && plane.ry <= lim)
    return BoxAlgorithm::direct;
  return BoxAlgorithm::sat;
}

namespace detail {

static size_t
round_up (size_t v, size_t a)
{
  return (v + a - 1) / a * a;
}

BoxLayout
box_layout (const BoxPlane *planes, int n_planes)
{
  BoxLayout l;
  if (!planes || n_planes < 0 || n_planes > boxfilter_max_planes)
    return l;
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (p.sat || box_plane_empty (p) || p.src.width < 0 || p.src.height < 0)
      continue;
    size_t ib = integral_workspace_bytes (p.src.width, p.src.height,
        box_sat_type (p), false);
    if (ib > l.integral_bytes)
      l.integral_bytes = ib;
  }
  size_t off = round_up (l.integral_bytes, 256);
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (p.sat || box_plane_empty (p) || p.src.width < 0 || p.src.height < 0)
      continue;
    const size_t es = box_sat_type (p) == SatType::u64 ? 8 : 4;
    l.sat_pitch[i] = round_up (((size_t) p.src.width + 1) * es, 128);
    l.sat_offset[i] = off;
    /* overflow-checked: an impossible size makes the allocation fail */
    const size_t rows = (size_t) p.src.height + 1;
    if (l.sat_pitch[i] > (SIZE_MAX / 2) / rows ||
        off > SIZE_MAX / 2 - round_up (l.sat_pitch[i] * rows, 256)) {
      l.total = SIZE_MAX;
      return l;
    }
    off += round_up (l.sat_pitch[i] * rows, 256);
  }
  l.total = off;
  return l;
}

namespace {

struct Range {
  uintptr_t lo = 0, hi = 0;     /* [lo, hi); empty when lo == hi */
  bool overlaps (const Range &o) const {
    return lo < hi && o.lo < o.hi && lo < o.hi && o.lo < hi;
  }
};

Range
span (const void *p, size_t pitch, int w, int h, size_t elem_bytes, int step)
{
  Range r;
  if (!p || w <= 0 || h <= 0)
    return r;
  r.lo = (uintptr_t) p;
  r.hi = r.lo + (size_t) (h - 1) * pitch + (size_t) (w - 1) * step * elem_bytes
      + elem_bytes;
  return r;
}

Range
src_span (const BoxPlane &p)
{
  Range r = span (p.src.data, p.src.pitch, p.src.width, p.src.height, 1,
      p.src.step);
  if (r.hi > r.lo)
    r.hi += (size_t) p.src.bytes - 1;     /* the last sample's other byte */
  return r;
}

Range
dst_span (const BoxPlane &p)
{
  Range r = span (p.dst, p.dst_pitch, p.src.width, p.src.height, 1,
      p.dst_step);
  if (r.hi > r.lo)
    r.hi += (size_t) p.src.bytes - 1;
  return r;
}

Range
sat_span (const BoxPlane &p)
{
  if (!p.sat)
    return Range ();
  return span (p.sat, p.sat_pitch, p.src.width + 1, p.src.height + 1,
      sizeof (uint32_t), 1);
}

}  // namespace

Status
box_validate (const BoxPlane *planes, int n_planes, BoxBorder border,
    const void *ws, size_t ws_bytes)
{
  if (n_planes < 0 || n_planes > boxfilter_max_planes)
    return Status::invalid_argument;
  if (n_planes > 0 && !planes)
    return Status::invalid_argument;
  if (border != BoxBorder::clip && border != BoxBorder::replicate)
    return Status::invalid_argument;
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (!view_is_valid (p.src))
      return Status::invalid_argument;
    /* 8-bit bytes, or 16-bit words of any depth (written in the same layout) */
    if (!p.src.is_8bit () && p.src.bytes != 2)
      return Status::unsupported;
    if (p.rx < 0 || p.rx > boxfilter_max_radius || p.ry < 0 ||
        p.ry > boxfilter_max_radius || p.dst_step < 1)
      return Status::invalid_argument;
    if (box_plane_empty (p))
      continue;
    const size_t w = (size_t) p.src.width, h = (size_t) p.src.height;
    const size_t b = (size_t) p.src.bytes;
    if (!p.dst || (h > 1 && p.dst_pitch < (w - 1) * (size_t) p.dst_step + b))
      return Status::invalid_argument;
    if (b == 2) {
      if ((((uintptr_t) p.dst | p.dst_pitch | (size_t) p.dst_step) & 1) != 0 ||
          p.dst_step < 2)
        return Status::invalid_argument;
      /* a u32 SAT of 16-bit values does not hold every window sum */
      if (p.sat)
        return Status::unsupported;
    }
    if (p.sat) {
      if (((uintptr_t) p.sat % sizeof (uint32_t)) != 0 ||
          p.sat_pitch % sizeof (uint32_t) != 0 ||
          p.sat_pitch < (w + 1) * sizeof (uint32_t))
        return Status::invalid_argument;
    }
  }
  Range wsr;
  if (ws && ws_bytes > 0) {
    wsr.lo = (uintptr_t) ws;
    wsr.hi = wsr.lo + ws_bytes;
  }
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (box_plane_empty (p))
      continue;
    Range d = dst_span (p);
    if (d.overlaps (wsr) || src_span (p).overlaps (wsr) ||
        sat_span (p).overlaps (wsr))
      return Status::invalid_argument;
    for (int j = 0; j < n_planes; j++) {
      const BoxPlane &q = planes[j];
      if (box_plane_empty (q))
        continue;
      if (d.overlaps (src_span (q)) || d.overlaps (sat_span (q)))
        return Status::invalid_argument;
      if (j != i && q.dst == p.dst)
        return Status::invalid_argument;
    }
  }
  return Status::ok;
}

}  // namespace detail

size_t
boxfilter_workspace_bytes (const BoxPlane *planes, int n_planes)
{
  return detail::box_layout (planes, n_planes).total;
}

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points exist and say so. */
Status
boxfilter_workspace_init (void *, size_t, Stream)
{
  return Status::unsupported;
}

Status
boxfilter (const BoxPlane *planes, int n_planes, BoxBorder border, void *d_ws,
    size_t ws_bytes, Stream, BoxAlgorithm)
{
  Status st = detail::box_validate (planes, n_planes, border, d_ws, ws_bytes);
  return st != Status::ok ? st : Status::unsupported;
}
#endif

}  // namespace cip
