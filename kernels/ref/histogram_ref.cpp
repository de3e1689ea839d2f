/* CPU reference of the histogram family. */
#include "cip/histogram.h"

#include <algorithm>
#include <vector>

#include "detail/histogram_internal.h"

namespace cip {

namespace ref {

Status
histogram (const HistInput *inputs, int count, int bins, uint32_t *hist,
    bool accumulate)
{
  Status st = detail::histogram_validate (inputs, count, bins, hist);
  if (st != Status::ok)
    return st;
  std::vector<uint32_t> c ((size_t) bins);
  for (int i = 0; i < count; i++) {
    const ImageView &v = inputs[i].view;
    const HistSource src = inputs[i].source;
    uint32_t lo, hi;
    histogram_range (inputs[i], &lo, &hi);
    const uint64_t span = (uint64_t) hi - lo + 1;
    std::fill (c.begin (), c.end (), 0u);
    for (int y = 0; y < v.height; y++) {
      const uint8_t *row = v.data + (size_t) y * v.pitch;
      for (int x = 0; x < v.width; x++) {
        const uint8_t *p = row + (size_t) x * v.step;
        uint32_t s;
        if (src == HistSource::luma_rgb)
          s = luma709 (p[0], p[1], p[2]);
        else if (src == HistSource::luma_bgr)
          s = luma709 (p[2], p[1], p[0]);
        else if (v.bytes == 1)
          s = (p[0] >> v.shift) & v.max_value ();
        else
          s = (((uint32_t) p[0] | ((uint32_t) p[1] << 8)) >> v.shift) & v.max_value ();
        if (s < lo || s > hi)
          continue;
        c[(size_t) ((uint64_t) (s - lo) * (uint64_t) bins / span)]++;
      }
    }
    uint32_t *h = hist + (size_t) i * bins;
    for (int b = 0; b < bins; b++)
      h[b] = accumulate ? h[b] + c[b] : c[b];
  }
  return Status::ok;
}

Status
histogram_draw (const uint32_t *hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha)
{
  Status st = detail::histogram_draw_validate (hist, count, bins, planes,
      n_planes, alpha);
  if (st != Status::ok)
    return st;
  uint32_t max_of[kHistogramMaxInputs] = {};
  for (int i = 0; i < count; i++)
    for (int b = 0; b < bins; b++)
      max_of[i] = std::max (max_of[i], hist[i * bins + b]);
  for (int k = 0; k < n_planes; k++) {
    const HistDrawPlane &p = planes[k];
    for (int y = 0; y < p.height; y++) {
      uint8_t *row = p.data + (size_t) y * p.pitch;
      for (int x = 0; x < p.width; x++) {
        uint8_t *s = row + (size_t) x * p.step;
        *s = detail::hist_draw_sample (*s, x, y, p, hist, max_of, count, bins,
            alpha);
      }
    }
  }
  return Status::ok;
}

}  // namespace ref

}  // namespace cip
