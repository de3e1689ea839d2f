/* The sliding box filter (BoxAlgorithm::sliding): its decomposition into
 * blocks and the per-column / per-pixel steps, shared by the GPU kernel
 * (src/boxfilter.cu) and the host emulation of the tests, so that the tile and
 * strip edges the kernel walks are checked on the CPU too. Plain C++ when not
 * compiled by nvcc.
 *
 * A block owns the output columns [x0, x1) (tile_w wide) of the rows
 * [y0, y1) (a strip, strip_h high). It keeps, one per thread, the vertical
 * window sums of the source columns [la, lb) its outputs reach (the tile plus
 * rx on each side, cut at the frame), starting with a full (2ry+1)-row sum at
 * y0 and then sliding down one row at a time (add row y+ry, subtract row
 * y-ry-1; rows outside the frame are the edge row for replicate, zero for
 * clip). Each row's column sums are scanned (exclusive prefix over [la, lb))
 * in shared memory and every output takes two prefix taps, plus the
 * repeated edge columns for replicate. Cost per output: the vertical halo
 * (min(2ry+1, h) rows once per strip, 2 rows per output row) times
 * (lb - la) / (x1 - x0), so the plan picks tiles and strips from the radius,
 * the size and the number of SMs. */
#pragma once

#include <cstddef>
#include <cstdint>

#include "cip/boxfilter.h"
#include "detail/boxfilter_math.h"

namespace cip {
namespace detail {

constexpr int box_sliding_threads = 256;
/* widest tile; with the largest radius a thread keeps at most
 * box_sliding_max_kv column sums */
constexpr int box_sliding_max_tile_w = 1024;
constexpr int box_sliding_max_kv = (box_sliding_max_tile_w +
    2 * boxfilter_max_radius + box_sliding_threads - 1) / box_sliding_threads;
/* rows scanned per batch (one warp per row; 8 warps) */
constexpr int box_sliding_max_rows_batch = 8;
/* shared memory per block: no opt-in above the default 48 KiB */
constexpr size_t box_sliding_max_smem = 48 * 1024;

struct BoxSlidingPlan {
  int tile_w = 0;       /* output columns per block: 256, 512 or 1024 */
  int strip_h = 0;      /* output rows per block */
  int tiles_x = 0, strips = 0;
  int cols = 0;         /* most source columns a tile loads: min(w, tile_w + 2rx) */
  int kv = 0;           /* column sums per thread: ceil(cols / threads) */
  int row_stride = 0;   /* scan buffer entries per row: 32 * k, k odd, > cols */
  int rows_batch = 0;   /* rows per scan batch, 1 .. box_sliding_max_rows_batch */
  size_t smem = 0;      /* rows_batch * row_stride * sum_bytes */
};

/* Tiles and strips for a w x h plane (w, h >= 1) with sums of sum_bytes (4
 * for 8-bit samples, 8 for 16-bit), on a GPU of sms multiprocessors: the
 * minimum of a simple cost model (defined in host/boxfilter_host.cpp). */
BoxSlidingPlan box_sliding_plan (int w, int h, int rx, int ry, int sum_bytes,
    int sms);

struct BoxSlidingTile {
  int x0, x1;           /* output columns */
  int y0, y1;           /* output rows */
  int la, lb;           /* source columns whose sums the tile needs */
};

CIP_BOX_HD BoxSlidingTile
box_sliding_tile (const BoxSlidingPlan &P, int w, int h, int rx, int tx, int ty)
{
  BoxSlidingTile t;
  t.x0 = tx * P.tile_w;
  t.x1 = t.x0 + P.tile_w < w ? t.x0 + P.tile_w : w;
  t.y0 = ty * P.strip_h;
  t.y1 = t.y0 + P.strip_h < h ? t.y0 + P.strip_h : h;
  t.la = t.x0 - rx > 0 ? t.x0 - rx : 0;
  t.lb = t.x1 + rx < w ? t.x1 + rx : w;
  return t;
}

/* Sample (c, r) as the vertical window sees it: rows outside the frame are
 * the edge row (replicate) or zero (clip). get(c, r) reads a sample inside. */
template <class Get>
CIP_BOX_HD uint32_t
box_sliding_row_sample (const Get &get, int c, int r, int h, bool replicate)
{
  if (r < 0)
    return replicate ? get (c, 0) : 0u;
  if (r >= h)
    return replicate ? get (c, h - 1) : 0u;
  return get (c, r);
}

/* Vertical window sum of column c at row y: the rows inside the frame once,
 * the edge rows as often as the window repeats them (so a radius far beyond
 * the frame costs h rows, not 2ry+1). Fits uint32 for 16-bit samples too
 * (65535 * 2049 < 2^32). */
template <class Get>
CIP_BOX_HD uint32_t
box_sliding_col_init (const Get &get, int c, int y, int ry, int h,
    bool replicate)
{
  const BoxSpan sy = box_span (y, ry, h);
  uint32_t v = 0;
  for (int r = sy.lo; r < sy.hi; r++)
    v += get (c, r);
  if (replicate) {
    if (sy.rep_lo)
      v += (uint32_t) sy.rep_lo * get (c, 0);
    if (sy.rep_hi)
      v += (uint32_t) sy.rep_hi * get (c, h - 1);
  }
  return v;
}

/* Column sum of row y from that of row y - 1. */
template <class Get>
CIP_BOX_HD uint32_t
box_sliding_col_step (uint32_t v, const Get &get, int c, int y, int ry, int h,
    bool replicate)
{
  return v + box_sliding_row_sample (get, c, y + ry, h, replicate) -
      box_sliding_row_sample (get, c, y - ry - 1, h, replicate);
}

/* Window sum of output x from the exclusive prefix pre(i) = sum of the column
 * sums of columns la .. la+i-1 (U: uint32 wraps exactly for 8-bit samples,
 * uint64 for 16-bit). For replicate, a window reaching past the left edge
 * has la == 0 and past the right edge lb == w, so both edge columns are in
 * the prefix. */
template <class U, class Pre>
CIP_BOX_HD U
box_sliding_hsum (const Pre &pre, int x, int rx, int w, int la, bool replicate)
{
  const BoxSpan sx = box_span (x, rx, w);
  U s = pre (sx.hi - la) - pre (sx.lo - la);
  if (replicate) {
    if (sx.rep_lo)
      s += (U) sx.rep_lo * (pre (1 - la) - pre (0 - la));
    if (sx.rep_hi)
      s += (U) sx.rep_hi * (pre (w - la) - pre (w - 1 - la));
  }
  return s;
}

/* Window area of output x of row y: the full (2rx+1)(2ry+1) for replicate,
 * the part inside the frame for clip. */
CIP_BOX_HD uint32_t
box_sliding_area (int x, int y, int w, int h, int rx, int ry, bool replicate)
{
  if (replicate)
    return (uint32_t) (2 * rx + 1) * (uint32_t) (2 * ry + 1);
  const BoxSpan sx = box_span (x, rx, w), sy = box_span (y, ry, h);
  return (uint32_t) (sx.hi - sx.lo) * (uint32_t) (sy.hi - sy.lo);
}

/* 8-bit output: (sum + area/2) / area, by the magic of the full area when the
 * window is whole (the common case), else by the float reciprocal. */
CIP_BOX_HD uint32_t
box_sliding_out8 (uint32_t sum, uint32_t area, const BoxDivisor &full)
{
  if (area == full.d)
    return box_round_div_magic (sum, full);
  return box_round_div (sum, area, box_rcp (area));
}

/* 16-bit output value (before the shift into the sample): 64-bit sums, 32-bit
 * division when the dividend allows (area < 2^23 always). */
CIP_BOX_HD uint32_t
box_sliding_out16 (uint64_t sum, uint32_t area)
{
  const uint64_t n = sum + area / 2;
  if ((n >> 32) == 0)
    return (uint32_t) n / area;
  return (uint32_t) (n / area);
}

}  // namespace detail
}  // namespace cip
