/* Box filter on the GPU: per-plane u32 SATs (cip::integral) and one gather
 * kernel for all planes, one direct shared-memory kernel for small radii
 * (and a registers kernel for the smallest),
 * one sliding-sum kernel without a table, or per plane the tiled SAT's tile
 * sums and one fused output kernel (no table). The per-pixel arithmetic is
 * detail/boxfilter_math.h (and detail/boxfilter_sliding.h), shared with the
 * CPU reference and the tests' emulation. */
#include "cip/boxfilter.h"
#include "cip/integral.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <type_traits>
#include <utility>

#include "detail/boxfilter_math.h"
#include "detail/boxfilter_plan.h"
#include "detail/boxfilter_sliding.h"
#include "detail/check.cuh"
#include "detail/integral_internal.h"
#include "detail/launch.cuh"
#include "detail/warp_scan.cuh"

namespace cip {

using detail::BoxSpan;
using detail::box_span;
using detail::box_rcp;
using detail::box_round_div;

namespace {

constexpr unsigned kFull = 0xffffffffu;

/* 1 / area in one instruction (MUFU, at most 1 ulp off instead of IEEE's
 * several instructions): box_round_div's float estimate of the quotient
 * (<= 256) is still within 1 of the floor, and its correction step makes
 * it exact, so the result is the same as with box_rcp. */
__device__ __forceinline__ float
box_rcp_fast (uint32_t area)
{
  float r;
  asm ("rcp.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" ((float) area));
  return r;
}

/* The plane of a launch for several planes that block b works on (the
 * planes' blocks follow one another: block_begin ascending), and b made
 * relative to its first block. */
template <class Plane, int N>
__device__ __forceinline__ const Plane &
block_plane (const Plane (&p)[N], int n, int &b)
{
  int pi = 0;
  for (int i = 1; i < n; i++)
    if (b >= p[i].block_begin)
      pi = i;
  b -= p[pi].block_begin;
  return p[pi];
}

/* ---- SAT gather ----------------------------------------------------------
 * A warp walks along one output row, 256 outputs per step (8 per lane), up to
 * kGatherMaxSteps steps (fewer on small frames, so that there are enough
 * blocks to fill the GPU); a block is 8 warps on 8 rows. For its 8 outputs
 * at x a lane needs SAT columns x-rx .. x-rx+7 and x+rx+1 .. x+rx+8 of two
 * rows:
 * two or three aligned 16-byte loads per row and side (the third overlaps the
 * next lane's first and comes from L1; cheaper than shuffles, measured). All
 * loads of a step are issued before the first is used; walking along the row
 * lets the left taps of a step hit in L1 what the right taps of earlier steps
 * brought in. Rounded division by a constant area is a multiply-high.
 * Windows cut by the left or right edge use the same taps: a column left of
 * the frame reads as SAT column 0 (zero), one right of it is replaced by
 * column W, and for replicate the edge columns are added as often as the
 * window repeats them (the decomposition of boxfilter_math.h, per lane).
 * SATs without 16-byte aligned rows take the per-pixel path of
 * boxfilter_math.h. */
constexpr int kGatherRows = 8;
constexpr int kGatherThreads = 32 * kGatherRows;
constexpr int kGatherPx = 8;
constexpr int kGatherStepW = 32 * kGatherPx;
constexpr int kGatherMaxSteps = 4;

struct GatherPlane {
  const uint8_t *sat;
  size_t sat_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  int w, h, rx, ry;
  int tiles_x, block_begin;
  uint32_t full_area;
  float rcp_full;
  detail::BoxDivisor div_full;
  int vec;                      /* SAT rows 16-byte aligned */
};

struct GatherParams {
  GatherPlane p[boxfilter_max_planes];
  int n;
  int replicate;
  int steps;                    /* 1 .. kGatherMaxSteps */
};

struct DevSat {
  const uint8_t *base;
  size_t pitch;
  __host__ __device__ __forceinline__ uint32_t operator() (int x, int y) const {
#ifdef __CUDA_ARCH__
    return __ldg ((const uint32_t *) (base + (size_t) y * pitch) + x);
#else
    return ((const uint32_t *) (base + (size_t) y * pitch))[x];
#endif
  }
};

/* The 16-byte groups holding row[c .. c+7] for this lane: a = c - o with
 * o = c & 3, the same for every lane of the warp (c = warp base + 8 * lane +
 * const), so the selection below is a uniform branch. lim = W + 1. Groups
 * outside [0, lim) read as 0: only lanes that need none of them use the
 * result. Rows are 16-byte aligned with a pitch of whole groups, so a group
 * starting at a <= W lies inside the row's allocation. */
struct Taps8 {
  uint4 a0, a1, b;
};

__device__ __forceinline__ void
taps8_load (const uint32_t *row, int c, int o, int lim, Taps8 &t)
{
  const int a = c - o;
  const uint4 z = make_uint4 (0, 0, 0, 0);
  t.a0 = a >= 0 && a < lim ? __ldg (reinterpret_cast<const uint4 *> (row + a)) : z;
  t.a1 = a + 4 >= 0 && a + 4 < lim ?
      __ldg (reinterpret_cast<const uint4 *> (row + a + 4)) : z;
  t.b = o != 0 && a + 8 >= 0 && a + 8 < lim ?
      __ldg (reinterpret_cast<const uint4 *> (row + a + 8)) : z;
}

/* The 11 elements row[a .. a+10] of a group triple, t0 minus t1. */
__device__ __forceinline__ void
taps8_diff (const Taps8 &t0, const Taps8 &t1, uint32_t e[11])
{
  e[0] = t0.a0.x - t1.a0.x;
  e[1] = t0.a0.y - t1.a0.y;
  e[2] = t0.a0.z - t1.a0.z;
  e[3] = t0.a0.w - t1.a0.w;
  e[4] = t0.a1.x - t1.a1.x;
  e[5] = t0.a1.y - t1.a1.y;
  e[6] = t0.a1.z - t1.a1.z;
  e[7] = t0.a1.w - t1.a1.w;
  e[8] = t0.b.x - t1.b.x;
  e[9] = t0.b.y - t1.b.y;
  e[10] = t0.b.z - t1.b.z;
}

/* v[k] = e[o + k], k = 0..7 (o is warp-uniform). */
__device__ __forceinline__ void
select8 (const uint32_t e[11], int o, uint32_t v[8])
{
  switch (o) {
    case 0:
#pragma unroll
      for (int k = 0; k < 8; k++)
        v[k] = e[k];
      break;
    case 1:
#pragma unroll
      for (int k = 0; k < 8; k++)
        v[k] = e[k + 1];
      break;
    case 2:
#pragma unroll
      for (int k = 0; k < 8; k++)
        v[k] = e[k + 2];
      break;
    default:
#pragma unroll
      for (int k = 0; k < 8; k++)
        v[k] = e[k + 3];
      break;
  }
}

/* Two SAT rows y0 < y1 as differences d(c) = S(c, y0) - S(c, y1), so that
 * the sum of rows [y0, y1) over columns [x0, x1) is d(x0) - d(x1); plus the
 * values the clamped windows at the left and right edges need: d(1), d(w-1)
 * and d(w) (d(0) = 0). */
struct RowPair {
  const uint32_t *r0, *r1;
  uint32_t d1, dw1, dw;
};

__device__ __forceinline__ RowPair
row_pair (const GatherPlane &G, int y0, int y1)
{
  RowPair p;
  p.r0 = (const uint32_t *) (G.sat + (size_t) y0 * G.sat_pitch);
  p.r1 = (const uint32_t *) (G.sat + (size_t) y1 * G.sat_pitch);
  p.d1 = __ldg (p.r0 + 1) - __ldg (p.r1 + 1);
  p.dw1 = __ldg (p.r0 + G.w - 1) - __ldg (p.r1 + G.w - 1);
  p.dw = __ldg (p.r0 + G.w) - __ldg (p.r1 + G.w);
  return p;
}

/* s[k] = sum over the row pair of the window of output x + k, k = 0..7:
 * columns [x+k-rx, x+k+rx] clamped to the frame (clip: the part inside; a
 * left column below 0 reads as 0 = d(0) because whole 16-byte groups before
 * the row read as 0), and for replicate the first and last column repeated as
 * often as the window reaches past them. edge: some lane of the warp has a
 * window reaching past an edge (warp-uniform). */
__device__ __forceinline__ void
pair_sum8 (const GatherPlane &G, const RowPair &p, int x, bool replicate,
    bool edge, uint32_t s[8])
{
  const int w = G.w, rx = G.rx, lim = w + 1;
  const int cl = x - rx, cr = x + rx + 1;
  const int ol = cl & 3, orr = cr & 3;
  Taps8 t[4];
  taps8_load (p.r0, cl, ol, lim, t[0]);
  taps8_load (p.r1, cl, ol, lim, t[1]);
  taps8_load (p.r0, cr, orr, lim, t[2]);
  taps8_load (p.r1, cr, orr, lim, t[3]);
  uint32_t e[11], vl[8], vr[8];
  taps8_diff (t[0], t[1], e);
  select8 (e, ol, vl);
  taps8_diff (t[2], t[3], e);
  select8 (e, orr, vr);
  if (edge) {
#pragma unroll
    for (int k = 0; k < 8; k++)
      if (cr + k > w)
        vr[k] = p.dw;             /* right column clamped to w */
  }
#pragma unroll
  for (int k = 0; k < 8; k++)
    s[k] = vl[k] - vr[k];
  if (replicate && edge) {
    const uint32_t c0 = 0u - p.d1;          /* column 0 over the rows */
    const uint32_t cw = p.dw1 - p.dw;       /* column w-1 over the rows */
#pragma unroll
    for (int k = 0; k < 8; k++) {
      const int lo = rx - (x + k), hi = x + k + rx + 1 - w;
      if (lo > 0)
        s[k] += (uint32_t) lo * c0;
      if (hi > 0)
        s[k] += (uint32_t) hi * cw;
    }
  }
}

/* Stores 8 outputs, byte k of lo (k < 4) / hi (k >= 4) = output x + k. */
__device__ __forceinline__ void
store8 (uint8_t *drow, int step, int x, int w, uint32_t lo, uint32_t hi)
{
  uint8_t *d = drow + (size_t) x * step;
  if (step == 1 && x + 7 < w) {
    if (((uintptr_t) d & 7) == 0) {
      *reinterpret_cast<uint2 *> (d) = make_uint2 (lo, hi);
      return;
    }
    if (((uintptr_t) d & 3) == 0) {
      reinterpret_cast<uint32_t *> (d)[0] = lo;
      reinterpret_cast<uint32_t *> (d)[1] = hi;
      return;
    }
  }
#pragma unroll
  for (int k = 0; k < 8; k++)
    if (x + k < w)
      d[(size_t) k * step] = (uint8_t) ((k < 4 ? lo : hi) >> (8 * (k & 3)));
}

__global__ void __launch_bounds__ (kGatherThreads)
box_gather (const __grid_constant__ GatherParams P)
{
  int b = blockIdx.x;
  const GatherPlane &G = block_plane (P.p, P.n, b);
  const int ty = b / G.tiles_x, tx = b - ty * G.tiles_x;
  const int lane = threadIdx.x & 31;
  const int y = ty * kGatherRows + (int) (threadIdx.x >> 5);
  if (y >= G.h)
    return;                     /* whole warp */
  const int w = G.w, h = G.h, rx = G.rx;
  const bool replicate = P.replicate != 0;
  const BoxSpan sy = box_span (y, G.ry, h);
  const uint32_t ah = (uint32_t) (sy.hi - sy.lo);
  const bool full_rows = ah == (uint32_t) (2 * G.ry + 1);
  uint8_t *drow = G.dst + (size_t) y * G.dst_pitch;

  if (!G.vec) {
    /* SAT rows not 16-byte aligned: per-pixel taps */
    const DevSat S = { G.sat, G.sat_pitch };
    for (int x = (tx * P.steps) * kGatherStepW + kGatherPx * lane;
        x < w && x < (tx + 1) * P.steps * kGatherStepW; x += kGatherStepW) {
      uint32_t lo = 0, hi = 0;
      for (int k = 0; k < 8 && x + k < w; k++) {
        const uint32_t v = detail::box_pixel (S, x + k, y, w, h, rx, G.ry,
            replicate, G.full_area, G.rcp_full);
        if (k < 4)
          lo |= v << (8 * k);
        else
          hi |= v << (8 * (k - 4));
      }
      store8 (drow, G.dst_step, x, w, lo, hi);
    }
    return;
  }

  const RowPair main = row_pair (G, sy.lo, sy.hi);
  for (int step = 0; step < P.steps; step++) {
    const int xw = (tx * P.steps + step) * kGatherStepW;
    if (xw >= w)
      break;                    /* whole warp */
    const int x = xw + kGatherPx * lane;
    /* windows of this lane reaching past the left or right edge */
    const bool lane_edge = x - rx < 0 || x + kGatherPx + rx > w;
    const bool edge = __any_sync (kFull, lane_edge);
    uint32_t sum[8];
    pair_sum8 (G, main, x, replicate, edge, sum);
    if (replicate && sy.rep_lo) {     /* row 0 repeated */
      uint32_t t[8];
      pair_sum8 (G, row_pair (G, 0, 1), x, true, edge, t);
#pragma unroll
      for (int k = 0; k < 8; k++)
        sum[k] += (uint32_t) sy.rep_lo * t[k];
    }
    if (replicate && sy.rep_hi) {     /* row h-1 repeated */
      uint32_t t[8];
      pair_sum8 (G, row_pair (G, h - 1, h), x, true, edge, t);
#pragma unroll
      for (int k = 0; k < 8; k++)
        sum[k] += (uint32_t) sy.rep_hi * t[k];
    }
    if (x >= w)
      continue;
    uint32_t lo = 0, hi = 0;
    if (replicate || (!lane_edge && full_rows)) {
#pragma unroll
      for (int k = 0; k < 4; k++) {
        lo |= detail::box_round_div_magic (sum[k], G.div_full) << (8 * k);
        hi |= detail::box_round_div_magic (sum[k + 4], G.div_full) << (8 * k);
      }
    } else {
      /* clipped windows: the area of each */
#pragma unroll
      for (int k = 0; k < 8; k++) {
        const BoxSpan sx = box_span (x + k, rx, w);
        const uint32_t area = (uint32_t) (sx.hi - sx.lo) * ah;
        const float rcp = area == G.full_area ? G.rcp_full : box_rcp (area);
        const uint32_t v = box_round_div (sum[k], area, rcp);
        if (k < 4)
          lo |= v << (8 * k);
        else
          hi |= v << (8 * (k - 4));
      }
    }
    store8 (drow, G.dst_step, x, w, lo, hi);
  }
}

/* ---- direct (small radii) -------------------------------------------------
 * A block computes a 128 x 64 tile: it stages the source tile with its halo
 * in shared memory (samples clamped for replicate, zero outside for clip) in
 * 16-byte chunks, all loads in flight at once; sums each row horizontally
 * (u16: at most 33 * 255); then each warp slides a vertical window down 8
 * output rows, 4 columns per lane. */
constexpr int kDirTileW = 128;
constexpr int kDirWarps = 8;
constexpr int kDirThreads = 32 * kDirWarps;
/* Tile heights: short tiles for small vertical radii (more blocks: small
 * frames fill the GPU), tall ones above (less halo to stage and sum). */
constexpr int kDirTileHSmall = 32;
constexpr int kDirTileHLarge = 64;
constexpr int kDirSmallMaxRy = 6;
/* 16-byte chunks per staged row: the row starts up to 15 bytes into its first
 * chunk (the source's alignment), so (cols + 15) bytes, rounded up. */
__host__ __device__ constexpr int
dir_chunks (int rx)
{
  return (kDirTileW + 2 * rx + 30) / 16;
}

/* Packed 4-channel planes (RGBA and the like, filtered in one pass: the
 * byte at x of a row is channel x % 4 of pixel x / 4, and a tile's 128
 * bytes are 32 pixels): the staged row holds 4 * rx bytes of halo each
 * side, in up to 32 chunks (two per lane of a half-warp). */
__host__ __device__ constexpr int
dir_chunks_pk (int rx)
{
  return (kDirTileW + 8 * rx + 30) / 16;
}

/* Dynamic shared memory of a direct block: the rows' u16 horizontal sums
 * (hs) and the staged rows (tile_pitch bytes each). */
__host__ __device__ constexpr size_t
dir_smem (int tile_rows, int tile_pitch)
{
  return (size_t) tile_rows * kDirTileW * sizeof (uint16_t) +
      (size_t) tile_rows * tile_pitch;
}

/* Stores the 4 outputs packed in v (byte k = output x + k). */
__device__ __forceinline__ void
store4 (uint8_t *drow, int step, int x, int w, uint32_t v)
{
  uint8_t *d = drow + (size_t) x * step;
  if (step == 1 && x + 3 < w && ((uintptr_t) d & 3) == 0) {
    *reinterpret_cast<uint32_t *> (d) = v;
    return;
  }
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (x + k < w)
      d[(size_t) k * step] = (uint8_t) (v >> (8 * k));
}

/* 16 source samples from column gx0 of row rowp: one aligned load when they
 * are all inside the row of a planar source, else one by one, clamped
 * (replicate) or zero outside (clip); a row outside the frame is all zero for
 * clip (rowp is the clamped row). */
__device__ __forceinline__ uint4
load_chunk (const uint8_t *rowp, int gx0, int w, int step, bool replicate,
    bool yin)
{
  if (!yin && !replicate)
    return make_uint4 (0, 0, 0, 0);
  if (step == 1 && gx0 >= 0 && gx0 + 16 <= w)
    return __ldg (reinterpret_cast<const uint4 *> (rowp + gx0));
  uint32_t wd[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int i = 0; i < 16; i++) {
    const int gx = gx0 + i;
    const int cx = gx < 0 ? 0 : (gx >= w ? w - 1 : gx);
    uint32_t v = 0;
    if (replicate || gx == cx)
      v = __ldg (rowp + (size_t) cx * step);
    wd[i >> 2] |= v << (8 * (i & 3));
  }
  return make_uint4 (wd[0], wd[1], wd[2], wd[3]);
}

/* 16 bytes of a packed 4-channel row from byte gb0 (rowp: the row's first
 * byte): one aligned load inside the row, else byte by byte, each byte the
 * same channel of the clamped pixel (replicate) or zero outside (clip). */
__device__ __forceinline__ uint4
load_chunk_pk (const uint8_t *rowp, int gb0, int w, bool replicate, bool yin)
{
  if (!yin && !replicate)
    return make_uint4 (0, 0, 0, 0);
  if (gb0 >= 0 && gb0 + 16 <= 4 * w)
    return __ldg (reinterpret_cast<const uint4 *> (rowp + gb0));
  uint32_t wd[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int i = 0; i < 16; i++) {
    const int gb = gb0 + i;
    const int px = gb >> 2;     /* floor: gb may be negative */
    const int cx = px < 0 ? 0 : (px >= w ? w - 1 : px);
    uint32_t v = 0;
    if (replicate || px == cx)
      v = __ldg (rowp + 4 * (size_t) cx + (gb & 3));
    wd[i >> 2] |= v << (8 * (i & 3));
  }
  return make_uint4 (wd[0], wd[1], wd[2], wd[3]);
}

struct DirectPlane {
  const uint8_t *src;
  size_t src_pitch;
  int src_step;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  int w, h, rx, ry;             /* packed: w in pixels */
  int tiles_x, block_begin;
  uint32_t full_area;
  float rcp_full;
  detail::BoxDivisor div_full;
  uint32_t copy_mask;           /* packed: 0xff in the bytes of channels
                                   copied rather than filtered */
};

/* A plane of box_direct: tiles_x tiles across, its first block
 * block_begin; copy_mask 0. */
DirectPlane
direct_plane (const uint8_t *src, size_t src_pitch, int src_step, uint8_t *dst,
    size_t dst_pitch, int dst_step, int w, int h, int rx, int ry, int tiles_x,
    int block_begin)
{
  DirectPlane d = {};
  d.src = src;
  d.src_pitch = src_pitch;
  d.src_step = src_step;
  d.dst = dst;
  d.dst_pitch = dst_pitch;
  d.dst_step = dst_step;
  d.w = w;
  d.h = h;
  d.rx = rx;
  d.ry = ry;
  d.tiles_x = tiles_x;
  d.block_begin = block_begin;
  d.full_area = (uint32_t) (2 * rx + 1) * (uint32_t) (2 * ry + 1);
  d.rcp_full = box_rcp (d.full_area);
  d.div_full = detail::box_divisor (d.full_area);
  return d;
}

struct DirectParams {
  DirectPlane p[boxfilter_max_planes];
  int n;
  int replicate;
  int tile_pitch;               /* bytes per staged source row, multiple of 16 */
  int tile_rows;                /* TH + 2 * (largest ry) */
};

/* Blocks per SM the short-tile kernel is register-limited for: a full SM
 * (2048 threads on sm_80 and sm_90, 1536 on sm_86/89, 1024 on sm_75). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
#define CIP_BOX_DIRECT_BLOCKS 8
#elif __CUDA_ARCH__ >= 860
#define CIP_BOX_DIRECT_BLOCKS 6
#else
#define CIP_BOX_DIRECT_BLOCKS 4
#endif

/* PK: packed 4-channel planes (dir_chunks_pk), a launch of their own; a
 * lane's 4 bytes are then one pixel's channels, summed as two pairs of
 * 16-bit halves of a word per tap. */
template <int TH, int MAX_RY, bool PK>
__global__ void __launch_bounds__ (kDirThreads,
    TH == kDirTileHSmall ? CIP_BOX_DIRECT_BLOCKS : 4)
box_direct (const __grid_constant__ DirectParams P)
{
  constexpr int kRowsPerWarp = TH / kDirWarps;
  constexpr int kMaxRows = TH + 2 * MAX_RY;
  /* staging: a half-warp per row, a lane per 16-byte chunk (<= 11 chunks;
   * packed: two passes, <= 17) */
  constexpr int kMaxIter = (kMaxRows + 2 * kDirWarps - 1) / (2 * kDirWarps);
  constexpr int kPasses = PK ? 2 : 1;
  static_assert (dir_chunks (boxfilter_direct_max_radius) <= 16, "chunks");
  static_assert (dir_chunks_pk (boxfilter_direct_max_radius) <= 32, "chunks");
  extern __shared__ __align__ (16) uint8_t smem[];
  int b = blockIdx.x;
  const DirectPlane &D = block_plane (P.p, P.n, b);
  const int ty = b / D.tiles_x, tx = b - ty * D.tiles_x;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int w = D.w, h = D.h, rx = D.rx, ry = D.ry;
  const bool replicate = P.replicate != 0;
  const int x0 = tx * kDirTileW, y0 = ty * TH;
  const int rows = TH + 2 * ry;
  const int tp = P.tile_pitch;
  uint2 *hs = reinterpret_cast<uint2 *> (smem);     /* [tile_rows][32] x 4 u16 */
  uint8_t *t = smem + (size_t) P.tile_rows * kDirTileW * sizeof (uint16_t);

  /* 1. source tile rows y0-ry .., columns x0-rx ..: row r is staged from
   * the 16-byte boundary at or before its first sample, shift[r] bytes
   * earlier (planar sources; 0 for channel views) */
  __shared__ uint8_t shift[kMaxRows];
  const int hx = PK ? 4 * rx : rx;      /* halo bytes each side */
  const int nch = PK ? dir_chunks_pk (rx) : dir_chunks (rx);
  const int r_first = 2 * warp + (lane >> 4);
#pragma unroll
  for (int pass = 0; pass < kPasses; pass++) {
    const int k = (lane & 15) + 16 * pass;
    uint4 v[kMaxIter];
#pragma unroll
    for (int it = 0; it < kMaxIter; it++) {
      const int r = r_first + it * 2 * kDirWarps;
      if (r < rows && k < nch) {
        const int gy = y0 - ry + r;
        const bool yin = gy >= 0 && gy < h;
        const int cy = gy < 0 ? 0 : (gy >= h ? h - 1 : gy);
        const uint8_t *rowp = D.src + (size_t) cy * D.src_pitch;
        const int sh = PK || D.src_step == 1 ?
            (int) (((uintptr_t) rowp + (uintptr_t) (intptr_t) (x0 - hx)) & 15) :
            0;
        if (k == 0)
          shift[r] = (uint8_t) sh;
        v[it] = PK ? load_chunk_pk (rowp, x0 - hx - sh + 16 * k, w, replicate,
            yin) : load_chunk (rowp, x0 - rx - sh + 16 * k, w, D.src_step,
            replicate, yin);
      }
    }
#pragma unroll
    for (int it = 0; it < kMaxIter; it++) {
      const int r = r_first + it * 2 * kDirWarps;
      if (r < rows && k < nch)
        *reinterpret_cast<uint4 *> (t + r * tp + 16 * k) = v[it];
    }
  }
  __syncthreads ();

  /* 2. horizontal sums of every staged row, 4 outputs per lane */
  if constexpr (PK) {
    /* 4 rows a warp at a time, 8 lanes a row, a lane's 4 pixels from one
     * full sum and 3 slides. A pixel's sums: channels 0 and 2 in the
     * halves of lo, 1 and 3 in hi (each < 33 * 255; wrap-around in the
     * slides is exact). shift[r] is a multiple of 4 here. The rows' lanes
     * start their full sums s taps apart, so that the 32 lanes' loads fall
     * in different banks. */
    const int s = lane & 3, q = lane >> 2;
    const int n = 2 * rx + 1;
    const int rot = s < n ? s : 0;
    for (int r0 = 4 * warp; r0 < rows; r0 += 4 * kDirWarps) {
      const int r = r0 + s;
      if (r >= rows)
        continue;
      const uint8_t *tr = t + r * tp + shift[r] + 16 * q;
      auto word = [tr] (int j) {
        return *reinterpret_cast<const uint32_t *> (tr + 4 * j);
      };
      uint32_t lo = 0, hi = 0;
      for (int j = rot; j < n; j++) {
        const uint32_t wd = word (j);
        lo += wd & 0x00ff00ffu;
        hi += (wd >> 8) & 0x00ff00ffu;
      }
      for (int j = 0; j < rot; j++) {
        const uint32_t wd = word (j);
        lo += wd & 0x00ff00ffu;
        hi += (wd >> 8) & 0x00ff00ffu;
      }
      uint2 *hr = hs + r * 32 + 4 * q;
      hr[0] = make_uint2 (__byte_perm (lo, hi, 0x5410),
          __byte_perm (lo, hi, 0x7632));
#pragma unroll
      for (int k = 1; k < 4; k++) {
        const uint32_t in = word (n - 1 + k), ou = word (k - 1);
        lo += (in & 0x00ff00ffu) - (ou & 0x00ff00ffu);
        hi += ((in >> 8) & 0x00ff00ffu) - ((ou >> 8) & 0x00ff00ffu);
        hr[k] = make_uint2 (__byte_perm (lo, hi, 0x5410),
            __byte_perm (lo, hi, 0x7632));
      }
    }
  }
  for (int r = warp; !PK && r < rows; r += kDirWarps) {
    const uint8_t *tr = t + r * tp + shift[r] + 4 * lane;
    uint32_t s = 0;
    for (int j = 0; j <= 2 * rx; j++)
      s += tr[j];
    const uint32_t h0 = s;
    s += (uint32_t) tr[2 * rx + 1] - tr[0];
    const uint32_t h1 = s;
    s += (uint32_t) tr[2 * rx + 2] - tr[1];
    const uint32_t h2 = s;
    s += (uint32_t) tr[2 * rx + 3] - tr[2];
    hs[r * 32 + lane] = make_uint2 (h0 | (h1 << 16), h2 | (s << 16));
  }
  __syncthreads ();

  /* 3. vertical sliding sums: rows oy .. oy+7 of the tile, columns x .. x+3 */
  const int oy = warp * kRowsPerWarp;
  const int x = x0 + 4 * lane;
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int j = 0; j <= 2 * ry; j++) {
    const uint2 v = hs[(oy + j) * 32 + lane];
    a0 += v.x & 0xffffu;
    a1 += v.x >> 16;
    a2 += v.y & 0xffffu;
    a3 += v.y >> 16;
  }
  const int px = PK ? x >> 2 : x;      /* the lane's first pixel */
  const BoxSpan sx0 = box_span (px, rx, w);
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++) {
    const int y = y0 + oy + i;
    if (y < h && px < w) {
      const uint32_t sums[4] = { a0, a1, a2, a3 };
      uint32_t out = 0;
      const BoxSpan sy = box_span (y, ry, h);
      const uint32_t ah = (uint32_t) (sy.hi - sy.lo);
      const bool inner_x = sx0.rep_lo == 0 && px + (PK ? 1 : 4) + rx <= w;
      if (replicate || (inner_x && ah == (uint32_t) (2 * ry + 1))) {
#pragma unroll
        for (int k = 0; k < 4; k++)
          out |= detail::box_round_div_magic (sums[k], D.div_full) << (8 * k);
      } else {
#pragma unroll
        for (int k = 0; k < 4; k++) {
          uint32_t aw = (uint32_t) (2 * rx + 1);
          if (!inner_x) {
            const BoxSpan sx = PK ? sx0 : box_span (x + k, rx, w);
            aw = (uint32_t) (sx.hi - sx.lo);
          }
          const uint32_t area = aw * ah;
          const float rcp = area == D.full_area ? D.rcp_full : box_rcp (area);
          out |= box_round_div (sums[k], area, rcp) << (8 * k);
        }
      }
      if constexpr (PK) {
        /* copied channels: the pixel's own bytes, staged row oy + i + ry */
        if (D.copy_mask) {
          const int r = oy + i + ry;
          const uint32_t c = *reinterpret_cast<const uint32_t *> (t + r * tp +
              shift[r] + 4 * lane + 4 * rx);
          out = (out & ~D.copy_mask) | (c & D.copy_mask);
        }
        *reinterpret_cast<uint32_t *> (D.dst + (size_t) y * D.dst_pitch +
            x) = out;
      } else {
        store4 (D.dst + (size_t) y * D.dst_pitch, D.dst_step, x, w, out);
      }
    }
    if (i + 1 < kRowsPerWarp) {
      const uint2 in = hs[(oy + i + 2 * ry + 1) * 32 + lane];
      const uint2 ou = hs[(oy + i) * 32 + lane];
      a0 += (in.x & 0xffffu) - (ou.x & 0xffffu);
      a1 += (in.x >> 16) - (ou.x >> 16);
      a2 += (in.y & 0xffffu) - (ou.y & 0xffffu);
      a3 += (in.y >> 16) - (ou.y >> 16);
    }
  }
}

/* ---- direct in registers (small radii) ------------------------------------
 * Planar 8-bit planes with 4-byte aligned rows (address and pitch of source
 * and destination) at rx, ry <= kRegMaxR or rx = ry <= kRegMaxSquare: no
 * shared memory, no barrier. A warp owns a strip of 120 columns (112 above
 * rx = 3): a 4-byte word for each of its inner lanes, while the one or two
 * lanes either side load the words the windows reach into. It issues the
 * loads of all reg_rows(ry) + 2ry source words of its lanes at once (a
 * small window is memory-bound: the loads in flight are what counts), takes
 * the neighbouring words by shuffle, sums rows and columns as packed 16-bit
 * pairs (at most (2r+1)^2 * 255 < 2^16) and divides by the constant area
 * with detail::box_round_div_byte, a multiply-add whose top byte is the
 * output. Clip's edge lanes carry their own divisors; windows cut by the
 * top or bottom divide one by one. A block is kRegWarps warps on
 * consecutive bands of one strip (their halo rows meet in L1). */
constexpr int kRegMaxR = detail::kBoxRegMaxRadius;
constexpr int kRegWarps = 4;
/* Output rows a warp: 8 (12 blocks an SM: at most 40 registers), 12 for
 * ry = 3 (whose 2ry halo rows would cost more; 10 blocks), 8 at 8 blocks
 * for the squares 4-5. Measured on an H100 against 16 and 24 rows, 8-12
 * blocks (bench/RESULTS.md, round 14). */
__host__ __device__ constexpr int
reg_rows (int ry)
{
  return ry == 3 ? 12 : 8;
}
__host__ __device__ constexpr int
reg_min_blocks (int ry)
{
  return ry >= 4 ? 8 : ry == 3 ? 10 : 12;
}
/* Lanes either side that only load (the words a window reaches into), and
 * the columns a warp owns: 120 up to rx = 3, 112 above. */
__host__ __device__ constexpr int
reg_halo (int rx)
{
  return rx >= 4 ? 2 : 1;
}
__host__ __device__ constexpr int
reg_strip_w (int rx)
{
  return 4 * (32 - 2 * reg_halo (rx));
}
constexpr int kRegMaxSquare = detail::kBoxRegMaxSquare;
static_assert ((2 * kRegMaxSquare + 1) * (2 * kRegMaxSquare + 1) * 255 < 65536 &&
    kRegMaxSquare < 8 && kRegMaxR < 4, "16-bit pair sums; words <= 2 away");

struct RegPlane {
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int w, h;
  int strips, block_begin;
};

struct RegParams {
  RegPlane p[boxfilter_max_planes];
  int n;
  int replicate;
  detail::BoxByteDivisor div;   /* (2rx+1)(2ry+1): one radius per launch */
};

/* The 4 samples from column x of a row, x < w; past the row's end (x + 4 >
 * w) the last sample repeated (replicate) or 0 (clip), read one by one. */
__device__ __forceinline__ uint32_t
reg_word (const uint8_t *row, int x, int w, bool replicate)
{
  if (x + 4 <= w)
    return __ldg (reinterpret_cast<const uint32_t *> (row + x));
  const int n = w - x;
  uint32_t v = __ldg (row + x);
  if (n > 1)
    v |= (uint32_t) __ldg (row + x + 1) << 8;
  if (n > 2)
    v |= (uint32_t) __ldg (row + x + 2) << 16;
  if (replicate)
    v = __byte_perm (v, 0, n == 1 ? 0x0000 : n == 2 ? 0x1110 : 0x2210);
  return v;
}

/* Samples (b[o], b[o+2]) as a packed pair, o relative to the lane's first
 * sample: e[q+H] / od[q+H] hold the even / odd samples of word q (-H .. H)
 * as pairs. o is a constant after unrolling. */
template <int H>
__device__ __forceinline__ uint32_t
reg_pair (int o, const uint32_t *e, const uint32_t *od)
{
  const int q = (o + 4 * H) / 4 - H, r = o - 4 * q;
  switch (r) {
    case 0: return e[q + H];
    case 1: return od[q + H];
    case 2: return __funnelshift_r (e[q + H], e[q + H + 1], 16);
    default: return __funnelshift_r (od[q + H], od[q + H + 1], 16);
  }
}

/* A lane's view of the frame's left and right edges: its word x .. x+3 and
 * the words up to 2 away, which lie past an edge when x - 4j < 0 or
 * x + 4j >= w. */
struct RegLane {
  bool replicate;
  bool left0, left1;            /* x == 0, x == 4 */
  bool right0, right1;          /* x + 4 >= w; x + 4 < w <= x + 8 */
  uint32_t right_sel;           /* byte permute selecting sample w-1 from
                                   word 0 (right0) or word 1 (right1) */
};

/* Words -H .. H around the lane's word C (W[H] = C), by shuffle (every
 * lane takes part); a word past the frame's edge is its edge sample
 * repeated (replicate) or 0 (clip). */
template <int H>
__device__ __forceinline__ void
reg_neighbours (uint32_t C, const RegLane &ln, uint32_t *W)
{
  W[H] = C;
#pragma unroll
  for (int j = 1; j <= H; j++) {
    W[H - j] = __shfl_up_sync (kFull, C, j);
    W[H + j] = __shfl_down_sync (kFull, C, j);
  }
  const uint32_t l0 = ln.replicate ? __byte_perm (C, 0, 0x0000) : 0;
  const uint32_t r0 = ln.replicate ? __byte_perm (C, 0, ln.right_sel) : 0;
  if (ln.left0) {
#pragma unroll
    for (int j = 1; j <= H; j++)
      W[H - j] = l0;
  }
  if (ln.right0) {
#pragma unroll
    for (int j = 1; j <= H; j++)
      W[H + j] = r0;
  }
  if (H >= 2) {
    if (ln.left1)
      W[H - 2] = ln.replicate ? __byte_perm (W[H - 1], 0, 0x0000) : 0;
    if (ln.right1)
      W[H + 2] = ln.replicate ? __byte_perm (W[H + 1], 0, ln.right_sel) : 0;
  }
}

/* Horizontal window sums of the lane's 4 samples as packed pairs: se for
 * samples 0 and 2, so for 1 and 3 (W from reg_neighbours). */
template <int RX, int H>
__device__ __forceinline__ void
reg_hsum (const uint32_t *W, uint32_t &se, uint32_t &so)
{
  uint32_t ev[2 * H + 1], od[2 * H + 1];
#pragma unroll
  for (int j = 0; j <= 2 * H; j++) {
    ev[j] = __byte_perm (W[j], 0, 0x4240);
    od[j] = __byte_perm (W[j], 0, 0x4341);
  }
  se = 0;
  so = 0;
#pragma unroll
  for (int d = -RX; d <= RX; d++) {
    se += reg_pair<H> (d, ev, od);
    so += reg_pair<H> (d + 1, ev, od);
  }
}

/* The 4 outputs from the window sums (pairs ve: samples 0, 2; vo: 1, 3):
 * byte 3 of each sum * m + k (detail::box_round_div_byte; a divisor per
 * column). */
__device__ __forceinline__ uint32_t
reg_divide (uint32_t ve, uint32_t vo, const uint32_t *m, const uint32_t *k)
{
  return __byte_perm (
      __byte_perm ((ve & 0xffffu) * m[0] + k[0], (vo & 0xffffu) * m[1] + k[1],
          0x0073),
      __byte_perm ((ve >> 16) * m[2] + k[2], (vo >> 16) * m[3] + k[3], 0x0073),
      0x5410);
}

/* Rows y0 .. y0 + reg_rows(RY) - 1 of a lane's 4 columns (lanes H .. 31-H
 * store): all loads first (clamped rows for replicate, zero rows outside
 * the frame for clip), then the rows' horizontal sums into a ring of the
 * window's rows and each output from their sum (ry >= 4: a running sum,
 * the ring's oldest row out, the new one in). GENERIC: rows of the window
 * may be outside the frame, output rows past the bottom, the row's last
 * words partial, and clip windows cut by the top or bottom divide one by
 * one; otherwise (all other bands) none of that is checked. */
template <int RX, int RY, bool GENERIC>
__device__ __forceinline__ void
reg_band (const RegPlane &D, int y0, int x, bool in, bool out_lane,
    bool whole, const RegLane &ln, const uint32_t *m, const uint32_t *k)
{
  constexpr int H = reg_halo (RX);
  constexpr int NR = reg_rows (RY) + 2 * RY;
  const int w = D.w, h = D.h;
  const bool replicate = ln.replicate;
  uint32_t c[NR];
#pragma unroll
  for (int i = 0; i < NR; i++) {
    if (!GENERIC) {
      const uint8_t *row = D.src + (size_t) (y0 - RY + i) * D.src_pitch;
      c[i] = in ? __ldg (reinterpret_cast<const uint32_t *> (row + x)) : 0;
      continue;
    }
    const int gy = y0 - RY + i;
    const int cy = gy < 0 ? 0 : (gy >= h ? h - 1 : gy);
    const uint8_t *row = D.src + (size_t) cy * D.src_pitch;
    c[i] = 0;
    if (in && (replicate || gy == cy))
      c[i] = whole ? __ldg (reinterpret_cast<const uint32_t *> (row + x)) :
          reg_word (row, x, w, replicate);
  }
  uint8_t *drow = D.dst + (size_t) y0 * D.dst_pitch + (out_lane ? x : 0);
  uint32_t he[2 * RY + 1] = {}, ho[2 * RY + 1] = {};
  uint32_t ve = 0, vo = 0;      /* ry >= 4: the ring's sum */
#pragma unroll
  for (int i = 0; i < NR; i++) {
    uint32_t W[2 * H + 1];
    reg_neighbours<H> (c[i], ln, W);
    /* the ring of the window's rows, oldest first */
    const uint32_t oe = he[0], oo = ho[0];
#pragma unroll
    for (int j = 0; j < 2 * RY; j++) {
      he[j] = he[j + 1];
      ho[j] = ho[j + 1];
    }
    reg_hsum<RX, H> (W, he[2 * RY], ho[2 * RY]);
    if (RY >= 4) {
      /* every half stays below 2^16: (sum + new) <= 225 * 255 + 15 * 255 */
      ve = ve + he[2 * RY] - oe;
      vo = vo + ho[2 * RY] - oo;
    }
    if (i < 2 * RY)
      continue;
    const int y = y0 + i - 2 * RY;
    if (GENERIC && y >= h)
      break;                    /* uniform in the warp */
    if (RY < 4) {
      ve = 0;
      vo = 0;
#pragma unroll
      for (int j = 0; j <= 2 * RY; j++) {
        ve += he[j];
        vo += ho[j];
      }
    }
    uint32_t out;
    if (!GENERIC || replicate || (y >= RY && y < h - RY)) {
      out = reg_divide (ve, vo, m, k);
    } else {
      /* clip windows cut by the top or bottom: one by one */
      const BoxSpan sy = box_span (y, RY, h);
      const uint32_t s[4] = { ve & 0xffffu, vo & 0xffffu, ve >> 16, vo >> 16 };
      out = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) {
        /* columns past w (a partial last word, never stored) divide as
         * column w-1 does: no area of 0 */
        const BoxSpan sx = box_span (min (x + j, w - 1), RX, w);
        const uint32_t area = (uint32_t) (sx.hi - sx.lo) *
            (uint32_t) (sy.hi - sy.lo);
        out |= box_round_div (s[j], area, box_rcp_fast (area)) << (8 * j);
      }
    }
    if (out_lane) {
      if (!GENERIC || x + 4 <= w) {
        *reinterpret_cast<uint32_t *> (drow) = out;
      } else {
        for (int j = 0; j < w - x; j++)
          drow[j] = (uint8_t) (out >> (8 * j));
      }
    }
    drow += D.dst_pitch;
  }
}

template <int RX, int RY>
__global__ void __launch_bounds__ (32 * kRegWarps, reg_min_blocks (RY))
box_reg (const __grid_constant__ RegParams P)
{
  constexpr int H = reg_halo (RX);
  constexpr int SW = reg_strip_w (RX);
  int b = blockIdx.x;
  const RegPlane &D = block_plane (P.p, P.n, b);
  const int group = b / D.strips, strip = b - group * D.strips;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int w = D.w, h = D.h;
  const int y0 = (group * kRegWarps + warp) * reg_rows (RY);
  if (y0 >= h)
    return;                     /* the whole warp: no barrier in this kernel */
  const bool replicate = P.replicate != 0;
  /* lanes H .. 31-H own the strip's SW columns; the H lanes either side
   * load the words their neighbours' windows reach into */
  const int x = strip * SW + 4 * (lane - H);
  const bool in = x >= 0 && x < w;
  const bool out_lane = in && lane >= H && lane <= 31 - H;
  RegLane ln;
  ln.replicate = replicate;
  ln.left0 = x == 0;
  ln.left1 = x == 4;
  ln.right0 = x + 4 >= w;
  ln.right1 = x + 4 < w && x + 8 >= w;
  ln.right_sel = (uint32_t) (!in ? 0 : ln.right0 ? w - 1 - x :
      ln.right1 ? w - 5 - x : 0) * 0x1111u;
  /* a divisor per output column: the full window's, or for clip at the
   * left and right edges the clipped width's (rows whose window the top or
   * bottom cuts divide one by one) */
  uint32_t m[4], k[4];
#pragma unroll
  for (int j = 0; j < 4; j++) {
    m[j] = P.div.m;
    k[j] = P.div.c;
  }
  if (!replicate && out_lane && (x < RX || x + 4 + RX > w)) {
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const BoxSpan sx = box_span (min (x + j, w - 1), RX, w);  /* as above */
      const detail::BoxByteDivisor dv = detail::box_byte_divisor (
          (uint32_t) (sx.hi - sx.lo) * (uint32_t) (2 * RY + 1));
      m[j] = dv.m;
      k[j] = dv.c;
    }
  }
  /* whether every word the warp reads is whole (else the row's last words
   * are read one sample at a time); lane 31 reads the last */
  const int wf = w & ~3;
  const bool whole = wf == w || strip * SW + 4 * (32 - H) <= wf;
  if (whole && y0 >= RY && y0 + reg_rows (RY) + RY <= h)
    reg_band<RX, RY, false> (D, y0, x, in, out_lane, whole, ln, m, k);
  else
    reg_band<RX, RY, true> (D, y0, x, in, out_lane, whole, ln, m, k);
}

using RegKernel = void (*) (const RegParams);

template <int RX, int... RY>
constexpr std::array<RegKernel, sizeof... (RY)>
reg_row (std::integer_sequence<int, RY...>)
{
  return { &box_reg<RX, RY>... };
}

template <int... R>
constexpr std::array<RegKernel, sizeof... (R)>
reg_squares (std::integer_sequence<int, R...>)
{
  return { &box_reg<R + kRegMaxR + 1, R + kRegMaxR + 1>... };
}

/* box_reg<rx, ry> for rx, ry = 0 .. kRegMaxR, and rx = ry up to
 * kRegMaxSquare (detail::box_direct_registers) */
RegKernel
reg_kernel (int rx, int ry)
{
  using Seq = std::make_integer_sequence<int, kRegMaxR + 1>;
  static const std::array<RegKernel, kRegMaxR + 1> rows[kRegMaxR + 1] = {
    reg_row<0> (Seq {}), reg_row<1> (Seq {}), reg_row<2> (Seq {}),
    reg_row<3> (Seq {}) };
  static_assert (kRegMaxR == 3, "one row per rx");
  static const std::array<RegKernel, kRegMaxSquare - kRegMaxR> squares =
      reg_squares (std::make_integer_sequence<int, kRegMaxSquare - kRegMaxR> {});
  return rx <= kRegMaxR ? rows[rx][ry] : squares[rx - kRegMaxR - 1];
}

int
div_up (int a, int b)
{
  return (a + b - 1) / b;
}

/* ---- fused (no table: the tiled SAT's tile sums, then the output) -------
 * The box sum of (x, y) is P(x + rx + 1) - P(x - rx) over the window's rows,
 * where P(c) = sum of V(c') over c' < c and V(c) is the column sum of the
 * window's rows (clamped for replicate). Block b owns rows [b H / bands,
 * (b + 1) H / bands) over the full width (one block an SM: every SM busy,
 * bands differ by at most a row), warp w the tiles of 128 columns w,
 * w + warps, ..., lane l their columns 4l .. 4l + 3 (warps = min(tiles, 32),
 * so a warp has one or two tiles). It needs no table:
 * - first row: V(c) = C(c, hi) - C(c, lo) with C the column prefix from the
 *   tiled SAT's scanned column sums (the nearer tile boundary, then at most
 *   th / 2 rows of the source, th at the bottom edge); the tiles' base
 *   B(t) = P(128 t) from the block's tile totals (one barrier);
 * - every next row: V += the row entering - the row leaving (from L2),
 *   B(t) += R(t, entering) - R(t, leaving) with R the scanned row sums;
 * - P of the row = B(t) + a warp scan of V, written to shared memory, two
 *   rows at a time (two sets of rows alternate: one barrier every two rows),
 *   from which every lane reads its two taps at any distance: 16-byte loads
 *   whose alignment (rx mod 4) is a template parameter, so no selects.
 * Taps past the left or right edge read P clamped to the plane; replicate
 * adds V(0) and V(W-1) once for every column the window reaches past the
 * edge (taps4_edge: the same for every warp, so edge tiles do not hold the
 * others up at the barrier); rows repeat inside V. Sums wrap modulo 2^32
 * (every window sum is below 2^30). 8-bit planes with step 1 (4-byte
 * aligned rows), widths up to detail::kBoxFusedMaxWidth (two tiles a warp;
 * more spill registers) and heights up to 16384 (detail::box_fused_serves);
 * one plane at a time (three launches, chained by programmatic dependent
 * launch; two where the tables come grouped: G below).
 * G: the grouped tables (detail::SatTiles: one launch fewer, 16-row tiles;
 * fused takes them up to kFusedGroupMaxTx tile columns): the column prefix
 * at a tile boundary adds the groups above to the in-group prefix, and the
 * row sums come unscanned, so the block first scans, across the tiles (one
 * warp a row, a lane a tile), the rows its slides read and keeps them in
 * shared memory (2 x its band's rows x ntx words).
 * Outputs: with one tile a warp, a set's second row gives each warp the
 * tile half the plane away (FusedParams::rot), so the edge tiles' extra
 * work falls to four warps, not two: the barrier waits for the slowest
 * warp. A warp whose taps on one side all lie outside the plane takes
 * them without selects (taps4_out). Division: magic numbers throughout;
 * clip's windows cut by the top or bottom by one divisor a row, those cut
 * by the left or right edge by the row's height and then by their width
 * (floors nest; a table of ceil(2^31 / width) for the widths the plane
 * has), both computed before the wait. */
constexpr int kFusedTW = 128;
constexpr int kFusedMaxWarps = 32;
/* grouped tables: a warp scans a row's tile sums, one a lane (the SAT's
 * grouped tables go up to detail::kSatTiledGroupMaxTx) */
constexpr int kFusedGroupMaxTx = 32;
/* rows a block computes between two barriers (4 measured no faster on the
 * H100, with twice the shared memory) */
constexpr int kFusedRB = 2;

struct FusedParams {
  detail::SatTiles t;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  int dst_words;                /* step 1, dst and its pitch 4-byte aligned */
  int rx, ry, replicate;
  int bands;                    /* blocks: bands of H / bands rows */
  int warps;                    /* warps a block */
  int rowlen;                   /* u32 entries of a shared P row */
  int rs_rows;                  /* rows of the longest band (the per-row
                                   tables) */
  int rot;                      /* one tile a warp, every tile a warp: row r
                                   of a set outputs tile warp + r rot (mod
                                   ntx), so edge tiles fall to different
                                   warps; 0: the warp's own tile */
  int cwlo, ncw;                /* clip: clipped window widths cwlo ..
                                   cwlo + ncw - 1 (0: replicate) */
  uint32_t full_area;
  detail::BoxDivisor div_full;
};

/* Division by d >= 1 as q = umulhi (2n, m) >> l, exact for n < 2^31:
 * l = ceil (log2 d), m = ceil (2^(31 + l) / d) (below 2^32; d = 1: 2^31).
 * m from a double quotient (a few instructions where a 64-bit integer
 * division is a long subroutine), raised by one where rounding took it
 * below the exact ceiling. */
__device__ __forceinline__ uint2
fused_divisor (uint32_t d)
{
  const uint32_t l = d <= 1 ? 0u : 32u - (uint32_t) __clz (d - 1);
  const uint64_t num = (uint64_t) 1 << (31 + l);
  uint32_t m = (uint32_t) ceil ((double) num / (double) d);
  if ((uint64_t) m * d < num)
    m++;
  return make_uint2 (m, l);
}

/* Byte k of w, zero-extended (one PRMT). */
template <int K>
__device__ __forceinline__ uint32_t
byte_of (uint32_t w)
{
  return __byte_perm (w, 0u, 0x4440 | K);
}

__device__ __forceinline__ void
add_bytes (uint32_t (&a)[4], uint32_t w, uint32_t m)
{
  a[0] += byte_of<0> (w) * m;
  a[1] += byte_of<1> (w) * m;
  a[2] += byte_of<2> (w) * m;
  a[3] += byte_of<3> (w) * m;
}

/* Four values below 256 into the bytes of one word. */
__device__ __forceinline__ uint32_t
pack4 (uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  return __byte_perm (__byte_perm (a, b, 0x0040), __byte_perm (c, d, 0x0040),
      0x5410);
}

/* The lane's source word at p: a whole word when full, else the bytes of cm
 * (a word straddling the width is read byte by byte: the last row need not
 * extend to the pitch; cm 0: no load). */
__device__ __forceinline__ uint32_t
fused_word (const uint8_t *p, bool full, uint32_t cm)
{
  if (full)
    return __ldg (reinterpret_cast<const uint32_t *> (p));
  uint32_t w = 0;
#pragma unroll
  for (int k = 0; k < 3; k++)
    if ((cm >> (8 * k)) & 1u)
      w |= (uint32_t) __ldg (p + k) << (8 * k);
  return w;
}

/* The tile row whose scanned column sums fused_colprefix starts from for
 * prefix row Y: the nearer tile boundary. */
__device__ __forceinline__ int
fused_tile_row (const detail::SatTiles &T, int Y)
{
  int k = Y >> (__ffs (T.th) - 1);     /* th: 16 or 32 */
  if (k >= T.nty)
    k = T.nty - 1;
  if (Y - k * T.th > T.th / 2 && k + 1 < T.nty)
    k++;
  return k;
}

/* Column prefix C(x + k, Y) = sum of src(x + k, y) over y < Y, k = 0..3,
 * 0 <= Y <= height: the scanned column sums at the nearer tile boundary,
 * then the rows between it and Y added or taken away, four loads at a time.
 * cp, full, cm: the lane's source column pointer and word (box_fused);
 * k: fused_tile_row (T, Y). Grouped, the groups below g0 are left out: a
 * difference of two prefixes loads only the groups between them (at most
 * one for windows up to 256 rows), not every group above each. */
template <bool G>
__device__ __forceinline__ void
fused_colprefix (const detail::SatTiles &T, const uint8_t *cp, bool full,
    uint32_t cm, int x, int Y, int k, int g0, uint32_t (&a)[4])
{
  const bool up = k * T.th > Y;
  uint4 c = G ? detail::sat_col16_load (T.col, T.colp, k, x) :
      __ldcg (reinterpret_cast<const uint4 *> (T.col + (size_t) k * T.colp +
              x));
  if constexpr (G) {
    /* grouped: the in-group prefix, plus the groups above from g0 */
    for (int g = g0; g < k / detail::kSatTiledGroupRows; g++) {
      const uint4 q = detail::sat_col16_load (T.gcol, T.colp, g, x);
      c.x += q.x;
      c.y += q.y;
      c.z += q.z;
      c.w += q.w;
    }
  }
  a[0] = c.x;
  a[1] = c.y;
  a[2] = c.z;
  a[3] = c.w;
  const int ya = up ? Y : k * T.th, yb = up ? k * T.th : Y;
  const uint32_t m = up ? 0xffffffffu : 1u;
  /* bytes 0, 2 and 1, 3 summed in 16-bit halves (at most th rows) */
  uint32_t s02 = 0, s13 = 0;
  for (int y = ya; y < yb; y += 4) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
      w[i] = y + i < yb ? fused_word (cp + (size_t) (y + i) * T.src_pitch,
          full, cm) : 0u;
#pragma unroll
    for (int i = 0; i < 4; i++) {
      s02 += __byte_perm (w[i], 0u, 0x4240);
      s13 += __byte_perm (w[i], 0u, 0x4341);
    }
  }
  a[0] += (s02 & 0xffffu) * m;
  a[1] += (s13 & 0xffffu) * m;
  a[2] += (s02 >> 16) * m;
  a[3] += (s13 >> 16) * m;
}

/* 16-byte shared-memory accesses, spelled out: the compiler otherwise splits
 * them into 4-byte ones, or turns a load and a select into four 4-byte loads
 * of stride 16 bytes across the lanes (4-way bank conflicts). */
__device__ __forceinline__ uint4
lds128 (const uint32_t *p)
{
  uint4 v;
  asm volatile ("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r" (v.x), "=r" (v.y), "=r" (v.z), "=r" (v.w)
      : "r" ((uint32_t) __cvta_generic_to_shared (p)) : "memory");
  return v;
}

__device__ __forceinline__ void
sts128 (uint32_t *p, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  asm volatile ("st.shared.v4.u32 [%0], {%1, %2, %3, %4};"
      : : "r" ((uint32_t) __cvta_generic_to_shared (p)), "r" (a), "r" (b),
      "r" (c), "r" (d) : "memory");
}

/* v[k] = P[i + k], k = 0..3, with i & 3 == PH known at compile time: one or
 * two 16-byte loads and no select. */
template <int PH>
__device__ __forceinline__ void
taps4 (const uint32_t *sp, int i, uint32_t (&v)[4])
{
  const uint4 q0 = lds128 (sp + (i - PH));
  if (PH == 0) {
    v[0] = q0.x; v[1] = q0.y; v[2] = q0.z; v[3] = q0.w;
    return;
  }
  const uint4 q1 = lds128 (sp + (i - PH) + 4);
  if (PH == 1) {
    v[0] = q0.y; v[1] = q0.z; v[2] = q0.w; v[3] = q1.x;
  } else if (PH == 2) {
    v[0] = q0.z; v[1] = q0.w; v[2] = q1.x; v[3] = q1.y;
  } else {
    v[0] = q0.w; v[1] = q1.x; v[2] = q1.y; v[3] = q1.z;
  }
}

/* taps4 where some taps may lie outside 0 .. W: P clamped to the plane,
 * plus, with replicate, the edge columns' sums V(0) = P[1] and V(W - 1) =
 * P[W] - P[W - 1] once for every column the window reaches past the edge.
 * Every lane loads (a lane whose taps all lie outside from a clamped
 * address: the 4 words before a row and the 8 after it are in the layout)
 * and selects: no divergent path, so edge tiles keep up with the others. */
template <int PH>
__device__ __forceinline__ void
taps4_edge (const uint32_t *sp, int i, int W, bool rep, uint32_t (&v)[4])
{
  uint32_t q[4];
  const int b = min (max (i - PH, -4), W & ~3);
  taps4<PH> (sp, b + PH, q);
  const uint32_t pw = sp[W], v0 = rep ? sp[1] : 0u,
      vw = rep ? pw - sp[W - 1] : 0u;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int c = i + k;
    v[k] = c < 0 ? (uint32_t) c * v0 : c > W ? pw + (uint32_t) (c - W) * vw :
        q[k];
  }
}

/* taps4_edge for a warp whose taps all lie left of the plane (lo) or right
 * of it: no select, one broadcast load or two. */
template <bool LO>
__device__ __forceinline__ void
taps4_out (const uint32_t *sp, int i, int W, bool rep, uint32_t (&v)[4])
{
  if (LO) {
    const uint32_t v0 = rep ? sp[1] : 0u;
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] = (uint32_t) (i + k) * v0;
  } else {
    const uint32_t pw = sp[W], vw = rep ? pw - sp[W - 1] : 0u;
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] = pw + (uint32_t) (i + k - W) * vw;
  }
}

/* One tile's words of the rows entering and leaving the window of row yn,
 * and its row sums there (zero past the edges without replicate). */
struct FusedSlide {
  uint32_t wa, wl, ra, rl;
};

template <int MAXT, int PH, bool TAIL, bool G>
__global__ void __launch_bounds__ (32 * kFusedMaxWarps)
box_fused (const __grid_constant__ FusedParams P)
{
  extern __shared__ __align__ (16) uint32_t fsm[];
  /* the call's last kernel: the next call's first may be scheduled
   * (detail/launch.cuh) */
  detail::allow_next_kernel ();
  const detail::SatTiles &T = P.t;
  const int W = T.width, H = T.height, ntx = T.ntx;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int rx = P.rx, ry = P.ry;
  const bool rep = P.replicate != 0;
  const int y0 = (int) ((long long) blockIdx.x * H / P.bands);
  const int y1 = (int) ((long long) (blockIdx.x + 1) * H / P.bands);
  const int rowlen = P.rowlen;
  uint32_t *const prow = fsm + 4;       /* 4 words before the first row */
  /* clip: ctab[cw - cwlo] = ceil (2^31 / cw) for the window widths cw
   * (q = umulhi (2n, ctab) is n / cw for n < 256 cw: 256 cw^2 < 2^31) */
  uint32_t *const ctab = prow + 2 * kFusedRB * rowlen;
  /* per row y0 + k at rdiv[8 k]: the divisor of the window's area (m, l,
   * area / 2) and of its height (m, l, height) */
  uint32_t *const rdiv = ctab + ((P.ncw + 3) & ~3);
  uint32_t *const stot = rdiv + 8 * P.rs_rows;
  /* G: R(t, row) of the rows entering (rs) and leaving (rs + rs_rows ntx)
   * the window of row y0 + k at rs[k ntx + t] */
  uint32_t *const rs = stot + ntx;

  /* this lane's columns: source pointer and word (the source is 4-byte
   * aligned with a pitch of whole words); tiles past the last are dead */
  const uint8_t *cp[MAXT];
  const uint32_t *rp[MAXT];
  uint32_t cm[MAXT];
  bool full[MAXT], live[MAXT], tail[MAXT];
#pragma unroll
  for (int j = 0; j < MAXT; j++) {
    const int t = warp + j * P.warps;
    const int x = kFusedTW * t + 4 * lane;
    cp[j] = T.src + x;
    rp[j] = T.row + (size_t) t * T.rowp;
    live[j] = t < ntx;
    cm[j] = !live[j] || x >= W ? 0u : x + 4 <= W ? 0xffffffffu :
        0xffffffffu >> (8 * (x + 4 - W));
    full[j] = cm[j] == 0xffffffffu;
    /* the tile holds a word straddling the width (warp-uniform) */
    tail[j] = TAIL && live[j] && t == ntx - 1;
  }

  /* the divisors (nothing here reads the tables: before the wait) */
  for (int i = threadIdx.x; i < P.ncw; i += blockDim.x) {
    const uint32_t cw = (uint32_t) (P.cwlo + i);
    ctab[i] = (0x80000000u + cw - 1) / cw;
  }
  /* (replicate divides by the full area in registers, except by 1) */
  const int ndiv = !rep || P.div_full.m == 0 ? y1 - y0 : 0;
  for (int k = threadIdx.x; k < ndiv; k += blockDim.x) {
    const BoxSpan sy = box_span (y0 + k, ry, H);
    const uint32_t ah = rep ? (uint32_t) (2 * ry + 1) :
        (uint32_t) (sy.hi - sy.lo);
    const uint32_t area = rep ? P.full_area : (uint32_t) (2 * rx + 1) * ah;
    const uint2 da = fused_divisor (area), dh = fused_divisor (ah);
    sts128 (rdiv + 8 * k, da.x, da.y, area >> 1, 0u);
    sts128 (rdiv + 8 * k + 4, dh.x, dh.y, ah, 0u);
  }

  detail::wait_for_previous_kernel ();

  if constexpr (G) {
    /* the rows the slides read, scanned across the tiles (ntx <= 32),
     * clamped with replicate, zero past the edges without */
    const int nr = y1 - y0;
    for (int i = warp; i < 2 * nr; i += P.warps) {
      const int k = i < nr ? i : i - nr;
      int yy = i < nr ? y0 + k + ry : y0 + k - 1 - ry;
      const bool in = (yy >= 0 && yy < H) || rep;
      yy = min (max (yy, 0), H - 1);
      const uint32_t r = in && lane < ntx ?
          (uint32_t) __ldcg (detail::sat_row16 (T) + (size_t) lane * T.rowp +
              yy) : 0u;
      const uint32_t e = detail::warp_inclusive_scan_u32 (r) - r;
      if (lane < ntx)
        rs[(i < nr ? k : P.rs_rows + k) * ntx + lane] = e;
    }
  }

  /* V and B for row y0 */
  uint32_t v[MAXT][4], base[MAXT];
  const BoxSpan sy0 = box_span (y0, ry, H);
#pragma unroll
  for (int j = 0; j < MAXT; j++) {
    const int t = warp + j * P.warps;
    base[j] = 0;
    v[j][0] = v[j][1] = v[j][2] = v[j][3] = 0;
    if (!live[j])
      continue;
    const int x = kFusedTW * t + 4 * lane;
    uint32_t lo[4];
    /* v = C(hi) - C(lo): the groups below both cancel */
    const int kh = fused_tile_row (T, sy0.hi), kl = fused_tile_row (T, sy0.lo);
    const int g0 = min (kh, kl) / detail::kSatTiledGroupRows;
    fused_colprefix<G> (T, cp[j], full[j], cm[j], x, sy0.hi, kh, g0, v[j]);
    fused_colprefix<G> (T, cp[j], full[j], cm[j], x, sy0.lo, kl, g0, lo);
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[j][k] -= lo[k];
    if (rep && sy0.rep_lo)
      add_bytes (v[j], fused_word (cp[j], full[j], cm[j]),
          (uint32_t) sy0.rep_lo);
    if (rep && sy0.rep_hi)
      add_bytes (v[j], fused_word (cp[j] + (size_t) (H - 1) * T.src_pitch,
              full[j], cm[j]), (uint32_t) sy0.rep_hi);
    const uint32_t tt = detail::warp_sum (v[j][0] + v[j][1] + v[j][2] + v[j][3]);
    if (lane == 0)
      stot[t] = tt;
  }
  __syncthreads ();
#pragma unroll
  for (int j = 0; j < MAXT; j++) {
    const int t = warp + j * P.warps;
    if (!live[j])
      continue;
    uint32_t b = 0;
    for (int i = lane; i < t; i += 32)
      b += stot[i];
    base[j] = detail::warp_sum (b);
  }

  /* Row y's window gains row y + ry and loses row y - 1 - ry: their words
   * and row sums (clamped with replicate, zero past the edges without). */
  const uint32_t pitch = (uint32_t) T.src_pitch;  /* < 2^32 (serves) */
  auto load_slide = [&] (int yn, FusedSlide (&s)[MAXT]) {
    int ya = yn + ry, yl = yn - 1 - ry;
    const bool ina = ya < H || rep, inl = yl >= 0 || rep;
    ya = min (ya, H - 1);
    yl = max (yl, 0);
    /* 32-bit row offsets: one wide multiply-add an address */
    const uint64_t oa = (uint64_t) ((uint32_t) ya * pitch),
        ol = (uint64_t) ((uint32_t) yl * pitch);
#pragma unroll
    for (int j = 0; j < MAXT; j++) {
      if (!TAIL || !tail[j]) {
        s[j].wa = ina && full[j] ? __ldg (reinterpret_cast<const uint32_t *>
            (cp[j] + oa)) : 0u;
        s[j].wl = inl && full[j] ? __ldg (reinterpret_cast<const uint32_t *>
            (cp[j] + ol)) : 0u;
      } else {
        s[j].wa = ina ? fused_word (cp[j] + oa, full[j], cm[j]) : 0u;
        s[j].wl = inl ? fused_word (cp[j] + ol, full[j], cm[j]) : 0u;
      }
      if constexpr (G) {
        const int t = warp + j * P.warps;
        s[j].ra = live[j] ? rs[(yn - y0) * ntx + t] : 0u;
        s[j].rl = live[j] ? rs[(P.rs_rows + yn - y0) * ntx + t] : 0u;
      } else {
        s[j].ra = ina && live[j] ? __ldcg (rp[j] + ya) : 0u;
        s[j].rl = inl && live[j] ? __ldcg (rp[j] + yl) : 0u;
      }
    }
  };

  /* The rows, kFusedRB at a time: slide V and B, write each row's P to
   * shared memory (two sets of rows alternate: one barrier per set), then
   * every lane reads its taps and writes its outputs. One tile a warp loads
   * the next set's words while this one runs (wider planes: just in time,
   * registers). */
  constexpr bool kAhead = MAXT == 1;
  FusedSlide sl[kFusedRB][MAXT] = {};
  if (kAhead) {
#pragma unroll
    for (int r = 1; r < kFusedRB; r++)
      if (y0 + r < y1)
        load_slide (y0 + r, sl[r]);
  }
  const int ol_tap = -rx, or_tap = rx + 1;      /* tap offsets from x */
  constexpr int kPhL = (4 - PH) & 3, kPhR = (PH + 1) & 3;
  const uint32_t dm = P.div_full.m, ds = P.div_full.s,
      dh = P.div_full.d >> 1;
  const bool magic_ok = dm != 0;
  const size_t dpitch = P.dst_pitch;
  /* the tile a warp outputs in row r of a set, and whether no window of
   * tile t reaches past the left or right edge */
  auto out_tile = [&] (int r, int j) {
    if (MAXT == 1 && P.rot) {
      const int t = warp + r * P.rot;
      return t < ntx ? t : t - ntx;
    }
    return warp + j * P.warps;
  };
  auto out_inside = [&] (int t) {
    return kFusedTW * t >= rx && kFusedTW * (t + 1) + rx <= W;
  };
  for (int y = y0, set = 0; y < y1; y += kFusedRB, set ^= 1) {
    uint32_t *const sb = prow + set * kFusedRB * rowlen;
#pragma unroll
    for (int r = 0; r < kFusedRB; r++) {
      const int yr = y + r;
      if (yr >= y1)
        break;
      if (yr > y0) {
        if (!kAhead)
          load_slide (yr, sl[r]);
#pragma unroll
        for (int j = 0; j < MAXT; j++) {
          v[j][0] += byte_of<0> (sl[r][j].wa) - byte_of<0> (sl[r][j].wl);
          v[j][1] += byte_of<1> (sl[r][j].wa) - byte_of<1> (sl[r][j].wl);
          v[j][2] += byte_of<2> (sl[r][j].wa) - byte_of<2> (sl[r][j].wl);
          v[j][3] += byte_of<3> (sl[r][j].wa) - byte_of<3> (sl[r][j].wl);
          base[j] += sl[r][j].ra - sl[r][j].rl;
        }
      }
      uint32_t *const sp = sb + r * rowlen;
#pragma unroll
      for (int j = 0; j < MAXT; j++) {
        const int t = warp + j * P.warps;
        if (!live[j])
          continue;
        const uint32_t a0 = v[j][0], a1 = a0 + v[j][1], a2 = a1 + v[j][2],
            a3 = a2 + v[j][3];
        const uint32_t e = base[j] + detail::warp_inclusive_scan_u32 (a3) -
            a3;
        sts128 (sp + kFusedTW * t + 4 * lane, e, e + a0, e + a1, e + a2);
        if (t == ntx - 1 && lane == 31)
          sp[kFusedTW * ntx] = e + a3;  /* P(W): columns past W are zero */
      }
    }
    if (kAhead) {
#pragma unroll
      for (int r = 0; r < kFusedRB; r++)
        if (y + kFusedRB + r < y1)
          load_slide (y + kFusedRB + r, sl[r]);
    }
    __syncthreads ();

    /* Row r of the set: tile t of every j (rotated by r rot with one tile a
     * warp). A row whose tiles' windows reach past the left or right edge
     * runs its own copy of the outputs, the others no check (warp-uniform;
     * the copies hold no barrier). */
    auto out_row = [&] (int r, auto edge_tag) {
      constexpr bool kEdge = decltype (edge_tag)::value;
      const int yr = y + r;
      const uint32_t *const sp = sb + r * rowlen;
      /* the window's rows all inside the plane */
      const bool rows_full = H - 1 - 2 * ry >= 0 &&
          (unsigned) (yr - ry) <= (unsigned) (H - 1 - 2 * ry);
      const bool magic = magic_ok && (rep || rows_full);
      uint8_t *const drow = P.dst + (size_t) yr * dpitch;
#pragma unroll
      for (int j = 0; j < MAXT; j++) {
        const int t = out_tile (r, j);
        const int x = kFusedTW * t + 4 * lane;
        if (t >= ntx || x >= W)
          continue;
        const bool tin = out_inside (t);
        /* each side's taps: all inside, all outside (the warp's), or some */
        uint32_t l[4], rr[4];
        if (!kEdge || kFusedTW * t >= rx)
          taps4<kPhL> (sp, x + ol_tap, l);
        else if (kFusedTW * (t + 1) - 1 < rx)
          taps4_out<true> (sp, x + ol_tap, W, rep, l);
        else
          taps4_edge<kPhL> (sp, x + ol_tap, W, rep, l);
        if (!kEdge || kFusedTW * (t + 1) + rx <= W)
          taps4<kPhR> (sp, x + or_tap, rr);
        else if (kFusedTW * t + rx + 1 > W)
          taps4_out<false> (sp, x + or_tap, W, rep, rr);
        else
          taps4_edge<kPhR> (sp, x + or_tap, W, rep, rr);
        uint32_t out;
        if (magic && (!kEdge || rep || tin)) {
          out = pack4 (__umulhi (rr[0] - l[0] + dh, dm) >> ds,
              __umulhi (rr[1] - l[1] + dh, dm) >> ds,
              __umulhi (rr[2] - l[2] + dh, dm) >> ds,
              __umulhi (rr[3] - l[3] + dh, dm) >> ds);
        } else if (!kEdge || rep || tin) {
          /* rows cut by the top or bottom (or an area of 1): the row's
           * area, one divisor for the row */
          const uint4 d = lds128 (rdiv + 8 * (yr - y0));
          out = pack4 (__umulhi (2u * (rr[0] - l[0] + d.z), d.x) >> d.y,
              __umulhi (2u * (rr[1] - l[1] + d.z), d.x) >> d.y,
              __umulhi (2u * (rr[2] - l[2] + d.z), d.x) >> d.y,
              __umulhi (2u * (rr[3] - l[3] + d.z), d.x) >> d.y);
        } else {
          /* clip, windows cut by the left or right edge: area = cw ah,
           * (n / ah) / cw with n = sum + area / 2 (exact: floors nest),
           * the row's divisor for ah, ctab's for cw (t < 256 cw) */
          const uint4 d = lds128 (rdiv + 8 * (yr - y0) + 4);
          uint32_t q[4];
#pragma unroll
          for (int k = 0; k < 4; k++) {
            /* columns past w (never stored) divide as column w - 1 */
            const int xk = TAIL ? min (x + k, W - 1) : x + k;
            const int cw = min (xk + rx, W - 1) - max (xk - rx, 0) + 1;
            const uint32_t n = rr[k] - l[k] + (((uint32_t) cw * d.z) >> 1);
            const uint32_t tq = __umulhi (2u * n, d.x) >> d.y;
            q[k] = __umulhi (2u * tq, ctab[cw - P.cwlo]);
          }
          out = pack4 (q[0], q[1], q[2], q[3]);
        }
        if (P.dst_words && x + 4 <= W)
          *reinterpret_cast<uint32_t *> (drow + x) = out;
        else
          store4 (drow, P.dst_step, x, W, out);
      }
    };
#pragma unroll
    for (int r = 0; r < kFusedRB; r++) {
      if (y + r >= y1)
        break;
      bool e = false;
#pragma unroll
      for (int j = 0; j < MAXT; j++) {
        const int t = out_tile (r, j);
        e = e || (t < ntx && !out_inside (t));
      }
      if (e)
        out_row (r, std::true_type ());
      else
        out_row (r, std::false_type ());
    }
  }
}

/* Dynamic shared memory of box_fused: 4 words, two sets of kFusedRB P rows
 * (each followed by 8 words), the clipped widths' divisors (ncw, rounded
 * up to 4) and the tile totals; then a band's per-row tables
 * (fused_row_smem each, launch_fused). */
constexpr size_t
fused_smem (int ntx, int ncw = 0)
{
  return sizeof (uint32_t) * (4 + 2 * kFusedRB * ((size_t) kFusedTW * ntx + 8)
      + ((ncw + 3) & ~3) + ntx);
}

/* Per row of a band: the row's divisors (8 words), G: the row-sum tables
 * (2 ntx words). */
constexpr size_t
fused_row_smem (int ntx, bool g)
{
  return sizeof (uint32_t) * (8 + (g ? 2 * (size_t) ntx : 0));
}

/* Clip: the window widths a plane of width w has, cwlo .. cwlo + ncw - 1
 * (box_fused's ctab). */
int
fused_cwlo (int w, int rx)
{
  return std::min (rx, w - 1) + 1;
}

int
fused_ncw (int w, int rx, bool replicate)
{
  return replicate ? 0 : std::min (2 * rx + 1, w) - fused_cwlo (w, rx) + 1;
}

/* Whether box_fused's shared memory for a plane `width` samples wide fits
 * a block of a device that opts in to `optin` bytes (the device's limit,
 * one size for every launch, see detail::launch): its rows, for clip the
 * window widths' divisors, and one row of per-row tables (grouped: with
 * the row-sum tables, and at most kFusedGroupMaxTx tiles across). */
bool
fused_fits (int width, int rx, bool replicate, bool grouped, size_t optin)
{
  const int ntx = div_up (width, kFusedTW);
  if (grouped && ntx > kFusedGroupMaxTx)
    return false;
  return fused_smem (ntx, fused_ncw (width, rx, replicate)) +
      fused_row_smem (ntx, grouped) <= optin;
}

template <int MAXT, int PH, bool TAIL, bool G>
Status
launch_fused (const FusedParams &fp, int rows, int sms, size_t smem,
    size_t optin, cudaStream_t s)
{
  if (smem > optin)
    return Status::unsupported;
  FusedParams p = fp;
  const int threads = 32 * p.warps;
  int per_sm = 0;
  if (smem > 48 * 1024)
    CIP_CUDA_TRY (cudaFuncSetAttribute (box_fused<MAXT, PH, TAIL, G>,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) optin));
  CIP_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
          box_fused<MAXT, PH, TAIL, G>, threads, smem));
  if (per_sm < 1)
    return Status::unsupported;
  const int h = p.t.height;
  if (rows > 0) {
    p.bands = div_up (h, rows);
  } else {
    /* one wave of blocks (every SM busy: bands differ by at most a row), at
     * least detail::kBoxFusedMinRows rows each (a block's first row reads up
     * to th source rows per tile more) */
    const long long conc = (long long) per_sm * sms;
    const long long most = h / detail::kBoxFusedMinRows;
    p.bands = (int) (conc < most ? conc : most > 0 ? most : 1);
  }
  /* the per-row tables of the longest band (bands differ by at most a
   * row): more, shorter bands where they would not fit (run_fused made sure
   * one row a band fits) */
  const size_t row_bytes = fused_row_smem (p.t.ntx, G);
  const int fit = (int) ((optin - smem) / row_bytes);
  if (fit < 1)
    return Status::unsupported;
  if (div_up (h, p.bands) > fit)
    p.bands = div_up (h, fit);
  p.rs_rows = div_up (h, p.bands);
  smem += row_bytes * (size_t) p.rs_rows;
  return detail::launch (box_fused<MAXT, PH, TAIL, G>, p.bands, threads,
      smem, s, p, "boxfilter fused", detail::pdl_supported (), optin);
}

/* rows: rows a block (detail::BoxTuning), 0: automatic */
template <int MAXT, bool TAIL, bool G>
Status
launch_fused_ph (const FusedParams &fp, int rows, int sms, size_t optin,
    cudaStream_t s)
{
  const size_t smem = fused_smem (fp.t.ntx, fp.ncw);
  switch (fp.rx & 3) {
    case 0: return launch_fused<MAXT, 0, TAIL, G> (fp, rows, sms, smem, optin, s);
    case 1: return launch_fused<MAXT, 1, TAIL, G> (fp, rows, sms, smem, optin, s);
    case 2: return launch_fused<MAXT, 2, TAIL, G> (fp, rows, sms, smem, optin, s);
    default: return launch_fused<MAXT, 3, TAIL, G> (fp, rows, sms, smem, optin, s);
  }
}

template <int MAXT, bool G>
Status
launch_fused_tail (const FusedParams &fp, bool tail, int rows, int sms,
    size_t optin, cudaStream_t s)
{
  return tail ? launch_fused_ph<MAXT, true, G> (fp, rows, sms, optin, s) :
      launch_fused_ph<MAXT, false, G> (fp, rows, sms, optin, s);
}

/* One plane through the fused algorithm: the tile tables (one or two
 * launches in the integral scratch at the start of the workspace), then
 * box_fused. */
Status
run_fused (const BoxPlane &p, bool replicate, uint8_t *ws, size_t integral_bytes,
    int sms, size_t optin, cudaStream_t s)
{
  FusedParams fp = {};
  /* grouped tables where box_fused's row-sum tables fit beside its rows
   * (one row a band at least; launch_fused sizes the bands) */
  fp.cwlo = fused_cwlo (p.src.width, p.rx);
  fp.ncw = fused_ncw (p.src.width, p.rx, replicate);
  const bool grouped_ok = fused_fits (p.src.width, p.rx, replicate, true,
      optin);
  Status st = detail::sat_tiled_tables (p.src, ws, integral_bytes, s, &fp.t,
      grouped_ok);
  if (st != Status::ok)
    return st;
  if (fp.t.gcol && (fp.t.th != detail::kSatTiledGroupRows ||
          fp.t.ntx > kFusedGroupMaxTx))
    return Status::unsupported;       /* box_fused<G> reads 16-row groups */
  fp.dst = p.dst;
  fp.dst_pitch = p.dst_pitch;
  fp.dst_step = p.dst_step;
  fp.dst_words = p.dst_step == 1 && (uintptr_t) p.dst % 4 == 0 &&
      p.dst_pitch % 4 == 0;
  fp.rx = p.rx;
  fp.ry = p.ry;
  fp.replicate = replicate ? 1 : 0;
  const detail::BoxTuning tune = detail::box_get_tuning ();
  const int wcap = tune.fused_warps > 0 && tune.fused_warps < kFusedMaxWarps ?
      tune.fused_warps : kFusedMaxWarps;
  fp.warps = fp.t.ntx < wcap ? fp.t.ntx : wcap;
  if ((fp.t.ntx + fp.warps - 1) / fp.warps > 2)
    fp.warps = (fp.t.ntx + 1) / 2;      /* at most two tiles a warp */
  fp.rowlen = kFusedTW * fp.t.ntx + 8;
  /* one tile a warp: the second row of a set outputs the tiles half the
   * plane away, so that no warp outputs two edge tiles a set */
  fp.rot = tune.fused_rotate != 0 && fp.warps == fp.t.ntx && fp.t.ntx >= 4 ?
      (tune.fused_rotate > 0 ? tune.fused_rotate % fp.t.ntx : fp.t.ntx / 2) :
      0;
  const uint32_t full = (uint32_t) (2 * p.rx + 1) * (uint32_t) (2 * p.ry + 1);
  fp.full_area = full;
  fp.div_full = detail::box_divisor (full);
  /* kBoxFusedMaxWidth: at most two tiles a warp */
  const int maxt = (fp.t.ntx + fp.warps - 1) / fp.warps;
  /* a width not a multiple of 4: the last tile reads its last word byte
   * by byte (its own kernel: the others have no check) */
  const bool tail = (p.src.width & 3) != 0;
  const bool g = fp.t.gcol != nullptr;
  if (maxt <= 1)
    return g ? launch_fused_tail<1, true> (fp, tail, tune.fused_rows, sms, optin, s) :
        launch_fused_tail<1, false> (fp, tail, tune.fused_rows, sms, optin, s);
  return g ? launch_fused_tail<2, true> (fp, tail, tune.fused_rows, sms, optin, s) :
      launch_fused_tail<2, false> (fp, tail, tune.fused_rows, sms, optin, s);
}

/* ---- 16-bit planes: u64 SAT and a plain gather, one thread per pixel ---- */

struct DevSat64 {
  const uint8_t *base;
  size_t pitch;
  __host__ __device__ __forceinline__ uint64_t operator() (int x, int y) const {
#if defined(__CUDA_ARCH__)
    return __ldg (reinterpret_cast<const unsigned long long *> (base +
            (size_t) y * pitch) + x);
#else
    return reinterpret_cast<const uint64_t *> (base + (size_t) y * pitch)[x];
#endif
  }
};

struct Gather16 {
  DevSat64 sat;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step, w, h, rx, ry, replicate, shift;
};

constexpr int kGather16X = 32, kGather16Y = 8;

__global__ void __launch_bounds__ (kGather16X * kGather16Y)
box_gather16 (const Gather16 g)
{
  const int x = (int) (blockIdx.x * kGather16X + threadIdx.x);
  const int y = (int) (blockIdx.y * kGather16Y + threadIdx.y);
  if (x >= g.w || y >= g.h)
    return;
  const uint32_t v = detail::box_pixel16 (g.sat, x, y, g.w, g.h, g.rx, g.ry,
      g.replicate != 0);
  *reinterpret_cast<uint16_t *> (g.dst + (size_t) y * g.dst_pitch +
      (size_t) x * g.dst_step) = (uint16_t) (v << g.shift);
}

/* ---- sliding (no table; detail/boxfilter_sliding.h) ----------------------
 * 256 threads; thread t keeps the vertical sums of source columns
 * la + t + 256 i (coalesced loads of one row by the warp), i < KV. Per batch
 * of up to 8 rows: the threads slide their sums down and store each row's
 * sums in shared memory; one warp per row turns them into an exclusive
 * prefix in place (a lane owns an odd number of consecutive entries: no bank
 * conflicts for 32-bit sums); every thread then writes its outputs of those
 * rows from two prefix taps. */
constexpr int kSlideThreads = detail::box_sliding_threads;
static_assert (kSlideThreads == 256, "8 warps: one per row of a batch");

struct SlidePlane {
  const uint8_t *src;
  size_t src_pitch;
  int src_step;
  int shift;
  uint32_t mask;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  int w, h, rx, ry;
  int block_begin;
  detail::BoxSlidingPlan plan;
  detail::BoxDivisor div_full;  /* 8-bit */
};

struct SlideParams {
  SlidePlane p[boxfilter_max_planes];
  int n;
  int replicate;
};

/* Sample value (c, r) inside the plane. */
template <int BYTES>
struct SlideGet {
  const uint8_t *src;
  size_t pitch;
  int step, shift;
  uint32_t mask;
  __host__ __device__ __forceinline__ uint32_t operator() (int c, int r) const {
    const uint8_t *q = src + (size_t) r * pitch + (size_t) c * step;
#ifdef __CUDA_ARCH__
    if (BYTES == 1)
      return __ldg (q);
    return ((uint32_t) __ldg (reinterpret_cast<const uint16_t *> (q)) >> shift) &
        mask;
#else
    if (BYTES == 1)
      return *q;
    return ((uint32_t) *reinterpret_cast<const uint16_t *> (q) >> shift) & mask;
#endif
  }
};

/* Entry i of a scanned row. */
template <class U>
struct SlidePre {
  const U *row;
  __host__ __device__ __forceinline__ U operator() (int i) const {
    return row[i];
  }
};

template <int BYTES>
using SlideSum = typename std::conditional<BYTES == 2, unsigned long long,
    uint32_t>::type;

/* 4 blocks per SM (64 registers): the plan's cost model assumes it. */
template <int BYTES, int KV>
__global__ void __launch_bounds__ (kSlideThreads, 4)
box_sliding (const __grid_constant__ SlideParams P)
{
  using U = SlideSum<BYTES>;
  extern __shared__ __align__ (16) uint8_t smem[];
  U *buf = reinterpret_cast<U *> (smem);
  int b = blockIdx.x;
  const SlidePlane &S = block_plane (P.p, P.n, b);
  const int ty = b / S.plan.tiles_x, tx = b - ty * S.plan.tiles_x;
  const int w = S.w, h = S.h, rx = S.rx, ry = S.ry;
  const bool replicate = P.replicate != 0;
  const detail::BoxSlidingTile T = detail::box_sliding_tile (S.plan, w, h, rx,
      tx, ty);
  const int cols = T.lb - T.la;
  const int stride = S.plan.row_stride, rb = S.plan.rows_batch;
  const int k2 = stride / 32;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const SlideGet<BYTES> get = { S.src, S.src_pitch, S.src_step, S.shift, S.mask };

  uint32_t v[KV];
#pragma unroll
  for (int i = 0; i < KV; i++) {
    const int c = T.la + (int) threadIdx.x + i * kSlideThreads;
    v[i] = c < T.lb ? detail::box_sliding_col_init (get, c, T.y0, ry, h,
        replicate) : 0u;
  }

  for (int yb = T.y0; yb < T.y1; yb += rb) {
    const int nrows = T.y1 - yb < rb ? T.y1 - yb : rb;
    /* 1. column sums of rows yb .. yb+nrows-1 */
#pragma unroll
    for (int i = 0; i < KV; i++) {
      const int c = T.la + (int) threadIdx.x + i * kSlideThreads;
      if (c < T.lb) {
#pragma unroll
        for (int r = 0; r < detail::box_sliding_max_rows_batch; r++) {
          if (r < nrows) {
            const int y = yb + r;
            if (y > T.y0)
              v[i] = detail::box_sliding_col_step (v[i], get, c, y, ry, h,
                  replicate);
            buf[r * stride + (c - T.la)] = (U) v[i];
          }
        }
      }
    }
    __syncthreads ();
    /* 2. exclusive prefix of each row, in place (entries >= cols read as 0;
     * entry cols becomes the row's total) */
    for (int r = warp; r < nrows; r += kSlideThreads / 32) {
      U *row = buf + r * stride + lane * k2;
      const int base = lane * k2;
      U tot = 0;
      for (int j = 0; j < k2; j++)
        tot += base + j < cols ? row[j] : (U) 0;
      U incl = tot;
#pragma unroll
      for (int off = 1; off < 32; off <<= 1) {
        const U t = __shfl_up_sync (kFull, incl, off);
        if (lane >= off)
          incl += t;
      }
      U run = incl - tot;
      for (int j = 0; j < k2; j++) {
        const U e = base + j < cols ? row[j] : (U) 0;
        row[j] = run;
        run += e;
      }
    }
    __syncthreads ();
    /* 3. outputs */
    for (int r = 0; r < nrows; r++) {
      const int y = yb + r;
      const U *row = buf + r * stride;
      const SlidePre<U> pre = { row };
      uint8_t *drow = S.dst + (size_t) y * S.dst_pitch;
      for (int x = T.x0 + (int) threadIdx.x; x < T.x1; x += kSlideThreads) {
        const U sum = detail::box_sliding_hsum<U> (pre, x, rx, w, T.la,
            replicate);
        const uint32_t area = detail::box_sliding_area (x, y, w, h, rx, ry,
            replicate);
        uint8_t *d = drow + (size_t) x * S.dst_step;
        if (BYTES == 1)
          *d = (uint8_t) detail::box_sliding_out8 ((uint32_t) sum, area,
              S.div_full);
        else
          *reinterpret_cast<uint16_t *> (d) = (uint16_t) (
              detail::box_sliding_out16 ((uint64_t) sum, area) << S.shift);
      }
    }
    __syncthreads ();
  }
}

/* Launches the sliding kernel for the planes of one sample size: KV from the
 * largest plan, shared memory from the largest buffer. */
template <int BYTES>
Status
launch_sliding (const SlideParams &sp, long long blocks, int kv, size_t smem,
    cudaStream_t s)
{
  if (blocks <= 0)
    return Status::ok;
  if (blocks > 0x7fffffffLL)
    return Status::unsupported;
  if (kv <= 2)
    box_sliding<BYTES, 2><<<(unsigned) blocks, kSlideThreads, smem, s>>> (sp);
  else if (kv <= 4)
    box_sliding<BYTES, 4><<<(unsigned) blocks, kSlideThreads, smem, s>>> (sp);
  else
    box_sliding<BYTES, detail::box_sliding_max_kv>
        <<<(unsigned) blocks, kSlideThreads, smem, s>>> (sp);
  CIP_LAUNCH_CHECK (s, BYTES == 1 ? "boxfilter sliding" : "boxfilter sliding (16-bit)");
  return Status::ok;
}

std::atomic<unsigned long> g_packed_launches;

/* A packed plane (detail::box_packed) through box_direct<..., true>. */
Status
run_direct_packed (const detail::BoxPacked &pk, bool replicate,
    cudaStream_t stream)
{
  DirectParams dp = {};
  dp.replicate = replicate ? 1 : 0;
  dp.n = 1;
  DirectPlane &d = dp.p[0];
  /* tiles of kDirTileW bytes, 4 bytes a pixel */
  d = direct_plane (pk.src, pk.src_pitch, 4, pk.dst, pk.dst_pitch, 4, pk.w,
      pk.h, pk.rx, pk.ry, (int) (((long long) pk.w * 4 + kDirTileW - 1) /
          kDirTileW), 0);
  d.copy_mask = pk.copy_mask;
  const bool small = pk.ry <= kDirSmallMaxRy;
  const int th = small ? kDirTileHSmall : kDirTileHLarge;
  const long long blocks = (long long) d.tiles_x * div_up (pk.h, th);
  if (blocks > 0x7fffffffLL)
    return Status::unsupported;
  dp.tile_pitch = 16 * dir_chunks_pk (pk.rx);
  dp.tile_rows = th + 2 * pk.ry;
  const size_t smem = dir_smem (dp.tile_rows, dp.tile_pitch);
  /* the tall tile opts in to its largest size (rx = ry = 16, 51 KiB) at
   * every call: with its static shift[], rx 13-14 at ry 16 already pass
   * 48 KiB (detail::launch) */
  constexpr size_t kTallMax = dir_smem (kDirTileHLarge +
      2 * boxfilter_direct_max_radius,
      16 * dir_chunks_pk (boxfilter_direct_max_radius));
  const Status st = small ?
      detail::launch (box_direct<kDirTileHSmall, kDirSmallMaxRy, true>,
          (int) blocks, kDirThreads, smem, stream, dp,
          "boxfilter direct (packed)") :
      detail::launch (box_direct<kDirTileHLarge, boxfilter_direct_max_radius,
          true>, (int) blocks, kDirThreads, smem, stream, dp,
          "boxfilter direct (packed)", false, kTallMax);
  if (st == Status::ok)
    g_packed_launches.fetch_add (1, std::memory_order_relaxed);
  return st;
}

}  // namespace

namespace detail {

unsigned long
box_packed_launches ()
{
  return g_packed_launches.load (std::memory_order_relaxed);
}

}  // namespace detail

Status
boxfilter_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (ws_bytes == 0)
    return Status::ok;
  if (!d_ws || ((uintptr_t) d_ws % 256) != 0)
    return Status::invalid_argument;
  /* all of it, not only the integral's control words: the gather reads its
   * SAT rows in 16-byte groups that reach up to 3 elements into the row
   * padding, which no kernel writes (the values are never used, but reads
   * of them must not be reads of uninitialized memory) */
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, ws_bytes, (cudaStream_t) stream));
  return integral_workspace_init (d_ws, ws_bytes, stream);
}

Status
boxfilter (const BoxPlane *planes, int n_planes, BoxBorder border, void *d_ws,
    size_t ws_bytes, Stream stream, BoxAlgorithm algo)
{
  if (algo != BoxAlgorithm::automatic && algo != BoxAlgorithm::sat &&
      algo != BoxAlgorithm::direct && algo != BoxAlgorithm::sliding &&
      algo != BoxAlgorithm::fused)
    return Status::invalid_argument;
  Status st = detail::box_validate (planes, n_planes, border, d_ws, ws_bytes);
  if (st != Status::ok)
    return st;
  const detail::BoxLayout L = detail::box_layout (planes, n_planes);
  if (L.total > 0 && (!d_ws || ws_bytes < L.total ||
          ((uintptr_t) d_ws % 256) != 0))
    return Status::invalid_argument;

  bool direct[boxfilter_max_planes] = {}, sliding[boxfilter_max_planes] = {},
      fused[boxfilter_max_planes] = {}, reg[boxfilter_max_planes] = {};
  BoxAlgorithm resolved[boxfilter_max_planes];
  detail::box_resolve_call (planes, n_planes, algo, resolved, border);
  int max_rx = 0, max_ry = 0;
  size_t optin = 0;       /* the device's shared-memory opt-in, if fused runs */
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (detail::box_plane_empty (p))
      continue;
    const BoxAlgorithm a = resolved[i];
    if (p.src.bytes == 2 && a == BoxAlgorithm::direct)
      return Status::unsupported;       /* 16-bit planes: sat or sliding */
    sliding[i] = a == BoxAlgorithm::sliding;
    /* fused on a device whose blocks cannot hold its shared rows and, for
     * clip, its table of window widths (sm_75 opts in to 64 KiB: widths
     * above 3968, or fewer with clip at large radii) runs sat, or direct
     * where automatic chose fused over it (radius 11-16 with clip below
     * 16 million samples, 14-16 otherwise) */
    if (a == BoxAlgorithm::fused && optin == 0)
      optin = (size_t) detail::max_optin_smem ();
    fused[i] = a == BoxAlgorithm::fused && fused_fits (p.src.width, p.rx,
        border == BoxBorder::replicate, false, optin);
    direct[i] = a == BoxAlgorithm::direct ||
        (a == BoxAlgorithm::fused && !fused[i] &&
        algo == BoxAlgorithm::automatic &&
        p.rx <= boxfilter_direct_max_radius &&
        p.ry <= boxfilter_direct_max_radius);
    if (!direct[i])
      continue;
    if (p.rx > boxfilter_direct_max_radius || p.ry > boxfilter_direct_max_radius)
      return Status::unsupported;
    if (detail::box_direct_registers (p)) {
      reg[i] = true;
      direct[i] = false;
      continue;
    }
    max_rx = p.rx > max_rx ? p.rx : max_rx;
    max_ry = p.ry > max_ry ? p.ry : max_ry;
  }
  const bool replicate = border == BoxBorder::replicate;
  /* the 4 channels of one packed plane (RGBA and the like), all direct:
   * one pass over the pixels rather than one over each channel */
  detail::BoxPacked pk;
  if (n_planes == 4 && direct[0] && direct[1] && direct[2] && direct[3] &&
      detail::box_packed (planes, n_planes, pk))
    return run_direct_packed (pk, replicate, stream);
  const int dir_th = max_ry <= kDirSmallMaxRy ? kDirTileHSmall : kDirTileHLarge;

  GatherParams gp = {};
  DirectParams dp = {};
  gp.replicate = dp.replicate = replicate ? 1 : 0;
  long long gather_blocks = 0, direct_blocks = 0;
  uint8_t *ws = static_cast<uint8_t *> (d_ws);

  int sms = 0;
  auto sm_count = [&sms] () -> Status {
    if (sms == 0) {
      int dev = 0;
      CIP_CUDA_TRY (cudaGetDevice (&dev));
      CIP_CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
      sms = sms > 0 ? sms : 1;
    }
    return Status::ok;
  };

  /* sliding planes: one launch per sample size */
  SlideParams sp8 = {}, sp16 = {};
  sp8.replicate = sp16.replicate = replicate ? 1 : 0;
  long long slide_blocks[2] = { 0, 0 };
  int slide_kv[2] = { 0, 0 };
  size_t slide_smem[2] = { 0, 0 };
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (detail::box_plane_empty (p) || !sliding[i])
      continue;
    st = sm_count ();
    if (st != Status::ok)
      return st;
    const int wide = p.src.bytes == 2 ? 1 : 0;
    SlideParams &sp = wide ? sp16 : sp8;
    SlidePlane &q = sp.p[sp.n++];
    q.src = p.src.data;
    q.src_pitch = p.src.pitch;
    q.src_step = p.src.step;
    q.shift = p.src.shift;
    q.mask = p.src.max_value ();
    q.dst = p.dst;
    q.dst_pitch = p.dst_pitch;
    q.dst_step = p.dst_step;
    q.w = p.src.width;
    q.h = p.src.height;
    q.rx = p.rx;
    q.ry = p.ry;
    q.plan = detail::box_sliding_plan (q.w, q.h, q.rx, q.ry, wide ? 8 : 4, sms);
    q.div_full = detail::box_divisor ((uint32_t) (2 * p.rx + 1) *
        (uint32_t) (2 * p.ry + 1));
    q.block_begin = (int) slide_blocks[wide];
    slide_blocks[wide] += (long long) q.plan.tiles_x * q.plan.strips;
    if (slide_blocks[wide] > 0x7fffffffLL)
      return Status::unsupported;
    slide_kv[wide] = q.plan.kv > slide_kv[wide] ? q.plan.kv : slide_kv[wide];
    slide_smem[wide] = q.plan.smem > slide_smem[wide] ? q.plan.smem :
        slide_smem[wide];
  }
  st = launch_sliding<1> (sp8, slide_blocks[0], slide_kv[0], slide_smem[0], stream);
  if (st != Status::ok)
    return st;
  st = launch_sliding<2> (sp16, slide_blocks[1], slide_kv[1], slide_smem[1], stream);
  if (st != Status::ok)
    return st;

  /* 16-bit planes: their own SAT (u64) and gather, one plane at a time */
  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (detail::box_plane_empty (p) || p.src.bytes != 2 || sliding[i])
      continue;
    SatDest sd;
    sd.sum = ws + L.sat_offset[i];
    sd.sum_pitch = L.sat_pitch[i];
    st = integral (p.src, SatType::u64, sd, d_ws, L.integral_bytes, stream);
    if (st != Status::ok)
      return st;
    Gather16 g;
    g.sat.base = ws + L.sat_offset[i];
    g.sat.pitch = L.sat_pitch[i];
    g.dst = p.dst;
    g.dst_pitch = p.dst_pitch;
    g.dst_step = p.dst_step;
    g.w = p.src.width;
    g.h = p.src.height;
    g.rx = p.rx;
    g.ry = p.ry;
    g.replicate = replicate ? 1 : 0;
    g.shift = p.src.shift;
    const dim3 grid ((unsigned) div_up (g.w, kGather16X),
        (unsigned) div_up (g.h, kGather16Y));
    box_gather16<<<grid, dim3 (kGather16X, kGather16Y), 0, stream>>> (g);
    CIP_LAUNCH_CHECK (stream, "boxfilter gather (16-bit)");
  }

  /* registers kernel: one launch per radius among its planes */
  bool reg_todo[boxfilter_max_planes];
  for (int i = 0; i < n_planes; i++)
    reg_todo[i] = reg[i];
  for (int i = 0; i < n_planes; i++) {
    if (!reg_todo[i])
      continue;
    RegParams rp = {};
    rp.replicate = replicate ? 1 : 0;
    rp.div = detail::box_byte_divisor ((uint32_t) (2 * planes[i].rx + 1) *
        (uint32_t) (2 * planes[i].ry + 1));
    long long blocks = 0;
    for (int j = i; j < n_planes; j++) {
      const BoxPlane &p = planes[j];
      if (!reg_todo[j] || p.rx != planes[i].rx || p.ry != planes[i].ry)
        continue;
      reg_todo[j] = false;
      RegPlane &q = rp.p[rp.n++];
      q.src = p.src.data;
      q.src_pitch = p.src.pitch;
      q.dst = p.dst;
      q.dst_pitch = p.dst_pitch;
      q.w = p.src.width;
      q.h = p.src.height;
      q.strips = div_up (q.w, reg_strip_w (p.rx));
      q.block_begin = (int) blocks;
      blocks += (long long) q.strips * div_up (div_up (q.h,
              reg_rows (planes[i].ry)), kRegWarps);
    }
    if (blocks > 0x7fffffffLL)
      return Status::unsupported;
    reg_kernel (planes[i].rx, planes[i].ry)
        <<<(unsigned) blocks, 32 * kRegWarps, 0, stream>>> (rp);
    CIP_LAUNCH_CHECK (stream, "boxfilter direct (registers)");
  }

  for (int i = 0; i < n_planes; i++) {
    const BoxPlane &p = planes[i];
    if (detail::box_plane_empty (p) || p.src.bytes == 2 || sliding[i] ||
        reg[i])
      continue;
    if (fused[i]) {
      st = sm_count ();
      if (st == Status::ok)
        st = run_fused (p, replicate, ws, L.integral_bytes, sms, optin, stream);
      if (st != Status::ok)
        return st;
      continue;
    }
    const int w = p.src.width, h = p.src.height;
    if (direct[i]) {
      DirectPlane &d = dp.p[dp.n++];
      d = direct_plane (p.src.data, p.src.pitch, p.src.step, p.dst,
          p.dst_pitch, p.dst_step, w, h, p.rx, p.ry, div_up (w, kDirTileW),
          (int) direct_blocks);
      direct_blocks += (long long) d.tiles_x * div_up (h, dir_th);
      continue;
    }
    const uint32_t full = (uint32_t) (2 * p.rx + 1) * (uint32_t) (2 * p.ry + 1);
    GatherPlane &g = gp.p[gp.n++];
    if (p.sat) {
      g.sat = reinterpret_cast<const uint8_t *> (p.sat);
      g.sat_pitch = p.sat_pitch;
    } else {
      SatDest sd;
      sd.sum = ws + L.sat_offset[i];
      sd.sum_pitch = L.sat_pitch[i];
      st = integral (p.src, SatType::u32, sd, d_ws, L.integral_bytes, stream);
      if (st != Status::ok)
        return st;
      g.sat = ws + L.sat_offset[i];
      g.sat_pitch = L.sat_pitch[i];
    }
    g.vec = ((uintptr_t) g.sat % 16) == 0 && (g.sat_pitch % 16) == 0;
    g.dst = p.dst;
    g.dst_pitch = p.dst_pitch;
    g.dst_step = p.dst_step;
    g.w = w;
    g.h = h;
    g.rx = p.rx;
    g.ry = p.ry;
    g.full_area = full;
    g.rcp_full = box_rcp (full);
    g.div_full = detail::box_divisor (full);
  }
  if (gp.n > 0) {
    /* steps along the row per warp: as many as leave about 6 blocks per SM */
    st = sm_count ();
    if (st != Status::ok)
      return st;
    long long blocks1 = 0;
    for (int i = 0; i < gp.n; i++)
      blocks1 += (long long) div_up (gp.p[i].w, kGatherStepW) *
          div_up (gp.p[i].h, kGatherRows);
    const long long per_step = 6LL * sms;
    gp.steps = (int) (blocks1 / per_step > kGatherMaxSteps ? kGatherMaxSteps :
        blocks1 / per_step < 1 ? 1 : blocks1 / per_step);
    for (int i = 0; i < gp.n; i++) {
      GatherPlane &g = gp.p[i];
      g.tiles_x = div_up (g.w, kGatherStepW * gp.steps);
      g.block_begin = (int) gather_blocks;
      gather_blocks += (long long) g.tiles_x * div_up (g.h, kGatherRows);
    }
  }
  if (gather_blocks > 0x7fffffffLL || direct_blocks > 0x7fffffffLL)
    return Status::unsupported;

  cudaStream_t s = stream;
  if (gather_blocks > 0) {
    box_gather <<<(unsigned) gather_blocks, kGatherThreads, 0, s>>> (gp);
    CIP_LAUNCH_CHECK (s, "boxfilter gather");
  }
  if (direct_blocks > 0) {
    dp.tile_pitch = 16 * dir_chunks (max_rx);
    dp.tile_rows = dir_th + 2 * max_ry;
    const size_t smem = dir_smem (dp.tile_rows, dp.tile_pitch);
    if (dir_th == kDirTileHSmall)
      box_direct<kDirTileHSmall, kDirSmallMaxRy, false>
          <<<(unsigned) direct_blocks, kDirThreads, smem, s>>> (dp);
    else
      box_direct<kDirTileHLarge, boxfilter_direct_max_radius, false>
          <<<(unsigned) direct_blocks, kDirThreads, smem, s>>> (dp);
    CIP_LAUNCH_CHECK (s, "boxfilter direct");
  }
  return Status::ok;
}

}  // namespace cip
