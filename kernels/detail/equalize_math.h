/* Internals of the equalize family shared by the CPU reference and the GPU
 * kernels, so both evaluate the same integer and float expressions in the
 * same order. Plain C++ (host + device under nvcc). Float operations use
 * explicit round-to-nearest intrinsics on the device (no FMA contraction);
 * the host side relies on no contraction (x86-64 baseline has no FMA; the
 * reference file also turns contraction off). Not part of the public API. */
#pragma once

#include <cmath>
#include <cstdint>

#include "cip/equalize.h"

#ifdef __CUDACC__
#define CIP_EQ_HD __host__ __device__ __forceinline__
#else
#define CIP_EQ_HD inline
#endif

namespace cip {
namespace detail {

/* Fixed-point fraction bits of the smoothing state. */
constexpr int kEqStateFrac = 8;

/* What one call does, resolved from the config and the frame (host). */
struct EqPlan {
  bool clahe;
  int nch;                /* histograms / LUTs per tile (1 or 3) */
  int bpp;                /* bytes per pixel: 1 (gray) or 4 */
  bool luma;              /* packed RGB, luma mode */
  int off[3];             /* byte offsets of R, G, B (packed layouts) */
  int tiles_x, tiles_y, ntiles;
  int tile_w, tile_h;     /* CLAHE: padded tile size; global: the ROI size */
  int hx, hy;             /* global: ROI origin */
  int clip;               /* CLAHE clip count, 0: none */
  float lut_scale;        /* CLAHE: (float) maxv / area (255.f at depth 8) */
  float inv_tw, inv_th;   /* CLAHE: 1.f / tile_w, 1.f / tile_h */
  uint32_t alpha;         /* weight of the new histogram x 65536, 1 .. 65536 */
  int strength;           /* 0 .. 256 */
  bool smooth;            /* a state is given */
  bool state_valid;
  int depth, shift;       /* gray samples: 8 (bytes), or 16-bit words */
  int bins;               /* 2^depth */
  int maxv;               /* bins - 1 */
};

/* Checks the arguments and fills the plan (host; used by both paths).
 * hist_given: equalize_from_histogram (global mode only, ROI ignored). */
Status equalize_plan (const EqFrame &f, const EqConfig &cfg,
    const EqState *state, bool hist_given, EqPlan *plan);

/* Byte offsets of R, G, B in a 4-byte pixel. */
void equalize_offsets (EqLayout l, int off[3]);

/* ---- shared arithmetic ---------------------------------------------------- */

#ifdef __CUDA_ARCH__
CIP_EQ_HD float eq_mul (float a, float b) { return __fmul_rn (a, b); }
CIP_EQ_HD float eq_add (float a, float b) { return __fadd_rn (a, b); }
CIP_EQ_HD float eq_sub (float a, float b) { return __fsub_rn (a, b); }
CIP_EQ_HD float eq_u2f (uint32_t v) { return __uint2float_rn (v); }
CIP_EQ_HD float eq_i2f (int v) { return __int2float_rn (v); }
CIP_EQ_HD int eq_round (float v) { return __float2int_rn (v); }
CIP_EQ_HD int eq_floor (float v) { return __float2int_rd (v); }
#else
inline float eq_mul (float a, float b) { volatile float r = a * b; return r; }
inline float eq_add (float a, float b) { volatile float r = a + b; return r; }
inline float eq_sub (float a, float b) { volatile float r = a - b; return r; }
inline float eq_u2f (uint32_t v) { return (float) v; }
inline float eq_i2f (int v) { return (float) v; }
/* cvRound: nearest, ties to even (the default rounding mode) */
inline int eq_round (float v) { return (int) std::nearbyint (v); }
inline int eq_floor (float v) { return (int) std::floor (v); }
#endif

/* saturate_cast to 0..maxv of a float (cvRound, then clamp) */
CIP_EQ_HD int
eq_sat (float v, int maxv)
{
  int i = eq_round (v);
  return i < 0 ? 0 : i > maxv ? maxv : i;
}

/* saturate_cast<uchar>(float) */
CIP_EQ_HD uint8_t
eq_sat_u8 (float v)
{
  return (uint8_t) eq_sat (v, 255);
}

/* BORDER_REFLECT_101 index (OpenCV borderInterpolate). */
CIP_EQ_HD int
eq_reflect101 (int p, int len)
{
  if (len == 1)
    return 0;
  while (p < 0 || p >= len) {
    if (p < 0)
      p = -p;
    else
      p = 2 * len - 2 - p;
  }
  return p;
}

/* One EMA step of a state bin towards the frame's count h. */
CIP_EQ_HD uint64_t
eq_ema (uint64_t s, uint32_t h, uint32_t alpha)
{
  const int64_t d = (int64_t) ((uint64_t) h << kEqStateFrac) - (int64_t) s;
  if (d == 0)
    return s;
  const uint64_t ad = (uint64_t) (d < 0 ? -d : d);
  uint64_t step = (ad * alpha + 32768u) >> 16;
  if (step == 0)
    step = 1;
  return d < 0 ? s - step : s + step;
}

/* The count a state bin stands for. */
CIP_EQ_HD uint32_t
eq_state_count (uint64_t s)
{
  return (uint32_t) ((s + (1u << (kEqStateFrac - 1))) >> kEqStateFrac);
}

/* Global LUT entry v (equalizeHist): cum = h[0] + .. + h[v], i0 / hi0 the first
 * non-empty bin and its count, scale = maxv / (total - hi0) as floats (255.f
 * at depth 8); the caller handles the identity cases (empty or constant
 * histograms). */
CIP_EQ_HD int
eq_global_entry (int v, uint32_t cum, int i0, uint32_t hi0, float scale,
    int maxv = 255)
{
  if (v <= i0)
    return 0;
  return eq_sat (eq_mul (eq_u2f (cum - hi0), scale), maxv);
}

/* CLAHE: bin b of `bins` after clipping (its clipped count hc) and the
 * redistribution of `excess` clipped counts (CLAHE_CalcLut_Body). */
CIP_EQ_HD uint32_t
eq_clahe_redist (int b, uint32_t hc, uint32_t excess, uint32_t bins = 256u)
{
  const uint32_t batch = excess / bins;
  const uint32_t residual = excess - batch * bins;
  uint32_t r = hc + batch;
  if (residual != 0) {
    const uint32_t step = bins / residual > 1u ? bins / residual : 1u;
    if ((uint32_t) b % step == 0 && (uint32_t) b / step < residual)
      r++;
  }
  return r;
}

/* Strength blend folded into a LUT entry (any depth: v, lut <= 65535). */
CIP_EQ_HD int
eq_blend (int v, int lut, int s)
{
  return (v * (256 - s) + lut * s + 128) >> 8;
}

/* Bilinear weights of CLAHE_Interpolation_Body along one axis: for
 * coordinate c, tile indices t1 <= t2 (clamped) and weights w (of t2) and
 * w1 = 1 - w (of t1). */
CIP_EQ_HD void
eq_axis (int c, float inv, int tiles, int *t1, int *t2, float *w, float *w1)
{
  const float tf = eq_sub (eq_mul (eq_i2f (c), inv), 0.5f);
  int a = eq_floor (tf);
  int b = a + 1;
  *w = eq_sub (tf, eq_i2f (a));
  *w1 = eq_sub (1.0f, *w);
  *t1 = a > 0 ? a : 0;
  *t2 = b < tiles - 1 ? b : tiles - 1;
}

/* (L11 * xa1 + L12 * xa) * ya1 + (L21 * xa1 + L22 * xa) * ya, saturated to
 * 0..maxv (saturate_cast<uchar> / <ushort> at depths 8 / 16). */
CIP_EQ_HD int
eq_interp_v (int l11, int l12, int l21, int l22, float xa, float xa1, float ya,
    float ya1, int maxv)
{
  const float r1 = eq_add (eq_mul (eq_i2f (l11), xa1), eq_mul (eq_i2f (l12), xa));
  const float r2 = eq_add (eq_mul (eq_i2f (l21), xa1), eq_mul (eq_i2f (l22), xa));
  return eq_sat (eq_add (eq_mul (r1, ya1), eq_mul (r2, ya)), maxv);
}

CIP_EQ_HD uint8_t
eq_interp (int l11, int l12, int l21, int l22, float xa, float xa1, float ya,
    float ya1)
{
  return (uint8_t) eq_interp_v (l11, l12, l21, l22, xa, xa1, ya, ya1, 255);
}

/* Luma mode: colour byte c shifted by the luma change, clamped. */
CIP_EQ_HD uint8_t
eq_shift (int c, int dy)
{
  const int r = c + dy;
  return (uint8_t) (r < 0 ? 0 : r > 255 ? 255 : r);
}

}  // namespace detail
}  // namespace cip
