/* Per-pixel arithmetic of the box filter, shared by the GPU kernels
 * (src/boxfilter.cu) and the CPU reference (ref/boxfilter_ref.cpp) so that the
 * two cannot diverge. Plain C++ when not compiled by nvcc. */
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CIP_BOX_HD __host__ __device__ __forceinline__
#else
#define CIP_BOX_HD inline
#endif

namespace cip {
namespace detail {

/* The window [x - r, x + r] of a row (or column) of n samples, 0 <= x < n:
 * [lo, hi) is its part inside the frame; with clamped coordinates, sample 0 is
 * repeated rep_lo more times and sample n-1 rep_hi more times. */
struct BoxSpan {
  int lo, hi, rep_lo, rep_hi;
};

CIP_BOX_HD BoxSpan
box_span (int x, int r, int n)
{
  BoxSpan s;
  int a = x - r, b = x + r + 1;
  s.lo = a < 0 ? 0 : a;
  s.hi = b > n ? n : b;
  s.rep_lo = a < 0 ? -a : 0;
  s.rep_hi = b > n ? b - n : 0;
  return s;
}

/* The type a SAT accessor returns: uint32 (8-bit planes, wrap-around
 * arithmetic is exact) or uint64 (16-bit planes, exact). */
template <class Sat>
using BoxSum = decltype (Sat {} (0, 0));

/* Sum of the rectangle [x0, x1) x [y0, y1) from an exclusive SAT; S(x, y)
 * returns the SAT element. */
template <class Sat>
CIP_BOX_HD BoxSum<Sat>
box_rect (const Sat &S, int x0, int x1, int y0, int y1)
{
  return S (x1, y1) - S (x0, y1) - S (x1, y0) + S (x0, y0);
}

/* Sum over rows [y0, y1) of the horizontally clamped window sx of a plane w
 * samples wide: the inner columns plus the repeated first and last column. */
template <class Sat>
CIP_BOX_HD BoxSum<Sat>
box_hsum_replicate (const Sat &S, const BoxSpan &sx, int w, int y0, int y1)
{
  using U = BoxSum<Sat>;
  U s = box_rect (S, sx.lo, sx.hi, y0, y1);
  if (sx.rep_lo)
    s += (U) sx.rep_lo * box_rect (S, 0, 1, y0, y1);
  if (sx.rep_hi)
    s += (U) sx.rep_hi * box_rect (S, w - 1, w, y0, y1);
  return s;
}

/* Window sum with clamped coordinates (replicate): the inner rows plus the
 * repeated first and last row, each with its clamped columns. Every term is a
 * true partial sum of the window, so uint32 is exact for r <= 1024. */
template <class Sat>
CIP_BOX_HD BoxSum<Sat>
box_sum_replicate (const Sat &S, const BoxSpan &sx, const BoxSpan &sy, int w,
    int h)
{
  using U = BoxSum<Sat>;
  U s = box_hsum_replicate (S, sx, w, sy.lo, sy.hi);
  if (sy.rep_lo)
    s += (U) sy.rep_lo * box_hsum_replicate (S, sx, w, 0, 1);
  if (sy.rep_hi)
    s += (U) sy.rep_hi * box_hsum_replicate (S, sx, w, h - 1, h);
  return s;
}

CIP_BOX_HD float
box_rcp (uint32_t area)
{
  return 1.0f / (float) area;
}

/* (sum + area/2) / area, exact, with rcp = box_rcp(area) (IEEE on host and
 * device). The quotient is <= 255 and sum + area/2 < 2^31, so the float
 * estimate is within 1 of the true floor; one correction step makes it exact. */
CIP_BOX_HD uint32_t
box_round_div (uint32_t sum, uint32_t area, float rcp)
{
  uint32_t n = sum + (area >> 1);
  uint32_t q = (uint32_t) ((float) n * rcp);
  int32_t rem = (int32_t) (n - q * area);
  if (rem < 0)
    q--;
  else if (rem >= (int32_t) area)
    q++;
  return q;
}

/* Division by a constant area with a multiply-high: for n < 2^30 and
 * 2^s < d <= 2^(s+1), m = ceil(2^(32+s) / d) < 2^32 gives
 *   floor(n / d) = (n * m) >> (32 + s)
 * exactly (the error n * (m - 2^(32+s)/d) / 2^(32+s) < 2^(-2-s) <= 1/d cannot
 * reach the next integer). Window sums plus area/2 stay below 2^30 for
 * r <= 1024 (255.5 * 2049^2 < 2^30). d = 1 is m = 0. */
struct BoxDivisor {
  uint32_t d, m, s;
};

CIP_BOX_HD BoxDivisor
box_divisor (uint32_t d)
{
  BoxDivisor v;
  v.d = d;
  v.m = 0;
  v.s = 0;
  if (d <= 1)
    return v;
  uint32_t l = 0;               /* ceil(log2(d)) */
  while (((uint64_t) 1 << l) < d)
    l++;
  v.s = l - 1;
  v.m = (uint32_t) ((((uint64_t) 1 << (32 + v.s)) + d - 1) / d);
  return v;
}

/* (sum + area/2) / area for area = v.d, exact (same result as box_round_div). */
CIP_BOX_HD uint32_t
box_round_div_magic (uint32_t sum, const BoxDivisor &v)
{
  const uint32_t n = sum + (v.d >> 1);
  if (v.m == 0)
    return n;
#if defined(__CUDA_ARCH__)
  return __umulhi (n, v.m) >> v.s;
#else
  return (uint32_t) (((uint64_t) n * v.m) >> 32) >> v.s;
#endif
}

/* (sum + area/2) / area for small constant areas, d = area < 256, as the top
 * byte of one 32-bit multiply-add: with m = ceil(2^24 / d) = (2^24 + e) / d,
 * 0 <= e < d, and n = sum + d/2 <= 255.5 d,
 *   n * m / 2^24 = n / d + n * e / (d * 2^24),
 * whose second term is below 256 d / 2^24 < 1 / d (d < 256), too little to
 * reach the next integer; and n * m <= 255.5 * 2^24 + 255.5 d < 2^32. The
 * quotient is then byte 3 of sum * m + c, c = (d/2) * m: the registers
 * kernel (squares up to r = 5, areas up to 121) extracts it with a byte
 * permute. */
struct BoxByteDivisor {
  uint32_t m, c;
};

CIP_BOX_HD BoxByteDivisor
box_byte_divisor (uint32_t d)
{
  BoxByteDivisor v;
  v.m = ((1u << 24) + d - 1) / d;
  v.c = (d >> 1) * v.m;
  return v;
}

CIP_BOX_HD uint32_t
box_round_div_byte (uint32_t sum, const BoxByteDivisor &v)
{
  return (sum * v.m + v.c) >> 24;
}

/* Output of pixel (x, y) of a w x h plane from its SAT. full_area and
 * rcp_full = box_rcp(full_area) are (2rx+1)(2ry+1) and its reciprocal. */
template <class Sat>
CIP_BOX_HD uint8_t
box_pixel (const Sat &S, int x, int y, int w, int h, int rx, int ry,
    bool replicate, uint32_t full_area, float rcp_full)
{
  BoxSpan sx = box_span (x, rx, w), sy = box_span (y, ry, h);
  if (replicate)
    return (uint8_t) box_round_div (box_sum_replicate (S, sx, sy, w, h),
        full_area, rcp_full);
  uint32_t area = (uint32_t) (sx.hi - sx.lo) * (uint32_t) (sy.hi - sy.lo);
  float rcp = area == full_area ? rcp_full : box_rcp (area);
  return (uint8_t) box_round_div (box_rect (S, sx.lo, sx.hi, sy.lo, sy.hi),
      area, rcp);
}

/* Output value of pixel (x, y) of a 16-bit plane (values up to 65535) from
 * its u64 SAT (S returns uint64): the same (sum + area/2) / area, in 64-bit
 * integers (window sums reach 65535 * 2049^2 > 2^32). */
template <class Sat>
CIP_BOX_HD uint32_t
box_pixel16 (const Sat &S, int x, int y, int w, int h, int rx, int ry,
    bool replicate)
{
  BoxSpan sx = box_span (x, rx, w), sy = box_span (y, ry, h);
  uint64_t sum, area;
  if (replicate) {
    sum = box_sum_replicate (S, sx, sy, w, h);
    area = (uint64_t) (2 * rx + 1) * (uint64_t) (2 * ry + 1);
  } else {
    sum = box_rect (S, sx.lo, sx.hi, sy.lo, sy.hi);
    area = (uint64_t) (sx.hi - sx.lo) * (uint64_t) (sy.hi - sy.lo);
  }
  return (uint32_t) ((sum + area / 2) / area);
}

}  // namespace detail
}  // namespace cip
