/* Internals of the halftone family shared by the host code, the CPU reference,
 * the GPU kernels (halftone.cu), the test and the bench: the kernels' tap
 * tables and footprints, the fixed-point arithmetic (host and device), the
 * argument checks, the workspace layout and the skss schedule. Plain C++
 * (the arithmetic is also __host__ __device__ under nvcc). Not public API. */
#pragma once

#include <cstddef>
#include <cstdint>

#include "cip/halftone.h"

#if defined(__CUDACC__)
#define CIP_HT_HD __host__ __device__ __forceinline__
#else
#define CIP_HT_HD inline
#endif

namespace cip {
namespace detail {

/* ---------------------------------------------------------------- kernels */

/* The error of (x, y) goes to (x + dx, y + dy) with weight w / div; (x, y)
 * gathers from (x - dx, y - dy). */
struct HtTap {
  int dx, dy, w;
};

constexpr int kHtMaxTaps = 12;

struct HtKernelDef {
  int div;
  int ntaps;
  HtTap taps[kHtMaxTaps];
};

constexpr HtKernelDef
ht_kernel_def (HalftoneKernel k)
{
  switch (k) {
    case HalftoneKernel::floyd_steinberg:
      return { 16, 4, { {1, 0, 7}, {-1, 1, 3}, {0, 1, 5}, {1, 1, 1} } };
    case HalftoneKernel::jarvis_judice_ninke:
      return { 48, 12, { {1, 0, 7}, {2, 0, 5},
          {-2, 1, 3}, {-1, 1, 5}, {0, 1, 7}, {1, 1, 5}, {2, 1, 3},
          {-2, 2, 1}, {-1, 2, 3}, {0, 2, 5}, {1, 2, 3}, {2, 2, 1} } };
    case HalftoneKernel::stucki:
      return { 42, 12, { {1, 0, 8}, {2, 0, 4},
          {-2, 1, 2}, {-1, 1, 4}, {0, 1, 8}, {1, 1, 4}, {2, 1, 2},
          {-2, 2, 1}, {-1, 2, 2}, {0, 2, 4}, {1, 2, 2}, {2, 2, 1} } };
    case HalftoneKernel::burkes:
      return { 32, 7, { {1, 0, 8}, {2, 0, 4},
          {-2, 1, 2}, {-1, 1, 4}, {0, 1, 8}, {1, 1, 4}, {2, 1, 2} } };
    case HalftoneKernel::sierra:
      return { 32, 10, { {1, 0, 5}, {2, 0, 3},
          {-2, 1, 2}, {-1, 1, 4}, {0, 1, 5}, {1, 1, 4}, {2, 1, 2},
          {-1, 2, 2}, {0, 2, 3}, {1, 2, 2} } };
    case HalftoneKernel::sierra_lite:
      return { 4, 3, { {1, 0, 2}, {-1, 1, 1}, {0, 1, 1} } };
    case HalftoneKernel::atkinson:
      return { 8, 6, { {1, 0, 1}, {2, 0, 1},
          {-1, 1, 1}, {0, 1, 1}, {1, 1, 1}, {0, 2, 1} } };
  }
  return { 1, 0, { } };
}

constexpr int kHtNumKernels = 7;

/* Weight of tap (dx, dy), 0 if the kernel has none there. */
constexpr int
ht_weight (const HtKernelDef &d, int dx, int dy)
{
  for (int i = 0; i < d.ntaps; i++)
    if (d.taps[i].dx == dx && d.taps[i].dy == dy)
      return d.taps[i].w;
  return 0;
}

/* Where a pixel gathers from, derived from the taps: own row x-1 .. x-r0;
 * row y-1 columns x-lr1 .. x+rr1; row y-2 columns x-lr2 .. x+rr2 (-1: none).
 * min_shift: the least shear s (row y+1 runs s columns behind row y) with
 * which every row can step in lockstep: row y-1 must have finished column
 * x+rr1 (s >= rr1 + 1) and row y-2 column x+rr2 (2s >= rr2 + 1) one step
 * before row y needs them. */
struct HtFootprint {
  int rows;              /* rows above the pixel it gathers from: 1 or 2 */
  int r0;
  int lr1, rr1;
  int lr2, rr2;
  int min_shift;
};

constexpr HtFootprint
ht_footprint (HalftoneKernel k)
{
  const HtKernelDef d = ht_kernel_def (k);
  HtFootprint f = { 0, 0, -1, -1, -1, -1, 1 };
  for (int i = 0; i < d.ntaps; i++) {
    const HtTap t = d.taps[i];
    if (t.dy > f.rows)
      f.rows = t.dy;
    if (t.dy == 0 && t.dx > f.r0)
      f.r0 = t.dx;
    if (t.dy == 1) {
      if (t.dx > f.lr1) f.lr1 = t.dx;
      if (-t.dx > f.rr1) f.rr1 = -t.dx;
    }
    if (t.dy == 2) {
      if (t.dx > f.lr2) f.lr2 = t.dx;
      if (-t.dx > f.rr2) f.rr2 = -t.dx;
    }
  }
  int s = f.rr1 + 1;
  if (f.rows == 2 && (f.rr2 + 2) / 2 > s)
    s = (f.rr2 + 2) / 2;
  f.min_shift = s < 1 ? 1 : s;
  return f;
}

/* ------------------------------------------------------------ arithmetic */

/* Every function takes the planes' largest value M (`max`, 255 for 8-bit:
 * the default, so the 8-bit path keeps its compile-time constants). */
constexpr int kHtOne = kHalftoneErrorOne;       /* 1 value step */
constexpr int kHtMaxErr = 255 * kHtOne;          /* 8-bit: |error| <= this: int16 */
constexpr int kHtOffset = 256 * kHtOne;          /* keeps numerators >= 0 */
static_assert (kHtMaxErr <= 32767, "8-bit errors must fit in int16");
/* 16-bit: |error| <= 128 M < 2^23; the level index's numerator
 * 2 (L - 1) 128 M + 128 M - 1 (L <= 256) stays below 2^32. */
static_assert (511ull * 65535 * kHtOne < (1ull << 32), "level index overflows");

/* The offset of ht_diffused for largest value `max`. */
CIP_HT_HD int
ht_offset (int max)
{
  return (max + 1) * kHtOne;
}

/* v = 128 * in + floor((sum + div / 2) / div), for |sum| <= div * 128 * max.
 * The offset makes the numerator positive, so the division is an unsigned
 * one (by a constant where div is one); below 2^31 for max <= 65535. */
CIP_HT_HD int
ht_diffused (int in, int sum, int div, int max = 255)
{
  const uint32_t n = (uint32_t) (div * (in * kHtOne + ht_offset (max)) +
      div / 2 + sum);
  return (int) (n / (uint32_t) div) - ht_offset (max);
}

/* Index of the level nearest to v / 128 (ties to the lower one). */
CIP_HT_HD int
ht_level_index (int v, int levels, int max = 255)
{
  const int top = max * kHtOne;
  const int c = v < 0 ? 0 : (v > top ? top : v);
  return (int) (((uint32_t) (2 * (levels - 1)) * (uint32_t) c +
          (uint32_t) (top - 1)) / (uint32_t) (2 * top));
}

/* The same for 2 levels: 1 above max / 2. */
CIP_HT_HD int
ht_level_index2 (int v, int max = 255)
{
  return v > max * kHtOne / 2 ? 1 : 0;
}

CIP_HT_HD int
ht_level_value (int k, int levels, int max = 255)
{
  return (2 * max * k + levels - 1) / (2 * (levels - 1));
}

/* The output for diffused value v: the nearest level, or the previous output
 * `prev` while v stays within `band` of it (band > 0 only with a valid
 * history and temporal stability on). */
CIP_HT_HD int
ht_quantize (int v, int levels, int band, int prev, int max = 255)
{
  int out = ht_level_value (ht_level_index (v, levels, max), levels, max);
  if (band > 0) {
    const int d = v - prev * kHtOne;
    if (d >= -band && d <= band)
      out = prev;
  }
  return out;
}

/* The level value by a multiply-high: (n * magic) >> 32 == n / (2 (L - 1))
 * for every n = 510 k + L - 1 (checked exhaustively by the test). */
uint32_t ht_level_magic (int levels);

CIP_HT_HD int
ht_level_value_magic (int k, int levels, uint32_t magic)
{
  const uint64_t n = (uint64_t) (uint32_t) (510 * k + levels - 1);
  return (int) ((n * magic) >> 32);
}

/* Ordered dithering of one sample with Bayer threshold m (0..63); the
 * numerator stays below 2^31 for max <= 65535. */
CIP_HT_HD int
ht_ordered (int in, int levels, int m, int max = 255)
{
  const uint32_t k = ((uint32_t) in * (uint32_t) (levels - 1) * 128u +
      (uint32_t) (2 * m + 1) * (uint32_t) max) / (128u * (uint32_t) max);
  return ht_level_value ((int) k, levels, max);
}

/* Sample access of the reference (and the GPU's simple kernels): value of
 * the sample at p in layout (bytes, shift, max), and the sample of value v. */
CIP_HT_HD int
ht_get (const uint8_t *p, int bytes, int shift, int max)
{
  const uint32_t s = bytes == 2 ? *reinterpret_cast<const uint16_t *> (p) : *p;
  return (int) ((s >> shift) & (uint32_t) max);
}

CIP_HT_HD void
ht_put (uint8_t *p, int bytes, int shift, int v)
{
  if (bytes == 2)
    *reinterpret_cast<uint16_t *> (p) = (uint16_t) (v << shift);
  else
    *p = (uint8_t) v;
}

/* The 8x8 Bayer matrix at (x, y) (0..63): M(2n) = [4M, 4M+2; 4M+3, 4M+1]
 * unrolled, the finest 2x2 level in the highest bits. */
CIP_HT_HD int
ht_bayer (int x, int y)
{
  int m = 0;
  for (int b = 0; b < 3; b++) {
    const int c = (((x ^ y) >> b & 1) << 1) | (y >> b & 1);
    m |= c << (2 * (2 - b));
  }
  return m;
}

/* ------------------------------------------------------ checks and layout */

inline bool
ht_plane_empty (const HalftonePlane &p)
{
  return p.src.width == 0 || p.src.height == 0;
}

/* True when the call reads the histories (error diffusion, s > 0, valid). */
bool ht_reads_history (const HalftoneOptions &o);

/* Shapes, pitches, options (a call reading histories needs one on every
 * non-empty plane), and no destination or history overlapping a source,
 * another history or [ws, ws + ws_bytes) (ws may be null). */
Status halftone_validate (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &o, const void *ws, size_t ws_bytes);

/* skss geometry, fixed: the host sizes the workspace with it. */
constexpr int kHtRowsPerLane = 2;
constexpr int kHtStripRows = 32 * kHtRowsPerLane;  /* rows per strip */
constexpr int kHtChunk = 32;       /* steps per chunk (a tile's width) */
constexpr int kHtShift = 4;        /* shear: >= every min_shift, 4-aligned rows */
constexpr int kHtPad = kHtChunk;   /* boundary rows: entries before column 0 */
constexpr int kHtRing = 16;        /* wavefront: error slots per row (pow2) */
/* Largest width or height the GPU serves (Status::unsupported above). */
constexpr int kHtMaxSide = 65535;

/* skss's hand-off between strips: strip boundaries as 64-bit words, the
 * launch's tag in the high half, so that a word is either wholly this
 * launch's or visibly not (no progress words, no fences). 8-bit planes: one
 * word a column entry, row 62's and row 63's int16 errors in the low half;
 * 16-bit planes: two words, row 62's then row 63's int32 error. A tag
 * differs between consecutive epochs (period 2^23 - 1) and is never 0, so a
 * zeroed workspace holds no tag; other layouts' regions are zeroed before a
 * launch on a new layout (halftone.cu, pk_prepare). */
CIP_HT_HD uint32_t
ht_pk_tag (uint32_t epoch)
{
  return 0x80000000u | epoch % 0x7fffffu;
}

CIP_HT_HD uint32_t
ht_pk_tag_of (unsigned long long w)
{
  return (uint32_t) (w >> 32);
}

CIP_HT_HD unsigned long long
ht_pk_pair (int e62, int e63, uint32_t tag)
{
  return (unsigned long long) tag << 32 | (uint32_t) (uint16_t) e62 |
      (uint32_t) (uint16_t) e63 << 16;
}

CIP_HT_HD int
ht_pk_pair_62 (unsigned long long w)
{
  return (int16_t) (uint16_t) (w & 0xffffu);
}

CIP_HT_HD int
ht_pk_pair_63 (unsigned long long w)
{
  return (int16_t) (uint16_t) ((w >> 16) & 0xffffu);
}

CIP_HT_HD unsigned long long
ht_pk_one (int e, uint32_t tag)
{
  return (unsigned long long) tag << 32 | (uint32_t) e;
}

CIP_HT_HD int
ht_pk_one_value (unsigned long long w)
{
  return (int) (uint32_t) w;
}

/* Entries of one boundary row of a plane of this width. */
inline size_t
ht_boundary_width (int width)
{
  return ((size_t) width + kHtPad + kHtChunk - 1) / kHtChunk * kHtChunk + kHtChunk;
}

inline int
ht_strips (int height)
{
  return height > 0 ? (height + kHtStripRows - 1) / kHtStripRows : 0;
}

/* Bytes of an error in the GPU's rings and boundary rows: int16 for 8-bit
 * planes, int32 for 16-bit ones. */
inline int
ht_error_bytes (const HalftonePlane &p)
{
  return p.src.bytes == 2 ? 4 : 2;
}

/* Workspace: [0, 256) ticket, done counter and epoch (the last word, never
 * written, is the source of skss's copies of no byte); per plane, the
 * boundary rows of each strip but the last (the hand-off's tagged 64-bit
 * words: 4 rows of ht_error_bytes); per plane, the wavefront's error slots
 * (kHtRing int16 per row). 256-byte aligned regions. */
struct HtLayout {
  size_t bnd[halftone_max_planes] = {};
  size_t bnd_bytes[halftone_max_planes] = {};
  size_t ring[halftone_max_planes] = {};
  int first_strip[halftone_max_planes] = {};
  int total_strips = 0;
  /* rgb_luma planes: their luma and their grey output, ht_luma_pitch()
   * bytes a row */
  size_t luma[halftone_max_planes] = {};
  size_t grey[halftone_max_planes] = {};
  size_t total = 0;
};

inline size_t
ht_luma_pitch (int width)
{
  return ((size_t) width + 3) / 4 * 4;
}

/* The plane an rgb_luma plane becomes once its luma is in `luma` and its
 * output goes to `grey` (pitch ht_luma_pitch); other planes unchanged. */
inline HalftonePlane
ht_grey_plane (const HalftonePlane &p, uint8_t *luma, uint8_t *grey)
{
  if (!p.rgb_luma)
    return p;
  HalftonePlane q = p;
  q.src.data = luma;
  q.src.pitch = ht_luma_pitch (p.src.width);
  q.src.step = 1;
  q.dst = grey;
  q.dst_pitch = q.src.pitch;
  q.dst_step = 1;
  q.rgb_luma = false;
  return q;
}

HtLayout ht_layout (const HalftonePlane *planes, int n_planes);

/* skss ticket order: level l of every plane with more than l strips, planes
 * in call order, l = 0, 1, ...: strip s of a plane waits only on strip s-1,
 * which holds a smaller ticket. Segments of levels with the same planes. */
struct HtSchedule {
  int nseg = 0;
  int level0[halftone_max_planes] = {};      /* first level of segment j */
  int base[halftone_max_planes + 1] = {};    /* first ticket of segment j */
  int nact[halftone_max_planes] = {};        /* planes active in segment j */
  int act[halftone_max_planes][halftone_max_planes] = {};
  int total = 0;
};

HtSchedule ht_schedule (const int *strips, int n_planes);

/* Ticket t -> (plane, strip), on the host and the device alike. */
CIP_HT_HD void
ht_ticket (const HtSchedule &s, int t, int *plane, int *strip)
{
  int j = 0;
  while (j + 1 < s.nseg && t >= s.base[j + 1])
    j++;
  const int r = t - s.base[j];
  *strip = s.level0[j] + r / s.nact[j];
  *plane = s.act[j][r % s.nact[j]];
}

/* The skss grid cap of halftone_debug_max_workers (0 = none). */
int ht_debug_max_workers ();
/* The shear skss runs kernel k with: 2 where its reach allows
 * (Floyd-Steinberg, Sierra Lite, Atkinson: a chain of W + 2 H steps), else
 * kHtShift. */
constexpr int
ht_skss_shift (HalftoneKernel k)
{
  return ht_footprint (k).min_shift <= 2 ? 2 : kHtShift;
}

}  // namespace detail
}  // namespace cip
