/* cip integral: summed area tables on the GPU.
 *
 * Decomposition. The image is cut into horizontal strips of TH rows (full
 * width). For strip i with top row y0:
 *   above_i(x)  = sum of src(x, y) over y < y0        (column sums above it)
 *   agg_i(x)    = sum of src(x, y) over the strip     (its aggregate)
 *   above_i+1   = above_i + agg_i
 * and every output row of the strip is an exclusive horizontal scan of the
 * running column sums c(x) = above_i(x) + sum of the strip's rows so far.
 * Column sums are exact in 32 bits (height <= 65535, also for squares), the
 * horizontal scan runs in the output type (u32 wraps, u64 exact).
 *
 * Threads. A block of NT threads covers a segment of 16*NT columns, thread t
 * owns columns [16t, 16t+16) (one 16-byte load per row) and keeps their 16
 * column sums in registers. A row is scanned with a serial scan in registers,
 * a warp shuffle scan and one __syncthreads per batch of rows for the warp
 * totals. Wider images loop over segments with a per-row carry. Outputs are
 * staged per warp in shared memory (swizzled 16-byte chunks, conflict-free)
 * and stored as contiguous 512-byte warp rows, 16-byte vectors when the
 * destination allows.
 *
 * single_pass: one kernel, one block per strip, strips claimed in order
 * through a global ticket. A strip sums its rows' columns (agg, u16, u32 for
 * squares), publishes it (flag A), then looks back over its predecessors:
 * it sums aggregates until a predecessor with a published prefix (flag P,
 * meaning its `above` vector is in the workspace; strip 0's is zero) and, after
 * `lookback` aggregates, waits for a prefix instead of reading further. It
 * then publishes its own `above` (flag P) and writes its rows, re-reading its
 * input (from L2 while it still holds it: at 16384^2 it does not). The last
 * block to finish resets ticket, counter and flags.
 *
 * multi_pass: the same device code in three launches: aggregates, a column
 * scan of the aggregates over strips, then the output rows.
 *
 * Workspace (offsets in bytes, regions 256-aligned):
 *   [0, 256)              ticket, done counter
 *   [256, 256 + 4*16384)  flags, one per strip (0 none, 1 agg, 2 prefix)
 *   agg[strips][wp]       u16 strip column sums (wp = width rounded to 64;
 *                         u32 for 16-bit samples)
 *   above[strips][wp]     u32 column sums above each strip
 *   aggq, aboveq          u32, the same for squares when squared (u64 for
 *                         16-bit samples)
 * tiled uses the same space after the control words for its own arrays
 * (TiledLayout), each written by one launch before the next reads it.
 * Only the control words are initialized; vectors are read only after their
 * flag says they were written. Vectors are valid up to the width rounded up
 * to 16 (zeros past the width).
 *
 * 16-bit samples (ImageView bytes 2) run the same multi_pass kernels on
 * another sample layout (Px<2> below): a thread still owns 16 columns, read
 * as two 16-byte loads a row, the value (word >> shift) & mask taken at the
 * load; strip column sums are u32 (128 * 65535 does not fit u16) and column
 * sums of squares u64 (65535^2 * rows does not fit u32). Column sums of the
 * values stay exact in u32 (65535 * 65535 < 2^32). single_pass is 8-bit
 * only: 16-bit requests for it run multi_pass.
 */
#include <algorithm>
#include <cstdint>

#include "cip/integral.h"
#include "detail/check.cuh"
#include "detail/integral_internal.h"
#include "detail/launch.cuh"
#include "detail/lookback.cuh"
#include "detail/warp_scan.cuh"

/* Tuning (the bench sweeps these through detail::sat_set_tuning or -D). */
#ifndef CIP_SAT_TH_SINGLE
#define CIP_SAT_TH_SINGLE 0       /* rows per strip, single_pass (0: by size) */
#endif
#ifndef CIP_SAT_TH_MULTI
#define CIP_SAT_TH_MULTI 0        /* rows per strip, multi_pass (0: by size) */
#endif
#ifndef CIP_SAT_LOOKBACK
#define CIP_SAT_LOOKBACK 32       /* aggregates summed before waiting on a prefix */
#endif
#ifndef CIP_SAT_MAX_THREADS
#define CIP_SAT_MAX_THREADS 512   /* threads per block cap (128, 256, 512) */
#endif
#ifndef CIP_SAT_BATCH_A
#define CIP_SAT_BATCH_A 8         /* rows loaded per step of the aggregate pass */
#endif
#ifndef CIP_SAT_BATCH_C
#define CIP_SAT_BATCH_C 2         /* rows per __syncthreads in the output pass */
#endif
#ifndef CIP_SAT_PREFETCH_MULTI
#define CIP_SAT_PREFETCH_MULTI 1    /* output pass loads the next rows early */
#endif
#ifndef CIP_SAT_PREFETCH_MULTI16
#define CIP_SAT_PREFETCH_MULTI16 0  /* the same for 16-bit samples */
#endif
#ifndef CIP_SAT_BATCH_A16
#define CIP_SAT_BATCH_A16 2       /* rows per step of the 16-bit aggregate pass */
#endif
#ifndef CIP_SAT_PREFETCH_SINGLE
#define CIP_SAT_PREFETCH_SINGLE 0
#endif
#ifndef CIP_SAT_THREADS_PER_SM
#define CIP_SAT_THREADS_PER_SM 1024  /* occupancy the register budget aims at */
#endif
#ifndef CIP_SAT_THREADS_PER_SM_SQ
#define CIP_SAT_THREADS_PER_SM_SQ 512  /* the same with squares */
#endif
#ifndef CIP_SAT_LOOKBACK_UNROLL
#define CIP_SAT_LOOKBACK_UNROLL 1  /* aggregates loaded at once in the look-back */
#endif
#define CIP_SAT_MIN_BLOCKS(nt, sq) \
  ((sq) ? std::max (1, CIP_SAT_THREADS_PER_SM_SQ / (nt)) \
        : std::max (1, CIP_SAT_THREADS_PER_SM / (nt)))

namespace cip {
namespace {

using detail::allow_next_kernel;
using detail::launch;
using detail::max_optin_smem;
using detail::pdl_supported;
using detail::wait_for_previous_kernel;
using u64 = unsigned long long;

constexpr int kCols = 16;                 /* columns per thread */
constexpr int kThMin = 4, kThMax = 128;   /* strip heights allowed */
constexpr int kMaxStrips = (detail::kSatMaxSide + kThMin - 1) / kThMin;
constexpr size_t kCtlBytes = 256;
constexpr size_t kFlagsOffset = kCtlBytes;
constexpr size_t kDataOffset = kFlagsOffset + sizeof (uint32_t) * kMaxStrips;
constexpr uint32_t kFlagAgg = 1, kFlagPrefix = 2;
constexpr int kBatchA = CIP_SAT_BATCH_A;        /* with squares: half */
constexpr int kBatchC = CIP_SAT_BATCH_C;
constexpr int kLookbackUnroll = CIP_SAT_LOOKBACK_UNROLL;
static_assert (kThMin % kBatchC == 0,
    "strip heights must be multiples of the output batch");
static_assert (kThMax * 255 <= 65535, "strip column sums must fit in u16");

struct SatParams {
  const uint8_t *src;
  size_t src_pitch;
  int width, height, step;
  int w16;                    /* width rounded up to 16 */
  void *sum;
  size_t sum_pitch;
  u64 *sqsum;
  size_t sqsum_pitch;
  int th, strips, nseg, lookback;
  bool vec_in, vec_sum, vec_sq;
  uint32_t *ctl;              /* [0] ticket, [1] done */
  uint32_t *flags;
  void *agg;                  /* Px<B>::Agg */
  uint32_t *above;
  void *aggq, *aboveq;        /* Px<B>::Sq */
  size_t wp;                  /* elements per workspace vector */
  int shift;                  /* 16-bit samples: value = (word >> shift) */
  uint32_t mask2;             /*   & mask, mask2 = mask in both halves */
};

/* ---------------------------------------------------------------- loads */

__device__ __forceinline__ uint32_t
byte_at (const uint4 &v, int m)
{
  const uint32_t w = m < 4 ? v.x : m < 8 ? v.y : m < 12 ? v.z : v.w;
  return (w >> (8 * (m & 3))) & 0xffu;
}

/* Generic path of load_px16: any step, any alignment, the row's tail. Kept
 * out of line so that its 16 scalar loads do not inflate the register
 * allocation of the vectorized path. */
__device__ __noinline__ uint4
load_px16_generic (const uint8_t *s, int step, int n)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int k = 0; k < kCols; k++)
    if (k < n)
      w[k >> 2] |= (uint32_t) __ldg (s + (size_t) k * step) << (8 * (k & 3));
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* The 16 samples of row y from column x0 (x0 < width); zeros past the width. */
__device__ __forceinline__ uint4
load_px16 (const SatParams &p, int y, int x0)
{
  const uint8_t *row = p.src + (size_t) y * p.src_pitch;
  if (p.vec_in && x0 + kCols <= p.width)
    return __ldg (reinterpret_cast<const uint4 *> (row + x0));
  return load_px16_generic (row + (size_t) x0 * p.step, p.step,
      min (kCols, p.width - x0));
}

__device__ __forceinline__ uint32_t
row_sum16 (const uint4 &v)
{
  const uint32_t ones = 0x01010101u;
  return __dp4a (v.x, ones, __dp4a (v.y, ones, __dp4a (v.z, ones,
              __dp4a (v.w, ones, 0u))));
}

__device__ __forceinline__ uint32_t
row_sumsq16 (const uint4 &v)
{
  return __dp4a (v.x, v.x, __dp4a (v.y, v.y, __dp4a (v.z, v.z,
              __dp4a (v.w, v.w, 0u))));
}

__device__ __forceinline__ void
load_u32x16 (const uint32_t *p, uint32_t (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < 4; q++) {
    const uint4 v = __ldcg (reinterpret_cast<const uint4 *> (p) + q);
    a[4 * q] = v.x;
    a[4 * q + 1] = v.y;
    a[4 * q + 2] = v.z;
    a[4 * q + 3] = v.w;
  }
}

__device__ __forceinline__ void
add_u32x16 (const uint32_t *p, uint32_t (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < 4; q++) {
    const uint4 v = __ldcg (reinterpret_cast<const uint4 *> (p) + q);
    a[4 * q] += v.x;
    a[4 * q + 1] += v.y;
    a[4 * q + 2] += v.z;
    a[4 * q + 3] += v.w;
  }
}

__device__ __forceinline__ void
add_u16x16 (const uint16_t *p, uint32_t (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < 2; q++) {
    const uint4 v = __ldcg (reinterpret_cast<const uint4 *> (p) + q);
    const uint32_t w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
      a[8 * q + 2 * k] += w[k] & 0xffffu;
      a[8 * q + 2 * k + 1] += w[k] >> 16;
    }
  }
}

__device__ __forceinline__ void
store_u32x16 (uint32_t *p, const uint32_t (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < 4; q++)
    __stcg (reinterpret_cast<uint4 *> (p) + q,
        make_uint4 (a[4 * q], a[4 * q + 1], a[4 * q + 2], a[4 * q + 3]));
}

__device__ __forceinline__ void
load_u64x16 (const u64 *p, u64 (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < kCols / 2; q++) {
    const ulonglong2 v = __ldcg (reinterpret_cast<const ulonglong2 *> (p) + q);
    a[2 * q] = v.x;
    a[2 * q + 1] = v.y;
  }
}

__device__ __forceinline__ void
store_u64x16 (u64 *p, const u64 (&a)[kCols])
{
#pragma unroll
  for (int q = 0; q < kCols / 2; q++)
    __stcg (reinterpret_cast<ulonglong2 *> (p) + q,
        make_ulonglong2 (a[2 * q], a[2 * q + 1]));
}

/* 8 16-bit samples from s, n of them (zeros past), two to a word. Out of
 * line for the same reason as load_px16_generic. */
__device__ __noinline__ uint4
load_px8w_generic (const uint8_t *s, int step, int n)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int k = 0; k < 8; k++)
    if (k < n)
      w[k >> 1] |= (uint32_t) __ldg (reinterpret_cast<const unsigned short *> (
              s + (size_t) k * step)) << (16 * (k & 1));
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* A row's 16 16-bit values of one thread: samples 0..7 in lo, 8..15 in hi,
 * two to a word (sample 2k in the low half of word k). */
struct Vec16 {
  uint4 lo, hi;
};

__device__ __forceinline__ uint32_t
values2 (uint32_t w, const SatParams &p)
{
  return (w >> p.shift) & p.mask2;
}

/* The 16 values of row y from column x0 (x0 < width); zeros past the width. */
__device__ __forceinline__ Vec16
load_px16w (const SatParams &p, int y, int x0)
{
  const uint8_t *row = p.src + (size_t) y * p.src_pitch;
  Vec16 v;
  if (p.vec_in && x0 + kCols <= p.width) {
    const uint4 *q = reinterpret_cast<const uint4 *> (row + 2 * (size_t) x0);
    v.lo = __ldg (q);
    v.hi = __ldg (q + 1);
  } else {
    const uint8_t *s = row + (size_t) x0 * p.step;
    const int n = min (kCols, p.width - x0);
    v.lo = load_px8w_generic (s, p.step, n);
    v.hi = n > 8 ? load_px8w_generic (s + 8 * (size_t) p.step, p.step, n - 8)
        : make_uint4 (0, 0, 0, 0);
  }
  v.lo = make_uint4 (values2 (v.lo.x, p), values2 (v.lo.y, p),
      values2 (v.lo.z, p), values2 (v.lo.w, p));
  v.hi = make_uint4 (values2 (v.hi.x, p), values2 (v.hi.y, p),
      values2 (v.hi.z, p), values2 (v.hi.w, p));
  return v;
}

/* Sample layouts of the strip kernels (B bytes a sample); a thread owns 16
 * columns in both. Vec: one row's samples; Agg: strip column sums in the
 * workspace; Sq: column sums of squares (registers, strip and above vectors);
 * AggPair / SqPair: two adjacent columns' workspace sums, as the column scan
 * loads them. */
template <int B> struct Px;

/* What both layouts share: the workspace vectors' types and accessors. */
template <typename AggT, typename SqT, typename AggPairT, typename SqPairT>
struct PxBase {
  using Agg = AggT;
  using Sq = SqT;
  using AggPair = AggPairT;
  using SqPair = SqPairT;
  __device__ static __forceinline__ Agg *agg (const SatParams &p) {
    return static_cast<Agg *> (p.agg);
  }
  __device__ static __forceinline__ Sq *aggq (const SatParams &p) {
    return static_cast<Sq *> (p.aggq);
  }
  __device__ static __forceinline__ Sq *aboveq (const SatParams &p) {
    return static_cast<Sq *> (p.aboveq);
  }
  __device__ static __forceinline__ AggPair ld_agg2 (const Agg *a) {
    return __ldcg (reinterpret_cast<const AggPair *> (a));
  }
  __device__ static __forceinline__ SqPair ld_sq2 (const Sq *q) {
    return __ldcg (reinterpret_cast<const SqPair *> (q));
  }
  __device__ static __forceinline__ void st_sq2 (Sq *q, SqPair v) {
    __stcg (reinterpret_cast<SqPair *> (q), v);
  }
};

/* 8-bit: one 16-byte load, u16 strip sums (128 * 255 fits), u32 squares. */
template <> struct Px<1> : PxBase<uint16_t, uint32_t, uint32_t, uint2> {
  using Vec = uint4;
  __device__ static __forceinline__ Vec zero () { return make_uint4 (0, 0, 0, 0); }
  __device__ static __forceinline__ Vec load (const SatParams &p, int y, int x0) {
    return load_px16 (p, y, x0);
  }
  __device__ static __forceinline__ uint32_t at (const Vec &v, int m) {
    return byte_at (v, m);
  }
  __device__ static __forceinline__ uint32_t sum (const Vec &v) {
    return row_sum16 (v);
  }
  __device__ static __forceinline__ uint32_t sumsq (const Vec &v) {
    return row_sumsq16 (v);
  }
  __device__ static __forceinline__ void load_sq (const Sq *q, Sq (&a)[kCols]) {
    load_u32x16 (q, a);
  }
  __device__ static __forceinline__ void add_agg2 (uint2 &s, AggPair a) {
    s.x += a & 0xffffu;
    s.y += a >> 16;
  }
};

/* 16-bit: two 16-byte loads, the values shifted and masked at the load; u32
 * strip sums (a whole column's, 65535 * 65535, fits too), u64 squares. */
template <> struct Px<2> : PxBase<uint32_t, u64, uint2, ulonglong2> {
  using Vec = Vec16;
  __device__ static __forceinline__ Vec zero () {
    return Vec16 { make_uint4 (0, 0, 0, 0), make_uint4 (0, 0, 0, 0) };
  }
  __device__ static __forceinline__ Vec load (const SatParams &p, int y, int x0) {
    return load_px16w (p, y, x0);
  }
  __device__ static __forceinline__ uint32_t word (const Vec &v, int k) {
    const uint4 &q = k < 4 ? v.lo : v.hi;
    return (k & 3) == 0 ? q.x : (k & 3) == 1 ? q.y : (k & 3) == 2 ? q.z : q.w;
  }
  __device__ static __forceinline__ uint32_t at (const Vec &v, int m) {
    const uint32_t w = word (v, m >> 1);
    return m & 1 ? w >> 16 : w & 0xffffu;
  }
  __device__ static __forceinline__ uint32_t sum (const Vec &v) {
    uint32_t s = 0;
#pragma unroll
    for (int k = 0; k < kCols / 2; k++)
      s = __dp2a_lo (word (v, k), 0x0101u, s);   /* low + high half */
    return s;
  }
  __device__ static __forceinline__ u64 sumsq (const Vec &v) {
    u64 s = 0;
#pragma unroll
    for (int m = 0; m < kCols; m++) {
      const uint32_t b = at (v, m);
      s += (u64) b * b;
    }
    return s;
  }
  __device__ static __forceinline__ void load_sq (const Sq *q, Sq (&a)[kCols]) {
    load_u64x16 (q, a);
  }
  __device__ static __forceinline__ void add_agg2 (uint2 &s, AggPair a) {
    s.x += a.x;
    s.y += a.y;
  }
};

/* ------------------------------------------------------ aggregate pass */

/* The column sums of one segment's 16 columns from x0 (< width) over the
 * strip's rows y0 .. y0 + rows - 1 (and of their squares), written to
 * agg / aggq. 8-bit: two columns a word as u16 lanes. */
template <bool SQ>
__device__ __forceinline__ void
aggregate_columns8 (const SatParams &p, int strip, int y0, int rows, int x0)
{
  uint32_t c2[8] = { };         /* columns (2k, 2k+1) as two u16 lanes */
  uint32_t cq[SQ ? kCols : 1] = { };
  constexpr int BA = SQ ? std::max (1, kBatchA / 2) : kBatchA;
  for (int r = 0; r < rows; r += BA) {
    uint4 v[BA];
#pragma unroll
    for (int k = 0; k < BA; k++)
      v[k] = r + k < rows ? load_px16 (p, y0 + r + k, x0)
          : make_uint4 (0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < BA; k++) {
      const uint32_t w[4] = { v[k].x, v[k].y, v[k].z, v[k].w };
#pragma unroll
      for (int q = 0; q < 4; q++) {
        c2[2 * q] += __byte_perm (w[q], 0, 0x4140);
        c2[2 * q + 1] += __byte_perm (w[q], 0, 0x4342);
      }
      if (SQ) {
#pragma unroll
        for (int m = 0; m < kCols; m++) {
          const uint32_t b = byte_at (v[k], m);
          cq[SQ ? m : 0] += b * b;
        }
      }
    }
  }
  uint4 *dst = reinterpret_cast<uint4 *> (Px<1>::agg (p) + (size_t) strip * p.wp + x0);
  __stcg (dst, make_uint4 (c2[0], c2[1], c2[2], c2[3]));
  __stcg (dst + 1, make_uint4 (c2[4], c2[5], c2[6], c2[7]));
  if (SQ) {
    uint32_t t[kCols];
#pragma unroll
    for (int m = 0; m < kCols; m++)
      t[m] = cq[SQ ? m : 0];
    store_u32x16 (Px<1>::aggq (p) + (size_t) strip * p.wp + x0, t);
  }
}

/* The same for 16-bit samples: plain u32 column sums (u64 for squares). */
template <bool SQ>
__device__ __forceinline__ void
aggregate_columns16 (const SatParams &p, int strip, int y0, int rows, int x0)
{
  uint32_t c[kCols] = { };
  u64 cq[SQ ? kCols : 1] = { };
  constexpr int BA = CIP_SAT_BATCH_A16;
  for (int r = 0; r < rows; r += BA) {
    Vec16 v[BA];
#pragma unroll
    for (int k = 0; k < BA; k++)
      v[k] = r + k < rows ? Px<2>::load (p, y0 + r + k, x0) : Px<2>::zero ();
#pragma unroll
    for (int k = 0; k < BA; k++) {
#pragma unroll
      for (int m = 0; m < kCols; m++) {
        const uint32_t b = Px<2>::at (v[k], m);
        c[m] += b;
        if (SQ)
          cq[SQ ? m : 0] += (u64) b * b;
      }
    }
  }
  store_u32x16 (Px<2>::agg (p) + (size_t) strip * p.wp + x0, c);
  if constexpr (SQ)
    store_u64x16 (Px<2>::aggq (p) + (size_t) strip * p.wp + x0, cq);
}

/* Column sums of the strip's rows (and of their squares), written to
 * agg / aggq for every segment. No block synchronization inside. */
template <int NT, int B, bool SQ>
__device__ void
strip_aggregate (const SatParams &p, int strip)
{
  const int y0 = strip * p.th;
  const int rows = min (p.th, p.height - y0);
  for (int s = 0; s < p.nseg; s++) {
    const int x0 = s * kCols * NT + kCols * (int) threadIdx.x;
    if (x0 >= p.width)
      continue;
    if constexpr (B == 1)
      aggregate_columns8<SQ> (p, strip, y0, rows, x0);
    else
      aggregate_columns16<SQ> (p, strip, y0, rows, x0);
  }
}

/* ------------------------------------------------------- look-back */

/* One step of strip i's look-back, run by warp 0. j: the next predecessor
 * to inspect (strips j+1 .. i-1 are already accounted for); nagg: how many
 * aggregates were taken so far. Waits until progress is possible, then
 * returns the new j: strips new_j+1 .. j contribute their aggregates; if *ps
 * >= 0 the look-back ends at strip *ps == new_j, which contributes its
 * aggregate and its prefix (above_ps; zero for strip 0). At most `lookback`
 * aggregates are taken before waiting on a prefix. */
__device__ int
lookback_step (const SatParams &p, int j, int &nagg, int lane, int *ps)
{
  using namespace detail;
  const int K = p.lookback;
  for (;;) {
    const int L = min (32, min (j + 1, K - nagg + 1));
    uint32_t st = 0;
    if (lane < L)
      st = ld_acquire_gpu (p.flags + (j - lane));
    const unsigned not_agg = __ballot_sync (0xffffffffu, lane >= L ||
        st != kFlagAgg);
    const int q = not_agg ? __ffs (not_agg) - 1 : 32;
    const uint32_t stq = __shfl_sync (0xffffffffu, st, q & 31);
    if (q < L && stq == kFlagPrefix) {
      *ps = j - q;              /* strips j-q+1 .. j have aggregates */
      return j - q;
    }
    const int take = min (q, K - nagg);
    if (take > 0) {
      nagg += take;
      *ps = -1;
      return j - take;
    }
    /* strip j has nothing yet, or the budget is spent: wait on it */
    if (lane == 0)
      spin_until_at_least (p.flags + j, nagg == K ? kFlagPrefix : kFlagAgg);
    __syncwarp ();
  }
}

/* Adds the aggregates of strips lo .. hi-1 (and squares) for 16 columns. */
template <bool SQ>
__device__ __forceinline__ void
add_aggregates (const SatParams &p, int lo, int hi, int x0,
    uint32_t (&a)[kCols], uint32_t (&aq)[kCols])
{
#pragma unroll (kLookbackUnroll)
  for (int j = lo; j < hi; j++) {
    add_u16x16 (Px<1>::agg (p) + (size_t) j * p.wp + x0, a);
    if (SQ)
      add_u32x16 (Px<1>::aggq (p) + (size_t) j * p.wp + x0, aq);
  }
}

/* above_i for strip i > 0, whole block. With `sum_now` (one segment), the
 * aggregates found published are summed while the look-back still waits for
 * a prefix further up, so that only above_ps is read once the prefix
 * arrives; a, aq then hold above_i for the thread's 16 columns from x0.
 * Returns ps, the strip whose prefix ended the look-back: above_i = above_ps
 * + agg_ps + ... + agg_(i-1). s_dec: 4 ints of shared memory. */
template <bool SQ>
__device__ int
lookback (const SatParams &p, int i, int x0, bool sum_now,
    uint32_t (&a)[kCols], uint32_t (&aq)[kCols], int *s_dec)
{
#pragma unroll
  for (int m = 0; m < kCols; m++) {
    a[m] = 0;
    aq[m] = 0;
  }
  const bool mine = sum_now && x0 < p.width;
  int j = i - 1, nagg = 0;
  for (int it = 0;; it++) {
    int *dec = s_dec + 2 * (it & 1);
    if (threadIdx.x < 32) {
      int ps;
      const int nj = lookback_step (p, j, nagg, threadIdx.x, &ps);
      if (threadIdx.x == 0) {
        dec[0] = nj;
        dec[1] = ps;
      }
    }
    __syncthreads ();
    const int nj = dec[0], ps = dec[1];
    if (mine) {
      add_aggregates<SQ> (p, nj + 1, j + 1, x0, a, aq);
      if (ps >= 0) {
        add_aggregates<SQ> (p, ps, ps + 1, x0, a, aq);
        if (ps > 0) {
          add_u32x16 (p.above + (size_t) ps * p.wp + x0, a);
          if (SQ)
            add_u32x16 (Px<1>::aboveq (p) + (size_t) ps * p.wp + x0, aq);
        }
      }
    }
    if (ps >= 0)
      return ps;
    j = nj;
  }
}

/* above_i for the 16 columns from x0: above_ps + agg_ps + ... + agg_(i-1). */
template <bool SQ>
__device__ __forceinline__ void
lookback_sum (const SatParams &p, int i, int ps, int x0, uint32_t (&a)[kCols],
    uint32_t (&aq)[kCols])
{
#pragma unroll
  for (int m = 0; m < kCols; m++) {
    a[m] = 0;
    aq[m] = 0;
  }
  if (x0 >= p.width)
    return;
  if (ps > 0) {
    load_u32x16 (p.above + (size_t) ps * p.wp + x0, a);
    if (SQ)
      load_u32x16 (Px<1>::aboveq (p) + (size_t) ps * p.wp + x0, aq);
  }
  add_aggregates<SQ> (p, ps, i, x0, a, aq);
}

/* ---------------------------------------------------------- output pass */

/* Per-warp staging of 16 outputs per lane as 16-byte chunks, swizzled so that
 * both the per-lane writes and the contiguous reads are bank-conflict-free. */
template <typename T>
struct Stage {
  static constexpr int EPC = 16 / (int) sizeof (T);   /* elements per chunk */
  static constexpr int CPT = kCols / EPC;             /* chunks per lane */
  __device__ static __forceinline__ int pos (int t, int j) {
    return t * CPT + ((j + (CPT == 4 ? (t >> 1) : t)) & (CPT - 1));
  }
};

template <typename T>
__device__ __forceinline__ T *
row_ptr (void *base, size_t pitch, int y)
{
  return reinterpret_cast<T *> (static_cast<uint8_t *> (base) +
      (size_t) y * pitch);
}

/* Writes one output row's part owned by this warp: out[x] for x in the warp's
 * 512 columns of the segment starting at seg0, x <= width. e is the exclusive
 * prefix at the thread's first column, c the column sums of its 16 columns
 * (u32, or u64 for 16-bit squares).
 * extra: the segment ends exactly at the width, so out[width] (one past the
 * last lane of the block) is written by the block's last thread. */
template <int NT, typename T, typename C>
__device__ __forceinline__ void
emit_row (T *orow, bool vec, int width, int seg0, T e,
    const C (&c)[kCols], uint4 *stage, int lane, int warp, bool extra)
{
  using G = Stage<T>;
  T run = e;
#pragma unroll
  for (int j = 0; j < G::CPT; j++) {
    union { uint4 u; T v[G::EPC]; } ch;
#pragma unroll
    for (int q = 0; q < G::EPC; q++) {
      ch.v[q] = run;
      run += (T) c[j * G::EPC + q];
    }
    stage[G::pos (lane, j)] = ch.u;
  }
  __syncwarp ();
  const int X = seg0 + warp * 32 * kCols;
  int lim = width + 1 - X;      /* outputs of this warp inside the row */
  if (lim > 0) {
    lim = min (lim, 32 * kCols);
    T *dst = orow + X;
    if (vec) {
#pragma unroll
      for (int j = 0; j < G::CPT; j++) {
        const int ci = j * 32 + lane;
        const int e0 = ci * G::EPC;
        union { uint4 u; T v[G::EPC]; } ch;
        ch.u = stage[G::pos (ci / G::CPT, ci % G::CPT)];
        if (e0 + G::EPC <= lim) {
          __stcs (reinterpret_cast<uint4 *> (dst + e0), ch.u);
        } else {
#pragma unroll
          for (int q = 0; q < G::EPC; q++)
            if (e0 + q < lim)
              __stcs (dst + e0 + q, ch.v[q]);
        }
      }
    } else {
      const T *st = reinterpret_cast<const T *> (stage);
#pragma unroll 4
      for (int m = 0; m < kCols; m++) {
        const int el = m * 32 + lane;
        if (el < lim) {
          const int idx = el & (kCols - 1);
          __stcs (dst + el, st[G::pos (el >> 4, idx / G::EPC) * G::EPC +
                  idx % G::EPC]);
        }
      }
    }
  }
  __syncwarp ();
  if (extra && warp == NT / 32 - 1 && lane == 31)
    __stcs (orow + seg0 + kCols * NT, run);
}

template <int NT, typename T, bool SQ>
struct OutSmem {
  static constexpr int NW = NT / 32;
  T wt[2][kBatchC][NW];                 /* warp totals, double-buffered */
  u64 wtq[2][kBatchC][SQ ? NW : 1];
  T carry[2][kThMax];                   /* per-row carry between segments */
  u64 carryq[2][SQ ? kThMax : 1];
};

/* Bytes of dynamic shared memory (output staging) for a block. */
template <int NT, typename T, bool SQ>
constexpr size_t
stage_bytes ()
{
  return (size_t) NT * kCols * (SQ ? 8 : sizeof (T));
}

/* Writes the strip's rows of segment s. c / cq hold the column sums above the
 * strip for the thread's 16 columns on entry and are advanced row by row.
 * buf / cb carry the double-buffer indices across segments. B: Px<B>. */
template <int NT, int B, typename T, bool SQ, bool PREFETCH>
__device__ void
strip_output (const SatParams &p, int strip, int s, uint32_t (&c)[kCols],
    typename Px<B>::Sq (&cq)[kCols], OutSmem<NT, T, SQ> &sm, uint4 *stage,
    int &buf, int &cb)
{
  using namespace detail;
  using X = Px<B>;
  using Sq = typename X::Sq;
  constexpr int NW = NT / 32;
  constexpr int SEG = kCols * NT;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int y0 = strip * p.th;
  const int rows = min (p.th, p.height - y0);
  const int seg0 = s * SEG;
  const int x0 = seg0 + kCols * tid;
  const bool extra = seg0 + SEG == p.width;
  const bool active = x0 < p.width;

  T ctot = 0;                   /* sum of c over the thread's columns */
  u64 ctotq = 0;
#pragma unroll
  for (int m = 0; m < kCols; m++) {
    ctot += (T) c[m];
    if (SQ)
      ctotq += cq[m];
  }

  /* PREFETCH: the next batch of rows is loaded while this one is scanned
   * and written (8 more registers) */
  typename X::Vec vn[kBatchC];
#pragma unroll
  for (int k = 0; k < kBatchC; k++)
    vn[k] = PREFETCH && active && k < rows ? X::load (p, y0 + k, x0)
        : X::zero ();
  for (int rb = 0; rb < rows; rb += kBatchC) {
    typename X::Vec v[kBatchC];
#pragma unroll
    for (int k = 0; k < kBatchC; k++) {
      const int r = rb + (PREFETCH ? kBatchC : 0) + k;
      const typename X::Vec nv = active && r < rows ? X::load (p, y0 + r, x0)
          : X::zero ();
      v[k] = PREFETCH ? vn[k] : nv;
      if (PREFETCH)
        vn[k] = nv;
    }
    T tot[kBatchC], inc[kBatchC];
    u64 totq[kBatchC], incq[kBatchC];
#pragma unroll
    for (int k = 0; k < kBatchC; k++) {
      ctot += (T) X::sum (v[k]);
      tot[k] = ctot;
      inc[k] = warp_inclusive_scan (tot[k], lane);
      if (lane == 31)
        sm.wt[buf][k][warp] = inc[k];
      if (SQ) {
        ctotq += X::sumsq (v[k]);
        totq[k] = ctotq;
        incq[k] = warp_inclusive_scan (totq[k], lane);
        if (lane == 31)
          sm.wtq[buf][k][SQ ? warp : 0] = incq[k];
      }
    }
    __syncthreads ();
#pragma unroll
    for (int k = 0; k < kBatchC; k++) {
      const int r = rb + k;
      if (r >= rows)
        break;                  /* uniform across the block */
      const T wv = lane < NW ? sm.wt[buf][k][lane & (NW - 1)] : (T) 0;
      const T wi = warp_inclusive_scan_n<NW> (wv, lane);
      const T wpre = __shfl_sync (0xffffffffu, wi - wv, warp);
      const T total = __shfl_sync (0xffffffffu, wi, NW - 1);
      const T cin = sm.carry[cb][r];
      if (tid == 0)
        sm.carry[cb ^ 1][r] = cin + total;
#pragma unroll
      for (int m = 0; m < kCols; m++) {
        const uint32_t b = X::at (v[k], m);
        c[m] += b;
        if (SQ)
          cq[m] += (Sq) b * b;
      }
      emit_row<NT, T> (row_ptr<T> (p.sum, p.sum_pitch, y0 + r + 1), p.vec_sum,
          p.width, seg0, (T) (cin + wpre + (inc[k] - tot[k])), c, stage, lane,
          warp, extra);
      if (SQ) {
        const u64 qv = lane < NW ? sm.wtq[buf][k][lane & (NW - 1)] : 0ull;
        const u64 qi = warp_inclusive_scan_n<NW> (qv, lane);
        const u64 qpre = __shfl_sync (0xffffffffu, qi - qv, warp);
        const u64 qtotal = __shfl_sync (0xffffffffu, qi, NW - 1);
        const u64 qin = sm.carryq[cb][SQ ? r : 0];
        if (tid == 0)
          sm.carryq[cb ^ 1][SQ ? r : 0] = qin + qtotal;
        emit_row<NT, u64> (row_ptr<u64> (p.sqsum, p.sqsum_pitch, y0 + r + 1),
            p.vec_sq, p.width, seg0, qin + qpre + (incq[k] - totq[k]), cq,
            stage, lane, warp, extra);
      }
    }
    buf ^= 1;
  }
  cb ^= 1;
}

template <typename T, bool SQ>
__device__ void
write_row0 (const SatParams &p, int tid, int nt)
{
  T *r = static_cast<T *> (p.sum);
  for (int x = tid; x <= p.width; x += nt)
    r[x] = 0;
  if (SQ)
    for (int x = tid; x <= p.width; x += nt)
      p.sqsum[x] = 0;
}

template <int NT, typename T, bool SQ>
__device__ __forceinline__ void
init_carries (OutSmem<NT, T, SQ> &sm, int th)
{
  for (int r = threadIdx.x; r < th; r += NT) {
    sm.carry[0][r] = 0;
    if (SQ)
      sm.carryq[0][SQ ? r : 0] = 0;
  }
}

/* ------------------------------------------------------------- kernels */

template <int NT, typename T, bool SQ>
__global__ void __launch_bounds__ (NT, CIP_SAT_MIN_BLOCKS (NT, SQ))
sat_single_pass (const SatParams p)
{
  using namespace detail;
  __shared__ OutSmem<NT, T, SQ> sm;
  __shared__ int s_strip, s_last, s_dec[4];
  extern __shared__ uint4 dyn_stage[];
  const int tid = threadIdx.x;
  uint4 *stage = dyn_stage + (tid >> 5) * (stage_bytes<NT, T, SQ> () / 16 / (NT / 32));

  if (tid == 0)
    s_strip = (int) atomicAdd (p.ctl, 1u);
  init_carries (sm, p.th);
  __syncthreads ();
  const int i = s_strip;

  /* 1. aggregate, published at once (strip 0: its prefix, above = 0) */
  strip_aggregate<NT, 1, SQ> (p, i);
  __syncthreads ();
  if (tid == 0) {
    __threadfence ();
    st_release_gpu (p.flags + i, i == 0 ? kFlagPrefix : kFlagAgg);
  }

  /* 2. look-back, then publish above_i */
  const bool last = i == p.strips - 1;
  uint32_t c[kCols], cq[kCols];
  if (i == 0) {
#pragma unroll
    for (int m = 0; m < kCols; m++)
      c[m] = cq[m] = 0;
  } else {
    const bool one = p.nseg == 1;
    const int ps = lookback<SQ> (p, i, kCols * tid, one, c, cq, s_dec);
    for (int s = 0; s < p.nseg; s++) {
      const int x0 = s * kCols * NT + kCols * tid;
      if (!one)
        lookback_sum<SQ> (p, i, ps, x0, c, cq);
      if (x0 < p.width && (!last || !one)) {
        store_u32x16 (p.above + (size_t) i * p.wp + x0, c);
        if (SQ)
          store_u32x16 (Px<1>::aboveq (p) + (size_t) i * p.wp + x0, cq);
      }
    }
    if (!last) {
      __syncthreads ();
      if (tid == 0) {
        __threadfence ();
        st_release_gpu (p.flags + i, kFlagPrefix);
      }
    }
  }

  /* 3. output rows */
  if (i == 0)
    write_row0<T, SQ> (p, tid, NT);
  int buf = 0, cb = 0;
  for (int s = 0; s < p.nseg; s++) {
    if (p.nseg > 1) {
      const int x0 = s * kCols * NT + kCols * tid;
      if (i > 0 && x0 < p.width) {
        load_u32x16 (p.above + (size_t) i * p.wp + x0, c);
        if (SQ)
          load_u32x16 (Px<1>::aboveq (p) + (size_t) i * p.wp + x0, cq);
      } else {
#pragma unroll
        for (int m = 0; m < kCols; m++)
          c[m] = cq[m] = 0;
      }
    }
    strip_output<NT, 1, T, SQ, CIP_SAT_PREFETCH_SINGLE> (p, i, s, c, cq, sm,
        stage, buf, cb);
  }

  /* 4. the last block to finish leaves the workspace ready for the next call */
  __syncthreads ();
  if (tid == 0)
    s_last = atomicAdd (p.ctl + 1, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (s_last) {
    for (int r = tid; r < p.strips; r += NT)
      p.flags[r] = 0;
    if (tid == 0) {
      p.ctl[0] = 0;
      p.ctl[1] = 0;
    }
  }
}

template <int NT, int B, bool SQ>
__global__ void __launch_bounds__ (NT, CIP_SAT_MIN_BLOCKS (NT, SQ))
sat_aggregate (const SatParams p)
{
  strip_aggregate<NT, B, SQ> (p, blockIdx.x);
}

/* above_i = agg_0 + ... + agg_(i-1) for i = 1 .. strips-1. A block covers 64
 * columns (2 per lane) and splits the strips among its 32 warps; each warp
 * loads its strips 8 at a time, so the scan costs a few L2 round trips. */
constexpr int kScanWarps = 32;
constexpr int kScanBatch = 8;
/* 16-bit squares: half the batch (16-byte sums) keeps the registers of the
 * 1024-thread block */
template <int B, bool SQ>
constexpr int kScanBatchOf = B == 2 && SQ ? kScanBatch / 2 : kScanBatch;

template <typename P>
__device__ __forceinline__ void
add2 (P &s, const P &b)
{
  s.x += b.x;
  s.y += b.y;
}

template <int B, bool SQ, bool STORE>
__device__ __forceinline__ void
scan_chunk (const SatParams &p, int x, int j0, int j1, uint2 &s,
    typename Px<B>::SqPair &sq)
{
  using X = Px<B>;
  constexpr int KB = kScanBatchOf<B, SQ>;
  for (int j = j0; j < j1; j += KB) {
    typename X::AggPair a[KB];
    typename X::SqPair b[KB];
#pragma unroll
    for (int k = 0; k < KB; k++) {
      if (j + k < j1) {
        a[k] = X::ld_agg2 (X::agg (p) + (size_t) (j + k) * p.wp + x);
        if (SQ)
          b[k] = X::ld_sq2 (X::aggq (p) + (size_t) (j + k) * p.wp + x);
      }
    }
#pragma unroll
    for (int k = 0; k < KB; k++) {
      if (j + k < j1) {
        X::add_agg2 (s, a[k]);
        if (STORE)
          __stcg (reinterpret_cast<uint2 *> (p.above + (size_t) (j + k + 1) *
                  p.wp + x), s);
        if (SQ) {
          add2 (sq, b[k]);
          if (STORE)
            X::st_sq2 (X::aboveq (p) + (size_t) (j + k + 1) * p.wp + x, sq);
        }
      }
    }
  }
}

template <int B, bool SQ>
__global__ void __launch_bounds__ (32 * kScanWarps)
sat_column_scan (const SatParams p)
{
  using X = Px<B>;
  using SqPair = typename X::SqPair;
  constexpr int KB = kScanBatchOf<B, SQ>;
  __shared__ uint2 part[kScanWarps][32];
  __shared__ SqPair partq[kScanWarps][SQ ? 32 : 1];
  const int lane = threadIdx.x & 31, g = threadIdx.x >> 5;
  const int x = blockIdx.x * 64 + 2 * lane;
  const int m = p.strips - 1;
  const int chunk = (m + kScanWarps - 1) / kScanWarps;
  const int j0 = min (m, g * chunk), j1 = min (m, j0 + chunk);
  const bool act = x < p.w16;
  uint2 s = make_uint2 (0, 0);
  SqPair sq = { };
  wait_for_previous_kernel ();
  /* short chunks (up to kScanBatch strips a warp) stay in registers between
   * the two halves of the scan: one L2 round trip less */
  const bool in_regs = chunk <= KB;
  typename X::AggPair ra[KB];
  SqPair rb[KB];
  if (act && in_regs) {
#pragma unroll
    for (int k = 0; k < KB; k++) {
      ra[k] = { };
      rb[k] = { };
      if (j0 + k < j1) {
        ra[k] = X::ld_agg2 (X::agg (p) + (size_t) (j0 + k) * p.wp + x);
        if (SQ)
          rb[k] = X::ld_sq2 (X::aggq (p) + (size_t) (j0 + k) * p.wp + x);
      }
    }
#pragma unroll
    for (int k = 0; k < KB; k++) {
      X::add_agg2 (s, ra[k]);
      if (SQ)
        add2 (sq, rb[k]);
    }
  } else if (act) {
    scan_chunk<B, SQ, false> (p, x, j0, j1, s, sq);
  }
  part[g][lane] = s;
  if (SQ)
    partq[g][SQ ? lane : 0] = sq;
  __syncthreads ();
  if (!act)
    return;
  s = make_uint2 (0, 0);
  sq = { };
  for (int h = 0; h < g; h++) {
    add2 (s, part[h][lane]);
    if (SQ)
      add2 (sq, partq[h][SQ ? lane : 0]);
  }
  if (!in_regs) {
    scan_chunk<B, SQ, true> (p, x, j0, j1, s, sq);
    return;
  }
#pragma unroll
  for (int k = 0; k < KB; k++) {
    if (j0 + k < j1) {
      X::add_agg2 (s, ra[k]);
      __stcg (reinterpret_cast<uint2 *> (p.above + (size_t) (j0 + k + 1) *
              p.wp + x), s);
      if (SQ) {
        add2 (sq, rb[k]);
        X::st_sq2 (X::aboveq (p) + (size_t) (j0 + k + 1) * p.wp + x, sq);
      }
    }
  }
}

template <int NT, int B, typename T, bool SQ>
__global__ void __launch_bounds__ (NT, CIP_SAT_MIN_BLOCKS (NT, SQ))
sat_output (const SatParams p)
{
  using X = Px<B>;
  __shared__ OutSmem<NT, T, SQ> sm;
  extern __shared__ uint4 dyn_stage[];
  const int tid = threadIdx.x;
  uint4 *stage = dyn_stage + (tid >> 5) * (stage_bytes<NT, T, SQ> () / 16 / (NT / 32));
  const int i = blockIdx.x;
  init_carries (sm, p.th);
  if (i == 0)
    write_row0<T, SQ> (p, tid, NT);
  wait_for_previous_kernel ();
  __syncthreads ();
  int buf = 0, cb = 0;
  uint32_t c[kCols];
  typename X::Sq cq[kCols];
  for (int s = 0; s < p.nseg; s++) {
    const int x0 = s * kCols * NT + kCols * tid;
    if (i > 0 && x0 < p.width) {
      load_u32x16 (p.above + (size_t) i * p.wp + x0, c);
      if (SQ)
        X::load_sq (X::aboveq (p) + (size_t) i * p.wp + x0, cq);
    } else {
#pragma unroll
      for (int m = 0; m < kCols; m++) {
        c[m] = 0;
        cq[m] = 0;
      }
    }
    strip_output<NT, B, T, SQ, B == 1 ? CIP_SAT_PREFETCH_MULTI :
        CIP_SAT_PREFETCH_MULTI16> (p, i, s, c, cq, sm,
        stage, buf, cb);
  }
}

/* ---------------------------------------------------------------- tiled */

/* tiled (8-bit samples, step 1, 2 or 4, no squares, 16-byte aligned
 * destination): the image is cut into tiles of kTW x TH (TH 16 or 32), one
 * warp each, lane l owning the tile's columns [4l, 4l+4) (one 4-byte word of
 * every row; step 2: the channel's bytes of an aligned 8-byte pair; step 4,
 * kernels of their own (S4): of an aligned 16-byte group).
 * For the tile at (left, top) and a pixel (x, y) in it, the inclusive sum is
 *   S(x, y) = corner + above(x) + left(y) + local(x, y)
 *   corner   = sum over [0, left) x [0, top)
 *   above(x) = sum over [left, x] x [0, top)   (scan of the column sums V)
 *   left(y)  = sum over [0, left) x [top, y]   (scan of the row sums R)
 *   local    = sum over [left, x] x [top, y]   (in registers)
 * Three launches: per-tile column sums, row sums and totals; their
 * exclusive scans (V over tile rows, R over tile columns, totals over tile
 * rows, in place); the output, where each warp needs nothing but warp
 * shuffles, so no block-wide barrier sits on the chain of rows as in the
 * strip kernels. Column, row and in-tile sums fit u32 up to 16384^2; only
 * the corner needs the output type. The output pass loads its tile before
 * it waits for the scan (programmatic dependent launch).
 *
 * Grouped (TH 16 and at most 64 tile columns, so up to 8192 columns: 1080p
 * to 8K): two launches, no scan pass. A block of the first pass takes
 * kTiledGroup tiles stacked in one tile column (a group) and scans their
 * column sums and totals down the group in shared memory; it writes those
 * in-group exclusive prefixes, the group's totals, and the row sums
 * unscanned. The output warp then adds, after its wait: the totals of the
 * groups above it (at most nty / kTiledGroup vectors), and for the
 * corner and left(y) the tile columns left of it (at most 63 words a warp
 * row, spread over the lanes: two rounds past 32 tile columns). One kernel
 * boundary fewer on the chain.
 * For u32 tables an output block takes kTiledStack tiles one above the
 * other and its warps share the loads of the groups above (tiled_output). */
constexpr int kTW = 128;            /* tile width: 4 columns a lane */
constexpr int kTiledWarps = 4;      /* tiles (warps) a block: first pass
                                       (three launches) and output */
constexpr int kTiledScanWarps = 32; /* warps a block of the scan pass */
constexpr int kTiledGroup = detail::kSatTiledGroupRows;  /* grouped: tile rows
                                                          (warps) a block */
constexpr int kTiledGroupMaxTx = detail::kSatTiledGroupMaxTx;  /* grouped:
                                                          tile columns at most */
constexpr int kTiledGroupBatch = 4;   /* grouped output: groups a batch */
constexpr int kTiledStack = 4;      /* grouped u32 output: tiles (warps) a
                                       block, one above the other */
constexpr int kTiledStackBatch = 2;   /* ... and groups a warp's batch */

/* Groups of nty tile rows. */
constexpr int
tiled_ngroups (int nty)
{
  return (nty + kTiledGroup - 1) / kTiledGroup;
}

/* The tables (detail::SatTiles; grouped: gcol and gtot set, col and tot
 * in-group prefixes, row unscanned, col, gcol and row in 16 bits) and, for
 * the output pass, the table. */
struct TiledParams : detail::SatTiles {
  void *sum;
  size_t sum_pitch;
};

/* The L2 policy of tiled's input loads (sm_80 on). The output pass reads
 * the input a second time, which a one-pass SAT would not; where
 * keep_in_l2, the first pass marks the lines evict_last and the output pass
 * reads them evict_first, so that the second read comes from L2 and leaves
 * nothing pinned. */
__device__ __forceinline__ uint64_t
tiled_input_policy (const detail::SatTiles &p, bool first_pass)
{
  uint64_t pol = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (!p.keep_in_l2)
    asm ("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l" (pol));
  else if (first_pass)
    asm ("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l" (pol));
  else
    asm ("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l" (pol));
#endif
  return pol;
}

/* The aligned word at s with L2 policy pol. */
__device__ __forceinline__ uint32_t
tiled_load (const uint8_t *s, uint64_t pol)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t v;
  /* volatile, as __ldg's asm is: stays where it is written (before
   * griddepcontrol.wait in the output pass) */
  asm volatile ("ld.global.nc.L2::cache_hint.u32 %0, [%1], %2;" : "=r" (v)
      : "l" (s), "l" (pol));
  return v;
#else
  return __ldg (reinterpret_cast<const uint32_t *> (s));
#endif
}

/* Step 2 (a channel of two interleaved, NV12's U or V): the 4 samples of
 * the aligned 8 bytes at s, the even bytes (par 0) or the odd ones (par 1);
 * pol as tiled_load. */
__device__ __forceinline__ uint32_t
tiled_load2 (const uint8_t *s, int par, uint64_t pol)
{
  uint32_t a, b;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("ld.global.nc.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
      : "=r" (a), "=r" (b) : "l" (s), "l" (pol));
#else
  const uint2 v = __ldg (reinterpret_cast<const uint2 *> (s));
  a = v.x;
  b = v.y;
#endif
  return __byte_perm (a, b, par ? 0x7531 : 0x6420);
}

/* Step 2: whether the 8-byte pair of row y's samples x .. x + 3 lies in the
 * view. The first channel's last pair ends one byte past its last sample
 * (the other channel's, there in an NV12 UV plane but not promised by the
 * view): the last row's last pair is read byte by byte. */
__device__ __forceinline__ bool
pair_in (const detail::SatTiles &p, int y, int x)
{
  return p.par != 0 || x + 4 < p.width || y + 1 < p.height;
}

/* The 4 samples of row y from column x (a multiple of 4), zeros outside;
 * pol from tiled_input_policy. */
__device__ __forceinline__ uint32_t
tiled_word (const detail::SatTiles &p, int y, int x, uint64_t pol)
{
  if (y >= p.height || x >= p.width)
    return 0;
  const uint8_t *s = p.src + (size_t) y * p.src_pitch + (size_t) x * p.step;
  if (p.aligned_in && x + 4 <= p.width && (p.step == 1 || pair_in (p, y, x)))
    return p.step == 1 ? tiled_load (s, pol) : tiled_load2 (s - p.par, p.par,
        pol);
  uint32_t w = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (x + k < p.width)
      w |= (uint32_t) __ldg (s + k * p.step) << (8 * k);
  return w;
}

/* Step 4 (a channel of packed 4-byte pixels: RGBA's R, G, B or A): the 4
 * samples of the aligned 16 bytes at s, byte par of each word; pol as
 * tiled_load. */
__device__ __forceinline__ uint32_t
tiled_load4 (const uint8_t *s, int par, uint64_t pol)
{
  uint32_t a, b, c, d;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile ("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
      : "=r" (a), "=r" (b), "=r" (c), "=r" (d) : "l" (s), "l" (pol));
#else
  const uint4 v = __ldg (reinterpret_cast<const uint4 *> (s));
  a = v.x;
  b = v.y;
  c = v.z;
  d = v.w;
#endif
  const uint32_t sel = (uint32_t) par | ((uint32_t) (par + 4) << 4);
  return __byte_perm (__byte_perm (a, b, sel), __byte_perm (c, d, sel), 0x5410);
}

/* Step 4: whether the aligned 16 bytes of row y's samples x .. x + 3 lie
 * in the view. They end 3 - par bytes past the last sample (the next
 * channels' bytes, not promised by the view): the last row's last group of
 * every channel but the last is read byte by byte (pair_in for step 2). */
__device__ __forceinline__ bool
group4_in (const detail::SatTiles &p, int y, int x)
{
  return p.par == 3 || x + 4 < p.width || y + 1 < p.height;
}

/* tiled_word for step 4 (the kernels of S4 only). */
__device__ __forceinline__ uint32_t
tiled_word4 (const detail::SatTiles &p, int y, int x, uint64_t pol)
{
  if (y >= p.height || x >= p.width)
    return 0;
  const uint8_t *s = p.src + (size_t) y * p.src_pitch + (size_t) x * 4;
  if (p.aligned_in && x + 4 <= p.width && group4_in (p, y, x))
    return tiled_load4 (s - p.par, p.par, pol);
  uint32_t w = 0;
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (x + k < p.width)
      w |= (uint32_t) __ldg (s + 4 * k) << (8 * k);
  return w;
}

/* One step of the transposing reduction: lanes with bit K set keep the
 * upper K of their first 2K values and send the lower K to the partner
 * lane ^ K, the others the reverse; each adds what it receives. */
template <int K, int N>
__device__ __forceinline__ void
fold_half (uint32_t (&s)[N], int lane)
{
  const bool up = (lane & K) != 0;
#pragma unroll
  for (int i = 0; i < K; i++) {
    const uint32_t send = up ? s[i] : s[i + K];
    const uint32_t keep = up ? s[i + K] : s[i];
    s[i] = keep + __shfl_xor_sync (0xffffffffu, send, K);
  }
}

__device__ __forceinline__ void
add4 (uint4 &a, const uint4 &b)
{
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}

/* Exclusive scan over the block's NW warps of a vector a lane (v) and a
 * word a warp (lane 0's t): each warp publishes its own in vs and ts, and
 * after one barrier gets the sums over the warps before it in e and et. */
template <int NW>
__device__ __forceinline__ void
warps_exclusive_scan (uint4 (&vs)[NW][32], uint32_t (&ts)[NW], int warp,
    int lane, const uint4 &v, uint32_t t, uint4 &e, uint32_t &et)
{
  vs[warp][lane] = v;
  if (lane == 0)
    ts[warp] = t;
  __syncthreads ();
  e = make_uint4 (0, 0, 0, 0);
  et = 0;
  for (int k = 0; k < warp; k++) {
    add4 (e, vs[k][lane]);
    et += ts[k];
  }
}

/* A warp's tile of TH rows x kTW columns, lane's word of each row (w[r]):
 * the lane's 4 column sums (two bytes to a word while summing: TH * 255
 * fits 16 bits). */
template <int TH>
__device__ __forceinline__ uint4
tile_col_sums (const uint32_t (&w)[TH])
{
  uint32_t lo = 0, hi = 0;
#pragma unroll
  for (int r = 0; r < TH; r++) {
    lo += w[r] & 0x00ff00ffu;
    hi += (w[r] >> 8) & 0x00ff00ffu;
  }
  return make_uint4 (lo & 0xffffu, hi & 0xffffu, lo >> 16, hi >> 16);
}

/* The same tile's row sums: lane l < TH gets row l's, and every lane the
 * tile's total in tot (lane_total: the sum of the lane's own samples).
 * sm_80 on: one warp reduction (redux.sync) for two rows, r and r + TH / 2,
 * one in each half-word (a tile row of 128 samples sums to at most 32640 <
 * 2^16), and one for the total; round 31 measured the tables at UHD 0.3 us
 * faster than with a reduction a row. Before sm_80: each lane's part, then
 * a transposing reduction (31 shuffles for 32 rows) after which lane l
 * holds row l & (TH - 1), and a warp sum. */
template <int TH>
__device__ __forceinline__ uint32_t
tile_row_sums (const uint32_t (&w)[TH], int lane, uint32_t &tot,
    uint32_t lane_total)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int H = TH / 2;
  uint32_t s = 0;
#pragma unroll
  for (int r = 0; r < H; r++) {
    const uint32_t two = __dp4a (w[r], 0x01010101u,
        __dp4a (w[r + H], 0x01010101u, 0u) << 16);
    const uint32_t v = __reduce_add_sync (0xffffffffu, two);
    s = (lane & (H - 1)) == r ? v : s;
  }
  tot = __reduce_add_sync (0xffffffffu, lane_total);
  return lane < H ? s & 0xffffu : s >> 16;
#else
  (void) lane_total;
  uint32_t s[TH];
#pragma unroll
  for (int r = 0; r < TH; r++)
    s[r] = __dp4a (w[r], 0x01010101u, 0u);
  if constexpr (TH == 16) {
#pragma unroll
    for (int r = 0; r < 16; r++)
      s[r] += __shfl_xor_sync (0xffffffffu, s[r], 16);
  }
  if constexpr (TH == 32)
    fold_half<16> (s, lane);
  fold_half<8> (s, lane);
  fold_half<4> (s, lane);
  fold_half<2> (s, lane);
  fold_half<1> (s, lane);
  tot = detail::warp_sum (lane < TH ? s[0] : 0u);
  return s[0];
#endif
}

/* A warp's tile (rows top.., the lane's 4 columns from x; zeros outside
 * the plane): inside the plane and aligned, one address and one check for
 * all TH rows rather than per word. */
template <int TH, bool S4>
__device__ __forceinline__ void
tile_rows (const detail::SatTiles &p, int top, int x, uint64_t pol,
    uint32_t (&w)[TH])
{
  if constexpr (S4) {
    if (p.aligned_in && top + TH <= p.height && x + 4 <= p.width &&
        group4_in (p, top + TH - 1, x)) {
      const uint8_t *s = p.src + (size_t) top * p.src_pitch + (size_t) x * 4 -
          p.par;
#pragma unroll
      for (int r = 0; r < TH; r++)
        w[r] = tiled_load4 (s + (size_t) r * p.src_pitch, p.par, pol);
    } else {
#pragma unroll
      for (int r = 0; r < TH; r++)
        w[r] = tiled_word4 (p, top + r, x, pol);
    }
    return;
  }
  if (p.aligned_in && top + TH <= p.height && x + 4 <= p.width &&
      (p.step == 1 || pair_in (p, top + TH - 1, x))) {
    const uint8_t *s = p.src + (size_t) top * p.src_pitch + (size_t) x *
        p.step;
    if (p.step == 1) {
#pragma unroll
      for (int r = 0; r < TH; r++)
        w[r] = tiled_load (s + (size_t) r * p.src_pitch, pol);
    } else {
#pragma unroll
      for (int r = 0; r < TH; r++)
        w[r] = tiled_load2 (s + (size_t) r * p.src_pitch - p.par, p.par, pol);
    }
  } else {
#pragma unroll
    for (int r = 0; r < TH; r++)
      w[r] = tiled_word (p, top + r, x, pol);
  }
}

/* The first pass's loads of a tile (tile_rows). */
template <int TH, bool S4>
__device__ __forceinline__ void
tile_load (const detail::SatTiles &p, int top, int x, uint32_t (&w)[TH])
{
  tile_rows<TH, S4> (p, top, x, tiled_input_policy (p, true), w);
}

/* The sums of tile (tx, ty) for the warp of `lane`: writes the row sums
 * (row[tx][top + r], r < TH; R16: in 16 bits, the grouped layout) and
 * returns the lane's 4 column sums and, in every lane, the tile total. */
template <int TH, bool S4, bool R16 = false>
__device__ __forceinline__ uint4
tiled_tile_sums (const TiledParams &p, int tx, int ty, int lane, uint32_t &tot)
{
  const int x = tx * kTW + 4 * lane, top = ty * TH;
  uint32_t w[TH];
  tile_load<TH, S4> (p, top, x, w);
  /* column sums first: w dies in the row sums (48 registers, not 63, at
   * TH 32) */
  const uint4 c = tile_col_sums<TH> (w);
  const uint32_t s = tile_row_sums<TH> (w, lane, tot, c.x + c.y + c.z + c.w);
  if (lane < TH) {
    if constexpr (R16)
      __stcg (detail::sat_row16 (p) + (size_t) tx * p.rowp + top + lane,
          (unsigned short) s);
    else
      __stcg (p.row + (size_t) tx * p.rowp + top + lane, s);
  }
  return c;
}

/* S4: step-4 sources (kernels of their own, so that the step-4 loads
 * change nothing in the step-1 and step-2 code: round 28) */
template <int TH, bool S4>
__global__ void __launch_bounds__ (32 * kTiledWarps)
sat_tiled_aggregate (const TiledParams p)
{
  /* the kernel ahead first: the output pass reads the input before its
   * own wait */
  detail::start_of_call ();
  const int lane = threadIdx.x & 31;
  const int tile = blockIdx.x * kTiledWarps + (threadIdx.x >> 5);
  if (tile >= p.ntx * p.nty)
    return;                     /* whole warps */
  const int tx = tile % p.ntx, ty = tile / p.ntx;
  uint32_t t;
  const uint4 c = tiled_tile_sums<TH, S4> (p, tx, ty, lane, t);
  __stcg (reinterpret_cast<uint4 *> (p.col + (size_t) ty * p.colp + tx * kTW +
          4 * lane), c);
  if (lane == 0)
    __stcg (p.tot + (size_t) ty * p.ntx + tx, t);
}

/* The grouped first pass's exclusive scan down its kTiledGroup warps of
 * the lane's 4 column sums (v) and the warp's total (t, lane 0): after the
 * warps publish theirs, thread i scans column i % 8 + 8 (i / 32) over the
 * quarter (i / 8) % 4 of the warps, and the quarters meet in shuffles; warp
 * 0 scans the totals. paired: warps 0-7 and 8-15 are two scans
 * (sat_tiled_aggregate_grouped). About 25 instructions a thread where
 * summing the warps above took up to 15 rounds of shared loads: round 31
 * measured the tables at UHD 0.6-0.7 us faster. */
constexpr int kGroupScanStride = 132;   /* u32 a warp's row: 16-byte rows,
                                           2-way conflicts at most */
__device__ __forceinline__ void
group_exclusive_scan (uint32_t (&cs)[kTiledGroup][kGroupScanStride],
    uint32_t (&ts)[kTiledGroup], int warp, int lane, const uint4 &v,
    uint32_t t, bool paired, uint4 &e, uint32_t &et)
{
  static_assert (kTiledGroup == 16, "4 quarters of 4 warps");
  *reinterpret_cast<uint4 *> (&cs[warp][4 * lane]) = v;
  if (lane == 0)
    ts[warp] = t;
  __syncthreads ();
  const int c = (lane & 7) + 8 * warp, q = lane >> 3;
  const uint32_t a0 = cs[4 * q][c], a1 = a0 + cs[4 * q + 1][c],
      a2 = a1 + cs[4 * q + 2][c], a3 = a2 + cs[4 * q + 3][c];
  uint32_t inc = a3, n = __shfl_up_sync (0xffffffffu, inc, 8);
  if (q >= 1 && !(paired && q == 2))
    inc += n;
  n = __shfl_up_sync (0xffffffffu, inc, 16);
  if (q >= 2 && !paired)
    inc += n;
  const uint32_t ex = inc - a3;
  uint32_t tv = 0;
  if (warp == 0)
    tv = lane < kTiledGroup ? ts[lane] : 0u;
  __syncthreads ();
  cs[4 * q][c] = ex;
  cs[4 * q + 1][c] = ex + a0;
  cs[4 * q + 2][c] = ex + a1;
  cs[4 * q + 3][c] = ex + a2;
  if (warp == 0) {
    uint32_t ti = detail::warp_inclusive_scan (tv, lane);
    const uint32_t lo = __shfl_sync (0xffffffffu, ti, kTiledGroup / 2 - 1);
    if (paired && lane >= kTiledGroup / 2)
      ti -= lo;
    if (lane < kTiledGroup)
      ts[lane] = ti - tv;
  }
  __syncthreads ();
  e = *reinterpret_cast<const uint4 *> (&cs[warp][4 * lane]);
  et = ts[warp];
}

/* three 512-thread blocks an SM where an SM holds 1536 threads or more
 * (sm_80 on), two on sm_75 */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define CIP_TILED_GROUP_MIN_BLOCKS 2
#else
#define CIP_TILED_GROUP_MIN_BLOCKS 3
#endif

/* The grouped first pass's blocks: one a group and tile column, except
 * that a last group of at most kTiledGroup / 2 tile rows takes one block
 * for two tile columns (tiled_paired). */
__host__ __device__ inline bool
tiled_paired (int nty)
{
  const int rem = nty % kTiledGroup;
  return rem > 0 && rem <= kTiledGroup / 2;
}

int
tiled_first_pass_blocks (int ntx, int nty)
{
  return tiled_paired (nty) ? nty / kTiledGroup * ntx + (ntx + 1) / 2 :
      tiled_ngroups (nty) * ntx;
}

/* Grouped first pass: block g * ntx + tx sums the tiles ty = g * kTiledGroup +
 * warp of tile column tx and scans their column sums and totals down the
 * group: col[ty] and tot[ty] get the sums over the group's tiles above ty,
 * gcol[g] and gtot[g] the group's. A paired block (the last group, at most
 * 8 tile rows) does this for tile columns 2 i (warps 0-7) and 2 i + 1
 * (warps 8-15): UHD's 135 tile rows take 255 blocks, not 270, which two
 * blocks an SM hold at once (tiled_first_pass_smem). Three blocks an SM
 * (40 registers on sm_90, no spill) where that is not capped. */
template <int TH, bool S4>
__global__ void __launch_bounds__ (32 * kTiledGroup, CIP_TILED_GROUP_MIN_BLOCKS)
sat_tiled_aggregate_grouped (const TiledParams p)
{
  __shared__ __align__ (16) uint32_t cs[kTiledGroup][kGroupScanStride];
  __shared__ uint32_t ts[kTiledGroup];
  /* the kernel ahead first: the output pass reads the input before its
   * own wait */
  detail::start_of_call ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nfull = p.nty / kTiledGroup;
  /* block-uniform */
  const bool paired = tiled_paired (p.nty) &&
      (int) blockIdx.x >= nfull * p.ntx;
  int tx, g, ty;
  if (paired) {
    g = nfull;
    tx = 2 * ((int) blockIdx.x - nfull * p.ntx) + warp / (kTiledGroup / 2);
    ty = g * kTiledGroup + warp % (kTiledGroup / 2);
  } else {
    tx = blockIdx.x % p.ntx;
    g = blockIdx.x / p.ntx;
    ty = g * kTiledGroup + warp;
  }
  const bool live = ty < p.nty && tx < p.ntx;
  uint4 c = make_uint4 (0, 0, 0, 0);
  uint32_t t = 0;
  if (live)                     /* whole warps; the rest add zeros */
    c = tiled_tile_sums<TH, S4, true> (p, tx, ty, lane, t);
  uint4 e;
  uint32_t et;
  group_exclusive_scan (cs, ts, warp, lane, c, t, paired, e, et);
  const int x = tx * kTW + 4 * lane;
  if (live) {
    detail::sat_col16_store (p.col, p.colp, ty, x, e);
    if (lane == 0)
      __stcg (p.tot + (size_t) ty * p.ntx + tx, et);
  }
  /* the group's last warp (of its half, paired) */
  if ((warp == kTiledGroup - 1 || (paired && warp == kTiledGroup / 2 - 1)) &&
      tx < p.ntx) {
    add4 (e, c);
    detail::sat_col16_store (p.gcol, p.colp, g, x, e);
    if (lane == 0)
      __stcg (p.gtot + (size_t) g * p.ntx + tx, et + t);
  }
}

/* Exclusive scan, in place, of n vectors of 4 u32 (stride elements apart,
 * from v) over the block's warps: warp k scans its segment of the n, the
 * segments' sums meet in shared memory. With t (lane 0 only), the same for
 * one u32 a vector (tstride apart). Loads go out kTiledBatch at a time; a
 * segment of at most kTiledBatch stays in registers between the two
 * passes (the scan is a chain of L2 round trips, not of bytes). */
constexpr int kTiledBatch = 8;

/* Loads the batch of vectors b .. b + kTiledBatch - 1 (those below i1) of
 * tiled_scan_block into r (and, for lane 0 with t, their u32 into rt). */
__device__ __forceinline__ void
tiled_scan_load (const uint32_t *v, size_t stride, const uint32_t *t,
    size_t tstride, bool tl, int b, int i1, uint4 (&r)[kTiledBatch],
    uint32_t (&rt)[kTiledBatch])
{
#pragma unroll
  for (int k = 0; k < kTiledBatch; k++)
    if (b + k < i1) {
      r[k] = __ldcg (reinterpret_cast<const uint4 *> (v + (b + k) * stride));
      rt[k] = tl ? __ldcg (t + (b + k) * tstride) : 0u;
    }
}

__device__ __forceinline__ void
tiled_scan_block (uint32_t *v, size_t stride, int n, uint32_t *t,
    size_t tstride, uint4 (&part)[kTiledScanWarps][32],
    uint32_t (&partt)[kTiledScanWarps])
{
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const bool tl = t != nullptr && lane == 0;
  const int seg = (n + kTiledScanWarps - 1) / kTiledScanWarps;
  const int i0 = min (n, warp * seg), i1 = min (n, i0 + seg);
  uint4 r[kTiledBatch];
  uint32_t rt[kTiledBatch];
  uint4 s = make_uint4 (0, 0, 0, 0);
  uint32_t st = 0;
  for (int b = i0; b < i1; b += kTiledBatch) {
    tiled_scan_load (v, stride, t, tstride, tl, b, i1, r, rt);
#pragma unroll
    for (int k = 0; k < kTiledBatch; k++)
      if (b + k < i1) {
        add4 (s, r[k]);
        st += rt[k];
      }
  }
  uint4 run;
  uint32_t runt;
  warps_exclusive_scan (part, partt, warp, lane, s, st, run, runt);
  const bool kept = i1 - i0 <= kTiledBatch;
  for (int b = i0; b < i1; b += kTiledBatch) {
    if (!kept)
      tiled_scan_load (v, stride, t, tstride, tl, b, i1, r, rt);
#pragma unroll
    for (int k = 0; k < kTiledBatch; k++)
      if (b + k < i1) {
        __stcg (reinterpret_cast<uint4 *> (v + (b + k) * stride), run);
        add4 (run, r[k]);
        if (tl)
          __stcg (t + (b + k) * tstride, runt);
        runt += rt[k];
      }
  }
}

/* Blocks [0, ntx): V and the totals of tile column b over the tile rows;
 * blocks [ntx, ...): R of 128 rows over the tile columns. */
__global__ void __launch_bounds__ (32 * kTiledScanWarps)
sat_tiled_scan (const TiledParams p)
{
  __shared__ uint4 part[kTiledScanWarps][32];
  __shared__ uint32_t partt[kTiledScanWarps];
  allow_next_kernel ();
  wait_for_previous_kernel ();
  const int lane = threadIdx.x & 31;
  const int b = blockIdx.x;
  if (b < p.ntx) {
    tiled_scan_block (p.col + (size_t) b * kTW + 4 * lane, p.colp, p.nty,
        p.tot + b, p.ntx, part, partt);
  } else {
    const size_t y = (size_t) (b - p.ntx) * 128 + 4 * lane;
    /* rowp is a multiple of 16: a lane's 4 rows are all in or all out */
    const bool in = y < p.rowp;
    tiled_scan_block (p.row + (in ? y : 0), p.rowp, in ? p.ntx : 0, nullptr, 0,
        part, partt);
  }
}

/* 4 output elements at positions x.. of a row (q, element pointer at
 * position x), none past position width. */
template <typename T, bool CS>
__device__ __forceinline__ void
tiled_store4 (T *q, int x, int width, T a, T b, T c, T d)
{
  if (x + 3 <= width) {
    if (sizeof (T) == 4) {
      const uint4 v = make_uint4 ((uint32_t) a, (uint32_t) b, (uint32_t) c,
          (uint32_t) d);
      if (CS)
        __stcs (reinterpret_cast<uint4 *> (q), v);
      else
        *reinterpret_cast<uint4 *> (q) = v;
    } else {
      const ulonglong2 v0 = make_ulonglong2 (a, b), v1 = make_ulonglong2 (c, d);
      if (CS) {
        __stcs (reinterpret_cast<ulonglong2 *> (q), v0);
        __stcs (reinterpret_cast<ulonglong2 *> (q) + 1, v1);
      } else {
        reinterpret_cast<ulonglong2 *> (q)[0] = v0;
        reinterpret_cast<ulonglong2 *> (q)[1] = v1;
      }
    }
  } else if (x <= width) {
    q[0] = a;
    if (x + 1 <= width)
      q[1] = b;
    if (x + 2 <= width)
      q[2] = c;
  }
}

/* A tile's rows of the table (rows top + 1 .. of it, the lane's columns
 * from x + 1 on, and row 0 for the first tile row): for tile input w, v the
 * lane's 4 column sums above the tile (rows < top), corner the sum above and
 * left of it, rl (lane r < TH) row top + r's sum left of it (0 in the other
 * lanes). */
template <int TH, typename T, bool CS>
__device__ __forceinline__ void
tiled_emit (const TiledParams &p, const uint32_t (&w)[TH], const uint4 &v,
    T corner, uint32_t rl, int x, int top, int lane)
{
  const uint32_t li = detail::warp_inclusive_scan (rl, lane);
  const uint32_t a0 = v.x, a1 = a0 + v.y, a2 = a1 + v.z, a3 = a2 + v.w;
  const uint32_t e = detail::warp_inclusive_scan (a3, lane) - a3;
  const uint32_t b0 = e + a0, b1 = e + a1, b2 = e + a2, b3 = e + a3;
  const int width = p.width;
  /* the table's last column when it starts the (missing) next tile */
  const bool extra = lane == 31 && x + 4 == width;
  T *out = reinterpret_cast<T *> (static_cast<uint8_t *> (p.sum) +
      (size_t) top * p.sum_pitch) + x;
  if (top == 0) {
    tiled_store4<T, CS> (out, x, width, T (0), T (0), T (0), T (0));
    if (extra)
      out[4] = 0;
  }
  const int rows = min (TH, p.height - top);
  uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  /* Two rows a warp scan: a lane's 4 samples sum to at most 1020 and the
   * inclusive scan over 32 lanes to at most 32 * 1020 < 2^16, so the rows
   * share a word (no carry from the low half, no borrow in the exclusive
   * value's subtraction). Rows past the plane (zero input) are computed but not
   * stored: no early exit, so the rows' shuffles interleave. */
#pragma unroll
  for (int r = 0; r < TH; r += 2) {
    uint32_t pa[4], pb[4];
    {
      const uint32_t q = w[r], u = w[r + 1];
      pa[0] = q & 0xffu;
      pa[1] = pa[0] + ((q >> 8) & 0xffu);
      pa[2] = pa[1] + ((q >> 16) & 0xffu);
      pa[3] = pa[2] + (q >> 24);
      pb[0] = u & 0xffu;
      pb[1] = pb[0] + ((u >> 8) & 0xffu);
      pb[2] = pb[1] + ((u >> 16) & 0xffu);
      pb[3] = pb[2] + (u >> 24);
    }
    const uint32_t two = pa[3] | (pb[3] << 16);
    const uint32_t ex2 = detail::warp_inclusive_scan (two, lane) - two;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const uint32_t *pp = h ? pb : pa;
      const uint32_t ex = h ? ex2 >> 16 : ex2 & 0xffffu;
      c0 += ex + pp[0];
      c1 += ex + pp[1];
      c2 += ex + pp[2];
      c3 += ex + pp[3];
      const uint32_t l = __shfl_sync (0xffffffffu, li, r + h);
      const uint32_t t0 = b0 + c0 + l, t1 = b1 + c1 + l, t2 = b2 + c2 + l,
          t3 = b3 + c3 + l;
      uint32_t prev = __shfl_up_sync (0xffffffffu, t3, 1);
      if (lane == 0)
        prev = l;
      if (r + h < rows) {
        T *o = reinterpret_cast<T *> (reinterpret_cast<uint8_t *> (out) +
            (size_t) (r + h + 1) * p.sum_pitch);
        tiled_store4<T, CS> (o, x, width, corner + prev, corner + t0,
            corner + t1, corner + t2);
        if (extra)
          o[4] = corner + t3;
      }
    }
  }
}

/* Grouped output: lane i's part of the totals t[0 .. tx - 1] of the tile
 * columns left of tx. tot_left_hi: that of column i + 32 (the right half
 * of an 8K plane); tot_left: those of columns i and i + 32 (at most 2 x
 * 16384 x 128 x 255 < 2^32). */
__device__ __forceinline__ uint32_t
tot_left_hi (const uint32_t *t, int tx, int lane)
{
  static_assert (detail::kSatTiledGroupMaxTx <= 64, "two columns a lane");
  return lane + 32 < tx ? __ldcg (t + lane + 32) : 0u;
}

__device__ __forceinline__ uint32_t
tot_left (const uint32_t *t, int tx, int lane)
{
  uint32_t a = lane < tx ? __ldcg (t + lane) : 0u;
  if (tx > 32)                  /* warp-uniform */
    a += tot_left_hi (t, tx, lane);
  return a;
}

/* Grouped output: the sums over groups k0, k0 + step, .. below g of the
 * group tables, B groups' loads at once: the lane's 4 column sums (from x)
 * into v, and lane i its part (tot_left) of the totals left of tx into t.
 * The totals of columns 32 on (8K) take a loop of their own: in the batch
 * they cost the u64 output 24 bytes of spill. */
template <int B>
__device__ __forceinline__ void
add_groups (const TiledParams &p, int g, int k0, int step, int x, int tx,
    int lane, uint4 &v, uint32_t &t)
{
  if (tx > 32)                  /* warp-uniform */
    for (int k = k0; k < g; k += step)
      t += tot_left_hi (p.gtot + (size_t) k * p.ntx, tx, lane);
  for (; k0 < g; k0 += B * step) {
    uint4 gv[B];
    uint32_t gt[B];
#pragma unroll
    for (int j = 0; j < B; j++) {
      const int k = k0 + j * step;
      gv[j] = k < g ? detail::sat_col16_load (p.gcol, p.colp, k, x) :
          make_uint4 (0, 0, 0, 0);
      gt[j] = k < g && lane < tx ? __ldcg (p.gtot + (size_t) k * p.ntx +
          lane) : 0u;
    }
#pragma unroll
    for (int j = 0; j < B; j++) {
      add4 (v, gv[j]);
      t += gt[j];
    }
  }
}

/* Grouped output: the row sums of the tile columns left of tx for rows
 * top .. top + 15 (16-bit: detail::sat_row16): lane takes the word of
 * rows top + 2 (lane & 7) and + 1 in every fourth tile column of the 32
 * from c0 (load_rows_left), then lane r < 16 gets row r's total
 * (sum_rows_left, which loads the columns from 32 on itself: one more L2
 * round trip for the right half of an 8K plane). Every tile gathers the
 * rows of all tiles left of it, the pass's largest gather; in 16 bits it
 * reads half the bytes of a 32-bit table (round 32: at UHD the 32-bit
 * gather took 0.7 us of the call). */
constexpr int kRowWords = 8;    /* words a lane: 4 tile columns each */

__device__ __forceinline__ void
load_rows_left (const TiledParams &p, int top, int tx, int c0, int lane,
    uint32_t (&rr)[kRowWords])
{
  /* rowp (a multiple of 16) and top even: whole words */
  const uint32_t *rp = reinterpret_cast<const uint32_t *> (
      detail::sat_row16 (p) + top) + (lane & 7);
  const size_t stride = p.rowp / 2;
#pragma unroll
  for (int j = 0; j < kRowWords; j++) {
    const int i = c0 + 4 * j + (lane >> 3);
    rr[j] = i < tx ? __ldcg (rp + (size_t) i * stride) : 0u;
  }
}

/* rr: load_rows_left's words of the first 32 tile columns */
__device__ __forceinline__ uint32_t
sum_rows_left (const TiledParams &p, int top, int tx, int lane,
    uint32_t (&rr)[kRowWords])
{
  /* at most 64 x 32640 a half: no overflow in u32 */
  uint32_t lo = 0, hi = 0;
  for (int c0 = 0;;) {
#pragma unroll
    for (int j = 0; j < kRowWords; j++) {
      lo += rr[j] & 0xffffu;
      hi += rr[j] >> 16;
    }
    c0 += 4 * kRowWords;
    if (c0 >= tx)               /* warp-uniform */
      break;
    load_rows_left (p, top, tx, c0, lane, rr);
  }
  lo += __shfl_xor_sync (0xffffffffu, lo, 8);
  hi += __shfl_xor_sync (0xffffffffu, hi, 8);
  lo += __shfl_xor_sync (0xffffffffu, lo, 16);
  hi += __shfl_xor_sync (0xffffffffu, hi, 16);
  const int from = (lane & 15) >> 1;
  const uint32_t a = __shfl_sync (0xffffffffu, lo, from),
      b = __shfl_sync (0xffffffffu, hi, from);
  return lane < 16 ? (lane & 1 ? b : a) : 0u;
}

/* The output pass. Grouped and u32 (STACK), a block takes NW tiles one
 * above the other in tile column tx, all in one group, and its warps share
 * the loads of the groups above: each tile loading them all read more
 * from L2 than the input (8 MB at UHD), and that gather after the wait
 * cost about 3 us of a 20 us call. Otherwise a block takes NW tiles in row
 * order; u64 stays there, as the stacked blocks made its UHD table 30%
 * slower (not understood; ncu: twice the stalls on shuffles and shared
 * memory). */
template <int TH, typename T, bool CS, bool GROUPED, bool S4>
__device__ __forceinline__ void
tiled_output (const TiledParams &p)
{
  static_assert (!GROUPED || TH == 16, "grouped: 16-row tiles");
  constexpr bool STACK = GROUPED && sizeof (T) == 4;
  constexpr int NW = STACK ? kTiledStack : kTiledWarps;
  static_assert (kTiledGroup % kTiledStack == 0,
      "stacked: a block's tiles in one group");
  /* the call's last kernel: the next call's first may be scheduled */
  allow_next_kernel ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int tx, ty;
  if constexpr (STACK) {
    tx = blockIdx.x % p.ntx;
    ty = blockIdx.x / p.ntx * NW + warp;
  } else {
    const int tile = blockIdx.x * NW + warp;
    tx = tile % p.ntx;
    ty = tile / p.ntx;
  }
  const bool live = ty < p.nty;
  if (!live) {
    ty = 0;
    if (!STACK)
      tx = 0;                   /* stacked: x is the block's, for the groups */
  }
  const int x = tx * kTW + 4 * lane, top = ty * TH;
  uint32_t w[TH];
  /* the input is not the scan's result: load it before waiting */
  if (live) {
    tile_rows<TH, S4> (p, top, x, tiled_input_policy (p, false), w);
  } else {
#pragma unroll
    for (int r = 0; r < TH; r++)
      w[r] = 0;
  }
  wait_for_previous_kernel ();
  if (!STACK && !live)
    return;
  /* (a dead warp of a stacked block reads tile (tx, 0)'s, unused) */
  uint4 v = GROUPED ? detail::sat_col16_load (p.col, p.colp, ty, x) :
      __ldcg (reinterpret_cast<const uint4 *> (p.col + (size_t) ty * p.colp +
              x));
  uint32_t rl, cl = 0;
  if constexpr (!GROUPED) {
    T corner = 0;
    for (int i = lane; i < tx; i += 32)
      corner += (T) __ldcg (p.tot + (size_t) ty * p.ntx + i);
    rl = lane < TH ? __ldcg (p.row + (size_t) tx * p.rowp + top + lane) : 0u;
    tiled_emit<TH, T, CS> (p, w, v, detail::warp_sum (corner), rl, x, top,
        lane);
    return;
  }
  /* v: add the groups above; cl, the corner: lane i sums its tile columns
   * (tot_left) above the tile; rl: the row sums left of the tile */
  uint32_t rr[kRowWords];
  if constexpr (STACK) {
    /* warp k sums groups k, k + NW, .. and the block adds the parts in
     * shared memory. The groups' loads go out first: in the other order
     * this pass spilled (64 registers) and took 1.4 us more at UHD. */
    __shared__ uint4 sv[NW][32];
    __shared__ uint32_t st[NW][32];
    uint4 gs = make_uint4 (0, 0, 0, 0);
    uint32_t gts = 0;
    add_groups<kTiledStackBatch> (p, blockIdx.x / p.ntx * NW / kTiledGroup,
        warp, NW, x, tx, lane, gs, gts);
    load_rows_left (p, top, tx, 0, lane, rr);
    cl = tot_left (p.tot + (size_t) ty * p.ntx, tx, lane);
    sv[warp][lane] = gs;
    st[warp][lane] = gts;
    rl = sum_rows_left (p, top, tx, lane, rr);
    __syncthreads ();
    if (!live)
      return;
#pragma unroll
    for (int k = 0; k < NW; k++) {
      add4 (v, sv[k][lane]);
      cl += st[k][lane];
    }
  } else {
    /* loads in batches (kTiledGroupBatch groups, all 16 row sums), so that
     * the chain after the wait is one or two L2 round trips */
    load_rows_left (p, top, tx, 0, lane, rr);
    cl = tot_left (p.tot + (size_t) ty * p.ntx, tx, lane);
    add_groups<kTiledGroupBatch> (p, ty / kTiledGroup, 0, 1, x, tx, lane, v,
        cl);
    rl = sum_rows_left (p, top, tx, lane, rr);
  }
  tiled_emit<TH, T, CS> (p, w, v, detail::warp_sum ((T) cl), rl, x, top,
      lane);
}

template <int TH, typename T, bool CS, bool S4>
__global__ void __launch_bounds__ (32 * kTiledWarps)
sat_tiled_output (const TiledParams p)
{
  tiled_output<TH, T, CS, false, S4> (p);
}

static_assert (kTiledStack == kTiledWarps, "one block shape for both orders");

/* 8 blocks an SM (64 registers): UHD's 1,020 blocks (u64: 1,013) are one
 * wave */
template <typename T, bool CS, bool S4>
__global__ void __launch_bounds__ (32 * kTiledWarps, 8)
sat_tiled_output_grouped (const TiledParams p)
{
  tiled_output<16, T, CS, true, S4> (p);
}

/* ------------------------------------------------------------ host side */

detail::SatTuning g_tuning;

int
round_up (int v, int m)
{
  return (v + m - 1) / m * m;
}

int
clamp_th (int th)
{
  th = round_up (std::max (th, kThMin), kThMin);
  return std::min (th, kThMax);
}

int
threads_for (int width, int cap)
{
  /* smallest block whose segment holds the whole row and out[width] */
  for (int nt = 128; nt < cap; nt *= 2)
    if (kCols * nt > width)
      return nt;
  return cap;
}

/* Defaults from bench/integral --sweep on an H200 (132 SMs): TH 8 at 1080p,
 * 12 at UHD, 24 at 8K; 16 measured at 16384^2 (fewer strips cost workspace
 * and a longer column scan, more cost parallelism). */
int
default_th_multi (int width, int height)
{
  const int64_t px = (int64_t) width * height;
  return px <= 2500000 ? 8 : px <= 9000000 ? 12 : px <= 40000000 ? 24 : 16;
}

int
default_th_single (int width, int height)
{
  return (int64_t) width * height <= 9000000 ? 16 : 32;
}

/* Grouped (16-row tiles, up to kTiledGroupMaxTx tile columns) wherever
 * that serves, unless grouped_ok is false. Without groups,
 * bench/integral --sweep-tiled on an H100 (median of 50): 16 rows up to
 * UHD (0.0251 ms against 0.0274 with 32), 32 at 8K (0.0839 against 0.0918)
 * and 16384^2 (0.636 against 0.700 ms). Round 33, H200, single calls:
 * 4096 x 4320 grouped 0.0340 ms against 0.0390 with 32 rows and three
 * launches, 4096 x 8640 0.0650 against 0.0694. */
int
default_th_tiled (int width, int height, bool grouped_ok = true)
{
  if (grouped_ok && width <= kTW * kTiledGroupMaxTx)
    return 16;
  return (int64_t) width * height <= 9000000 ? 16 : 32;
}

/* Whether the grouped tables serve this width and tile height (the
 * workspace has room for them whatever the tuning), and whether tiled
 * runs grouped (two launches). */
bool
tiled_groups_fit (int width, int th)
{
  return th == 16 && width <= kTW * kTiledGroupMaxTx;
}

bool
tiled_grouped (int width, int th)
{
  return tiled_groups_fit (width, th) && g_tuning.tiled_ungrouped == 0;
}

/* Workspace of tiled, after the control words: col[nty][colp], row[ntx][rowp],
 * tot[nty][ntx]; grouped also gcol[ngroups][colp], gtot[ngroups][ntx]. */
struct TiledLayout {
  int ntx = 0, nty = 0, ngroups = 0;  /* ngroups 0: no group tables */
  size_t colp = 0, rowp = 0;
  size_t col = 0, row = 0, tot = 0, gcol = 0, gtot = 0, total = 0;
};

struct Layout {
  size_t wp = 0;
  size_t agg = 0, above = 0, aggq = 0, aboveq = 0, total = 0;
};

size_t
align256 (size_t v)
{
  return (v + 255) / 256 * 256;
}

/* bytes: of a sample (Px<bytes>: the sizes of Agg and Sq) */
Layout
make_layout (int width, int strips, bool squared, int bytes)
{
  Layout l;
  l.wp = (size_t) round_up (width, 64);
  const size_t n = (size_t) strips;
  const size_t agg_es = bytes == 1 ? sizeof (Px<1>::Agg) : sizeof (Px<2>::Agg);
  const size_t sq_es = bytes == 1 ? sizeof (Px<1>::Sq) : sizeof (Px<2>::Sq);
  size_t off = kDataOffset;
  l.agg = off;
  off = align256 (off + n * l.wp * agg_es);
  l.above = off;
  off = align256 (off + n * l.wp * sizeof (uint32_t));
  if (squared) {
    l.aggq = off;
    off = align256 (off + n * l.wp * sq_es);
    l.aboveq = off;
    off = align256 (off + n * l.wp * sq_es);
  }
  l.total = off;
  return l;
}

TiledLayout
make_tiled_layout (int width, int height, int th)
{
  TiledLayout l;
  l.ntx = (width + kTW - 1) / kTW;
  l.nty = (height + th - 1) / th;
  l.colp = (size_t) l.ntx * kTW;
  l.rowp = (size_t) l.nty * th;
  size_t off = kDataOffset;
  l.col = off;
  off = align256 (off + (size_t) l.nty * l.colp * 4);
  l.row = off;
  off = align256 (off + (size_t) l.ntx * l.rowp * 4);
  l.tot = off;
  off = align256 (off + (size_t) l.nty * l.ntx * 4);
  if (tiled_groups_fit (width, th)) {
    l.ngroups = tiled_ngroups (l.nty);
    l.gcol = off;
    off = align256 (off + (size_t) l.ngroups * l.colp * 4);
    l.gtot = off;
    off = align256 (off + (size_t) l.ngroups * l.ntx * 4);
  }
  l.total = off;
  return l;
}

}  // namespace

namespace detail {

void
sat_set_tuning (const SatTuning &t)
{
  g_tuning = t;
}

SatTuning
sat_get_tuning ()
{
  return g_tuning;
}

SatConfig
sat_config (int width, int height, SatType type, bool squared,
    SatAlgorithm algo)
{
  SatConfig c;
  if (algo == SatAlgorithm::automatic)
    algo = integral_pick (width, height, type);
  c.algo = algo;
  int cap = g_tuning.max_threads > 0 ? g_tuning.max_threads : CIP_SAT_MAX_THREADS;
  cap = cap >= 512 ? 512 : cap >= 256 ? 256 : 128;
  /* 8-byte staging at 512 threads needs 64 KB of shared memory */
  if (cap == 512 && (type == SatType::u64 || squared) &&
      max_optin_smem () < 72 * 1024)
    cap = 256;
  c.threads = threads_for (std::max (width, 1), cap);
  if (algo == SatAlgorithm::tiled) {
    c.th = g_tuning.th_tiled == 32 || g_tuning.th_tiled == 16 ?
        g_tuning.th_tiled : default_th_tiled (width, height,
            g_tuning.tiled_ungrouped == 0);
    c.threads = 32 * kTiledWarps;
    c.strips = height > 0 ? (height + c.th - 1) / c.th : 0;
    c.segments = width > 0 ? (width + kTW - 1) / kTW : 0;
    c.grouped = tiled_grouped (width, c.th);
    return c;
  }
  if (algo == SatAlgorithm::single_pass) {
    const int th = g_tuning.th_single > 0 ? g_tuning.th_single :
        CIP_SAT_TH_SINGLE > 0 ? CIP_SAT_TH_SINGLE : default_th_single (width, height);
    c.th = clamp_th (th);
  } else {
    const int th = g_tuning.th_multi > 0 ? g_tuning.th_multi :
        CIP_SAT_TH_MULTI > 0 ? CIP_SAT_TH_MULTI : default_th_multi (width, height);
    c.th = clamp_th (th);
  }
  c.strips = height > 0 ? (height + c.th - 1) / c.th : 0;
  c.segments = width > 0 ? (width + kCols * c.threads - 1) / (kCols * c.threads) : 0;
  c.lookback = g_tuning.lookback > 0 ? std::min (g_tuning.lookback, 1024) :
      CIP_SAT_LOOKBACK;
  return c;
}

}  // namespace detail

/* The choice of SatAlgorithm::automatic, from bench/integral --sweep-tiled
 * on an H100 (u32, median of 50 runs, round 10 of bench/RESULTS.md; tiled
 * in three launches then):
 *              1920x1080   3840x2160   7680x4320   16384x16384
 *   tiled        0.0179      0.0251      0.0839      0.636 ms
 *   multi_pass   0.0193      0.0277      0.0925      0.674 ms
 *   single_pass  0.0353      0.0448      0.117       0.859 ms
 * u32 tables: tiled wherever it serves the request (sat_resolve moves the
 * rest to multi_pass). u64 tables: tiled where it runs grouped (two
 * launches: 16-row tiles, up to 8192 columns; round 16, 4K, calls 3, 5 and
 * 6: 0.0375-0.0398 ms against multi_pass's 0.0397-0.0474, b2b 0.0349-0.0357
 * against 0.0365-0.0376; round 33, H200, 8K: b2b 0.0984-0.0991 against
 * 0.1136), multi_pass elsewhere (round 10, 4K, tiled in three launches:
 * 0.0400 against 0.0393). single_pass is bound by its chain of
 * strips at every size. Re-run the bench after changing a kernel or on
 * another GPU. */
SatAlgorithm
integral_pick (int width, int height, SatType type)
{
  if (width > detail::kSatTiledMaxSide || height > detail::kSatTiledMaxSide)
    return SatAlgorithm::multi_pass;
  if (type == SatType::u32)
    return SatAlgorithm::tiled;
  const int th = default_th_tiled (width, height);
  return tiled_groups_fit (width, th) ? SatAlgorithm::tiled :
      SatAlgorithm::multi_pass;
}

size_t
integral_workspace_bytes (int width, int height, SatType type, bool squared)
{
  if (width <= 0 || height <= 0 || width > detail::kSatMaxSide ||
      height > detail::kSatMaxSide)
    return 0;
  /* room for either algorithm (the one with more strips) and either sample
   * size (16-bit sums are the wider) */
  const detail::SatConfig a = detail::sat_config (width, height, type, squared,
      SatAlgorithm::single_pass);
  const detail::SatConfig b = detail::sat_config (width, height, type, squared,
      SatAlgorithm::multi_pass);
  const size_t strip_bytes = make_layout (width, std::max (a.strips, b.strips),
      squared, 2).total;
  if (width > detail::kSatTiledMaxSide || height > detail::kSatTiledMaxSide)
    return strip_bytes;
  /* tiled, either tile height */
  return std::max ({ strip_bytes, make_tiled_layout (width, height, 16).total,
        make_tiled_layout (width, height, 32).total });
}

Status
integral_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (ws_bytes == 0)
    return Status::ok;
  if (!d_ws)
    return Status::invalid_argument;
  /* only the control words and flags need zeros */
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, std::min (ws_bytes, kDataOffset),
          (cudaStream_t) stream));
  return Status::ok;
}

namespace {

/* B: bytes a sample (Px<B>); single_pass is 8-bit only (B 2 runs multi_pass,
 * the config integral() resolved for it). */
template <int NT, int B, typename T, bool SQ>
Status
run_sat (const SatParams &p, SatAlgorithm algo, cudaStream_t stream)
{
  constexpr size_t smem = stage_bytes<NT, T, SQ> ();
  if constexpr (B == 1) {
    if (algo == SatAlgorithm::single_pass)
      return launch (sat_single_pass<NT, T, SQ>, p.strips, NT, smem, stream, p,
          "sat_single_pass");
  }
  Status st = launch (sat_aggregate<NT, B, SQ>, p.strips, NT, 0, stream, p,
      "sat_aggregate");
  if (st != Status::ok)
    return st;
  const bool pdl = pdl_supported ();
  if (p.strips > 1) {
    st = launch (sat_column_scan<B, SQ>, (p.w16 + 63) / 64, 32 * kScanWarps, 0,
        stream, p, "sat_column_scan", pdl);
    if (st != Status::ok)
      return st;
  }
  return launch (sat_output<NT, B, T, SQ>, p.strips, NT, smem, stream, p,
      "sat_output", pdl);
}

template <int B, typename T, bool SQ>
Status
run_threads (const SatParams &p, int threads, SatAlgorithm algo,
    cudaStream_t stream)
{
  switch (threads) {
    case 128: return run_sat<128, B, T, SQ> (p, algo, stream);
    case 256: return run_sat<256, B, T, SQ> (p, algo, stream);
    default: return run_sat<512, B, T, SQ> (p, algo, stream);
  }
}

template <int B>
Status
run_type (const SatParams &p, SatType type, bool sq, const detail::SatConfig &cfg,
    cudaStream_t cs)
{
  if (type == SatType::u32)
    return sq ? run_threads<B, uint32_t, true> (p, cfg.threads, cfg.algo, cs)
        : run_threads<B, uint32_t, false> (p, cfg.threads, cfg.algo, cs);
  return sq ? run_threads<B, u64, true> (p, cfg.threads, cfg.algo, cs)
      : run_threads<B, u64, false> (p, cfg.threads, cfg.algo, cs);
}

/* Dynamic shared memory (unused) for a grouped first pass of `blocks`
 * blocks: where they fit two an SM but not one, enough that an SM holds
 * two, not three. Launched while the previous kernel drains, the blocks
 * land where room frees first: at UHD a quarter of the SMs held three and
 * finished 0.9 us after those holding two (round 32). 0 otherwise. */
size_t
tiled_first_pass_smem (int blocks)
{
  static_assert (CIP_TILED_GROUP_MIN_BLOCKS >= 2, "two blocks an SM");
  const int sms = detail::sm_count (), per_sm = detail::smem_per_sm ();
  if (sms <= 0 || per_sm <= 0 || blocks <= sms || blocks > 2 * sms)
    return 0;
  /* between a third and a half of the SM, with the block's static shared
   * memory and the 1 KiB the runtime reserves a block: 5/12 of it */
  const long static_bytes = sizeof (uint32_t) * (kTiledGroup *
      kGroupScanStride + kTiledGroup) + 1024;
  const long bytes = (long) per_sm * 5 / 12 - static_bytes;
  return bytes > 0 ? (size_t) bytes / 1024 * 1024 : 0;
}

/* The tables ahead of the output pass. Grouped tables (t.gcol set, 16-row
 * tiles) take one launch, the grouped first pass; the others two, the tile
 * sums and then their scans. Every launch is PDL, the first one between
 * calls (detail/launch.cuh). */
template <int TH, bool S4>
Status
run_tiled_tables_s (const detail::SatTiles &t, cudaStream_t stream)
{
  TiledParams p;
  static_cast<detail::SatTiles &> (p) = t;
  p.sum = nullptr;
  p.sum_pitch = 0;
  if constexpr (TH == 16) {
    if (p.gcol) {
      const int blocks = tiled_first_pass_blocks (p.ntx, p.nty);
      return launch (sat_tiled_aggregate_grouped<TH, S4>, blocks,
          32 * kTiledGroup, tiled_first_pass_smem (blocks), stream, p,
          "sat_tiled_aggregate_grouped", detail::between_calls_pdl ());
    }
  }
  const int grid = (p.ntx * p.nty + kTiledWarps - 1) / kTiledWarps;
  Status st = launch (sat_tiled_aggregate<TH, S4>, grid, 32 * kTiledWarps, 0,
      stream, p, "sat_tiled_aggregate", detail::between_calls_pdl ());
  if (st != Status::ok)
    return st;
  return launch (sat_tiled_scan, p.ntx + (int) ((p.rowp + 127) / 128),
      32 * kTiledScanWarps, 0, stream, p, "sat_tiled_scan", pdl_supported ());
}

/* The tables: step-4 sources through the kernels of S4. */
template <int TH>
Status
run_tiled_tables (const detail::SatTiles &t, cudaStream_t stream)
{
  return t.step == 4 ? run_tiled_tables_s<TH, true> (t, stream) :
      run_tiled_tables_s<TH, false> (t, stream);
}

template <int TH, typename T, bool CS, bool S4>
Status
run_tiled_kernels_s (const TiledParams &p, cudaStream_t stream)
{
  const int grid = (p.ntx * p.nty + kTiledWarps - 1) / kTiledWarps;
  Status st = run_tiled_tables_s<TH, S4> (p, stream);
  if (st != Status::ok)
    return st;
  if constexpr (TH == 16) {
    /* grouped u32: kTiledStack tiles of one tile column a block */
    if (p.gcol)
      return launch (sat_tiled_output_grouped<T, CS, S4>, sizeof (T) == 4 ?
          p.ntx * ((p.nty + kTiledStack - 1) / kTiledStack) : grid,
          32 * kTiledWarps, 0, stream, p, "sat_tiled_output_grouped",
          pdl_supported ());
  }
  return launch (sat_tiled_output<TH, T, CS, S4>, grid, 32 * kTiledWarps, 0,
      stream, p, "sat_tiled_output", pdl_supported ());
}

template <int TH, typename T, bool CS>
Status
run_tiled_kernels (const TiledParams &p, cudaStream_t stream)
{
  return p.step == 4 ? run_tiled_kernels_s<TH, T, CS, true> (p, stream) :
      run_tiled_kernels_s<TH, T, CS, false> (p, stream);
}

/* Streaming stores (st.global.cs) leave L2 to the input, which the output
 * pass reads again. */
template <int TH>
Status
run_tiled_th (const TiledParams &p, SatType type, cudaStream_t stream)
{
  const bool cs = g_tuning.tiled_plain == 0;
  if (type == SatType::u32)
    return cs ? run_tiled_kernels<TH, uint32_t, true> (p, stream)
        : run_tiled_kernels<TH, uint32_t, false> (p, stream);
  return cs ? run_tiled_kernels<TH, u64, true> (p, stream)
      : run_tiled_kernels<TH, u64, false> (p, stream);
}

/* grouped: with the group tables (tiled_grouped) */
detail::SatTiles
tiled_tables_of (const ImageView &src, uint8_t *ws, const TiledLayout &l,
    int th, bool grouped)
{
  detail::SatTiles t;
  t.src = src.data;
  t.src_pitch = src.pitch;
  t.width = src.width;
  t.height = src.height;
  t.step = src.step;
  /* steps 2 and 4: rows read as aligned groups of 4 samples (8 or 16
   * bytes), this channel's the bytes at par modulo the step */
  t.par = (int) ((uintptr_t) src.data % (uintptr_t) src.step);
  const size_t group = 4 * (size_t) src.step;
  t.aligned_in = ((uintptr_t) src.data - t.par) % group == 0 &&
      src.pitch % group == 0;
  t.th = th;
  t.ntx = l.ntx;
  t.nty = l.nty;
  t.colp = l.colp;
  t.rowp = l.rowp;
  t.col = reinterpret_cast<uint32_t *> (ws + l.col);
  t.row = reinterpret_cast<uint32_t *> (ws + l.row);
  t.tot = reinterpret_cast<uint32_t *> (ws + l.tot);
  if (grouped) {
    t.gcol = reinterpret_cast<uint32_t *> (ws + l.gcol);
    t.gtot = reinterpret_cast<uint32_t *> (ws + l.gtot);
  }
  return t;
}

Status
run_tiled (const ImageView &src, SatType type, const SatDest &dst,
    uint8_t *ws, const TiledLayout &l, int th, cudaStream_t stream)
{
  TiledParams p;
  static_cast<detail::SatTiles &> (p) = tiled_tables_of (src, ws, l, th,
      tiled_grouped (src.width, th));
  const int l2 = g_tuning.tiled_l2;
  /* measured on the H100 (50 MiB L2): a gain up to 16384 x 4096 (1.3 L2),
   * a loss at 16384^2 (5.1 L2) */
  p.keep_in_l2 = l2 == 2 || (l2 == 0 && (size_t) src.width * src.height <=
          (size_t) detail::l2_cache_bytes () / 2 * 3);
  p.sum = dst.sum;
  p.sum_pitch = dst.sum_pitch;
  return th == 32 ? run_tiled_th<32> (p, type, stream)
      : run_tiled_th<16> (p, type, stream);
}

}  // namespace

namespace detail {

Status
sat_tiled_tables (const ImageView &src, void *d_ws, size_t ws_bytes,
    Stream stream, SatTiles *out, bool allow_grouped)
{
  if (!out || !sat_tiled_serves (src))
    return Status::unsupported;
  SatConfig cfg = sat_config (src.width, src.height, SatType::u32, false,
      SatAlgorithm::tiled);
  if (cfg.grouped && !allow_grouped && g_tuning.th_tiled == 0)
    cfg.th = default_th_tiled (src.width, src.height, false);
  const TiledLayout l = make_tiled_layout (src.width, src.height, cfg.th);
  if (!d_ws || ws_bytes < l.total || (uintptr_t) d_ws % 16 != 0)
    return Status::invalid_argument;
  *out = tiled_tables_of (src, static_cast<uint8_t *> (d_ws), l, cfg.th,
      cfg.grouped && allow_grouped);
  const cudaStream_t cs = (cudaStream_t) stream;
  return cfg.th == 32 ? run_tiled_tables<32> (*out, cs)
      : run_tiled_tables<16> (*out, cs);
}

}  // namespace detail

Status
integral (const ImageView &src, SatType type, const SatDest &dst, void *d_ws,
    size_t ws_bytes, Stream stream, SatAlgorithm algo)
{
  if (algo != SatAlgorithm::automatic && algo != SatAlgorithm::single_pass &&
      algo != SatAlgorithm::multi_pass && algo != SatAlgorithm::tiled)
    return Status::invalid_argument;
  Status st = detail::integral_check_args (src, type, dst);
  if (st != Status::ok)
    return st;
  const int w = src.width, h = src.height;
  if (w == 0 && h == 0)
    return Status::ok;
  const cudaStream_t cs = (cudaStream_t) stream;
  const size_t es = type == SatType::u32 ? 4 : 8;
  if (w == 0 || h == 0) {
    /* a (w+1) x (h+1) table of zeros */
    CIP_CUDA_TRY (cudaMemset2DAsync (dst.sum, dst.sum_pitch, 0,
            ((size_t) w + 1) * es, (size_t) h + 1, cs));
    if (dst.sqsum)
      CIP_CUDA_TRY (cudaMemset2DAsync (dst.sqsum, dst.sqsum_pitch, 0,
              ((size_t) w + 1) * 8, (size_t) h + 1, cs));
    return Status::ok;
  }
  if (w > detail::kSatMaxSide || h > detail::kSatMaxSide)
    return Status::unsupported;
  const bool sq = dst.sqsum != nullptr;
  const int bytes = src.bytes;
  algo = detail::sat_resolve (src, type, dst, algo);
  const detail::SatConfig cfg = detail::sat_config (w, h, type, sq, algo);
  const bool tiled = algo == SatAlgorithm::tiled;
  const Layout lay = tiled ? Layout () : make_layout (w, cfg.strips, sq, bytes);
  const TiledLayout tl = tiled ? make_tiled_layout (w, h, cfg.th) :
      TiledLayout ();
  /* the documented size, not just this call's layout: a caller that sized
   * the workspace short gets the same answer whatever the algorithm */
  if (!d_ws || ws_bytes < std::max (tiled ? tl.total : lay.total,
          integral_workspace_bytes (w, h, type, sq)) ||
      (uintptr_t) d_ws % 16 != 0)
    return Status::invalid_argument;
  if (tiled)
    return run_tiled (src, type, dst, static_cast<uint8_t *> (d_ws), tl,
        cfg.th, cs);

  SatParams p;
  p.src = src.data;
  p.src_pitch = src.pitch;
  p.width = w;
  p.height = h;
  p.step = src.step;
  p.shift = src.shift;
  p.mask2 = src.max_value () * 0x10001u;
  p.w16 = round_up (w, kCols);
  p.sum = dst.sum;
  p.sum_pitch = dst.sum_pitch;
  p.sqsum = reinterpret_cast<u64 *> (dst.sqsum);
  p.sqsum_pitch = dst.sqsum_pitch;
  p.th = cfg.th;
  p.strips = cfg.strips;
  p.nseg = cfg.segments;
  p.lookback = cfg.lookback;
  p.vec_in = src.step == bytes && (uintptr_t) src.data % 16 == 0 &&
      (h == 1 || src.pitch % 16 == 0);
  p.vec_sum = (uintptr_t) dst.sum % 16 == 0 && dst.sum_pitch % 16 == 0;
  p.vec_sq = sq && (uintptr_t) dst.sqsum % 16 == 0 && dst.sqsum_pitch % 16 == 0;
  uint8_t *ws = static_cast<uint8_t *> (d_ws);
  p.ctl = reinterpret_cast<uint32_t *> (ws);
  p.flags = reinterpret_cast<uint32_t *> (ws + kFlagsOffset);
  p.agg = ws + lay.agg;
  p.above = reinterpret_cast<uint32_t *> (ws + lay.above);
  p.aggq = sq ? ws + lay.aggq : nullptr;
  p.aboveq = sq ? ws + lay.aboveq : nullptr;
  p.wp = lay.wp;
  return bytes == 1 ? run_type<1> (p, type, sq, cfg, cs)
      : run_type<2> (p, type, sq, cfg, cs);
}

}  // namespace cip
