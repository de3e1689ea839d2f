/* CPU reference of the box filter. */
#include "cip/boxfilter.h"

#include <cstring>
#include <vector>

#include "cip/integral.h"
#include "detail/boxfilter_math.h"
#include "detail/boxfilter_plan.h"

namespace cip {

namespace ref {

namespace {

template <typename T>
struct HostSatT {
  const uint8_t *base;
  size_t pitch;
  T operator() (int x, int y) const {
    return ((const T *) (base + (size_t) y * pitch))[x];
  }
};
using HostSat = HostSatT<uint32_t>;

/* A 16-bit plane: u64 SAT, 64-bit arithmetic, output in the source's sample
 * layout (value << shift, little-endian). */
Status
boxfilter16 (const BoxPlane &p, bool replicate)
{
  const int w = p.src.width, h = p.src.height;
  std::vector<uint64_t> own (((size_t) w + 1) * ((size_t) h + 1), 0);
  SatDest d;
  d.sum = own.data ();
  d.sum_pitch = ((size_t) w + 1) * sizeof (uint64_t);
  Status st = ref::integral (p.src, SatType::u64, d);
  if (st != Status::ok)
    return st;
  HostSatT<uint64_t> S { (const uint8_t *) own.data (), d.sum_pitch };
  for (int y = 0; y < h; y++) {
    uint8_t *row = p.dst + (size_t) y * p.dst_pitch;
    for (int x = 0; x < w; x++) {
      const uint32_t v = detail::box_pixel16 (S, x, y, w, h, p.rx, p.ry,
          replicate) << p.src.shift;
      row[(size_t) x * p.dst_step] = (uint8_t) v;
      row[(size_t) x * p.dst_step + 1] = (uint8_t) (v >> 8);
    }
  }
  return Status::ok;
}

}  // namespace

Status
boxfilter (const BoxPlane *planes, int n_planes, BoxBorder border)
{
  Status st = detail::box_validate (planes, n_planes, border, nullptr, 0);
  if (st != Status::ok)
    return st;
  const bool replicate = border == BoxBorder::replicate;
  std::vector<uint32_t> own;
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (detail::box_plane_empty (p))
      continue;
    if (p.src.bytes == 2) {
      st = boxfilter16 (p, replicate);
      if (st != Status::ok)
        return st;
      continue;
    }
    const int w = p.src.width, h = p.src.height;
    HostSat S;
    if (p.sat) {
      S.base = (const uint8_t *) p.sat;
      S.pitch = p.sat_pitch;
    } else {
      own.assign (((size_t) w + 1) * ((size_t) h + 1), 0);
      SatDest d;
      d.sum = own.data ();
      d.sum_pitch = ((size_t) w + 1) * sizeof (uint32_t);
      st = ref::integral (p.src, SatType::u32, d);
      if (st != Status::ok)
        return st;
      S.base = (const uint8_t *) own.data ();
      S.pitch = d.sum_pitch;
    }
    const uint32_t full = (uint32_t) (2 * p.rx + 1) * (uint32_t) (2 * p.ry + 1);
    const float rcp_full = detail::box_rcp (full);
    for (int y = 0; y < h; y++) {
      uint8_t *row = p.dst + (size_t) y * p.dst_pitch;
      for (int x = 0; x < w; x++)
        row[(size_t) x * p.dst_step] = detail::box_pixel (S, x, y, w, h, p.rx,
            p.ry, replicate, full, rcp_full);
    }
  }
  return Status::ok;
}

}  // namespace ref

}  // namespace cip
