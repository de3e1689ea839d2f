/* cip equalize kernels (see cip/equalize.h).
 *
 * Two launches per call:
 * 1. hist_lut_kernel: tiles x slices blocks (global mode: one "tile", the
 *    ROI). A block counts its band of tile rows (16-byte vector loads inside
 *    the frame, single reads for the BORDER_REFLECT_101 padding of CLAHE)
 *    into per-lane shared-memory histograms (bank-conflict-free for any data,
 *    as histogram.cu's replicated variant), then adds them to the tile's
 *    accumulator in the workspace. A per-tile ticket elects the last block of
 *    the tile, which takes the accumulator (leaving it zero), updates the
 *    smoothing state, builds the LUT (block scans, one thread per bin, the
 *    float expressions of detail/equalize_math.h) and writes it to the
 *    workspace and to the caller's LUT buffer.
 *    equalize_from_histogram launches lut_kernel instead (one block, the
 *    same epilogue on the given histogram).
 * 2. apply_kernel: LUTs in shared memory; 16-byte loads and stores where
 *    source and destination are aligned alike, pixel by pixel elsewhere.
 *    Global: grid-stride over 16-byte chunks (contiguous frames as one row).
 *    CLAHE: one block per band of rows, holding the tile rows of LUTs the
 *    band interpolates between.
 *
 * Depth > 8 (gray) is a separate plain path. Global: cip::histogram (its
 * general path, 2^depth bins) into the workspace, eq16_lut_kernel (one block:
 * smoothing, total, first bin, block scans over the bins in chunks, the same
 * entry arithmetic), then eq16_apply_kernel (one 16-bit word per thread, the
 * LUT read through the read-only cache). CLAHE: a tile's 2^depth bins (up to
 * 256 KiB of counts) do not fit shared memory, so clahe16_hist_kernel counts
 * chunks of at most kClaheChunk bins: one block per (tile, band of tile rows,
 * chunk) reads its band and counts the values that fall in its chunk into
 * shared memory (runs of equal neighbours as one atomic, so flat and
 * vertical-gradient frames do not serialise), then adds the non-zero bins to
 * the tile's counts in the workspace with global atomics. The blocks of one
 * band are adjacent in launch order, so the 2..4 reads of a band at 15/16
 * bits mostly hit L2. eq16_lut_kernel then runs one block per tile (clip,
 * redistribution, scan; it zeroes the counts for the next call), and
 * eq16_apply_kernel<true> interpolates the four tile LUTs per pixel.
 */
#include <algorithm>
#include <cstring>
#include <mutex>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "cip/equalize.h"
#include "cip/histogram.h"
#include "detail/check.cuh"
#include "detail/equalize_math.h"

namespace cip {

namespace {

using detail::EqPlan;

constexpr int kThreads = 256;            /* = bins: the epilogue maps thread to bin */
constexpr int kMaxNch = 3;
constexpr size_t kHistSmem = (size_t) kMaxNch * kEqBins * 32 * 4;
constexpr size_t kApplySmemBudget = 96 * 1024;

struct Shape {
  const uint8_t *src;
  uint8_t *dst;
  size_t spitch, dpitch;
  int width, height;
};

struct LutParams {
  Shape f;
  int clahe, nch, bpp, luma;
  int off0, off1, off2;
  int tiles_x, tiles_y;
  int tile_w, tile_h, hx, hy;
  int clip;
  float lut_scale;
  uint32_t alpha;
  int strength;
  int smooth, state_valid;
  int slices;
  uint32_t *tickets;
  uint32_t *acc;
  uint8_t *luts;
  uint8_t *lut_out;
  uint64_t *state;
  const uint32_t *given;   /* lut_kernel: device histograms, or null */
};

struct HostHist {
  uint32_t h[kMaxNch * kEqBins];
};

struct ApplyParams {
  Shape f;
  int clahe, nch, bpp, luma;
  int off0, off1, off2;
  int tiles_x, tiles_y;
  float inv_tw, inv_th;
  const uint8_t *luts;
  int band_rows;           /* CLAHE: rows per block */
  int lut_rows;            /* CLAHE: tile rows of LUTs a block holds */
  int one_row;             /* global: rows contiguous in src and dst */
  uint32_t cpr;            /* 16-byte chunks per row (upper bound) */
  uint64_t items;          /* global: rows * cpr */
};

/* ---- samples ----------------------------------------------------------------- */

__device__ __forceinline__ uint32_t
byte_of (uint32_t w, int i)
{
  return (w >> (8 * i)) & 0xFFu;
}

/* Channel c's sample of a 4-byte pixel word. */
__device__ __forceinline__ uint32_t
rgb_sample (uint32_t w, int luma, int o0, int o1, int o2, int c)
{
  if (luma)
    return (kLuma709R * byte_of (w, o0) + kLuma709G * byte_of (w, o1) +
        kLuma709B * byte_of (w, o2) + 32768u) >> 16;
  return byte_of (w, c == 0 ? o0 : c == 1 ? o1 : o2);
}

struct Counter {
  uint32_t *h;   /* region of channel 0 + lane */
  __device__ __forceinline__ void add (int c, uint32_t bin, uint32_t k) const
  {
    atomicAdd (h + c * (kEqBins * 32) + (bin << 5), k);
  }
};

__device__ __forceinline__ void
count_pixel (const LutParams &p, const Counter &cnt, uint32_t w)
{
  if (p.bpp == 1) {
    cnt.add (0, w & 0xFFu, 1u);
  } else {
    for (int c = 0; c < p.nch; c++)
      cnt.add (c, rgb_sample (w, p.luma, p.off0, p.off1, p.off2, c), 1u);
  }
}

__device__ __forceinline__ void
count_vec (const LutParams &p, const Counter &cnt, uint4 v)
{
  const uint32_t w[4] = { v.x, v.y, v.z, v.w };
  if (p.bpp == 1) {
    if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == __byte_perm (v.x, 0, 0)) {
      cnt.add (0, v.x & 0xFFu, 16u);     /* flat: one atomic */
      return;
    }
#pragma unroll
    for (int q = 0; q < 4; q++)
#pragma unroll
      for (int i = 0; i < 4; i++)
        cnt.add (0, byte_of (w[q], i), 1u);
  } else {
#pragma unroll
    for (int q = 0; q < 4; q++)
      count_pixel (p, cnt, w[q]);
  }
}

/* ---- block scans (256 threads, one value each) -------------------------------- */

struct ScanSmem {
  uint32_t warp[kThreads / 32];
  uint32_t total;
  uint32_t i0;
  uint32_t hi0;
};

/* Inclusive prefix sum of v over the block; *total gets the block's sum. */
__device__ uint32_t
block_scan (uint32_t v, ScanSmem &s, uint32_t *total)
{
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  uint32_t x = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const uint32_t y = __shfl_up_sync (0xFFFFFFFFu, x, o);
    if (lane >= o)
      x += y;
  }
  if (lane == 31)
    s.warp[wid] = x;
  __syncthreads ();
  uint32_t before = 0, all = 0;
  for (int i = 0; i < kThreads / 32; i++) {
    const uint32_t t = s.warp[i];
    if (i < wid)
      before += t;
    all += t;
  }
  __syncthreads ();     /* s.warp is reused by the next scan */
  *total = all;
  return before + x;
}

/* The epilogue: histograms of one tile (h[c] for this thread's bin) ->
 * smoothing -> LUTs. All kThreads threads of the block take part. */
__device__ void
build_luts (const LutParams &p, int tile, ScanSmem &s, const uint32_t *hin)
{
  const int b = threadIdx.x;
  for (int c = 0; c < p.nch; c++) {
    const size_t idx = ((size_t) tile * p.nch + c) * kEqBins + b;
    uint32_t h = hin[c * kEqBins + b];
    if (p.smooth) {
      const uint64_t st = p.state_valid ? detail::eq_ema (p.state[idx], h, p.alpha) :
          (uint64_t) h << detail::kEqStateFrac;
      p.state[idx] = st;
      h = detail::eq_state_count (st);
    }
    uint8_t l;
    if (p.clahe) {
      uint32_t r = h;
      if (p.clip > 0) {
        const uint32_t hc = min (h, (uint32_t) p.clip);
        uint32_t excess;
        block_scan (h - hc, s, &excess);
        r = detail::eq_clahe_redist (b, hc, excess);
      }
      uint32_t tot;
      const uint32_t cum = block_scan (r, s, &tot);
      l = detail::eq_sat_u8 (detail::eq_mul (detail::eq_u2f (cum), p.lut_scale));
    } else {
      if (b == 0)
        s.i0 = kEqBins;
      __syncthreads ();
      if (h != 0)
        atomicMin (&s.i0, (uint32_t) b);
      uint32_t total;
      const uint32_t cum = block_scan (h, s, &total);  /* syncs: i0 is final */
      if ((uint32_t) b == s.i0)
        s.hi0 = h;
      __syncthreads ();
      const uint32_t i0 = s.i0;
      if (total == 0 || s.hi0 == total) {
        l = (uint8_t) b;
      } else {
        const float scale = __fdiv_rn (255.0f, detail::eq_u2f (total - s.hi0));
        l = detail::eq_global_entry (b, cum, (int) i0, s.hi0, scale);
      }
      __syncthreads ();   /* s.i0 / s.hi0 are reused by the next channel */
    }
    const uint8_t out = detail::eq_blend (b, l, p.strength);
    p.luts[idx] = out;
    if (p.lut_out)
      p.lut_out[idx] = out;
  }
}

/* ---- kernel 1: histograms + LUTs ------------------------------------------------ */

__global__ void __launch_bounds__ (kThreads)
hist_lut_kernel (const __grid_constant__ LutParams p)
{
  extern __shared__ uint4 dyn_smem[];
  __shared__ ScanSmem s;
  __shared__ uint32_t hfin[kMaxNch * kEqBins];
  __shared__ int s_last;
  uint32_t *sh = reinterpret_cast<uint32_t *> (dyn_smem);
  const int tid = threadIdx.x, lane = tid & 31;
  const int tile = blockIdx.x / p.slices, slice = blockIdx.x % p.slices;
  const int tx = tile % p.tiles_x, ty = tile / p.tiles_x;

  const int nwords = p.nch * kEqBins * 32;
  for (int i = tid; i < nwords / 4; i += kThreads)
    dyn_smem[i] = make_uint4 (0, 0, 0, 0);
  __syncthreads ();

  /* this block's rows of the tile */
  const int r0 = (int) ((int64_t) p.tile_h * slice / p.slices);
  const int r1 = (int) ((int64_t) p.tile_h * (slice + 1) / p.slices);
  const Counter cnt { sh + lane };
  const int W = p.f.width, H = p.f.height, bpp = p.bpp;
  /* padded columns [x0, x0 + tile_w): inside the frame [x0, xin) */
  const int x0 = p.clahe ? tx * p.tile_w : p.hx;
  const int xe = x0 + p.tile_w;
  const int xin = min (xe, W);
  const int npad = xe - max (x0, xin);      /* columns in the reflected padding */
  const int ubytes = xin > x0 ? (xin - x0) * bpp : 0;
  const int nvec = ubytes > 0 ? (ubytes + 30) / 16 : 0;   /* chunks per row, at most */
  const int U = nvec + npad;                              /* work units per row */
  const int64_t items = (int64_t) (r1 - r0) * U;
  for (int64_t item = tid; item < items; item += kThreads) {
    const int r = r0 + (int) (item / U);
    const int k = (int) (item - (int64_t) (r - r0) * U);
    const int py = p.clahe ? ty * p.tile_h + r : p.hy + r;
    const int sy = p.clahe ? detail::eq_reflect101 (py, H) : py;
    const uint8_t *row = p.f.src + (size_t) sy * p.f.spitch;
    if (k < nvec) {
      const uintptr_t lo = (uintptr_t) row + (size_t) x0 * bpp;
      const uintptr_t hi = lo + (size_t) ubytes;
      const uintptr_t a = (lo & ~(uintptr_t) 15) + (uintptr_t) k * 16;
      if (a >= hi)
        continue;
      if (a >= lo && a + 16 <= hi) {
        count_vec (p, cnt, __ldg ((const uint4 *) a));
      } else {
        for (int i = 0; i < 16; i += bpp) {
          const uintptr_t q = a + i;
          if (q >= lo && q < hi)
            count_pixel (p, cnt, bpp == 1 ? (uint32_t) __ldg ((const uint8_t *) q) :
                __ldg ((const uint32_t *) q));
        }
      }
    } else {
      const int px = max (x0, xin) + (k - nvec);
      const int sx = detail::eq_reflect101 (px, W);
      const uint8_t *q = row + (size_t) sx * bpp;
      count_pixel (p, cnt, bpp == 1 ? (uint32_t) __ldg (q) :
          __ldg ((const uint32_t *) q));
    }
  }
  __syncthreads ();

  /* merge the lane copies; rotate the lane so a warp hits 32 banks */
  uint32_t *acc = p.acc + (size_t) tile * p.nch * kEqBins;
  for (int i = tid; i < p.nch * kEqBins; i += kThreads) {
    const uint32_t *r = sh + (i >> 8) * (kEqBins * 32) + ((i & 255) << 5);
    uint32_t sum = 0;
#pragma unroll 8
    for (int j = 0; j < 32; j++)
      sum += r[(j + i) & 31];
    if (sum)
      atomicAdd (acc + i, sum);
  }

  /* the tile's last block builds its LUTs (threadFenceReduction pattern) */
  __threadfence ();
  __syncthreads ();
  if (tid == 0)
    s_last = atomicAdd (p.tickets + tile, 1u) == (uint32_t) p.slices - 1;
  __syncthreads ();
  if (!s_last)
    return;
  __threadfence ();
  for (int i = tid; i < p.nch * kEqBins; i += kThreads)
    hfin[i] = atomicExch (acc + i, 0u);
  __syncthreads ();
  build_luts (p, tile, s, hfin);
  if (tid == 0)
    p.tickets[tile] = 0;
}

/* equalize_from_histogram: one block, the given histograms. */
__global__ void __launch_bounds__ (kThreads)
lut_kernel (const __grid_constant__ LutParams p, const __grid_constant__ HostHist hh)
{
  __shared__ ScanSmem s;
  __shared__ uint32_t hfin[kMaxNch * kEqBins];
  for (int i = threadIdx.x; i < p.nch * kEqBins; i += kThreads)
    hfin[i] = p.given ? p.given[i] : hh.h[i];
  __syncthreads ();
  build_luts (p, 0, s, hfin);
}

/* ---- kernel 2: apply -------------------------------------------------------------- */

/* Global: maps one pixel (byte or 4-byte word). */
__device__ __forceinline__ uint32_t
map_global (const ApplyParams &p, const uint8_t *lut, uint32_t w)
{
  if (p.bpp == 1)
    return lut[w & 0xFFu];
  const int o[3] = { p.off0, p.off1, p.off2 };
  if (p.luma) {
    const uint32_t y = rgb_sample (w, 1, p.off0, p.off1, p.off2, 0);
    const int dy = (int) lut[y] - (int) y;
#pragma unroll
    for (int c = 0; c < 3; c++) {
      const uint32_t nv = detail::eq_shift ((int) byte_of (w, o[c]), dy);
      w = (w & ~(0xFFu << (8 * o[c]))) | (nv << (8 * o[c]));
    }
    return w;
  }
#pragma unroll
  for (int c = 0; c < 3; c++) {
    const uint32_t nv = lut[c * kEqBins + byte_of (w, o[c])];
    w = (w & ~(0xFFu << (8 * o[c]))) | (nv << (8 * o[c]));
  }
  return w;
}

struct Interp {
  const uint8_t *l1, *l2;    /* LUT rows of ty1 and ty2 (shared) */
  float ya, ya1;
};

/* CLAHE: maps the pixel at column x. */
__device__ __forceinline__ uint32_t
map_clahe (const ApplyParams &p, const Interp &it, int x, uint32_t w)
{
  int tx1, tx2;
  float xa, xa1;
  detail::eq_axis (x, p.inv_tw, p.tiles_x, &tx1, &tx2, &xa, &xa1);
  const int stride = p.nch * kEqBins;
  const int i1 = tx1 * stride, i2 = tx2 * stride;
  auto interp = [&] (int c, uint32_t v) -> uint32_t {
    const int k = c * kEqBins + (int) v;
    return detail::eq_interp (it.l1[i1 + k], it.l1[i2 + k], it.l2[i1 + k],
        it.l2[i2 + k], xa, xa1, it.ya, it.ya1);
  };
  if (p.bpp == 1)
    return interp (0, w & 0xFFu);
  const int o[3] = { p.off0, p.off1, p.off2 };
  if (p.luma) {
    const uint32_t y = rgb_sample (w, 1, p.off0, p.off1, p.off2, 0);
    const int dy = (int) interp (0, y) - (int) y;
#pragma unroll
    for (int c = 0; c < 3; c++) {
      const uint32_t nv = detail::eq_shift ((int) byte_of (w, o[c]), dy);
      w = (w & ~(0xFFu << (8 * o[c]))) | (nv << (8 * o[c]));
    }
    return w;
  }
#pragma unroll
  for (int c = 0; c < 3; c++) {
    const uint32_t nv = interp (c, byte_of (w, o[c]));
    w = (w & ~(0xFFu << (8 * o[c]))) | (nv << (8 * o[c]));
  }
  return w;
}

/* One 16-byte destination chunk at byte offset `off` of a row whose valid
 * bytes are [0, nbytes); x of byte 0 is 0. CLAHE: it != null. */
template <bool CLAHE>
__device__ __forceinline__ void
apply_chunk (const ApplyParams &p, const uint8_t *lut, const Interp &it,
    const uint8_t *srow, uint8_t *drow, int64_t off, int64_t nbytes)
{
  const int bpp = p.bpp;
  const int64_t end = min (off + 16, nbytes);
  const int64_t beg = max (off, (int64_t) 0);
  if (beg == off && end == off + 16 && (((uintptr_t) (srow + off)) & 15) == 0) {
    const uint4 v = __ldg ((const uint4 *) (srow + off));
    uint32_t w[4] = { v.x, v.y, v.z, v.w };
    if (bpp == 1) {
#pragma unroll
      for (int q = 0; q < 4; q++) {
        uint32_t o = 0;
#pragma unroll
        for (int i = 0; i < 4; i++) {
          const uint32_t b = byte_of (w[q], i);
          uint32_t m;
          if constexpr (CLAHE)
            m = map_clahe (p, it, (int) (off + q * 4 + i), b);
          else
            m = lut[b];
          o |= m << (8 * i);
        }
        w[q] = o;
      }
    } else {
#pragma unroll
      for (int q = 0; q < 4; q++) {
        if constexpr (CLAHE)
          w[q] = map_clahe (p, it, (int) ((off >> 2) + q), w[q]);
        else
          w[q] = map_global (p, lut, w[q]);
      }
    }
    *(uint4 *) (drow + off) = make_uint4 (w[0], w[1], w[2], w[3]);
    return;
  }
  for (int64_t i = beg; i < end; i += bpp) {
    uint32_t w = bpp == 1 ? (uint32_t) __ldg (srow + i) : __ldg ((const uint32_t *) (srow + i));
    if constexpr (CLAHE)
      w = map_clahe (p, it, (int) (i / bpp), w);
    else
      w = map_global (p, lut, w);
    if (bpp == 1)
      drow[i] = (uint8_t) w;
    else
      *(uint32_t *) (drow + i) = w;
  }
}

__global__ void __launch_bounds__ (kThreads)
apply_global_kernel (const __grid_constant__ ApplyParams p)
{
  __shared__ uint8_t lut[kMaxNch * kEqBins];
  for (int i = threadIdx.x; i < p.nch * kEqBins; i += kThreads)
    lut[i] = p.luts[i];
  __syncthreads ();
  const Interp none {};
  const int64_t rowbytes = p.one_row ?
      (int64_t) p.f.width * p.bpp * p.f.height : (int64_t) p.f.width * p.bpp;
  for (uint64_t item = (uint64_t) blockIdx.x * kThreads + threadIdx.x; item < p.items;
      item += (uint64_t) gridDim.x * kThreads) {
    const uint64_t row = item / p.cpr;
    const uint32_t k = (uint32_t) (item - row * p.cpr);
    const uint8_t *srow = p.f.src + (size_t) row * p.f.spitch;
    uint8_t *drow = p.f.dst + (size_t) row * p.f.dpitch;
    /* chunks aligned to 16 in the destination */
    const int64_t mis = (int64_t) ((uintptr_t) drow & 15);
    const int64_t off = -mis + (int64_t) k * 16;
    if (off < rowbytes)
      apply_chunk<false> (p, lut, none, srow, drow, off, rowbytes);
  }
}

__global__ void __launch_bounds__ (kThreads)
apply_clahe_kernel (const __grid_constant__ ApplyParams p)
{
  extern __shared__ uint4 dyn_smem[];
  uint8_t *sl = reinterpret_cast<uint8_t *> (dyn_smem);
  const int y0 = blockIdx.x * p.band_rows;
  const int y1 = min (y0 + p.band_rows, p.f.height);
  int tyA, tyB, t;
  float w, w1;
  detail::eq_axis (y0, p.inv_th, p.tiles_y, &tyA, &t, &w, &w1);
  detail::eq_axis (y1 - 1, p.inv_th, p.tiles_y, &t, &tyB, &w, &w1);
  tyB = min (tyB, tyA + p.lut_rows - 1);  /* the host bound holds; never overrun */
  const int rowbytes_lut = p.tiles_x * p.nch * kEqBins;
  const int n16 = (tyB - tyA + 1) * rowbytes_lut / 16;
  const uint4 *g = reinterpret_cast<const uint4 *> (p.luts + (size_t) tyA * rowbytes_lut);
  for (int i = threadIdx.x; i < n16; i += kThreads)
    dyn_smem[i] = g[i];
  __syncthreads ();

  const int64_t rowbytes = (int64_t) p.f.width * p.bpp;
  const uint32_t items = (uint32_t) (y1 - y0) * p.cpr;
  for (uint32_t item = threadIdx.x; item < items; item += kThreads) {
    const int y = y0 + (int) (item / p.cpr);
    const uint32_t k = item % p.cpr;
    Interp it;
    int ty1, ty2;
    detail::eq_axis (y, p.inv_th, p.tiles_y, &ty1, &ty2, &it.ya, &it.ya1);
    ty1 = min (max (ty1 - tyA, 0), tyB - tyA);
    ty2 = min (max (ty2 - tyA, 0), tyB - tyA);
    it.l1 = sl + (size_t) ty1 * rowbytes_lut;
    it.l2 = sl + (size_t) ty2 * rowbytes_lut;
    const uint8_t *srow = p.f.src + (size_t) y * p.f.spitch;
    uint8_t *drow = p.f.dst + (size_t) y * p.f.dpitch;
    const int64_t mis = (int64_t) ((uintptr_t) drow & 15);
    const int64_t off = -mis + (int64_t) k * 16;
    if (off < rowbytes)
      apply_chunk<true> (p, nullptr, it, srow, drow, off, rowbytes);
  }
}

/* ---- host side -------------------------------------------------------------------- */

constexpr int kMaxDevices = 64;

struct DevInfo {
  bool ready = false;
  int sms = 0;
};

std::mutex g_mu;
DevInfo g_dev[kMaxDevices];

Status
device_info (DevInfo *info)
{
  int dev = 0;
  CIP_CUDA_TRY (cudaGetDevice (&dev));
  if (dev < 0 || dev >= kMaxDevices)
    return Status::unsupported;
  std::lock_guard<std::mutex> lock (g_mu);
  DevInfo &d = g_dev[dev];
  if (!d.ready) {
    int sms = 0;
    CIP_CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
    CIP_CUDA_TRY (cudaFuncSetAttribute (hist_lut_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) kHistSmem));
    CIP_CUDA_TRY (cudaFuncSetAttribute (apply_clahe_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) kApplySmemBudget));
    d.sms = sms > 0 ? sms : 1;
    d.ready = true;
  }
  *info = d;
  return Status::ok;
}

void
fill_lut_params (LutParams &lp, const EqFrame &f, const EqPlan &p,
    EqState *state, uint8_t *d_lut_out, void *d_ws, const EqConfig &cfg)
{
  memset (&lp, 0, sizeof (lp));
  lp.f = { f.src, f.dst, f.src_pitch, f.dst_pitch, f.width, f.height };
  lp.clahe = p.clahe;
  lp.nch = p.nch;
  lp.bpp = p.bpp;
  lp.luma = p.luma;
  lp.off0 = p.off[0];
  lp.off1 = p.off[1];
  lp.off2 = p.off[2];
  lp.tiles_x = p.tiles_x;
  lp.tiles_y = p.tiles_y;
  lp.tile_w = p.tile_w;
  lp.tile_h = p.tile_h;
  lp.hx = p.hx;
  lp.hy = p.hy;
  lp.clip = p.clip;
  lp.lut_scale = p.lut_scale;
  lp.alpha = p.alpha;
  lp.strength = p.strength;
  lp.smooth = p.smooth;
  lp.state_valid = p.state_valid;
  lp.slices = 1;
  const size_t tick = ((size_t) equalize_tiles (cfg) * 4 + 255) & ~(size_t) 255;
  uint8_t *ws = static_cast<uint8_t *> (d_ws);
  lp.tickets = reinterpret_cast<uint32_t *> (ws);
  lp.acc = reinterpret_cast<uint32_t *> (ws + tick);
  lp.luts = ws + tick + equalize_lut_bytes (cfg) * 4;
  lp.lut_out = d_lut_out;
  lp.state = p.smooth ? static_cast<uint64_t *> (state->data) : nullptr;
}

Status
launch_apply (const EqFrame &f, const EqPlan &p, const uint8_t *luts,
    const DevInfo &di, Stream stream)
{
  ApplyParams ap;
  memset (&ap, 0, sizeof (ap));
  ap.f = { f.src, f.dst, f.src_pitch, f.dst_pitch, f.width, f.height };
  ap.clahe = p.clahe;
  ap.nch = p.nch;
  ap.bpp = p.bpp;
  ap.luma = p.luma;
  ap.off0 = p.off[0];
  ap.off1 = p.off[1];
  ap.off2 = p.off[2];
  ap.tiles_x = p.tiles_x;
  ap.tiles_y = p.tiles_y;
  ap.inv_tw = p.inv_tw;
  ap.inv_th = p.inv_th;
  ap.luts = luts;
  const uint64_t rowbytes = (uint64_t) f.width * p.bpp;
  if (!p.clahe) {
    ap.one_row = f.height == 1 ||
        (f.src_pitch == rowbytes && f.dst_pitch == rowbytes);
    const uint64_t span = ap.one_row ? rowbytes * (uint64_t) f.height : rowbytes;
    const uint64_t cpr = (span + 30) / 16;
    if (cpr > 0xFFFFFFFFull)
      return Status::unsupported;
    ap.cpr = (uint32_t) cpr;
    ap.items = cpr * (ap.one_row ? 1 : (uint64_t) f.height);
    const uint64_t want = (ap.items + kThreads - 1) / kThreads;
    const uint64_t grid = std::max<uint64_t> (1, std::min<uint64_t> (want,
        (uint64_t) di.sms * 8));
    apply_global_kernel<<<(unsigned) grid, kThreads, 0, stream>>> (ap);
    CIP_LAUNCH_CHECK (stream, "equalize apply");
    return Status::ok;
  }
  ap.cpr = (uint32_t) ((rowbytes + 30) / 16);
  /* rows per block: about 32K pixels, fewer if the LUT rows a band needs
   * would not fit the shared-memory budget */
  const size_t lut_row = (size_t) p.tiles_x * p.nch * kEqBins;
  int rows = std::max (1, std::min (f.height, 32768 / std::max (1, f.width)));
  auto need = [&] (int r) {
    return r == 1 ? 2 : std::min (p.tiles_y, r / std::max (1, p.tile_h) + 3);
  };
  while (rows > 1 && (size_t) need (rows) * lut_row > kApplySmemBudget)
    rows /= 2;
  while (rows > 1 && (uint64_t) rows * ap.cpr > 0x7FFFFFFFull)
    rows /= 2;
  ap.band_rows = rows;
  ap.lut_rows = std::min (need (rows), p.tiles_y);
  const size_t smem = (size_t) ap.lut_rows * lut_row;
  if (smem > kApplySmemBudget)
    return Status::unsupported;
  const int grid = (f.height + rows - 1) / rows;
  apply_clahe_kernel<<<grid, kThreads, smem, stream>>> (ap);
  CIP_LAUNCH_CHECK (stream, "equalize apply (CLAHE)");
  return Status::ok;
}


/* ---- depth > 8: gray frames of 16-bit words, global mode ------------------ */

constexpr int kEq16Threads = 1024;

struct MinOp {
  __device__ __forceinline__ uint32_t operator() (uint32_t a, uint32_t b) const
  {
    return a < b ? a : b;
  }
};

struct Eq16Params {
  const uint8_t *src;
  uint8_t *dst;
  size_t spitch, dpitch;
  int width, height, shift, maxv, bins;
  const uint32_t *hist_in;      /* the frame's (or the given) counts */
  uint32_t *counts;             /* workspace: the counts after smoothing */
  uint16_t *lut;                /* workspace: the applied LUT */
  uint8_t *lut_out;             /* optional caller copy (uint16, little-endian) */
  uint64_t *state;
  int smooth, state_valid;
  uint32_t alpha;
  int strength;
  /* CLAHE: one LUT per tile (block x of eq16_lut_kernel; every array above
   * holds bins entries per tile); the counts are zeroed once read */
  int clahe;
  int clip;
  float lut_scale;
  int tiles_x, tiles_y, tile_w, tile_h;
  float inv_tw, inv_th;
};

__global__ void __launch_bounds__ (kEq16Threads)
eq16_lut_kernel (const __grid_constant__ Eq16Params p)
{
  using Reduce = cub::BlockReduce<uint32_t, kEq16Threads>;
  using Scan = cub::BlockScan<uint32_t, kEq16Threads>;
  __shared__ union {
    typename Reduce::TempStorage red;
    typename Scan::TempStorage scan;
  } tmp;
  __shared__ uint32_t s_total, s_i0, s_hi0, s_carry;
  const int tid = threadIdx.x;
  const size_t base = (size_t) blockIdx.x * p.bins;     /* the tile's tables */
  const uint32_t *hist_in = p.hist_in + base;
  uint32_t *counts = p.counts + base;
  uint64_t *state = p.state ? p.state + base : nullptr;
  uint16_t *lut = p.lut + base;
  uint8_t *lut_out = p.lut_out ? p.lut_out + 2 * base : nullptr;
  const uint32_t clip = p.clahe && p.clip > 0 ? (uint32_t) p.clip : 0u;

  /* smoothing (the state update); global: total and first non-empty bin;
   * CLAHE: the clipped excess (in `total`) */
  uint32_t total = 0, i0 = 0xFFFFFFFFu;
  for (int b = tid; b < p.bins; b += kEq16Threads) {
    uint32_t h = hist_in[b];
    if (p.smooth) {
      const uint64_t st = p.state_valid ? detail::eq_ema (state[b], h, p.alpha) :
          (uint64_t) h << detail::kEqStateFrac;
      state[b] = st;
      h = detail::eq_state_count (st);
    }
    counts[b] = h;
    if (p.clahe)
      total += clip > 0 && h > clip ? h - clip : 0u;
    else
      total += h;
    if (h != 0 && (uint32_t) b < i0)
      i0 = (uint32_t) b;
  }
  total = Reduce (tmp.red).Sum (total);
  __syncthreads ();
  i0 = Reduce (tmp.red).Reduce (i0, MinOp ());
  if (tid == 0) {
    s_total = total;
    s_i0 = i0;
    s_hi0 = i0 < (uint32_t) p.bins ? counts[i0] : 0;
    s_carry = 0;
  }
  __syncthreads ();
  total = s_total;
  i0 = s_i0;
  const uint32_t hi0 = s_hi0;
  const bool identity = !p.clahe && (total == 0 || hi0 == total);
  const float scale = p.clahe || identity ? 0.f :
      detail::eq_u2f ((uint32_t) p.maxv) / detail::eq_u2f (total - hi0);

  /* cumulative counts, a chunk of kEq16Threads bins at a time */
  for (int b0 = 0; b0 < p.bins; b0 += kEq16Threads) {
    const int b = b0 + tid;
    uint32_t h = 0;
    if (b < p.bins) {
      h = counts[b];
      if (p.clahe) {
        counts[b] = 0;          /* ready for the next call's atomics */
        if (clip > 0)
          h = detail::eq_clahe_redist (b, min (h, clip), total, (uint32_t) p.bins);
      }
    }
    uint32_t cum, chunk;
    Scan (tmp.scan).InclusiveSum (h, cum, chunk);
    cum += s_carry;
    if (b < p.bins) {
      int l;
      if (p.clahe)
        l = detail::eq_sat (detail::eq_mul (detail::eq_u2f (cum), p.lut_scale), p.maxv);
      else
        l = identity ? b : detail::eq_global_entry (b, cum, (int) i0, hi0, scale,
            p.maxv);
      const uint16_t out = (uint16_t) detail::eq_blend (b, l, p.strength);
      lut[b] = out;
      if (lut_out) {
        lut_out[2 * b] = (uint8_t) out;
        lut_out[2 * b + 1] = (uint8_t) (out >> 8);
      }
    }
    __syncthreads ();           /* every thread has read s_carry */
    if (tid == 0)
      s_carry += chunk;
    __syncthreads ();
  }
}

template <bool CLAHE>
__global__ void
eq16_apply_kernel (const __grid_constant__ Eq16Params p)
{
  const unsigned short *lut = reinterpret_cast<const unsigned short *> (p.lut);
  const size_t n = (size_t) p.width * (size_t) p.height;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    const size_t y = i / (size_t) p.width, x = i - y * (size_t) p.width;
    const uint32_t w = __ldg (reinterpret_cast<const unsigned short *> (p.src +
            y * p.spitch) + x);
    const uint32_t v = (w >> p.shift) & (uint32_t) p.maxv;
    uint32_t o;
    if constexpr (CLAHE) {
      int tx1, tx2, ty1, ty2;
      float xa, xa1, ya, ya1;
      detail::eq_axis ((int) x, p.inv_tw, p.tiles_x, &tx1, &tx2, &xa, &xa1);
      detail::eq_axis ((int) y, p.inv_th, p.tiles_y, &ty1, &ty2, &ya, &ya1);
      auto at = [&] (int ty, int tx) {
        return (int) __ldg (lut + (size_t) (ty * p.tiles_x + tx) * p.bins + v);
      };
      o = (uint32_t) detail::eq_interp_v (at (ty1, tx1), at (ty1, tx2),
          at (ty2, tx1), at (ty2, tx2), xa, xa1, ya, ya1, p.maxv);
    } else {
      o = (uint32_t) __ldg (lut + v);
    }
    reinterpret_cast<uint16_t *> (p.dst + y * p.dpitch)[x] = (uint16_t) (o << p.shift);
  }
}

/* ---- depth > 8, CLAHE: tile histograms in chunks of bins ------------------ */

constexpr int kClaheChunk = 16384;       /* bins per block: 64 KiB of counts */
constexpr int kClaheThreads = 512;
constexpr int kClaheRun = 8;             /* neighbouring pixels per thread */

struct Clahe16Hist {
  const uint8_t *src;
  size_t spitch;
  int width, height, shift, maxv, bins;
  int tiles_x, tile_w, tile_h;
  int slices, chunks, chunk;
  uint32_t *counts;                      /* [tile][bins], zero on entry */
};

__device__ __forceinline__ void
clahe16_add (uint32_t *hs, uint32_t v, uint32_t n, uint32_t c0, int chunk)
{
  if (n != 0 && v - c0 < (uint32_t) chunk)
    atomicAdd (hs + (v - c0), n);
}

__global__ void __launch_bounds__ (kClaheThreads)
clahe16_hist_kernel (const __grid_constant__ Clahe16Hist p)
{
  extern __shared__ uint32_t hs[];
  const int chunk = (int) (blockIdx.x % (unsigned) p.chunks);
  const int band = (int) (blockIdx.x / (unsigned) p.chunks);
  const int slice = band % p.slices, tile = band / p.slices;
  const int tx = tile % p.tiles_x, ty = tile / p.tiles_x;
  const uint32_t c0 = (uint32_t) chunk * (uint32_t) p.chunk;
  for (int i = threadIdx.x; i < p.chunk; i += kClaheThreads)
    hs[i] = 0;
  __syncthreads ();

  /* this block's rows of the (padded) tile, kClaheRun columns per item */
  const int r0 = (int) ((int64_t) p.tile_h * slice / p.slices);
  const int r1 = (int) ((int64_t) p.tile_h * (slice + 1) / p.slices);
  const int groups = (p.tile_w + kClaheRun - 1) / kClaheRun;
  const int xe = (tx + 1) * p.tile_w;
  const int64_t items = (int64_t) (r1 - r0) * groups;
  for (int64_t it = threadIdx.x; it < items; it += kClaheThreads) {
    const int r = r0 + (int) (it / groups);
    const int g = (int) (it - (int64_t) (r - r0) * groups);
    const int sy = detail::eq_reflect101 (ty * p.tile_h + r, p.height);
    const unsigned short *row = reinterpret_cast<const unsigned short *> (p.src +
        (size_t) sy * p.spitch);
    const int xa = tx * p.tile_w + g * kClaheRun;
    const int xb = min (xa + kClaheRun, xe);
    uint32_t run_v = 0, run_n = 0;
    for (int x = xa; x < xb; x++) {
      const int sx = detail::eq_reflect101 (x, p.width);
      const uint32_t v = ((uint32_t) __ldg (row + sx) >> p.shift) & (uint32_t) p.maxv;
      if (run_n != 0 && v == run_v) {
        run_n++;
        continue;
      }
      clahe16_add (hs, run_v, run_n, c0, p.chunk);
      run_v = v;
      run_n = 1;
    }
    clahe16_add (hs, run_v, run_n, c0, p.chunk);
  }
  __syncthreads ();

  uint32_t *acc = p.counts + (size_t) tile * p.bins + c0;
  for (int i = threadIdx.x; i < p.chunk; i += kClaheThreads) {
    const uint32_t n = hs[i];
    if (n != 0)
      atomicAdd (acc + i, n);
  }
}

/* Workspace of the depth > 8 path: histogram scratch, counts, LUT. */
struct Eq16Layout {
  size_t hist_ws_bytes, counts, lut;
};

Eq16Layout
eq16_layout (int bins)
{
  Eq16Layout l;
  l.hist_ws_bytes = histogram_workspace_bytes (1, bins);
  l.counts = (l.hist_ws_bytes + 255) & ~(size_t) 255;
  l.lut = l.counts + (size_t) bins * 4;
  return l;
}

/* The parameters both depth > 8 paths share (frame, smoothing, strength). */
Eq16Params
eq16_params (const EqFrame &f, const EqPlan &p, EqState *state,
    uint8_t *d_lut_out)
{
  Eq16Params q;
  memset (&q, 0, sizeof (q));
  q.src = f.src;
  q.dst = f.dst;
  q.spitch = f.src_pitch;
  q.dpitch = f.dst_pitch;
  q.width = f.width;
  q.height = f.height;
  q.shift = p.shift;
  q.maxv = p.maxv;
  q.bins = p.bins;
  q.lut_out = d_lut_out;
  q.state = p.smooth ? static_cast<uint64_t *> (state->data) : nullptr;
  q.smooth = p.smooth ? 1 : 0;
  q.state_valid = p.state_valid ? 1 : 0;
  q.alpha = p.alpha;
  q.strength = p.strength;
  return q;
}

/* clahe16_hist_kernel's shared memory above the default 48 KiB, once per
 * device. */
Status
clahe16_smem_ready ()
{
  static bool ready[kMaxDevices];
  int dev = 0;
  CIP_CUDA_TRY (cudaGetDevice (&dev));
  if (dev < 0 || dev >= kMaxDevices)
    return Status::unsupported;
  std::lock_guard<std::mutex> lock (g_mu);
  if (!ready[dev]) {
    CIP_CUDA_TRY (cudaFuncSetAttribute (clahe16_hist_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, kClaheChunk * 4));
    ready[dev] = true;
  }
  return Status::ok;
}

/* CLAHE at depth > 8 after the checks: three launches (tile histograms,
 * LUTs, apply). Workspace: the tiles' counts (zero between calls), then
 * their LUTs. */
Status
clahe16 (const EqFrame &f, const EqPlan &p, EqState *state, uint8_t *d_lut_out,
    void *d_ws, cudaStream_t stream)
{
  DevInfo di;
  Status st = device_info (&di);
  if (st == Status::ok)
    st = clahe16_smem_ready ();
  if (st != Status::ok)
    return st;
  uint8_t *ws = static_cast<uint8_t *> (d_ws);
  const size_t entries = (size_t) p.ntiles * p.bins;
  uint32_t *counts = reinterpret_cast<uint32_t *> (ws);

  Clahe16Hist h;
  h.src = f.src;
  h.spitch = f.src_pitch;
  h.width = f.width;
  h.height = f.height;
  h.shift = p.shift;
  h.maxv = p.maxv;
  h.bins = p.bins;
  h.tiles_x = p.tiles_x;
  h.tile_w = p.tile_w;
  h.tile_h = p.tile_h;
  h.chunk = std::min (p.bins, kClaheChunk);
  h.chunks = p.bins / h.chunk;
  h.counts = counts;
  /* bands per tile: about 4 blocks per SM in all, each at least ~8K pixels,
   * at most one per tile row */
  const uint64_t tile_px = (uint64_t) p.tile_w * p.tile_h;
  const uint64_t per_tile = (uint64_t) p.ntiles * h.chunks;
  uint64_t slices = ((uint64_t) di.sms * 4 + per_tile - 1) / per_tile;
  slices = std::min<uint64_t> (slices, std::max<uint64_t> (1, tile_px / 8192));
  slices = std::max<uint64_t> (1, std::min<uint64_t> (slices, (uint64_t) p.tile_h));
  h.slices = (int) slices;
  const uint64_t grid = (uint64_t) p.ntiles * h.slices * h.chunks;
  if (grid > 0x7FFFFFFFull)
    return Status::unsupported;
  clahe16_hist_kernel<<<(unsigned) grid, kClaheThreads, (size_t) h.chunk * 4,
      stream>>> (h);
  CIP_LAUNCH_CHECK (stream, "equalize CLAHE tile histograms (depth > 8)");

  Eq16Params q = eq16_params (f, p, state, d_lut_out);
  q.hist_in = counts;
  q.counts = counts;
  q.lut = reinterpret_cast<uint16_t *> (ws + entries * 4);
  q.clahe = 1;
  q.clip = p.clip;
  q.lut_scale = p.lut_scale;
  q.tiles_x = p.tiles_x;
  q.tiles_y = p.tiles_y;
  q.tile_w = p.tile_w;
  q.tile_h = p.tile_h;
  q.inv_tw = p.inv_tw;
  q.inv_th = p.inv_th;
  eq16_lut_kernel<<<(unsigned) p.ntiles, kEq16Threads, 0, stream>>> (q);
  CIP_LAUNCH_CHECK (stream, "equalize CLAHE LUTs (depth > 8)");
  const size_t n = (size_t) f.width * (size_t) f.height;
  const unsigned blocks = (unsigned) std::min<size_t> ((n + 255) / 256,
      (size_t) di.sms * 16);
  eq16_apply_kernel<true><<<blocks, 256, 0, stream>>> (q);
  CIP_LAUNCH_CHECK (stream, "equalize CLAHE apply (depth > 8)");
  if (state && state->data)
    state->valid = true;
  return Status::ok;
}

/* The depth > 8 path after the checks: `given` (device counts) or, when
 * null, the frame's histogram over the plan's region. */
Status
equalize16 (const EqFrame &f, const EqPlan &p, const uint32_t *given,
    EqState *state, uint8_t *d_lut_out, void *d_ws, cudaStream_t stream)
{
  uint8_t *ws = static_cast<uint8_t *> (d_ws);
  const Eq16Layout L = eq16_layout (p.bins);
  Eq16Params q = eq16_params (f, p, state, d_lut_out);
  q.counts = reinterpret_cast<uint32_t *> (ws + L.counts);
  q.lut = reinterpret_cast<uint16_t *> (ws + L.lut);
  if (given) {
    q.hist_in = given;
  } else {
    HistInput in;
    in.view.data = f.src + (size_t) p.hy * f.src_pitch + (size_t) p.hx * 2;
    in.view.pitch = f.src_pitch;
    in.view.width = p.tile_w;
    in.view.height = p.tile_h;
    in.view.step = 2;
    in.view.bytes = 2;
    in.view.depth = p.depth;
    in.view.shift = p.shift;
    Status st = histogram (&in, 1, p.bins, q.counts, false, ws, L.hist_ws_bytes,
        stream);
    if (st != Status::ok)
      return st;
    q.hist_in = q.counts;
  }
  eq16_lut_kernel<<<1, kEq16Threads, 0, stream>>> (q);
  CIP_LAUNCH_CHECK (stream, "equalize LUT (depth > 8)");
  const size_t n = (size_t) f.width * (size_t) f.height;
  const unsigned blocks = (unsigned) std::min<size_t> ((n + 255) / 256, 4096);
  eq16_apply_kernel<false><<<blocks, 256, 0, stream>>> (q);
  CIP_LAUNCH_CHECK (stream, "equalize apply (depth > 8)");
  if (state && state->data)
    state->valid = true;
  return Status::ok;
}

Status
check_ws (const EqConfig &cfg, void *d_ws, size_t ws_bytes)
{
  if (!d_ws || ((uintptr_t) d_ws & 255) != 0 || ws_bytes < equalize_workspace_bytes (cfg))
    return Status::invalid_argument;
  return Status::ok;
}

}  // namespace

Status
equalize_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (!d_ws || ws_bytes == 0)
    return Status::invalid_argument;
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, ws_bytes, stream));
  return Status::ok;
}

Status
equalize (const EqFrame &f, const EqConfig &cfg, EqState *state,
    uint8_t *d_lut_out, void *d_ws, size_t ws_bytes, Stream stream)
{
  EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, false, &p);
  if (st != Status::ok)
    return st;
  if ((st = check_ws (cfg, d_ws, ws_bytes)) != Status::ok)
    return st;
  if (f.width == 0 || f.height == 0)
    return Status::ok;
  if (p.depth > 8 && p.clahe)
    return clahe16 (f, p, state, d_lut_out, d_ws, stream);
  if (p.depth > 8)
    return equalize16 (f, p, nullptr, state, d_lut_out, d_ws, stream);
  DevInfo di;
  if ((st = device_info (&di)) != Status::ok)
    return st;

  LutParams lp;
  fill_lut_params (lp, f, p, state, d_lut_out, d_ws, cfg);
  /* blocks per tile: enough for ~8 blocks per SM in all, each at least
   * ~16K pixels, at most one per tile row */
  const uint64_t tile_px = (uint64_t) p.tile_w * p.tile_h;
  uint64_t slices = ((uint64_t) di.sms * 8 + p.ntiles - 1) / p.ntiles;
  slices = std::min<uint64_t> (slices, std::max<uint64_t> (1, tile_px / 16384));
  slices = std::max<uint64_t> (1, std::min<uint64_t> (slices, (uint64_t) std::max (1, p.tile_h)));
  lp.slices = (int) slices;
  const size_t smem = (size_t) p.nch * kEqBins * 32 * 4;
  hist_lut_kernel<<<(unsigned) (p.ntiles * lp.slices), kThreads, smem, stream>>> (lp);
  CIP_LAUNCH_CHECK (stream, "equalize histograms + LUTs");
  if ((st = launch_apply (f, p, lp.luts, di, stream)) != Status::ok)
    return st;
  if (state && state->data)
    state->valid = true;
  return Status::ok;
}

Status
equalize_from_histogram (const EqFrame &f, const EqConfig &cfg,
    const uint32_t *hist, bool hist_on_device, EqState *state,
    uint8_t *d_lut_out, void *d_ws, size_t ws_bytes, Stream stream)
{
  EqPlan p;
  Status st = detail::equalize_plan (f, cfg, state, true, &p);
  if (st != Status::ok)
    return st;
  if (!hist || (hist_on_device && ((uintptr_t) hist & 3) != 0))
    return Status::invalid_argument;
  if ((st = check_ws (cfg, d_ws, ws_bytes)) != Status::ok)
    return st;
  if (f.width == 0 || f.height == 0)
    return Status::ok;
  if (p.depth > 8) {
    if (!hist_on_device) {
      /* too large for the launch parameters: staged in the workspace */
      uint32_t *c = reinterpret_cast<uint32_t *> (static_cast<uint8_t *> (d_ws) +
          eq16_layout (p.bins).counts);
      CIP_CUDA_TRY (cudaMemcpyAsync (c, hist, (size_t) p.bins * 4,
              cudaMemcpyHostToDevice, stream));
      hist = c;
    }
    return equalize16 (f, p, hist, state, d_lut_out, d_ws, stream);
  }
  DevInfo di;
  if ((st = device_info (&di)) != Status::ok)
    return st;
  LutParams lp;
  fill_lut_params (lp, f, p, state, d_lut_out, d_ws, cfg);
  HostHist hh;
  memset (&hh, 0, sizeof (hh));
  if (hist_on_device)
    lp.given = hist;
  else
    memcpy (hh.h, hist, (size_t) p.nch * kEqBins * sizeof (uint32_t));
  lut_kernel<<<1, kThreads, 0, stream>>> (lp, hh);
  CIP_LAUNCH_CHECK (stream, "equalize LUTs");
  if ((st = launch_apply (f, p, lp.luts, di, stream)) != Status::ok)
    return st;
  if (state && state->data)
    state->valid = true;
  return Status::ok;
}

}  // namespace cip
