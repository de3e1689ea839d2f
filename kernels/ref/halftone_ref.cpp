/* CPU reference of the halftone family: sequential raster-order error
 * diffusion (error collection, the arithmetic of halftone_internal.h) and
 * ordered dithering. */
#include "cip/halftone.h"

#include <vector>

#include "detail/halftone_internal.h"

namespace cip {
namespace ref {

namespace {

using namespace detail;

/* Errors of the current row and the two above, with 2 zero columns on each
 * side so that taps outside the plane read 0. Samples of the source's
 * layout in, out and in the history. */
void
diffuse_plane (const HalftonePlane &p, const HalftoneOptions &o, int band)
{
  const HtKernelDef kd = ht_kernel_def (o.kernel);
  const int w = p.src.width, h = p.src.height, L = o.levels;
  const int B = p.src.bytes, sh = p.src.shift, M = (int) p.src.max_value ();
  const size_t rw = (size_t) w + 4;
  std::vector<int> rows (3 * rw, 0);
  for (int y = 0; y < h; y++) {
    int *e[3];                  /* e[dy]: row y - dy */
    for (int dy = 0; dy < 3; dy++)
      e[dy] = rows.data () + (size_t) ((y - dy + 3) % 3) * rw + 2;
    for (int x = -2; x < w + 2; x++)
      e[0][x] = 0;
    const uint8_t *in = p.src.data + (size_t) y * p.src.pitch;
    uint8_t *out = p.dst + (size_t) y * p.dst_pitch;
    uint8_t *hist = p.history ? p.history + (size_t) y * p.history_pitch : nullptr;
    for (int x = 0; x < w; x++) {
      int sum = 0;
      for (int t = 0; t < kd.ntaps; t++) {
        const HtTap &tap = kd.taps[t];
        if (y - tap.dy >= 0)
          sum += tap.w * e[tap.dy][x - tap.dx];
      }
      const int v = ht_diffused (ht_get (in + (size_t) x * p.src.step, B, sh, M),
          sum, kd.div, M);
      const int q = ht_quantize (v, L, band,
          band > 0 ? ht_get (hist + (size_t) x * B, B, sh, M) : 0, M);
      e[0][x] = v - q * kHtOne;
      ht_put (out + (size_t) x * p.dst_step, B, sh, q);
      if (hist)
        ht_put (hist + (size_t) x * B, B, sh, q);
    }
  }
}

void
ordered_plane (const HalftonePlane &p, int levels)
{
  const int B = p.src.bytes, sh = p.src.shift, M = (int) p.src.max_value ();
  for (int y = 0; y < p.src.height; y++) {
    const uint8_t *in = p.src.data + (size_t) y * p.src.pitch;
    uint8_t *out = p.dst + (size_t) y * p.dst_pitch;
    uint8_t *hist = p.history ? p.history + (size_t) y * p.history_pitch : nullptr;
    for (int x = 0; x < p.src.width; x++) {
      const int q = ht_ordered (ht_get (in + (size_t) x * p.src.step, B, sh, M),
          levels, ht_bayer (x & 7, y & 7), M);
      ht_put (out + (size_t) x * p.dst_step, B, sh, q);
      if (hist)
        ht_put (hist + (size_t) x * B, B, sh, q);
    }
  }
}

}  // namespace

Status
halftone (const HalftonePlane *planes, int n_planes, const HalftoneOptions &opt)
{
  Status st = detail::halftone_validate (planes, n_planes, opt, nullptr, 0);
  if (st != Status::ok)
    return st;
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (detail::ht_plane_empty (p))
      continue;
    const int band = detail::ht_reads_history (opt) ?
        halftone_hysteresis (opt.levels, opt.temporal_stability, p.src.depth) : 0;
    /* packed RGB to grey: the luma plane is halftoned, its levels copied to
     * the three colour bytes */
    std::vector<uint8_t> luma, grey;
    if (p.rgb_luma) {
      const size_t lp = detail::ht_luma_pitch (p.src.width);
      luma.resize (lp * (size_t) p.src.height);
      grey.resize (luma.size ());
      for (int y = 0; y < p.src.height; y++)
        for (int x = 0; x < p.src.width; x++) {
          const uint8_t *px = p.src.data + (size_t) y * p.src.pitch +
              (size_t) x * p.src.step;
          luma[(size_t) y * lp + x] = halftone_luma (px[p.rgb_offset[0]],
              px[p.rgb_offset[1]], px[p.rgb_offset[2]]);
        }
    }
    const HalftonePlane q = detail::ht_grey_plane (p, luma.data (), grey.data ());
    if (opt.method == HalftoneMethod::ordered)
      ordered_plane (q, opt.levels);
    else
      diffuse_plane (q, opt, band);
    if (p.rgb_luma)
      for (int y = 0; y < p.src.height; y++)
        for (int x = 0; x < p.src.width; x++) {
          uint8_t *px = p.dst + (size_t) y * p.dst_pitch + (size_t) x * p.dst_step;
          for (int c = 0; c < 3; c++)
            px[p.rgb_offset[c]] = grey[(size_t) y * q.dst_pitch + x];
        }
  }
  return Status::ok;
}

}  // namespace ref
}  // namespace cip
