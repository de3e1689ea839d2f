/* Host side of the box filter: names, algorithm choice, argument checks,
 * workspace layout, and the GPU entry points of CPU-only builds. */
#include "cip/boxfilter.h"

#include <cstdint>

#include "cip/integral.h"
#include "detail/boxfilter_plan.h"
#include "detail/boxfilter_sliding.h"
#include "detail/integral_internal.h"

namespace cip {

/* BoxAlgorithm::automatic, per plane, on the larger of rx and ry:
 * - 8-bit: direct up to boxfilter_direct_max_radius (up to
 *   direct_auto_max_radius_before_fused on planes of
 *   fused_over_direct_min_pixels or more), above it fused on planes it
 *   serves of at least fused_auto_min_pixels and fused_auto_min_width, sat
 *   on the others;
 * - 8-bit with a precomputed SAT: direct up to
 *   direct_auto_max_radius_with_sat, the gather alone above;
 * - 16-bit: sat (u64 table).
 * Measured by bench/boxfilter on an H100 (3840x2160, b2b): direct 0.022 ms
 * (r = 1) to 0.035 ms (r = 15), SAT + gather 0.052-0.056 ms, the gather
 * alone on a table 0.026-0.030 ms. The sliding kernel (one pass, no table)
 * took 0.069-0.44 ms (r = 1..500) there, slower than direct and sat at
 * every radius, so automatic never picks it (see bench/RESULTS.md). */
static constexpr int direct_auto_max_radius = boxfilter_direct_max_radius;
/* fused against SAT + gather above the direct radii (H100, round 13, b2b,
 * r = 17-1024, replicate / clip): 1920x1080 0.0208-0.0218 / 0.0217-0.0239
 * against 0.0220-0.0258 / 0.0224-0.0235 ms, 3840x2160 0.0345-0.0354 /
 * 0.0371-0.0383 against 0.051-0.059, 7680x4320 0.099-0.102 / 0.108-0.121
 * against 0.167-0.202. Only 16:9 frames were measured: narrower planes keep
 * sat. On planes of 4 million samples or more it overtakes direct above
 * direct_auto_max_radius_before_fused (below: round 18); at 1920x1080
 * direct stays ahead up to 16 (0.014-0.017 against 0.022). */
static constexpr int direct_auto_max_radius_before_fused = 13;
/* Round 18 (H100, 3840x2160, b2b, fused with its output tiles rotated):
 * replicate r = 12 direct 0.0321-0.0326 against fused 0.0326-0.0330 ms, r = 14
 * 0.0348-0.0352 against 0.0335-0.0339; clip (direct divides its edge
 * columns one by one) r = 10 0.0341-0.0345 against 0.0342-0.0345, r = 12
 * 0.0357 against 0.0337-0.0339. */
static constexpr int direct_auto_max_radius_before_fused_clip = 10;
/* On larger planes direct's clip columns weigh less: 7680x4320 (round 19,
 * b2b) clip r = 11 direct 0.1004 against fused 0.1072 ms, r = 12 0.1045
 * against 0.1083, r = 13 0.1076 against 0.1090, r = 14 0.1143 against
 * 0.1092, so clip keeps direct as long as replicate does there. Only 4K and
 * 8K were measured: the limit lies between them. */
static constexpr long long clip_direct_as_replicate_min_pixels = 16000000;
static constexpr long long fused_over_direct_min_pixels = 4000000;
static constexpr long long fused_auto_min_pixels = 2000000;
static constexpr int fused_auto_min_width = 1920;
static constexpr int direct_auto_max_radius_with_sat = 4;

const char *
box_algorithm_name (BoxAlgorithm a)
{
  switch (a) {
    case BoxAlgorithm::automatic: return "automatic";
    case BoxAlgorithm::sat: return "sat";
    case BoxAlgorithm::direct: return "direct";
    case BoxAlgorithm::sliding: return "sliding";
    case BoxAlgorithm::fused: return "fused";
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
boxfilter_pick (const BoxPlane &plane, BoxBorder border)
{
  const int r = plane.rx > plane.ry ? plane.rx : plane.ry;
  if (plane.src.bytes == 2)         /* direct serves 8-bit planes only */
    return BoxAlgorithm::sat;
  /* no table yet, and a plane as large as those measured */
  const bool fused = detail::box_fused_serves (plane) &&
      plane.src.width >= fused_auto_min_width &&
      (long long) plane.src.width * plane.src.height >= fused_auto_min_pixels;
  const long long px = (long long) plane.src.width * plane.src.height;
  const bool fused_first = fused && px >= fused_over_direct_min_pixels;
  const bool clip_first = border == BoxBorder::clip &&
      px < clip_direct_as_replicate_min_pixels;
  if (r <= (plane.sat ? direct_auto_max_radius_with_sat : !fused_first ?
          direct_auto_max_radius : clip_first ?
          direct_auto_max_radius_before_fused_clip :
          direct_auto_max_radius_before_fused))
    return BoxAlgorithm::direct;
  return fused ? BoxAlgorithm::fused : BoxAlgorithm::sat;
}

namespace detail {

static BoxTuning g_box_tuning;

void
box_set_tuning (const BoxTuning &t)
{
  g_box_tuning = t;
}

BoxTuning
box_get_tuning ()
{
  return g_box_tuning;
}

bool
box_fused_serves (const BoxPlane &p)
{
  /* the kernel's row offsets are 32-bit; it reads step-1 rows */
  return !p.sat && sat_tiled_serves (p.src) && p.src.step == 1 &&
      p.src.width <= kBoxFusedMaxWidth && (uintptr_t) p.src.data % 4 == 0 &&
      p.src.pitch % 4 == 0 && p.src.height > 0 &&
      (uint64_t) (p.src.height - 1) * p.src.pitch + (uint64_t) p.src.width <=
      UINT32_MAX;
}

bool
box_direct_registers (const BoxPlane &p)
{
  return g_box_tuning.direct_tile == 0 && p.src.is_8bit () &&
      p.src.step == 1 && p.dst_step == 1 &&
      ((p.rx <= kBoxRegMaxRadius && p.ry <= kBoxRegMaxRadius) ||
          (p.rx == p.ry && p.rx <= kBoxRegMaxSquare)) &&
      (((uintptr_t) p.src.data | p.src.pitch |
              (uintptr_t) p.dst | p.dst_pitch) & 3) == 0;
}

bool
box_packed (const BoxPlane *planes, int n, BoxPacked &out)
{
  if (n != 4)
    return false;
  const BoxPlane &p0 = planes[0];
  /* the channel at offset 0 fixes the bases */
  const uint8_t *base = nullptr;
  uint8_t *dbase = nullptr;
  for (int i = 0; i < n; i++)
    if (planes[i].src.step == 4 && ((uintptr_t) planes[i].src.data & 3) == 0) {
      base = static_cast<const uint8_t *> (planes[i].src.data);
      dbase = planes[i].dst;
    }
  if (!base || !dbase || ((uintptr_t) dbase & 3) != 0 ||
      (p0.src.pitch & 3) != 0 || (p0.dst_pitch & 3) != 0)
    return false;
  BoxPacked pk;
  bool seen[4] = { false, false, false, false };
  for (int i = 0; i < n; i++) {
    const BoxPlane &p = planes[i];
    const uint8_t *s = static_cast<const uint8_t *> (p.src.data);
    if (!p.src.is_8bit () || p.src.step != 4 || p.dst_step != 4 ||
        p.src.pitch != p0.src.pitch || p.dst_pitch != p0.dst_pitch ||
        p.src.width != p0.src.width || p.src.height != p0.src.height ||
        p.src.width <= 0 || p.src.height <= 0 || s < base || s - base > 3 ||
        p.src.width > kBoxPackedMaxWidth)
      return false;
    const int c = (int) (s - base);
    if (seen[c] || p.dst != dbase + c)
      return false;
    seen[c] = true;
    if (p.rx == 0 && p.ry == 0) {
      pk.copy_mask |= 0xffu << (8 * c);
      continue;
    }
    if ((pk.rx || pk.ry) && (p.rx != pk.rx || p.ry != pk.ry))
      return false;
    pk.rx = p.rx;
    pk.ry = p.ry;
  }
  pk.src = base;
  pk.src_pitch = p0.src.pitch;
  pk.dst = dbase;
  pk.dst_pitch = p0.dst_pitch;
  pk.w = p0.src.width;
  pk.h = p0.src.height;
  if (pk.rx == 0 && pk.ry == 0)
    pk.copy_mask = 0;                   /* all copied: a window of one */
  out = pk;
  return true;
}

BoxAlgorithm
box_resolve (const BoxPlane &p, BoxAlgorithm algo, BoxBorder border)
{
  if (algo == BoxAlgorithm::automatic)
    algo = boxfilter_pick (p, border);
  if (algo == BoxAlgorithm::fused && !box_fused_serves (p))
    algo = BoxAlgorithm::sat;
  return algo;
}

void
box_resolve_call (const BoxPlane *planes, int n, BoxAlgorithm algo,
    BoxAlgorithm *out, BoxBorder border)
{
  bool any_direct = false;
  for (int i = 0; i < n; i++) {
    out[i] = box_resolve (planes[i], algo, border);
    any_direct = any_direct ||
        (!box_plane_empty (planes[i]) && out[i] == BoxAlgorithm::direct);
  }
  if (algo != BoxAlgorithm::automatic || !any_direct)
    return;
  for (int i = 0; i < n; i++) {
    const BoxPlane &p = planes[i];
    if (out[i] == BoxAlgorithm::fused && p.rx <= boxfilter_direct_max_radius &&
        p.ry <= boxfilter_direct_max_radius)
      out[i] = BoxAlgorithm::direct;
  }
}

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

namespace detail {

/* Cost model of the sliding kernel, in per-thread steps of one block, times
 * the waves of blocks: vertical sums (the strip's first row sums
 * min(2ry+1, h) rows, then 2 loads a row, per column a thread keeps), the
 * row scans (3 steps per entry a lane owns), the outputs and the barriers
 * (3 per batch of rows). Constants are rough: bench/boxfilter decides. */
BoxSlidingPlan
box_sliding_plan (int w, int h, int rx, int ry, int sum_bytes, int sms)
{
  const int T = box_sliding_threads;
  BoxSlidingPlan best;
  double best_cost = 0;
  if (w < 1 || h < 1)
    return best;
  if (sms < 1)
    sms = 1;
  for (int tw = T; tw <= box_sliding_max_tile_w; tw *= 2) {
    if (tw > T && tw - T >= w)
      break;                    /* one tile already covers the row */
    BoxSlidingPlan p;
    p.tile_w = tw;
    p.tiles_x = (w + tw - 1) / tw;
    const long long reach = (long long) tw + 2LL * rx;
    p.cols = (int) (reach < w ? reach : w);
    p.kv = (p.cols + T - 1) / T;
    const int k = ((p.cols + 1 + 31) / 32) | 1;     /* odd: no bank conflicts */
    p.row_stride = 32 * k;
    const size_t row_bytes = (size_t) p.row_stride * (size_t) sum_bytes;
    size_t rb = box_sliding_max_smem / row_bytes;
    p.rows_batch = (int) (rb < 1 ? 1 : rb > (size_t) box_sliding_max_rows_batch ?
        box_sliding_max_rows_batch : rb);
    p.smem = (size_t) p.rows_batch * row_bytes;
    /* resident blocks per SM: 4 (registers), fewer when shared memory runs out */
    size_t bps = (size_t) (200 * 1024) / (p.smem + 1024);
    bps = bps < 1 ? 1 : bps > 4 ? 4 : bps;
    const long long init_rows = 2LL * ry + 1 < h ? 2LL * ry + 1 : h;
    for (long long sh = 8;; sh *= 2) {
      p.strip_h = sh < h ? (int) sh : h;
      p.strips = (h + p.strip_h - 1) / p.strip_h;
      const long long blocks = (long long) p.tiles_x * p.strips;
      const long long batches = (p.strip_h + p.rows_batch - 1) / p.rows_batch;
      const double per_block = (double) p.kv * (double) (init_rows + 2LL * p.strip_h)
          + (double) batches * ((p.rows_batch + 7) / 8) * k * 3.0
          + (double) p.strip_h * (tw / T) * 8.0
          + (double) batches * 60.0;
      const long long slots = (long long) sms * (long long) bps;
      const double cost = (double) ((blocks + slots - 1) / slots) * per_block;
      if (best.tile_w == 0 || cost < best_cost) {
        best = p;
        best_cost = cost;
      }
      if (p.strip_h >= h)
        break;
    }
  }
  return best;
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
