/* Per-pixel arithmetic of the halftone family, shared by the GPU kernels
 * (src/halftone.cu), the CPU reference (ref/halftone_ref.cpp), the tests and
 * the bench so that they cannot diverge. Plain C++ when not compiled by nvcc.
 *
 * Fixed point. A pixel's diffused value v and its error e are int32 in units
 * of 1/256 of an 8-bit level (kFrac bits): v = (in << 8) + collected error.
 * The error e sends to a neighbour with weight w of a kernel with divisor D is
 *   term(e, w) = floor ((e * w + D / 2) / D)      (round half up)
 * computed once per (source, neighbour) pair, so pushing terms (diffusion, the
 * CPU reference) and pulling them (error collection, the GPU) add the same
 * integers. Errors are clamped to +-kErrMax (never reached in practice) so
 * that no product can overflow.
 *
 * Quantization to L levels (level k = round (k * 255 / (L - 1)), halves up):
 *   k = clamp (floor ((v * (L - 1) + 127.5 * 256) / (255 * 256)), 0, L - 1)
 * i.e. the nearest level on the ideal grid, ties up; e = v - (level << 8). */
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CIP_HT_HD __host__ __device__ __forceinline__
#else
#define CIP_HT_HD inline
#endif

namespace cip {
namespace detail {

constexpr int kHtFrac = 8;
constexpr int32_t kHtErrMax = 1 << 18;

/* One diffusion kernel: weights (numerators) to the pixel's neighbours,
 * over the divisor `div`.
 *   own[0], own[1]: (x+1, y), (x+2, y)
 *   r1[i]: (x + i - 2, y + 1), i = 0..4
 *   r2[i]: (x + i - 2, y + 2) */
struct HtKernelDef {
  int div;
  int own[2];
  int r1[5];
  int r2[5];
};

/* In the order of cip::HalftoneKernel. */
constexpr HtKernelDef kHtKernels[7] = {
  { 16, { 7, 0 }, { 0, 3, 5, 1, 0 }, { 0, 0, 0, 0, 0 } },   /* Floyd-Steinberg */
  { 48, { 7, 5 }, { 3, 5, 7, 5, 3 }, { 1, 3, 5, 3, 1 } },   /* Jarvis-Judice-Ninke */
  { 42, { 8, 4 }, { 2, 4, 8, 4, 2 }, { 1, 2, 4, 2, 1 } },   /* Stucki */
  { 32, { 8, 4 }, { 2, 4, 8, 4, 2 }, { 0, 0, 0, 0, 0 } },   /* Burkes */
  { 32, { 5, 3 }, { 2, 4, 5, 4, 2 }, { 0, 2, 3, 2, 0 } },   /* Sierra (3 rows) */
  { 4, { 2, 0 }, { 0, 1, 1, 0, 0 }, { 0, 0, 0, 0, 0 } },    /* Sierra Lite */
  { 8, { 1, 1 }, { 0, 1, 1, 1, 0 }, { 0, 0, 1, 0, 0 } },    /* Atkinson (6/8) */
};

/* Footprint seen from the receiving pixel (error collection): the rightmost
 * column of row y-1 (reach1) and of row y-2 (reach2) it takes errors from,
 * relative to x; -3 when the row gives nothing. */
constexpr int
ht_reach (const int (&r)[5])
{
  return r[0] ? 2 : r[1] ? 1 : r[2] ? 0 : r[3] ? -1 : r[4] ? -2 : -3;
}

constexpr bool
ht_deep (const HtKernelDef &k)
{
  return ht_reach (k.r2) > -3;
}

/* The shear: row y+1 runs `shift` pixels behind row y so that everything a
 * pixel collects from rows y-1 and y-2 is finished one step earlier:
 * reach1 < shift and reach2 < 2 * shift. 2 for Floyd-Steinberg, Sierra Lite
 * and Atkinson, 3 for Jarvis-Judice-Ninke, Stucki, Burkes and Sierra. */
constexpr int
ht_shift (const HtKernelDef &k)
{
  const int a = ht_reach (k.r1) + 1;
  const int b = ht_reach (k.r2) / 2 + 1;
  return a > b ? (a > 1 ? a : 1) : (b > 1 ? b : 1);
}

static_assert (ht_shift (kHtKernels[0]) == 2, "FS shift");
static_assert (ht_shift (kHtKernels[1]) == 3, "JJN shift");
static_assert (ht_shift (kHtKernels[3]) == 3, "Burkes shift");
static_assert (ht_shift (kHtKernels[4]) == 3, "Sierra shift");
static_assert (ht_shift (kHtKernels[5]) == 2, "Sierra Lite shift");
static_assert (ht_shift (kHtKernels[6]) == 2, "Atkinson shift");

/* term(e, w) for divisor D (a compile-time constant on the GPU, so the
 * division is a multiply-high). The bias keeps the dividend positive:
 * |e * w + D/2| < 2^22 <= D << 22. */
template <int D>
CIP_HT_HD int32_t
ht_term (int32_t e, int w)
{
  constexpr uint32_t bias = (uint32_t) D << 22;
  return (int32_t) ((uint32_t) (e * w + D / 2 + (int32_t) bias) / (uint32_t) D)
      - (int32_t) (bias / D);
}

/* The same with a run-time divisor (CPU reference, naive loops). */
CIP_HT_HD int32_t
ht_term_rt (int32_t e, int w, int d)
{
  const uint32_t bias = (uint32_t) d << 22;
  return (int32_t) ((uint32_t) (e * w + d / 2 + (int32_t) bias) / (uint32_t) d)
      - (int32_t) (bias / (uint32_t) d);
}

CIP_HT_HD int32_t
ht_clamp_err (int32_t e)
{
  return e < -kHtErrMax ? -kHtErrMax : (e > kHtErrMax ? kHtErrMax : e);
}

/* Quantizer constants for L levels. level(k) = (k * 510 + L - 1) / (2 (L - 1))
 * is computed as a multiply-high by `magic` = floor (2^32 / (2 (L-1))) + 1,
 * exact because the dividend is < 2^17 (the test checks every k and L). */
struct HtQuant {
  uint32_t lm1 = 1;      /* L - 1 */
  uint32_t magic = 0;
};

CIP_HT_HD HtQuant
ht_quant (int levels)
{
  HtQuant q;
  q.lm1 = (uint32_t) (levels - 1);
  q.magic = (uint32_t) ((1ull << 32) / (2ull * q.lm1) + 1);
  return q;
}

CIP_HT_HD uint32_t
ht_level_value (uint32_t k, const HtQuant &q)
{
  return (uint32_t) (((uint64_t) (k * 510u + q.lm1) * q.magic) >> 32);
}

/* The output level (0..255) nearest to v (fixed point). */
CIP_HT_HD uint32_t
ht_quantize (int32_t v, const HtQuant &q)
{
  if (v <= 0)
    return 0;
  uint32_t k = ((uint32_t) v * q.lm1 + 32640u) / 65280u;
  k = k < q.lm1 ? k : q.lm1;
  return ht_level_value (k, q);
}

/* Temporal stability: with a valid history and band > 0, the pixel keeps its
 * previous output `prev` while |v - prev * 256| <= band. */
CIP_HT_HD uint32_t
ht_choose (int32_t v, const HtQuant &q, uint32_t prev, int32_t band)
{
  const int32_t d = v - (int32_t) (prev << kHtFrac);
  if (band > 0 && d >= -band && d <= band)
    return prev;
  return ht_quantize (v, q);
}

/* Bayer 8x8 threshold index (0..63) of position (x, y). */
CIP_HT_HD uint32_t
ht_bayer8 (int x, int y)
{
  /* bit-interleave of (x ^ y, y), most significant bits last */
  const uint32_t a = (uint32_t) (x ^ y), b = (uint32_t) y;
  return ((a & 1) << 5) | ((b & 1) << 4) | ((a & 2) << 2) | ((b & 2) << 1) |
      ((a & 4) >> 1) | ((b & 4) >> 2);
}

/* Ordered dithering to L levels with Bayer threshold t (0..63):
 *   k = min (L - 1, floor (in * (L - 1) / 255 + (t + 0.5) / 64)). */
CIP_HT_HD uint32_t
ht_ordered (uint32_t in, uint32_t t, const HtQuant &q)
{
  uint32_t k = (in * q.lm1 * 128u + 255u * (2u * t + 1u)) / 32640u;
  k = k < q.lm1 ? k : q.lm1;
  return ht_level_value (k, q);
}

}  // namespace detail
}  // namespace cip
