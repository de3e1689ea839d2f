/* Host side of the integral family: names, argument checks, and the GPU
 * entry points of CPU-only builds. */
#include <cstdint>

#include "cip/integral.h"
#include "detail/integral_internal.h"

namespace cip {

const char *
sat_algorithm_name (SatAlgorithm a)
{
  switch (a) {
    case SatAlgorithm::automatic: return "automatic";
    case SatAlgorithm::single_pass: return "single_pass";
    case SatAlgorithm::multi_pass: return "multi_pass";
    case SatAlgorithm::tiled: return "tiled";
  }
  return "?";
}

namespace detail {

Status
integral_check_args (const ImageView &src, SatType type, const SatDest &dst)
{
  if (!view_is_valid (src))
    return Status::invalid_argument;
  /* 8-bit bytes, or 16-bit words of any depth */
  if (!src.is_8bit () && src.bytes != 2)
    return Status::unsupported;
  if (type != SatType::u32 && type != SatType::u64)
    return Status::invalid_argument;
  if (src.width == 0 && src.height == 0)
    return Status::ok;          /* nothing to write */
  const size_t es = type == SatType::u32 ? 4 : 8;
  const size_t w1 = (size_t) src.width + 1;
  if (!dst.sum || dst.sum_pitch % es != 0 || (uintptr_t) dst.sum % es != 0)
    return Status::invalid_argument;
  if (src.height > 0 && dst.sum_pitch < w1 * es)
    return Status::invalid_argument;
  if (dst.sqsum) {
    if (dst.sqsum_pitch % 8 != 0 || (uintptr_t) dst.sqsum % 8 != 0)
      return Status::invalid_argument;
    if (src.height > 0 && dst.sqsum_pitch < w1 * 8)
      return Status::invalid_argument;
  }
  return Status::ok;
}

SatAlgorithm
sat_resolve (const ImageView &src, SatType type, const SatDest &dst,
    SatAlgorithm algo)
{
  if (algo == SatAlgorithm::automatic)
    algo = integral_pick (src.width, src.height, type);
  if (algo == SatAlgorithm::single_pass && src.bytes == 2)
    algo = SatAlgorithm::multi_pass;
  if (algo == SatAlgorithm::tiled && !(src.bytes == 1 &&
          (src.step == 1 || src.step == 2 || src.step == 4) &&
          !dst.sqsum && (uintptr_t) dst.sum % 16 == 0 &&
          dst.sum_pitch % 16 == 0 && src.width <= kSatTiledMaxSide &&
          src.height <= kSatTiledMaxSide))
    algo = SatAlgorithm::multi_pass;
  return algo;
}

bool
sat_tiled_serves (const ImageView &src)
{
  return src.bytes == 1 && (src.step == 1 || src.step == 2 || src.step == 4) &&
      src.data &&
      src.width > 0 &&
      src.height > 0 && src.width <= kSatTiledMaxSide &&
      src.height <= kSatTiledMaxSide;
}

}  // namespace detail

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points exist and refuse. */
size_t
integral_workspace_bytes (int, int, SatType, bool)
{
  return 0;
}

Status
integral_workspace_init (void *, size_t, Stream)
{
  return Status::unsupported;
}

SatAlgorithm
integral_pick (int, int, SatType)
{
  return SatAlgorithm::multi_pass;
}

Status
integral (const ImageView &src, SatType type, const SatDest &dst, void *,
    size_t, Stream, SatAlgorithm algo)
{
  if (algo != SatAlgorithm::automatic && algo != SatAlgorithm::single_pass &&
      algo != SatAlgorithm::multi_pass && algo != SatAlgorithm::tiled)
    return Status::invalid_argument;
  Status st = detail::integral_check_args (src, type, dst);
  if (st != Status::ok)
    return st;
  return Status::unsupported;
}
#endif

}  // namespace cip
