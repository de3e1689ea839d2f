/* CPU reference of the equalize family: histograms, smoothing, LUTs and
 * apply written plainly, sharing the arithmetic of detail/equalize_math.h
 * with the kernels so the results are bit-identical. */
#include "cip/equalize.h"

#include <cstring>
#include <vector>

#include "cip/histogram.h"
#include "detail/equalize_math.h"

namespace cip {

namespace {

using detail::EqPlan;

/* Sample (value) of channel c of the pixel at px. */
inline int
sample (const EqPlan &p, const uint8_t *px, int c)
{
  if (p.bpp == 1)
    return px[0];
  if (p.bpp == 2)
    return (((int) px[0] | ((int) px[1] << 8)) >> p.shift) & p.maxv;
  if (p.luma)
    return luma709 (px[p.off[0]], px[p.off[1]], px[p.off[2]]);
  return px[p.off[c]];
}

/* Raw histograms: [tile][channel][bins]. */
void
count (const EqFrame &f, const EqPlan &p, std::vector<uint32_t> &h)
{
  const size_t nb = (size_t) p.bins;
  h.assign ((size_t) p.ntiles * p.nch * nb, 0u);
  for (int ty = 0; ty < p.tiles_y; ty++)
    for (int tx = 0; tx < p.tiles_x; tx++) {
      uint32_t *ht = h.data () + (size_t) (ty * p.tiles_x + tx) * p.nch * nb;
      for (int y = 0; y < p.tile_h; y++)
        for (int x = 0; x < p.tile_w; x++) {
          int sx, sy;
          if (p.clahe) {
            sx = detail::eq_reflect101 (tx * p.tile_w + x, f.width);
            sy = detail::eq_reflect101 (ty * p.tile_h + y, f.height);
          } else {
            sx = p.hx + x;
            sy = p.hy + y;
          }
          const uint8_t *px = f.src + (size_t) sy * f.src_pitch + (size_t) sx * p.bpp;
          for (int c = 0; c < p.nch; c++)
            ht[c * nb + (size_t) sample (p, px, c)]++;
        }
    }
}

/* One LUT of p.bins entries from the histogram h (after smoothing). */
void
build_lut (const EqPlan &p, const uint32_t *h, uint16_t *lut)
{
  const int nb = p.bins;
  std::vector<int> l ((size_t) nb);
  if (p.clahe) {
    std::vector<uint32_t> hc ((size_t) nb);
    uint32_t excess = 0;
    for (int b = 0; b < nb; b++) {
      hc[b] = h[b];
      if (p.clip > 0 && hc[b] > (uint32_t) p.clip) {
        excess += hc[b] - (uint32_t) p.clip;
        hc[b] = (uint32_t) p.clip;
      }
    }
    uint32_t cum = 0;
    for (int b = 0; b < nb; b++) {
      cum += p.clip > 0 ? detail::eq_clahe_redist (b, hc[b], excess,
          (uint32_t) nb) : hc[b];
      l[b] = detail::eq_sat (detail::eq_mul (detail::eq_u2f (cum), p.lut_scale),
          p.maxv);
    }
  } else {
    uint32_t total = 0;
    for (int b = 0; b < nb; b++)
      total += h[b];
    int i0 = 0;
    while (i0 < nb && h[i0] == 0)
      i0++;
    if (total == 0 || h[i0] == total) {
      for (int b = 0; b < nb; b++)
        l[b] = b;
    } else {
      const float scale = detail::eq_u2f ((uint32_t) p.maxv) /
          detail::eq_u2f (total - h[i0]);
      uint32_t cum = 0;
      for (int b = 0; b < nb; b++) {
        cum += h[b];
        l[b] = detail::eq_global_entry (b, cum, i0, h[i0], scale, p.maxv);
      }
    }
  }
  for (int b = 0; b < nb; b++)
    lut[b] = (uint16_t) detail::eq_blend (b, l[b], p.strength);
}

/* Smoothing, then every LUT. */
void
build_luts (const EqPlan &p, const uint32_t *h, EqState *state,
    std::vector<uint16_t> &luts)
{
  const size_t nb = (size_t) p.bins;
  const size_t n = (size_t) p.ntiles * p.nch * nb;
  std::vector<uint32_t> hs (h, h + n);
  if (p.smooth) {
    uint64_t *s = static_cast<uint64_t *> (state->data);
    for (size_t i = 0; i < n; i++) {
      s[i] = p.state_valid ? detail::eq_ema (s[i], h[i], p.alpha) :
          (uint64_t) h[i] << detail::kEqStateFrac;
      hs[i] = detail::eq_state_count (s[i]);
    }
  }
  luts.resize (n);
  for (size_t k = 0; k < (size_t) p.ntiles * p.nch; k++)
    build_lut (p, hs.data () + k * nb, luts.data () + k * nb);
}

void
apply (const EqFrame &f, const EqPlan &p, const std::vector<uint16_t> &luts)
{
  const int nch = p.nch;
  for (int y = 0; y < f.height; y++) {
    const uint8_t *s = f.src + (size_t) y * f.src_pitch;
    uint8_t *d = f.dst + (size_t) y * f.dst_pitch;
    int ty1 = 0, ty2 = 0;
    float ya = 0.f, ya1 = 1.f;
    if (p.clahe)
      detail::eq_axis (y, p.inv_th, p.tiles_y, &ty1, &ty2, &ya, &ya1);
    for (int x = 0; x < f.width; x++) {
      const uint8_t *sp = s + (size_t) x * p.bpp;
      uint8_t *dp = d + (size_t) x * p.bpp;
      uint8_t px[4];
      memcpy (px, sp, (size_t) p.bpp);
      int tx1 = 0, tx2 = 0;
      float xa = 0.f, xa1 = 1.f;
      if (p.clahe)
        detail::eq_axis (x, p.inv_tw, p.tiles_x, &tx1, &tx2, &xa, &xa1);
      int out[3];
      for (int c = 0; c < nch; c++) {
        const int v = sample (p, px, c);
        if (p.clahe) {
          auto L = [&] (int ty, int tx) {
            return (int) luts[((size_t) (ty * p.tiles_x + tx) * nch + c) * p.bins + v];
          };
          out[c] = detail::eq_interp_v (L (ty1, tx1), L (ty1, tx2), L (ty2, tx1),
              L (ty2, tx2), xa, xa1, ya, ya1, p.maxv);
        } else {
          out[c] = luts[(size_t) c * p.bins + v];
        }
      }
      if (p.bpp == 1) {
        px[0] = (uint8_t) out[0];
      } else if (p.bpp == 2) {
        /* the value at its shift, the other bits zero */
        const int w = out[0] << p.shift;
        px[0] = (uint8_t) w;
        px[1] = (uint8_t) (w >> 8);
      } else if (p.luma) {
        const int dy = (int) out[0] - (int) sample (p, px, 0);
        for (int c = 0; c < 3; c++)
          px[p.off[c]] = detail::eq_shift (px[p.off[c]], dy);
      } else {
        for (int c = 0; c < 3; c++)
          px[p.off[c]] = (uint8_t) out[c];
      }
      memcpy (dp, px, (size_t) p.bpp);
    }
  }
}

Status
run (const EqFrame &f, const EqPlan &p, const uint32_t *h, EqState *state,
    uint8_t *lut_out)
{
  std::vector<uint16_t> luts;
  build_luts (p, h, state, luts);
  apply (f, p, luts);
  /* bytes at depth 8, little-endian uint16 above */
  if (lut_out)
    for (size_t i = 0; i < luts.size (); i++) {
      if (p.depth > 8) {
        lut_out[2 * i] = (uint8_t) luts[i];
        lut_out[2 * i + 1] = (uint8_t) (luts[i] >> 8);
      } else {
        lut_out[i] = (uint8_t) luts[i];
      }
    }
  if (state && state->data)
    state->valid = true;
  return Status::ok;
}

}  // namespace

namespace ref {

Status
equalize (const EqFrame &f, const EqConfig &cfg, EqState *state,
    uint8_t *lut_out)
{
  EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, false, &p);
  if (st != Status::ok || f.width == 0 || f.height == 0)
    return st;
  std::vector<uint32_t> h;
  count (f, p, h);
  return run (f, p, h.data (), state, lut_out);
}

Status
equalize_from_histogram (const EqFrame &f, const EqConfig &cfg,
    const uint32_t *hist, EqState *state, uint8_t *lut_out)
{
  EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, true, &p);
  if (st != Status::ok)
    return st;
  if (!hist)
    return Status::invalid_argument;
  if (f.width == 0 || f.height == 0)
    return Status::ok;
  return run (f, p, hist, state, lut_out);
}

}  // namespace ref

}  // namespace cip
