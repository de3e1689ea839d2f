/* Host side of the equalize family: argument checks, the plan shared by the
 * reference and the kernels, workspace sizes, and the GPU entry points of
 * CPU-only builds. */
#include "cip/equalize.h"
#include "cip/histogram.h"

#include <cmath>

#include "detail/equalize_math.h"

namespace cip {

namespace detail {

void
equalize_offsets (EqLayout l, int off[3])
{
  switch (l) {
    case EqLayout::rgbx: off[0] = 0; off[1] = 1; off[2] = 2; break;
    case EqLayout::bgrx: off[0] = 2; off[1] = 1; off[2] = 0; break;
    case EqLayout::xrgb: off[0] = 1; off[1] = 2; off[2] = 3; break;
    case EqLayout::xbgr: off[0] = 3; off[1] = 2; off[2] = 1; break;
    default: off[0] = off[1] = off[2] = 0; break;
  }
}

static bool
config_is_valid (const EqConfig &c)
{
  if (c.mode != EqMode::global && c.mode != EqMode::clahe)
    return false;
  if ((int) c.layout < (int) EqLayout::gray || (int) c.layout > (int) EqLayout::xbgr)
    return false;
  if (c.rgb_mode != EqRgbMode::luma && c.rgb_mode != EqRgbMode::per_channel)
    return false;
  if (c.tiles_x < 1 || c.tiles_x > kEqMaxTiles || c.tiles_y < 1 || c.tiles_y > kEqMaxTiles)
    return false;
  /* written so that NaN fails */
  if (!(c.smoothing >= 0.0 && c.smoothing <= 1.0) ||
      !(c.strength >= 0.0 && c.strength <= 1.0) || std::isnan (c.clip_limit) ||
      c.clip_limit > 65536.0)
    return false;
  /* 16-bit words for depth > 8 (gray only); bytes with no shift at 8 */
  if (c.depth < 8 || c.depth > kEqMaxDepth || c.shift < 0 ||
      c.depth + c.shift > (c.depth > 8 ? 16 : 8))
    return false;
  if (c.depth > 8 && c.layout != EqLayout::gray)
    return false;
  return true;
}

Status
equalize_plan (const EqFrame &f, const EqConfig &cfg, const EqState *state,
    bool hist_given, EqPlan *p)
{
  if (!config_is_valid (cfg) || !p)
    return Status::invalid_argument;
  if (f.width < 0 || f.height < 0)
    return Status::invalid_argument;
  if ((uint64_t) f.width * (uint64_t) f.height > 0x7FFFFFFFull)
    return Status::invalid_argument;
  const bool gray = cfg.layout == EqLayout::gray;
  const int bpp = gray ? (cfg.depth > 8 ? 2 : 1) : 4;
  const bool empty = f.width == 0 || f.height == 0;
  if (!empty) {
    if (!f.src || !f.dst)
      return Status::invalid_argument;
    const size_t row = (size_t) f.width * (size_t) bpp;
    if (f.height > 1 && (f.src_pitch < row || f.dst_pitch < row))
      return Status::invalid_argument;
    /* whole pixels (4-byte RGB, 16-bit words) are read and written at once */
    const uintptr_t am = (uintptr_t) bpp - 1;
    if (((uintptr_t) f.src & am) != 0 || ((uintptr_t) f.dst & am) != 0 ||
        (f.height > 1 && ((f.src_pitch & am) != 0 || (f.dst_pitch & am) != 0)))
      return Status::invalid_argument;
    /* in place, or disjoint */
    const bool same = f.src == f.dst && (f.height == 1 || f.src_pitch == f.dst_pitch);
    if (!same) {
      const uintptr_t s0 = (uintptr_t) f.src, d0 = (uintptr_t) f.dst;
      const uintptr_t s1 = s0 + (size_t) (f.height - 1) * f.src_pitch + row;
      const uintptr_t d1 = d0 + (size_t) (f.height - 1) * f.dst_pitch + row;
      if (s0 < d1 && d0 < s1)
        return Status::invalid_argument;
    }
  }
  const bool roi = cfg.roi_width != 0 || cfg.roi_height != 0;
  if (roi) {
    if (cfg.roi_x < 0 || cfg.roi_y < 0 || cfg.roi_width < 0 || cfg.roi_height < 0 ||
        (int64_t) cfg.roi_x + cfg.roi_width > f.width ||
        (int64_t) cfg.roi_y + cfg.roi_height > f.height)
      return Status::invalid_argument;
    if (cfg.mode == EqMode::clahe &&
        (cfg.roi_x != 0 || cfg.roi_y != 0 || cfg.roi_width != f.width ||
         cfg.roi_height != f.height))
      return Status::invalid_argument;
  }
  if (hist_given && cfg.mode != EqMode::global)
    return Status::invalid_argument;
  if (cfg.smoothing > 0.0 && (!state || !state->data))
    return Status::invalid_argument;
  if (state && state->data && ((uintptr_t) state->data & 7) != 0)
    return Status::invalid_argument;

  p->clahe = cfg.mode == EqMode::clahe;
  p->bpp = bpp;
  p->luma = !gray && cfg.rgb_mode == EqRgbMode::luma;
  p->nch = equalize_channels (cfg);
  equalize_offsets (cfg.layout, p->off);
  p->tiles_x = p->clahe ? cfg.tiles_x : 1;
  p->tiles_y = p->clahe ? cfg.tiles_y : 1;
  p->ntiles = p->tiles_x * p->tiles_y;
  p->clip = 0;
  p->lut_scale = 0.f;
  p->inv_tw = p->inv_th = 0.f;
  if (p->clahe) {
    int pw = f.width, ph = f.height;
    if (f.width % cfg.tiles_x != 0 || f.height % cfg.tiles_y != 0) {
      /* OpenCV pads both directions whenever either does not divide */
      pw = f.width + cfg.tiles_x - f.width % cfg.tiles_x;
      ph = f.height + cfg.tiles_y - f.height % cfg.tiles_y;
    }
    p->tile_w = pw / cfg.tiles_x;
    p->tile_h = ph / cfg.tiles_y;
    p->hx = p->hy = 0;
    const int area = p->tile_w * p->tile_h;
    const int bins = 1 << cfg.depth;
    if (area > 0) {
      p->lut_scale = (float) (bins - 1) / (float) area;
      if (cfg.clip_limit > 0.0) {
        int c = (int) (cfg.clip_limit * area / bins);
        p->clip = c > 1 ? c : 1;
      }
      p->inv_tw = 1.0f / (float) p->tile_w;
      p->inv_th = 1.0f / (float) p->tile_h;
    }
  } else if (roi && !hist_given) {
    p->hx = cfg.roi_x;
    p->hy = cfg.roi_y;
    p->tile_w = cfg.roi_width;
    p->tile_h = cfg.roi_height;
  } else {
    p->hx = p->hy = 0;
    p->tile_w = f.width;
    p->tile_h = f.height;
  }
  long a = std::lround ((1.0 - cfg.smoothing) * 65536.0);
  p->alpha = (uint32_t) (a < 1 ? 1 : a > 65536 ? 65536 : a);
  long s = std::lround (cfg.strength * 256.0);
  p->strength = (int) (s < 0 ? 0 : s > 256 ? 256 : s);
  p->smooth = state && state->data;
  p->state_valid = p->smooth && state->valid;
  p->depth = cfg.depth;
  p->shift = cfg.shift;
  p->bins = 1 << cfg.depth;
  p->maxv = p->bins - 1;
  return Status::ok;
}

}  // namespace detail

int
equalize_channels (const EqConfig &cfg)
{
  return cfg.layout != EqLayout::gray && cfg.rgb_mode == EqRgbMode::per_channel ? 3 : 1;
}

int
equalize_tiles (const EqConfig &cfg)
{
  if (cfg.mode != EqMode::clahe)
    return 1;
  int tx = cfg.tiles_x < 1 ? 1 : cfg.tiles_x > kEqMaxTiles ? kEqMaxTiles : cfg.tiles_x;
  int ty = cfg.tiles_y < 1 ? 1 : cfg.tiles_y > kEqMaxTiles ? kEqMaxTiles : cfg.tiles_y;
  return tx * ty;
}

int
equalize_bins (const EqConfig &cfg)
{
  return cfg.depth > 8 && cfg.depth <= kEqMaxDepth ? 1 << cfg.depth : kEqBins;
}

/* Tables (tiles x channels) of equalize_bins entries. */
static size_t
equalize_entries (const EqConfig &cfg)
{
  return (size_t) equalize_tiles (cfg) * equalize_channels (cfg) *
      (size_t) equalize_bins (cfg);
}

size_t
equalize_lut_bytes (const EqConfig &cfg)
{
  return equalize_entries (cfg) * (cfg.depth > 8 ? 2 : 1);
}

size_t
equalize_state_bytes (const EqConfig &cfg)
{
  return equalize_entries (cfg) * sizeof (uint64_t);
}

size_t
equalize_workspace_bytes (const EqConfig &cfg)
{
  if (cfg.depth > 8 && cfg.mode == EqMode::clahe) {
    /* per-tile counts (uint32, zero between calls), then the LUTs (uint16) */
    return equalize_entries (cfg) * (4 + 2);
  }
  if (cfg.depth > 8) {
    /* cip::histogram's workspace, the counts, then the LUT (global, gray) */
    const size_t b = (size_t) equalize_bins (cfg);
    return ((histogram_workspace_bytes (1, (int) b) + 255) & ~(size_t) 255) +
        b * 4 + b * 2;
  }
  /* tickets (one per tile, 256-byte rounded), the accumulators (uint32 per
   * tile, channel and bin, zero between calls), then the LUTs */
  const size_t tiles = (size_t) equalize_tiles (cfg);
  const size_t tick = (tiles * 4 + 255) & ~(size_t) 255;
  return tick + equalize_lut_bytes (cfg) * 4 + equalize_lut_bytes (cfg);
}

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points validate and report unsupported. */
Status
equalize_workspace_init (void *d_ws, size_t ws_bytes, Stream)
{
  if (!d_ws || ws_bytes == 0)
    return Status::invalid_argument;
  return Status::unsupported;
}

Status
equalize (const EqFrame &f, const EqConfig &cfg, EqState *state, uint8_t *,
    void *d_ws, size_t ws_bytes, Stream)
{
  detail::EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, false, &p);
  if (st != Status::ok)
    return st;
  if (!d_ws || ws_bytes < equalize_workspace_bytes (cfg))
    return Status::invalid_argument;
  return Status::unsupported;
}

Status
equalize_from_histogram (const EqFrame &f, const EqConfig &cfg,
    const uint32_t *hist, bool, EqState *state, uint8_t *, void *d_ws,
    size_t ws_bytes, Stream)
{
  detail::EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, true, &p);
  if (st != Status::ok)
    return st;
  if (!hist || !d_ws || ws_bytes < equalize_workspace_bytes (cfg))
    return Status::invalid_argument;
  return Status::unsupported;
}
#endif

}  // namespace cip
