/* CPU reference of the integral family. Plain C++. */
#include <cstdint>
#include <cstring>

#include "cip/integral.h"
#include "detail/integral_internal.h"

namespace cip {

namespace ref {

template <typename T>
static void
sat_plane (const ImageView &src, T *sum, size_t sum_pitch, uint64_t *sq,
    size_t sq_pitch)
{
  const int w = src.width, h = src.height;
  auto srow = [&] (int y) {
    return (T *) ((uint8_t *) sum + (size_t) y * sum_pitch);
  };
  auto qrow = [&] (int y) {
    return (uint64_t *) ((uint8_t *) sq + (size_t) y * sq_pitch);
  };
  for (int x = 0; x <= w; x++)
    srow (0)[x] = 0;
  if (sq)
    for (int x = 0; x <= w; x++)
      qrow (0)[x] = 0;
  /* the value of sample x of a row (ImageView's layout) */
  auto value = [&] (const uint8_t *in, int x) -> uint32_t {
    const uint8_t *p = in + (size_t) x * src.step;
    if (src.bytes == 1)
      return (uint32_t) (p[0] >> src.shift) & src.max_value ();
    return (((uint32_t) p[0] | ((uint32_t) p[1] << 8)) >> src.shift) &
        src.max_value ();
  };
  for (int y = 0; y < h; y++) {
    const uint8_t *in = src.data + (size_t) y * src.pitch;
    const T *above = srow (y);
    T *out = srow (y + 1);
    T run = 0;                  /* T arithmetic: u32 wraps modulo 2^32 */
    out[0] = 0;
    for (int x = 0; x < w; x++) {
      run += (T) value (in, x);
      out[x + 1] = above[x + 1] + run;
    }
    if (sq) {
      const uint64_t *qa = qrow (y);
      uint64_t *qo = qrow (y + 1);
      uint64_t qrun = 0;
      qo[0] = 0;
      for (int x = 0; x < w; x++) {
        const uint64_t v = value (in, x);
        qrun += v * v;
        qo[x + 1] = qa[x + 1] + qrun;
      }
    }
  }
}

Status
integral (const ImageView &src, SatType type, const SatDest &dst)
{
  Status st = detail::integral_check_args (src, type, dst);
  if (st != Status::ok || (src.width == 0 && src.height == 0))
    return st;
  if (type == SatType::u32)
    sat_plane<uint32_t> (src, (uint32_t *) dst.sum, dst.sum_pitch, dst.sqsum,
        dst.sqsum_pitch);
  else
    sat_plane<uint64_t> (src, (uint64_t *) dst.sum, dst.sum_pitch, dst.sqsum,
        dst.sqsum_pitch);
  return Status::ok;
}

}  // namespace ref

}  // namespace cip
