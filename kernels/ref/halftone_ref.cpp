/* CPU reference of the halftone family: plain sequential raster-order error
 * diffusion (each pixel pushes the shares of its error to its neighbours) and
 * ordered dithering, with the arithmetic of detail/halftone_math.h. */
#include "cip/halftone.h"

#include <vector>

#include "detail/halftone_internal.h"
#include "detail/halftone_math.h"

namespace cip {
namespace ref {

namespace {

using namespace detail;

void
diffuse_plane (const HalftonePlane &p, const HtKernelDef &k, const HtQuant &q,
    int32_t band)
{
  const int w = p.src.width, h = p.src.height;
  /* acc[r][x + 2]: collected error of row y + r, two columns of margin */
  std::vector<int32_t> acc[3];
  for (auto &a : acc)
    a.assign ((size_t) w + 4, 0);
  for (int y = 0; y < h; y++) {
    const uint8_t *s = p.src.data + (size_t) y * p.src.pitch;
    uint8_t *d = p.dst + (size_t) y * p.dst_pitch;
    uint8_t *hist = p.history ? p.history + (size_t) y * p.history_pitch : nullptr;
    int32_t *a0 = acc[0].data () + 2, *a1 = acc[1].data () + 2,
        *a2 = acc[2].data () + 2;
    for (int x = 0; x < w; x++) {
      const int32_t v = ((int32_t) s[(size_t) x * p.src.step] << kHtFrac) + a0[x];
      const uint32_t out = hist && band > 0 ? ht_choose (v, q, hist[x], band) :
          ht_quantize (v, q);
      const int32_t e = ht_clamp_err (v - (int32_t) (out << kHtFrac));
      d[(size_t) x * p.dst_step] = (uint8_t) out;
      if (hist)
        hist[x] = (uint8_t) out;
      /* neighbours outside the plane get nothing: the margins absorb them */
      for (int i = 0; i < 2; i++)
        if (k.own[i] && x + 1 + i < w)
          a0[x + 1 + i] += ht_term_rt (e, k.own[i], k.div);
      for (int i = 0; i < 5; i++) {
        const int xx = x + i - 2;
        if (xx < 0 || xx >= w)
          continue;
        if (k.r1[i])
          a1[xx] += ht_term_rt (e, k.r1[i], k.div);
        if (k.r2[i])
          a2[xx] += ht_term_rt (e, k.r2[i], k.div);
      }
    }
    /* rotate: row y + 1 becomes current, a fresh row y + 2 */
    std::swap (acc[0], acc[1]);
    std::swap (acc[1], acc[2]);
    acc[2].assign ((size_t) w + 4, 0);
  }
}

void
ordered_plane (const HalftonePlane &p, const HtQuant &q)
{
  for (int y = 0; y < p.src.height; y++) {
    const uint8_t *s = p.src.data + (size_t) y * p.src.pitch;
    uint8_t *d = p.dst + (size_t) y * p.dst_pitch;
    uint8_t *hist = p.history ? p.history + (size_t) y * p.history_pitch : nullptr;
    for (int x = 0; x < p.src.width; x++) {
      const uint32_t out = ht_ordered (s[(size_t) x * p.src.step],
          ht_bayer8 (x, y), q);
      d[(size_t) x * p.dst_step] = (uint8_t) out;
      if (hist)
        hist[x] = (uint8_t) out;
    }
  }
}

}  // namespace

Status
halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params)
{
  Status st = detail::halftone_validate (planes, n_planes, params, nullptr, 0);
  if (st != Status::ok)
    return st;
  const HtQuant q = ht_quant (params.levels);
  const int32_t band = params.history_valid ?
      halftone_band (params.levels, params.temporal_stability) : 0;
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (halftone_plane_empty (p))
      continue;
    if (params.method == HalftoneMethod::ordered)
      ordered_plane (p, q);
    else
      diffuse_plane (p, kHtKernels[(int) params.kernel], q, band);
  }
  return Status::ok;
}

}  // namespace ref
}  // namespace cip
