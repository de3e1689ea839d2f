/* cip histogram kernels (see cip/histogram.h).
 *
 * One launch computes every histogram of the call:
 * - Inputs are gathered into "groups", each read once: a planar plane, the
 *   channels of one packed frame (same size, step 2 or 4 and pitch, data
 *   within one pixel), or a single input on the generic path (any step, any
 *   pitch).
 * - The grid is split between the groups in proportion to their work; a block
 *   works on one group. Its warps take "items" from a grid-stride sequence:
 *   vector paths: 32 lanes x kVecs 16-byte aligned chunks of one row (chunks
 *   that straddle the row's ends are read byte by byte, so any pointer
 *   alignment and pitch works and nothing outside the views' rows is read);
 *   generic path: 32 lanes x kSamps samples of one row. Rows without gaps
 *   (pitch == step * width) are read as one long row.
 * - Each block counts into shared memory (one region per group member), then
 *   adds its non-zero bins into an accumulator in the workspace with global
 *   atomics. A ticket elects the last block, which moves the accumulator to
 *   the output (overwrite or add) and zeroes it and the ticket for the next
 *   call: no memset, one launch, the workspace stays zero between calls.
 *   Launch shapes (HistShape, histogram_debug_shape()) vary the block size,
 *   the grid and the code of the replicated counters (histogram_kernel<V>),
 *   and may merge `direct`ly into the output instead (see the kernel).
 *
 * Shared-memory layouts (per member region; `lane` = lane index in the warp):
 * - replicated: word (bin << 5) + lane, 32-bit bins. Every lane owns a bank,
 *   so a warp-wide atomic never conflicts, whatever the data.
 * - packed16 / packed8: word ((bin >> L) << 5) + lane holding 2 (L = 1) or 4
 *   (L = 2) sub-counters, followed by `bins` 32-bit "wide" bins. The atomic's
 *   returned value tells whether this addition carried out of its sub-counter;
 *   if so the thread works out every carry of that addition (carry-in vector
 *   old ^ inc ^ new, carry out of bit 31 = new < old) and adds, per affected
 *   sub-counter j, 2^W * carry_out(j) - carry_in(j) to wide[j]: the final
 *   count of a bin is (sum of its sub-counters) + wide[bin], exactly, however
 *   additions interleave (each atomic's carries are known exactly from the
 *   value it returned; corrections are sums modulo 2^32).
 * - warp_aggregated: word bin; lanes with equal bins are grouped with
 *   __match_any_sync and the lowest lane adds the group's size.
 * A thread whose 16-byte vector holds one value for a member (constant and
 * flat regions) adds 16 / step at once instead of 16 / step times 1.
 */
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "cip/histogram.h"
#include "detail/check.cuh"
#include "detail/histogram_internal.h"
#include "detail/launch.cuh"

namespace cip {

namespace {

/* Blocks of 512 threads, two per SM; 1024 threads when a block's shared
 * memory leaves room for only one per SM (4 channels of replicated bins), so
 * an SM keeps 32 warps either way (64 registers a thread). */
constexpr int kMaxThreads = 1024;
constexpr int kSmallThreads = 512;
constexpr int kVecs = 4;                      /* 16-byte chunks per lane per item */
constexpr int kChunksPerItem = 32 * kVecs;
constexpr int kSamps = 8;                     /* generic path: samples per lane per item */
constexpr size_t kWsHeader = 128;  /* ticket, claim, ready, then the accumulator */
constexpr uint32_t kNoBin = 0xFFFFFFFFu;

enum Path { kPathVec1, kPathVec2, kPathVec4, kPathGeneric };
enum Algo { kReplicated, kPacked16, kPacked8, kWarpAgg };
/* Code variants of the replicated counters (HistShape), bits of the kernel's
 * template argument. */
enum { kVarPrefetch = 1, kVarB8 = 2, kNumVariants = 4 };

struct Member {
  int input;        /* index of the output histogram */
  int luma;         /* 0: the sample itself, 1: luma of three colour bytes */
  int res;          /* vector paths: byte address modulo the step */
  uint32_t c0, c2;  /* luma: weights of the first and the third colour byte */
};

struct Group {
  const uint8_t *base;    /* vector: first byte of row 0; generic: view.data */
  size_t pitch;
  size_t span;            /* vector: bytes per row; generic: samples per row */
  int step;               /* generic path: bytes between samples */
  uint32_t items_per_row;
  uint32_t items;
  int path, algo, nmem;
  int rgb3;               /* kPathVec4, three members, no luma (see
                           * vec_count_item_rgb3; 256 bins only) */
  int block_begin, nblocks;
  uint32_t region_words;  /* shared-memory words per member, multiple of 4 */
  Member mem[kHistogramMaxInputs];
};

struct Params {
  Group g[kHistogramMaxInputs];
  int ngroups;
  int bins;
  int shift;              /* bin = value >> shift */
  int nout;
  int accumulate;
  int direct;             /* blocks add straight into the output (below) */
  int prefetch;           /* vec_prefetch_item before the wait (the host
                           * sets it for inputs unlikely to be in L2) */
  uint32_t *out;
  uint32_t *ticket;       /* accumulator: blocks done */
  uint32_t *acc;          /* nout * bins, zero between calls */
  /* direct, overwrite: see the kernel */
  unsigned long long *claim;
  uint32_t *ready;
};

/* 32-bit words per lane copy. */
__host__ __device__ constexpr uint32_t
lane_words (int algo, int bins)
{
  return algo == kPacked16 ? (uint32_t) bins / 2 :
      algo == kPacked8 ? ((uint32_t) bins + 3) / 4 : (uint32_t) bins;
}

__host__ __device__ constexpr uint32_t
round4 (uint32_t n)
{
  return (n + 3) & ~3u;
}

__host__ __device__ constexpr uint32_t
region_words (int algo, int bins)
{
  return algo == kWarpAgg ? round4 ((uint32_t) bins) :
      algo == kReplicated ? lane_words (algo, bins) * 32 :
      round4 (lane_words (algo, bins) * 32 + (uint32_t) bins);
}


/* The 8-bit path serves up to 256 bins. */
constexpr int k8BitMaxBins = 256;
constexpr size_t kMaxDynSmem =
    (size_t) kHistogramMaxInputs * region_words (kReplicated, k8BitMaxBins) * 4;

/* ---- counters: one per (block, member), built per thread ----------------- */

template <int A> struct Counter;

/* The lane's copy of bin 0 as a shared-memory byte address, so that a
 * sample's counter is one shift-and-add away ((bin << 7) + a: one LEA)
 * rather than an index scaled twice. */
template <> struct Counter<kReplicated> {
  uint32_t a;
  __device__ Counter (uint32_t *region, int, int lane)
      : a ((uint32_t) __cvta_generic_to_shared (region + lane)) {}
  __device__ __forceinline__ void add (uint32_t bin, uint32_t k) const
  {
    asm volatile ("red.shared.add.u32 [%0], %1;" : : "r" (a + (bin << 7)),
        "r" (k) : "memory");
  }
};

/* Rare path of the packed counters: the addition `inc` to a word that held
 * `old` carried out of its sub-counter. Adds to the wide bins, per
 * sub-counter j of the word, 2^W * (carry out of j) - (carry into j). */
template <int W>
__device__ __noinline__ void
packed_carry (uint32_t *wide, uint32_t bins, uint32_t old, uint32_t inc,
    uint32_t bin0)
{
  constexpr int kSub = 32 / W;
  const uint32_t nw = old + inc;
  const uint32_t cv = old ^ inc ^ nw;         /* bit i: carry into bit i */
#pragma unroll
  for (int j = 0; j < kSub; j++) {
    const uint32_t cin = (cv >> (j * W)) & 1u;
    uint32_t cout;
    if (j == kSub - 1)
      cout = nw < old ? 1u : 0u;              /* out of bit 31: lost in shared */
    else
      cout = (cv >> ((j + 1) * W)) & 1u;
    const uint32_t corr = (cout << W) - cin;  /* modulo 2^32: -1 is fine */
    if (corr != 0 && bin0 + j < bins)
      atomicAdd (wide + bin0 + j, corr);
  }
}

template <int W> struct PackedCounter {
  static constexpr int kLog = W == 16 ? 1 : 2;  /* log2 sub-counters per word */
  static constexpr uint32_t kSub = 32 / W;
  static constexpr uint32_t kMax = (1u << W) - 1;
  uint32_t *h, *wide;
  uint32_t bins;

  __device__ PackedCounter (uint32_t *region, int nbins, int lane)
      : h (region + lane),
        wide (region + (lane_words (W == 16 ? kPacked16 : kPacked8, nbins) << 5)),
        bins ((uint32_t) nbins) {}

  __device__ __forceinline__ void add (uint32_t bin, uint32_t k) const
  {
    const uint32_t sh = (bin & (kSub - 1)) * W;
    const uint32_t inc = k << sh;
    const uint32_t old = atomicAdd (h + ((bin >> kLog) << 5), inc);
    if (((old >> sh) & kMax) + k > kMax)
      packed_carry<W> (wide, bins, old, inc, bin & ~(kSub - 1));
  }
};

template <> struct Counter<kPacked16> : PackedCounter<16> {
  using PackedCounter<16>::PackedCounter;
};
template <> struct Counter<kPacked8> : PackedCounter<8> {
  using PackedCounter<8>::PackedCounter;
};

template <> struct Counter<kWarpAgg> {
  uint32_t *h;
  int lane;
  __device__ Counter (uint32_t *region, int, int l) : h (region), lane (l) {}
  /* Called by all 32 lanes of the warp together; key = bin or kNoBin. */
  __device__ __forceinline__ void add_key (uint32_t key) const
  {
    const uint32_t peers = __match_any_sync (0xFFFFFFFFu, key);
    if (key != kNoBin && lane == __ffs ((int) peers) - 1)
      atomicAdd (h + key, (uint32_t) __popc (peers));
  }
};

/* ---- counting one 16-byte vector for one member -------------------------- */

__device__ __forceinline__ uint32_t
luma_bytes (uint32_t b0, uint32_t b1, uint32_t b2, const Member &mb)
{
  return (mb.c0 * b0 + kLuma709G * b1 + mb.c2 * b2 + 32768u) >> 16;
}

/* Bin of sample t (0 .. 16/S - 1) of member mb in the vector w. B8: 256
 * bins (shift 0), the byte taken by one permute, whatever mb.res. */
template <int S, bool LUMA, bool B8 = false>
__device__ __forceinline__ uint32_t
vec_bin (const uint32_t (&w)[4], int t, const Member &mb, int shift,
    uint32_t binmask)
{
  const int q = (t * S) >> 2;                  /* static once unrolled */
  const int bo = ((t * S) & 3) * 8 + mb.res * 8;
  /* one-byte samples: res is 0 (the byte address modulo the step), so the
   * selector is a constant */
  if (B8 && !LUMA && S == 1)
    return __byte_perm (w[q], 0, 0x4440u | (uint32_t) (t & 3));
  if (B8 && !LUMA)
    return __byte_perm (w[q], 0, 0x4440u | (uint32_t) (((t * S) & 3) + mb.res));
  if (LUMA)
    return luma_bytes ((w[q] >> bo) & 0xFFu, (w[q] >> (bo + 8)) & 0xFFu,
        (w[q] >> (bo + 16)) & 0xFFu, mb) >> shift;
  return (w[q] >> (bo + shift)) & binmask;
}

/* m: valid bytes of the vector (bit i = byte i); diff: bits where words 1..3
 * differ from word 0. */
template <int A, int S, bool LUMA, bool B8 = false>
__device__ __forceinline__ void
count_vec (const Counter<A> &cnt, const Member &mb, const uint32_t (&w)[4],
    uint32_t m, uint32_t diff, int shift, uint32_t binmask)
{
  constexpr int N = 16 / S;
  if constexpr (A == kWarpAgg) {
    (void) diff;
#pragma unroll
    for (int t = 0; t < N; t++) {
      const bool ok = (m >> (mb.res + t * S)) & 1u;
      cnt.add_key (ok ? vec_bin<S, LUMA> (w, t, mb, shift, binmask) : kNoBin);
    }
  } else {
    if (m == 0xFFFFu) {
      /* does this member see a single value in the whole vector? */
      const int rb = mb.res * 8;
      bool same;
      if (S == 1)
        same = diff == 0 && w[0] == __byte_perm (w[0], 0, 0);
      else if (S == 2)
        same = ((diff & (0x00FF00FFu << rb)) |
            ((w[0] ^ (w[0] >> 16)) & (0xFFu << rb))) == 0;
      else
        same = (diff & ((LUMA ? 0xFFFFFFu : 0xFFu) << rb)) == 0;
      if (same) {
        cnt.add (vec_bin<S, LUMA, B8> (w, 0, mb, shift, binmask), (uint32_t) N);
        return;
      }
#pragma unroll
      for (int t = 0; t < N; t++)
        cnt.add (vec_bin<S, LUMA, B8> (w, t, mb, shift, binmask), 1u);
    } else if (m != 0) {
#pragma unroll
      for (int t = 0; t < N; t++)
        if ((m >> (mb.res + t * S)) & 1u)
          cnt.add (vec_bin<S, LUMA, B8> (w, t, mb, shift, binmask), 1u);
    }
  }
}

/* ---- the work loops ------------------------------------------------------- */

/* The 16-byte chunk at a (16-byte aligned) of a row [lo, hi) into w: whole
 * when it lies inside, else only its B-byte samples inside the row (one
 * load each, so that nothing outside the row is read); m gets bit i for
 * every valid sample starting at byte i. */
template <int B>
__device__ __forceinline__ void
load_chunk (uintptr_t a, uintptr_t lo, uintptr_t hi, uint32_t (&w)[4],
    uint32_t &m)
{
  if (a >= lo && a + 16 <= hi) {
    const uint4 v = __ldg ((const uint4 *) a);
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
    m = 0xFFFFu;
    return;
  }
  w[0] = w[1] = w[2] = w[3] = 0;
  m = 0;
  if (a >= hi)
    return;
#pragma unroll
  for (int i = 0; i < 16; i += B) {
    if (a + i >= lo && a + i < hi) {
      const uint32_t sv = B == 1 ? (uint32_t) __ldg ((const unsigned char *) (a + i)) :
          (uint32_t) __ldg ((const unsigned short *) (a + i));
      w[i >> 2] |= sv << (8 * (i & 3));
      m |= 1u << i;
    }
  }
}

/* Where item `item` of group g lies: its row's bytes [lo, hi), and the
 * (16-byte aligned) address of lane `lane`'s chunk j of it, chunk (j). One
 * geometry for the loads (vec_load_item) and the prefetch
 * (vec_prefetch_item). */
struct ItemChunks {
  uintptr_t lo, hi, a0;
  uint32_t k;
  int lane;
  __device__ ItemChunks (const Group &g, uint32_t item, int l)
  {
    const uint32_t row = item / g.items_per_row;
    k = item - row * g.items_per_row;
    lo = (uintptr_t) g.base + (size_t) row * g.pitch;
    hi = lo + g.span;
    a0 = lo & ~(uintptr_t) 15;
    lane = l;
  }
  __device__ uintptr_t chunk (int j) const
  {
    return a0 + 16 * ((size_t) k * kChunksPerItem + (size_t) (j * 32 + lane));
  }
};

/* The kVecs chunks of lane `lane` in item `item` of group g. */
__device__ __forceinline__ void
vec_load_item (const Group &g, uint32_t item, int lane, uint32_t (&w)[kVecs][4],
    uint32_t (&m)[kVecs])
{
  const ItemChunks it (g, item, lane);
#pragma unroll
  for (int j = 0; j < kVecs; j++)
    load_chunk<1> (it.chunk (j), it.lo, it.hi, w[j], m[j]);
}

/* Asks L2 for the whole chunks of vec_load_item (g, item, lane), and
 * touches nothing else: called before the wait for the kernel ahead
 * (histogram_kernel), so that a call's first DRAM reads overlap the end of
 * the call before instead of following it. Correct whatever that kernel
 * writes, and whenever: L2 is the device's point of coherence, so a later
 * write updates the prefetched line, and nothing reaches registers or L1
 * before the wait. */
__device__ __forceinline__ void
vec_prefetch_item (const Group &g, uint32_t item, int lane)
{
  const ItemChunks it (g, item, lane);
#pragma unroll
  for (int j = 0; j < kVecs; j++) {
    const uintptr_t a = it.chunk (j);
    if (a >= it.lo && a + 16 <= it.hi)
      asm volatile ("prefetch.global.L2 [%0];" : : "l" (a));
  }
}

/* Counts the chunks of one item for three colour bytes of packed 4-byte
 * pixels (RGBA, BGRx, ...: Group::rgb3), 256 bins: the members' permute
 * selectors and counters are set once per item, and one check finds the
 * vectors whose pixels are all alike in the three bytes. (The general loop
 * below tests, per chunk and member, the member count, luma and the
 * member's own sameness.) */
template <int A>
__device__ __forceinline__ void
vec_count_item_rgb3 (const Params &p, const Group &g, uint32_t *smem, int lane,
    const uint32_t (&w)[kVecs][4], const uint32_t (&m)[kVecs])
{
  uint32_t sel[3], mask = 0;
#pragma unroll
  for (int mi = 0; mi < 3; mi++) {
    sel[mi] = 0x4440u | (uint32_t) g.mem[mi].res;
    mask |= 0xFFu << (8 * g.mem[mi].res);
  }
  const Counter<A> c0 (smem, p.bins, lane);
  const Counter<A> c1 (smem + g.region_words, p.bins, lane);
  const Counter<A> c2 (smem + 2 * g.region_words, p.bins, lane);
#pragma unroll
  for (int j = 0; j < kVecs; j++) {
    if (m[j] == 0xFFFFu) {
      const uint32_t diff = (w[j][0] ^ w[j][1]) | (w[j][0] ^ w[j][2]) | (w[j][0] ^ w[j][3]);
      if ((diff & mask) == 0) {
        c0.add (__byte_perm (w[j][0], 0, sel[0]), 4u);
        c1.add (__byte_perm (w[j][0], 0, sel[1]), 4u);
        c2.add (__byte_perm (w[j][0], 0, sel[2]), 4u);
        continue;
      }
#pragma unroll
      for (int t = 0; t < 4; t++) {
        c0.add (__byte_perm (w[j][t], 0, sel[0]), 1u);
        c1.add (__byte_perm (w[j][t], 0, sel[1]), 1u);
        c2.add (__byte_perm (w[j][t], 0, sel[2]), 1u);
      }
    } else if (m[j] != 0) {
#pragma unroll
      for (int t = 0; t < 4; t++) {
        if ((m[j] >> (4 * t + g.mem[0].res)) & 1u)
          c0.add (__byte_perm (w[j][t], 0, sel[0]), 1u);
        if ((m[j] >> (4 * t + g.mem[1].res)) & 1u)
          c1.add (__byte_perm (w[j][t], 0, sel[1]), 1u);
        if ((m[j] >> (4 * t + g.mem[2].res)) & 1u)
          c2.add (__byte_perm (w[j][t], 0, sel[2]), 1u);
      }
    }
  }
}

/* Counts the chunks of one item for every member of g. */
template <int A, int S, bool B8>
__device__ __forceinline__ void
vec_count_item (const Params &p, const Group &g, uint32_t *smem, int lane,
    const uint32_t (&w)[kVecs][4], const uint32_t (&m)[kVecs])
{
  constexpr int kMaxMem = S == 1 ? 1 : kHistogramMaxInputs;
  const int shift = p.shift;
  const uint32_t binmask = (uint32_t) p.bins - 1;
#pragma unroll
  for (int j = 0; j < kVecs; j++) {
    const uint32_t diff = (w[j][0] ^ w[j][1]) | (w[j][0] ^ w[j][2]) | (w[j][0] ^ w[j][3]);
#pragma unroll
    for (int mi = 0; mi < kMaxMem; mi++) {
      if (mi < g.nmem) {
        const Member &mb = g.mem[mi];
        const Counter<A> cnt (smem + mi * g.region_words, p.bins, lane);
        if constexpr (S == 4) {
          if (mb.luma)
            count_vec<A, S, true> (cnt, mb, w[j], m[j], diff, shift, binmask);
          else
            count_vec<A, S, false, B8> (cnt, mb, w[j], m[j], diff, shift, binmask);
        } else {
          count_vec<A, S, false, B8> (cnt, mb, w[j], m[j], diff, shift, binmask);
        }
      }
    }
  }
}

/* Vector path, step S in {1, 2, 4}: rows of g.span bytes from g.base; lane
 * `lane` of a warp takes chunks lane, lane + 32, ... of its items. PF: the
 * next item's loads are in flight while this one is counted (twice the
 * registers for chunks). start(): the block's barrier before counting
 * (histogram_kernel), called once, after the first item's loads went out,
 * so that they travel while the block waits for its claim. */
template <int A, int S, bool PF, bool B8, bool RGB3 = false, typename Start>
__device__ void
run_vec (const Params &p, const Group &g, uint32_t *smem, int lane,
    uint32_t first, uint32_t stride, Start &start)
{
  auto count = [&] (const uint32_t (&w)[kVecs][4], const uint32_t (&m)[kVecs]) {
    if constexpr (RGB3)
      vec_count_item_rgb3<A> (p, g, smem, lane, w, m);
    else
      vec_count_item<A, S, B8> (p, g, smem, lane, w, m);
  };
  const uint32_t items = g.items;
  uint32_t w[kVecs][4];
  uint32_t m[kVecs];
  if (first < items)
    vec_load_item (g, first, lane, w, m);
  start ();
  if constexpr (!PF) {
    for (uint32_t item = first; item < items; item += stride) {
      if (item != first)
        vec_load_item (g, item, lane, w, m);
      count (w, m);
    }
  } else {
    /* items and stride below 2^31: item + stride does not wrap */
    for (uint32_t item = first; item < items; item += stride) {
      uint32_t nw[kVecs][4];
      uint32_t nm[kVecs];
      if (item + stride < items) {
        vec_load_item (g, item + stride, lane, nw, nm);
      } else {
#pragma unroll
        for (int j = 0; j < kVecs; j++) {
          nw[j][0] = nw[j][1] = nw[j][2] = nw[j][3] = 0;
          nm[j] = 0;
        }
      }
      count (w, m);
#pragma unroll
      for (int j = 0; j < kVecs; j++) {
#pragma unroll
        for (int i = 0; i < 4; i++)
          w[j][i] = nw[j][i];
        m[j] = nm[j];
      }
    }
  }
}

/* Generic path: one member, any step and pitch; lane `lane` takes samples
 * lane, lane + 32, ... of its items (start(): see run_vec). */
template <int A, typename Start>
__device__ void
run_generic (const Params &p, const Group &g, uint32_t *smem, int lane,
    uint32_t first, uint32_t stride, Start &start)
{
  start ();
  const Member &mb = g.mem[0];
  const Counter<A> cnt (smem, p.bins, lane);
  const int shift = p.shift;
  const int luma = mb.luma;
  const uint32_t ipr = g.items_per_row;
  const uint32_t items = g.items;
  const size_t step = (size_t) g.step;

  for (uint32_t item = first; item < items; item += stride) {
    const uint32_t row = item / ipr;
    const uint32_t k = item - row * ipr;
    const uint8_t *rowp = g.base + (size_t) row * g.pitch;
    uint32_t bin[kSamps];
#pragma unroll
    for (int j = 0; j < kSamps; j++) {
      const size_t x = (size_t) k * (32 * kSamps) + (size_t) (j * 32 + lane);
      bin[j] = kNoBin;
      if (x < g.span) {
        const uint8_t *q = rowp + x * step;
        if (luma)
          bin[j] = luma_bytes (__ldg (q), __ldg (q + 1), __ldg (q + 2), mb) >> shift;
        else
          bin[j] = (uint32_t) __ldg (q) >> shift;
      }
    }
#pragma unroll
    for (int j = 0; j < kSamps; j++) {
      if constexpr (A == kWarpAgg)
        cnt.add_key (bin[j]);
      else if (bin[j] != kNoBin)
        cnt.add (bin[j], 1u);
    }
  }
}

/* The merge, in two steps, so that the wait for the zeroed output (direct
 * overwrite) hides behind the first:
 * - merge_sums: per bin of one member's region r, the sum of its lane copies
 *   (and wide bins), written back into the region at total_word<A> (bin);
 * - merge_out: adds every non-zero total of the block's members to the
 *   output (or the accumulator) with one atomic each. */
template <int A>
__device__ __forceinline__ uint32_t
total_word (int b)
{
  /* in the 32 copies of bin b's word, copy b % 32: consecutive bins land
   * in consecutive banks, for the write-back and for merge_out's reads */
  constexpr int L = A == kReplicated ? 0 : A == kPacked16 ? 1 : 2;
  return A == kWarpAgg ? (uint32_t) b :
      (((uint32_t) b >> L) << 5) + ((uint32_t) b & 31u);
}

template <int A>
__device__ void
merge_sums (uint32_t *r, int bins, int tid)
{
  if constexpr (A != kWarpAgg) {
    /* P threads (consecutive lanes) per word of the lane copies; nw * P is a
     * multiple of 32, so whole warps take part in the shuffles or leave.
     * The 32 copies of a word are eight 16-byte chunks, read by the first
     * Q = min (P, 8) threads of the word, 8 / Q chunks each (a quarter of
     * the loads of 32-bit reads: the merge ran once a warp and cost a
     * quarter of the kernel's instructions at 4K). Thread (wi, part) reads
     * chunk (part * 8 / Q + wi + i) % 8: the eight threads of a 16-byte
     * load's phase read eight different chunk positions, every bank once.
     * Only the threads of word wi read its copies, and they have all read
     * them once the shuffles are done: its totals go back in place. */
    /* Every thread of the block runs this, so it is kept to shifts and an
     * unrolled loop (with three integer divisions it took 0.86 us of every
     * block's end: bench/RESULTS.md, round 25). nw, P, Q and the block size
     * (256, 512, 1024) are powers of two, and the block has at least nw
     * threads. */
    const int lnw = __ffs ((int) lane_words (A, bins)) - 1;
    const int nw = 1 << lnw;
    const int lP = min (5, (31 - __clz ((int) blockDim.x)) - lnw);
    const int P = 1 << lP;
    if ((tid >> (lnw + lP)) != 0)
      return;
    const int wi = tid >> lP;
    const int part = tid & (P - 1);
    const int lQ = min (lP, 3);                 /* Q = 1 << lQ, 8 / Q = 8 >> lQ */
    uint32_t *const rw = r + wi * 32;
    const uint4 *r4 = reinterpret_cast<const uint4 *> (rw);
    uint32_t s0 = 0, s1 = 0;
    if ((part >> lQ) == 0) {
#pragma unroll
      for (int i = 0; i < 8; i++) {
        if (i >= (8 >> lQ))
          break;
        const uint4 v = r4[((part << (3 - lQ)) + wi + i) & 7];
        if (A == kReplicated) {
          s0 += (v.x + v.y) + (v.z + v.w);
        } else if (A == kPacked16) {
          s0 += (v.x & 0xFFFFu) + (v.y & 0xFFFFu) + (v.z & 0xFFFFu) + (v.w & 0xFFFFu);
          s1 += (v.x >> 16) + (v.y >> 16) + (v.z >> 16) + (v.w >> 16);
        } else {
          /* bytes 0, 2 and 1, 3 in 16-bit fields: at most 32 * 255 each */
          s0 += (v.x & 0x00FF00FFu) + (v.y & 0x00FF00FFu) +
              (v.z & 0x00FF00FFu) + (v.w & 0x00FF00FFu);
          s1 += ((v.x >> 8) & 0x00FF00FFu) + ((v.y >> 8) & 0x00FF00FFu) +
              ((v.z >> 8) & 0x00FF00FFu) + ((v.w >> 8) & 0x00FF00FFu);
        }
      }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      if (o < P) {
        s0 += __shfl_xor_sync (0xFFFFFFFFu, s0, o);
        s1 += __shfl_xor_sync (0xFFFFFFFFu, s1, o);
      }
    }
    /* memory order between the word's reads above and its totals written
     * below (a shuffle orders values, not shared-memory accesses) */
    __syncwarp ();
    if (part != 0)
      return;
    const uint32_t *wide = r + nw * 32;
    if (A == kReplicated) {
      rw[wi & 31] = s0;
    } else if (A == kPacked16) {
      rw[(2 * wi) & 31] = s0 + wide[2 * wi];
      rw[(2 * wi + 1) & 31] = s1 + wide[2 * wi + 1];
    } else {
      const uint32_t f[4] = { s0 & 0xFFFFu, s1 & 0xFFFFu, s0 >> 16, s1 >> 16 };
#pragma unroll
      for (int c = 0; c < 4; c++)
        if (4 * wi + c < bins)
          rw[(4 * wi + c) & 31] = f[c] + wide[4 * wi + c];
    }
  }
}

template <int A>
__device__ void
merge_out (const Params &p, const Group &g, const uint32_t *smem,
    uint32_t *dst, int tid)
{
  const int lb = 8 - p.shift;                  /* bins = 1 << lb */
  const int n = g.nmem << lb;
  for (int i = tid; i < n; i += (int) blockDim.x) {
    const int mi = i >> lb, b = i & (p.bins - 1);
    const uint32_t v = smem[mi * g.region_words + total_word<A> (b)];
    if (v)
      atomicAdd (dst + (size_t) g.mem[mi].input * p.bins + b, v);
  }
}

/* CIP_HIST_TRACE builds stamp %globaltimer per block (bench_histogram
 * --trace): [0] start, [1] claim known and shared counters zeroed, [2]
 * output zeroed (the first block; the others: the same as [1]), [3]
 * counted, [4] counters summed and the output ready, [5] merged (after a
 * barrier these builds add), [6] done (direct launches, the
 * automatic pick, only), [7] thread 0's part of the counters summed (between
 * [3] and [4], before the wait for the zeroed output). */
#ifdef CIP_HIST_TRACE
__device__ unsigned long long g_hist_trace[4096 * 8];
#define HIST_TRACE(i) \
  do { \
    if (threadIdx.x == 0 && blockIdx.x < 4096) { \
      unsigned long long t_; \
      asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t_)); \
      g_hist_trace[blockIdx.x * 8 + (i)] = t_; \
    } \
  } while (0)
#else
#define HIST_TRACE(i) do { } while (0)
#endif

/* *ready with acquire semantics: the first block's zeroes, released by
 * the store that set *ready, are visible to what follows (and, after a
 * block barrier, to the block's additions). */
__device__ __forceinline__ uint32_t
load_ready (const Params &p)
{
  uint32_t v;
  asm volatile ("ld.acquire.gpu.global.u32 %0, [%1];" : "=r" (v)
      : "l" (p.ready) : "memory");
  return v;
}

/* Direct merge, overwrite: waits until the output has been zeroed for this
 * launch (epoch e: by the block that claimed it, which is running), then
 * syncs the block. Thread 0's `seen` is *ready as it read it (load_ready)
 * once its own warp had counted, so that the read's round trip hides
 * behind the other warps' counting and the sums; the claiming block zeroes
 * first, so it usually says e + 1 already and nothing is left to wait. */
__device__ __forceinline__ void
wait_output_zeroed (const Params &p, uint32_t e, uint32_t seen)
{
  if (p.direct && !p.accumulate && threadIdx.x == 0) {
    /* never a hang: a wait of over ~2 s can only be a broken workspace */
    for (uint32_t n = 0; seen != e + 1; n++) {
      if (n > (1u << 26))
        __trap ();
      __nanosleep (32);
      seen = load_ready (p);
    }
  }
  __syncthreads ();
}

/* V: the shape's code variants of the replicated counters (kVar*). The
 * block's shared counters are zero (histogram_kernel). Direct overwrite:
 * *s_epoch is the launch's epoch, *s_first whether this block zeroed the
 * output (in shared memory rather than registers held across the
 * counting). */
template <int A, int V, typename Start>
__device__ void
block_work (const Params &p, const Group &g, uint32_t *smem,
    const uint32_t *s_epoch, const int *s_first, Start &start)
{
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const uint32_t warps = blockDim.x >> 5;
  const uint32_t first = (blockIdx.x - (uint32_t) g.block_begin) * warps + (uint32_t) (tid >> 5);
  const uint32_t stride = (uint32_t) g.nblocks * warps;
  constexpr bool kPF = (V & kVarPrefetch) != 0, kB8 = (V & kVarB8) != 0;
  switch (g.path) {
    case kPathVec1: run_vec<A, 1, kPF, kB8> (p, g, smem, lane, first, stride, start); break;
    case kPathVec2: run_vec<A, 2, kPF, kB8> (p, g, smem, lane, first, stride, start); break;
    case kPathVec4:
      if constexpr (kB8) {
        if (g.rgb3) {
          run_vec<A, 4, kPF, kB8, true> (p, g, smem, lane, first, stride, start);
          break;
        }
      }
      run_vec<A, 4, kPF, kB8> (p, g, smem, lane, first, stride, start);
      break;
    default: run_generic<A> (p, g, smem, lane, first, stride, start); break;
  }
  /* (start () has run: *s_epoch and *s_first are set) */
  const bool zeroing = p.direct && !p.accumulate;
  const uint32_t e = zeroing ? *s_epoch : 0u;
  uint32_t seen = e + 1;
  if (zeroing && !*s_first && tid == 0)
    seen = load_ready (p);      /* before the barrier: hidden behind it */
  __syncthreads ();
  HIST_TRACE (3);

  for (int mi = 0; mi < g.nmem; mi++)
    merge_sums<A> (smem + mi * g.region_words, p.bins, tid);
  HIST_TRACE (7);
  wait_output_zeroed (p, e, seen);
  HIST_TRACE (4);
  merge_out<A> (p, g, smem, p.direct ? p.out : p.acc, tid);
#ifdef CIP_HIST_TRACE
  __syncthreads ();
  HIST_TRACE (5);
#endif
}

/* V = 0: every algorithm; V != 0: the replicated counters with the shape's
 * code variants V, a kernel of its own so that they cost the others no
 * registers (the host launches it only when every group is replicated). */
template <int V>
__global__ void __launch_bounds__ (kMaxThreads, 1)
histogram_kernel (const __grid_constant__ Params p)
{
  extern __shared__ uint4 dyn_smem[];
  __shared__ int s_last;
  uint32_t *smem = reinterpret_cast<uint32_t *> (dyn_smem);
  const int tid = threadIdx.x;

  /* Direct merge (a shape's option): blocks add their counts straight into
   * the output, so there is no accumulator to move. To overwrite: *claim
   * holds the launch's epoch e in its high word and the blocks arrived so
   * far in its low word (zero between launches). Every block adds 1 to it
   * first (one atomic: its answer gives e, and whether the block came
   * first). The first zeroes the output and then sets *ready to e + 1;
   * the others wait for that before their first addition (the first block
   * is running, so the wait ends whatever the scheduling). The last block
   * to arrive sets *claim to e + 1 and no arrivals: every block has its
   * answer by then, and the next launch's blocks touch *claim only once
   * this grid is done (start_of_call, or plain stream order), so nothing
   * waits at the end of the kernel for a ticket. Nothing comes from the
   * host, so a CUDA graph replaying the launch zeroes its output every
   * time. (An accumulating launch touches none of the words.) 32-bit
   * epochs: *ready only ever holds e or e + 1. */
  __shared__ uint32_t s_epoch;
  int gi = -1;
  for (int i = 0; i < p.ngroups; i++)
    if ((int) blockIdx.x >= p.g[i].block_begin &&
        (int) blockIdx.x < p.g[i].block_begin + p.g[i].nblocks)
      gi = i;
  /* the shared counters are zeroed while the kernel ahead finishes (they
   * are the block's own: nothing in global memory is touched) */
  if (gi >= 0) {
    const uint32_t n4 = (uint32_t) p.g[gi].nmem * p.g[gi].region_words / 4;
    uint4 *s4 = reinterpret_cast<uint4 *> (smem);
    for (uint32_t i = tid; i < n4; i += blockDim.x)
      s4[i] = make_uint4 (0, 0, 0, 0);
  }
  /* ... and each warp's first item is asked of L2 (vec_prefetch_item) */
  if (p.prefetch && gi >= 0 && p.g[gi].path != kPathGeneric) {
    const Group &g = p.g[gi];
    const uint32_t item = (blockIdx.x - (uint32_t) g.block_begin) * (blockDim.x >> 5) +
        (uint32_t) (tid >> 5);
    if (item < g.items)
      vec_prefetch_item (g, item, tid & 31);
  }
  /* PDL between calls: nothing here loads from global memory before the
   * kernel ahead is done; the next call's may be scheduled from then on */
  detail::start_of_call ();
  HIST_TRACE (0);
  const bool zeroing = p.direct && !p.accumulate;
  unsigned long long claim = 0;
  if (zeroing && tid == 0)
    claim = atomicAdd (p.claim, 1ull);      /* looked at in start () */
  /* Once every warp has sent its first item's loads (run_vec): the claim
   * and the zeroed counters published by one barrier, then warp 0 of the
   * first block zeroes the output and releases it. */
  auto start = [&] () {
    if (zeroing && tid == 0) {
      s_epoch = (uint32_t) (claim >> 32);
      s_last = (uint32_t) claim == 0u;
      /* the last to arrive: after the other arrivals (they came before its
       * atomic), before any of the next launch */
      if ((uint32_t) claim == gridDim.x - 1)
        *(volatile unsigned long long *) p.claim =
            (unsigned long long) (s_epoch + 1) << 32;
    }
    __syncthreads ();
    HIST_TRACE (1);
    if (zeroing && s_last && tid < 32) {
      for (int i = tid; i < p.nout * p.bins; i += 32)
        p.out[i] = 0;
      __syncwarp ();
      /* a release store (cumulative: the warp's zeroes, ordered before it
       * by __syncwarp, then ready), which the others' load_ready acquires;
       * __threadfence () here is fence.sc, and it held up this warp */
      if (tid == 0)
        asm volatile ("st.release.gpu.global.u32 [%0], %1;" :: "l" (p.ready),
            "r" (s_epoch + 1) : "memory");
    }
    HIST_TRACE (2);
  };

  if (gi >= 0) {
    const Group &g = p.g[gi];
    if constexpr (V != 0) {
      block_work<kReplicated, V> (p, g, smem, &s_epoch, &s_last, start);
    } else {
      switch (g.algo) {
        case kReplicated: block_work<kReplicated, 0> (p, g, smem, &s_epoch, &s_last, start); break;
        case kPacked16: block_work<kPacked16, 0> (p, g, smem, &s_epoch, &s_last, start); break;
        case kPacked8: block_work<kPacked8, 0> (p, g, smem, &s_epoch, &s_last, start); break;
        default: block_work<kWarpAgg, 0> (p, g, smem, &s_epoch, &s_last, start); break;
      }
    }
  } else {
    start ();
  }

  if (p.direct) {
    HIST_TRACE (6);
    return;
  }
  /* The last block to get here moves the accumulator to the output and
   * leaves the workspace zeroed (threadFenceReduction pattern). */
  __threadfence ();
  __syncthreads ();
  if (tid == 0)
    s_last = atomicAdd (p.ticket, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (!s_last)
    return;
  __threadfence ();
  const int n = p.nout * p.bins;
  for (int i = tid; i < n; i += (int) blockDim.x) {
    const uint32_t prev = p.accumulate ? p.out[i] : 0u;
    p.out[i] = prev + atomicExch (p.acc + i, 0u);
  }
  if (tid == 0)
    *p.ticket = 0;    /* the next kernel on the stream starts after this one */
}

/* ---- the general path (16-bit views, ranges, any bin count) ---------------
 *
 * One input per block (no channel groups). Values map to bins with
 *   bin = (v - lo) * bins / span              (checked lo <= v <= hi)
 * computed exactly as (v - lo) >> pshift where span = bins << pshift, else
 * by a multiply-high with m = floor((2^32 - 1) / span), whose quotient is at
 * most one too small for any dividend below 2^32 ((v - lo) * bins is), then
 * one correction step.
 * packed16: C copies per block of `bins` 16-bit sub-counters, two per word,
 *   warp w counting into copy w % C; overflow carries go straight to the
 *   output in global memory (packed_carry with wide = the output, whose
 *   corrections are sums modulo 2^32 like every other addition to it);
 *   the block's merge adds the copies' sums to the output with one atomic
 *   per non-zero bin.
 * warp_aggregated: the output directly, one atomic per group of lanes of a
 *   warp holding the same bin.
 * The output is zeroed before the launch (accumulate = false), so there is
 * no accumulator and no ticket: the launch adds into it. */

constexpr size_t kMaxDynSmemGeneral = (size_t) kHistogramMaxBins / 2 * 4;

enum GAlgo { kGPacked, kGWarpAgg };

struct GInput {
  const uint8_t *base;    /* vector: first byte of row 0; generic: view.data */
  size_t pitch;
  size_t span;            /* vector: bytes per row; generic: samples per row */
  int step;               /* generic path: bytes between samples */
  int path;               /* kPathVec1 (8-bit), kPathVec2 (16-bit), kPathGeneric */
  int bytes, shift;
  int luma;               /* 0, or 1: luma of three colour bytes (8-bit) */
  uint32_t c0, c2;        /* luma: weights of the first and third colour byte */
  uint32_t vmask;         /* value = (sample >> shift) & vmask */
  uint32_t lo, vspan;     /* counted: lo .. lo + vspan - 1 */
  int pshift;             /* >= 0: bin = (v - lo) >> pshift */
  uint32_t magic;         /* else: floor((2^32 - 1) / vspan) */
  uint32_t items_per_row, items;
  int block_begin, nblocks;
  uint32_t *out;          /* this input's histogram */
};

struct GParams {
  GInput in[kHistogramMaxInputs];
  int nin;
  int bins;
  int algo;
  int copies;             /* packed: copies per block, a power of two */
  uint32_t copy_words;    /* packed: words per copy, a multiple of 4 */
};

/* Bin of value v of input g, or kNoBin when v is outside its range. */
__device__ __forceinline__ uint32_t
g_bin (const GInput &g, uint32_t bins, uint32_t v)
{
  const uint32_t x = v - g.lo;        /* wraps above vspan when v < lo */
  if (x >= g.vspan)
    return kNoBin;
  if (g.pshift >= 0)
    return x >> g.pshift;
  const uint32_t n = x * bins;        /* < 2^32: x < 2^16, bins <= 2^16 */
  uint32_t q = __umulhi (n, g.magic);
  if (n - q * g.vspan >= g.vspan)
    q++;
  return q;
}

struct GCounter {
  uint32_t *h;            /* packed: this warp's copy; warp_agg: unused */
  uint32_t *out;
  uint32_t bins;
  int lane;

  /* Adds k to bin (not kNoBin). Packed only. */
  __device__ __forceinline__ void add (uint32_t bin, uint32_t k) const
  {
    const uint32_t sh = (bin & 1u) * 16;
    const uint32_t inc = k << sh;
    const uint32_t old = atomicAdd (h + (bin >> 1), inc);
    if (((old >> sh) & 0xFFFFu) + k > 0xFFFFu)
      packed_carry<16> (out, bins, old, inc, bin & ~1u);
  }
  /* Called by all 32 lanes of the warp together; key = bin or kNoBin. */
  __device__ __forceinline__ void add_key (uint32_t key) const
  {
    const uint32_t peers = __match_any_sync (0xFFFFFFFFu, key);
    if (key != kNoBin && lane == __ffs ((int) peers) - 1)
      atomicAdd (out + key, (uint32_t) __popc (peers));
  }
};

/* Counts n bins (kNoBin: nothing) held by one lane; one addition when they
 * are all the same (flat regions, constant frames). */
template <int A, int N>
__device__ __forceinline__ void
g_count (const GCounter &cnt, const uint32_t (&bin)[N])
{
  if constexpr (A == kGWarpAgg) {
#pragma unroll
    for (int t = 0; t < N; t++)
      cnt.add_key (bin[t]);
  } else {
    bool same = true;
#pragma unroll
    for (int t = 1; t < N; t++)
      same = same && bin[t] == bin[0];
    if (same) {
      if (bin[0] != kNoBin)
        cnt.add (bin[0], (uint32_t) N);
      return;
    }
#pragma unroll
    for (int t = 0; t < N; t++)
      if (bin[t] != kNoBin)
        cnt.add (bin[t], 1u);
  }
}

/* Planar vector path, B-byte samples (step B): lane `lane` takes 16-byte
 * chunks lane, lane + 32, ... of its items, as run_vec does. */
template <int A, int B>
__device__ void
g_run_vec (const GParams &p, const GInput &g, const GCounter &cnt, int lane,
    uint32_t first, uint32_t stride)
{
  constexpr int N = 16 / B;
  const uint32_t bins = (uint32_t) p.bins;
  const uint32_t ipr = g.items_per_row;
  const uintptr_t base = (uintptr_t) g.base;

  for (uint32_t item = first; item < g.items; item += stride) {
    const uint32_t row = item / ipr;
    const uint32_t k = item - row * ipr;
    const uintptr_t lo = base + (size_t) row * g.pitch;
    const uintptr_t hi = lo + g.span;
    const uintptr_t a0 = lo & ~(uintptr_t) 15;
    uint32_t w[kVecs][4];
    uint32_t m[kVecs];
#pragma unroll
    for (int j = 0; j < kVecs; j++)
      load_chunk<B> (a0 + 16 * ((size_t) k * kChunksPerItem + (size_t) (j * 32 + lane)),
          lo, hi, w[j], m[j]);
#pragma unroll
    for (int j = 0; j < kVecs; j++) {
      uint32_t bin[N];
#pragma unroll
      for (int t = 0; t < N; t++) {
        const uint32_t sv = (w[j][(t * B) >> 2] >> (8 * ((t * B) & 3))) &
            (B == 1 ? 0xFFu : 0xFFFFu);
        bin[t] = ((m[j] >> (t * B)) & 1u) ?
            g_bin (g, bins, (sv >> g.shift) & g.vmask) : kNoBin;
      }
      g_count<A, N> (cnt, bin);
    }
  }
}

/* Generic path: any step and pitch, 8-bit luma; lane `lane` takes samples
 * lane, lane + 32, ... of its items. */
template <int A>
__device__ void
g_run_generic (const GParams &p, const GInput &g, const GCounter &cnt, int lane,
    uint32_t first, uint32_t stride)
{
  const uint32_t bins = (uint32_t) p.bins;
  const uint32_t ipr = g.items_per_row;
  const size_t step = (size_t) g.step;

  for (uint32_t item = first; item < g.items; item += stride) {
    const uint32_t row = item / ipr;
    const uint32_t k = item - row * ipr;
    const uint8_t *rowp = g.base + (size_t) row * g.pitch;
    uint32_t bin[kSamps];
#pragma unroll
    for (int j = 0; j < kSamps; j++) {
      const size_t x = (size_t) k * (32 * kSamps) + (size_t) (j * 32 + lane);
      bin[j] = kNoBin;
      if (x < g.span) {
        const uint8_t *q = rowp + x * step;
        uint32_t v;
        if (g.luma)
          v = (g.c0 * __ldg (q) + kLuma709G * __ldg (q + 1) + g.c2 * __ldg (q + 2) +
              32768u) >> 16;
        else if (g.bytes == 1)
          v = ((uint32_t) __ldg (q) >> g.shift) & g.vmask;
        else
          v = ((uint32_t) __ldg ((const unsigned short *) q) >> g.shift) & g.vmask;
        bin[j] = g_bin (g, bins, v);
      }
    }
    if constexpr (A == kGWarpAgg) {
#pragma unroll
      for (int j = 0; j < kSamps; j++)
        cnt.add_key (bin[j]);
    } else {
#pragma unroll
      for (int j = 0; j < kSamps; j++)
        if (bin[j] != kNoBin)
          cnt.add (bin[j], 1u);
    }
  }
}

template <int A>
__device__ void
g_block_work (const GParams &p, const GInput &g, uint32_t *smem)
{
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  GCounter cnt;
  cnt.out = g.out;
  cnt.bins = (uint32_t) p.bins;
  cnt.lane = lane;
  cnt.h = smem + (size_t) (warp & (p.copies - 1)) * p.copy_words;
  if (A == kGPacked) {
    const uint32_t n4 = (uint32_t) p.copies * p.copy_words / 4;
    uint4 *s4 = reinterpret_cast<uint4 *> (smem);
    for (uint32_t i = tid; i < n4; i += blockDim.x)
      s4[i] = make_uint4 (0, 0, 0, 0);
    __syncthreads ();
  }

  const uint32_t warps = blockDim.x >> 5;
  const uint32_t first = (blockIdx.x - (uint32_t) g.block_begin) * warps + (uint32_t) warp;
  const uint32_t stride = (uint32_t) g.nblocks * warps;
  switch (g.path) {
    case kPathVec1: g_run_vec<A, 1> (p, g, cnt, lane, first, stride); break;
    case kPathVec2: g_run_vec<A, 2> (p, g, cnt, lane, first, stride); break;
    default: g_run_generic<A> (p, g, cnt, lane, first, stride); break;
  }

  if (A == kGPacked) {
    /* every copy's two sub-counters of word wi, summed (each < 2^16, at most
     * 32 copies: no overflow), one atomic per non-zero bin */
    __syncthreads ();
    const uint32_t nw = ((uint32_t) p.bins + 1) / 2;
    for (uint32_t wi = tid; wi < nw; wi += blockDim.x) {
      uint32_t s0 = 0, s1 = 0;
      for (int c = 0; c < p.copies; c++) {
        const uint32_t x = smem[(size_t) c * p.copy_words + wi];
        s0 += x & 0xFFFFu;
        s1 += x >> 16;
      }
      if (s0)
        atomicAdd (g.out + 2 * wi, s0);
      /* with an odd count the last word's high half is no bin, but a carry
       * out of the last bin's half lands there (packed_carry took it back
       * from nothing): not written */
      if (s1 && 2 * wi + 1 < (uint32_t) p.bins)
        atomicAdd (g.out + 2 * wi + 1, s1);
    }
  }
}

__global__ void __launch_bounds__ (kMaxThreads, 1)
general_kernel (const __grid_constant__ GParams p)
{
  extern __shared__ uint4 g_dyn_smem[];
  uint32_t *smem = reinterpret_cast<uint32_t *> (g_dyn_smem);
  for (int i = 0; i < p.nin; i++) {
    if ((int) blockIdx.x >= p.in[i].block_begin &&
        (int) blockIdx.x < p.in[i].block_begin + p.in[i].nblocks) {
      if (p.algo == kGPacked)
        g_block_work<kGPacked> (p, p.in[i], smem);
      else
        g_block_work<kGWarpAgg> (p, p.in[i], smem);
    }
  }
}

/* ---- host side -------------------------------------------------------------- */

constexpr int kMaxDevices = 64;

/* histogram_kernel by code variant (kVar* bits). */
using HistKernel = decltype (&histogram_kernel<0>);
const HistKernel kHistKernels[kNumVariants] = { histogram_kernel<0>,
  histogram_kernel<1>, histogram_kernel<2>, histogram_kernel<3> };

struct DevInfo {
  bool ready = false;
  int sms = 0;
  size_t dyn_max = 0;     /* dynamic shared memory a block may use (8-bit path) */
  size_t dyn_max_g = 0;   /* the same for the general path */
};

struct OccEntry {
  int dev;
  const void *func;
  int threads;
  size_t smem;
  int blocks;
};

std::atomic<int> g_max_blocks (0);
std::atomic<int> g_shape (-1);     /* forced shape, -1: the pick */
std::mutex g_mu;
DevInfo g_dev[kMaxDevices];
std::vector<OccEntry> g_occ;

/* SM count and shared-memory limit of the current device, queried once. */
Status
device_info (int *dev, DevInfo *info)
{
  CIP_CUDA_TRY (cudaGetDevice (dev));
  if (*dev < 0 || *dev >= kMaxDevices)
    return Status::unsupported;
  std::lock_guard<std::mutex> lock (g_mu);
  DevInfo &d = g_dev[*dev];
  if (!d.ready) {
    int sms = 0, optin = 0;
    CIP_CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, *dev));
    CIP_CUDA_TRY (cudaDeviceGetAttribute (&optin,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, *dev));
    cudaFuncAttributes fa;
    size_t dyn = kMaxDynSmem;
    for (HistKernel k : kHistKernels) {
      CIP_CUDA_TRY (cudaFuncGetAttributes (&fa, k));
      dyn = std::min (dyn, (size_t) optin > fa.sharedSizeBytes ?
          (size_t) optin - fa.sharedSizeBytes : 0);
    }
    for (HistKernel k : kHistKernels)
      CIP_CUDA_TRY (cudaFuncSetAttribute (k,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) dyn));
    CIP_CUDA_TRY (cudaFuncGetAttributes (&fa, general_kernel));
    size_t dyn_g = (size_t) optin > fa.sharedSizeBytes ? (size_t) optin - fa.sharedSizeBytes : 0;
    dyn_g = std::min (dyn_g, kMaxDynSmemGeneral);
    CIP_CUDA_TRY (cudaFuncSetAttribute (general_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) dyn_g));
    d.sms = sms > 0 ? sms : 1;
    d.dyn_max = dyn;
    d.dyn_max_g = dyn_g;
    d.ready = true;
  }
  *info = d;
  return Status::ok;
}

/* Resident blocks per SM for this block size and dynamic shared memory,
 * cached. */
template <typename F>
Status
blocks_per_sm (int dev, int threads, size_t smem, int *blocks, F func)
{
  std::lock_guard<std::mutex> lock (g_mu);
  for (const OccEntry &e : g_occ) {
    if (e.dev == dev && e.func == (const void *) func && e.threads == threads &&
        e.smem == smem) {
      *blocks = e.blocks;
      return Status::ok;
    }
  }
  int n = 0;
  CIP_CUDA_TRY (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n,
      func, threads, smem));
  n = std::max (n, 1);
  if (g_occ.size () < 256)
    g_occ.push_back ({ dev, (const void *) func, threads, smem, n });
  *blocks = n;
  return Status::ok;
}

/* Items per row of the vector paths for rows of `span` bytes (the first
 * chunk may start 15 bytes early), and of the generic path for `width`
 * samples. */
uint64_t
vec_items_per_row (size_t span)
{
  const uint64_t chunks = (span + 30) / 16;
  return (chunks + kChunksPerItem - 1) / kChunksPerItem;
}

uint64_t
generic_items_per_row (int width)
{
  return ((uint64_t) width + 32 * kSamps - 1) / (32 * kSamps);
}

/* Blocks of the grid: one per warps * items_per_warp items, at most what
 * is resident at once (or the debug cap), shared between the groups (or
 * inputs) g[0 .. n) by their items; sets their block ranges and returns the
 * grid size (at least 1). */
template <typename G>
int
share_grid (const DevInfo &di, int threads, int per_sm, G *g, int n,
    uint64_t total_items, int items_per_warp = 1)
{
  const uint64_t per_block = (uint64_t) (threads / 32) * (uint64_t) items_per_warp;
  uint64_t cap = (uint64_t) di.sms * (uint64_t) per_sm;
  const int user_cap = g_max_blocks.load ();
  if (user_cap > 0)
    cap = std::min<uint64_t> (cap, (uint64_t) user_cap);
  const uint64_t target = std::min<uint64_t> (cap,
      (total_items + per_block - 1) / per_block);
  int grid = 0;
  for (int k = 0; k < n; k++) {
    const uint64_t nb = std::max<uint64_t> (1, target * g[k].items / total_items);
    g[k].block_begin = grid;
    g[k].nblocks = (int) nb;
    grid += (int) nb;
  }
  return grid > 0 ? grid : 1;
}

/* One input as the host sees it when grouping. */
struct HostIn {
  int idx;
  uintptr_t d;
  int w, h, s;
  size_t pitch;           /* 0 for one row */
  bool luma, bgr, vec;
};

struct HostGroup {
  int n = 0;
  int mem[kHistogramMaxInputs];   /* indices into the HostIn array */
  int algo = kReplicated;
};

int
to_algo (HistAlgorithm a)
{
  switch (a) {
    case HistAlgorithm::replicated: return kReplicated;
    case HistAlgorithm::packed8: return kPacked8;
    case HistAlgorithm::warp_aggregated: return kWarpAgg;
    default: return kPacked16;
  }
}

/* Can x be read in the same pass as the members of g? */
bool
joinable (const HostGroup &g, const HostIn *in, const HostIn &x)
{
  const HostIn &f = in[g.mem[0]];
  if (g.n >= kHistogramMaxInputs || !f.vec || !x.vec || x.s < 2 || f.s != x.s ||
      f.w != x.w || f.h != x.h || f.pitch != x.pitch)
    return false;
  /* every member's bytes within one pixel: max(d + extent) - min(d) < step */
  uintptr_t lo = x.d, hi = x.d + (x.luma ? 2 : 0);
  for (int i = 0; i < g.n; i++) {
    const HostIn &y = in[g.mem[i]];
    lo = std::min (lo, y.d);
    hi = std::max (hi, y.d + (y.luma ? 2 : 0));
  }
  return hi - lo <= (uintptr_t) x.s - 1;
}

/* The general path of histogram() (arguments validated). */
Status
histogram_general (const HistInput *inputs, int count, int bins,
    uint32_t *d_hist, bool accumulate, Stream stream, HistAlgorithm algo)
{
  if (algo == HistAlgorithm::replicated || algo == HistAlgorithm::packed8)
    return Status::unsupported;   /* 8-bit-path variants */
  int dev = 0;
  DevInfo di;
  Status st = device_info (&dev, &di);
  if (st != Status::ok)
    return st;

  GParams prm;
  memset (&prm, 0, sizeof (prm));
  prm.bins = bins;
  const uint32_t words = (((uint32_t) bins + 1) / 2 + 3) & ~3u;
  prm.copy_words = words;
  const bool fits = (size_t) words * 4 <= di.dyn_max_g;
  prm.algo = algo == HistAlgorithm::warp_aggregated || !fits ? kGWarpAgg : kGPacked;
  if (algo == HistAlgorithm::packed16 && !fits)
    return Status::unsupported;

  uint64_t total_items = 0;
  for (int i = 0; i < count; i++) {
    const HistInput &x = inputs[i];
    const ImageView &v = x.view;
    if (v.width == 0 || v.height == 0)
      continue;
    GInput &g = prm.in[prm.nin++];
    uint32_t lo, hi;
    histogram_range (x, &lo, &hi);
    g.out = d_hist + (size_t) i * bins;
    g.bytes = v.bytes;
    g.shift = v.shift;
    g.vmask = v.max_value ();
    g.luma = x.source != HistSource::plane ? 1 : 0;
    g.c0 = x.source == HistSource::luma_bgr ? kLuma709B : kLuma709R;
    g.c2 = x.source == HistSource::luma_bgr ? kLuma709R : kLuma709B;
    g.lo = lo;
    g.vspan = hi - lo + 1;
    g.pshift = -1;
    for (int k = 0; k < 17; k++)
      if (((uint64_t) bins << k) == (uint64_t) g.vspan)
        g.pshift = k;
    g.magic = 0xFFFFFFFFu / g.vspan;
    g.step = v.step;
    g.pitch = v.height > 1 ? v.pitch : 0;
    uint64_t rows = (uint64_t) v.height, ipr;
    if (!g.luma && v.step == v.bytes) {
      /* planar: 16-byte vectors */
      g.path = v.bytes == 1 ? kPathVec1 : kPathVec2;
      g.base = v.data;
      size_t span = (size_t) v.width * (size_t) v.bytes;
      if (v.height > 1 && v.pitch == span) {
        span *= (size_t) v.height;     /* no gaps between rows: one long row */
        rows = 1;
      }
      g.span = span;
      ipr = vec_items_per_row (span);
    } else {
      g.path = kPathGeneric;
      g.base = v.data;
      g.span = (size_t) v.width;
      ipr = generic_items_per_row (v.width);
    }
    if (rows * ipr > 0x7FFFFFFFull)
      return Status::unsupported;
    g.items_per_row = (uint32_t) ipr;
    g.items = (uint32_t) (rows * ipr);
    total_items += g.items;
  }

  if (!accumulate)
    CIP_CUDA_TRY (cudaMemsetAsync (d_hist, 0, (size_t) count * bins * 4, stream));
  if (prm.nin == 0)
    return Status::ok;

  /* packed: as many copies (a power of two, up to one per warp) as leave
   * two 512-thread blocks per SM; one copy in a 1024-thread block when only
   * one block fits; warp_aggregated: 512 threads, no shared memory */
  int threads = kSmallThreads, per_sm = 1;
  size_t smem = 0;
  if (prm.algo == kGPacked) {
    prm.copies = 1;
    for (int c = kSmallThreads / 32; c >= 1; c /= 2) {
      if ((size_t) c * words * 4 > di.dyn_max_g)
        continue;
      st = blocks_per_sm (dev, kSmallThreads, (size_t) c * words * 4, &per_sm,
          general_kernel);
      if (st != Status::ok)
        return st;
      prm.copies = c;
      if (per_sm >= 2)
        break;
    }
    smem = (size_t) prm.copies * words * 4;
    if (per_sm < 2) {
      threads = kMaxThreads;
      st = blocks_per_sm (dev, threads, smem, &per_sm, general_kernel);
    }
  } else {
    st = blocks_per_sm (dev, threads, smem, &per_sm, general_kernel);
  }
  if (st != Status::ok)
    return st;

  const int grid = share_grid (di, threads, per_sm, prm.in, prm.nin, total_items);

  general_kernel<<<grid, threads, smem, stream>>> (prm);
  CIP_LAUNCH_CHECK (stream, "histogram (general path)");
  return Status::ok;
}

}  // namespace

void
histogram_debug_max_blocks (int n)
{
  g_max_blocks.store (n > 0 ? n : 0);
}

#ifdef CIP_HIST_TRACE
/* bench_histogram --trace: clears the stamps; copies those of blocks
 * [0, n) (n <= 4096) to dst. */
Status
histogram_trace_reset ()
{
  static const unsigned long long zeros[4096 * 8] = {};
  CIP_CUDA_TRY (cudaMemcpyToSymbol (g_hist_trace, zeros, sizeof zeros));
  return Status::ok;
}

Status
histogram_trace_take (unsigned long long *dst, int n)
{
  CIP_CUDA_TRY (cudaMemcpyFromSymbol (dst, g_hist_trace,
          sizeof (unsigned long long) * 8 * n));
  return Status::ok;
}
#endif

void
histogram_debug_shape (int k)
{
  g_shape.store (k >= 0 && k < detail::kHistShapeCount ? k : -1);
}

Status
histogram_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (!d_ws || ws_bytes < histogram_workspace_bytes (1, 2))
    return Status::invalid_argument;
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, ws_bytes, stream));
  return Status::ok;
}

Status
histogram (const HistInput *inputs, int count, int bins, uint32_t *d_hist,
    bool accumulate, void *d_ws, size_t ws_bytes, Stream stream,
    HistAlgorithm algo)
{
  Status st = detail::histogram_validate (inputs, count, bins, d_hist);
  if (st != Status::ok)
    return st;
  if (!d_ws || ((uintptr_t) d_ws & 15) != 0 ||
      ws_bytes < histogram_workspace_bytes (count, bins))
    return Status::invalid_argument;
  if ((int) algo < (int) HistAlgorithm::automatic ||
      (int) algo > (int) HistAlgorithm::warp_aggregated)
    return Status::invalid_argument;
  if (!histogram_is_8bit_path (inputs, count, bins))
    return histogram_general (inputs, count, bins, d_hist, accumulate, stream,
        algo);

  /* inputs with pixels, and whether the vector paths can read them */
  HostIn in[kHistogramMaxInputs];
  int nin = 0;
  for (int i = 0; i < count; i++) {
    const ImageView &v = inputs[i].view;
    if (v.width == 0 || v.height == 0)
      continue;
    HostIn &x = in[nin++];
    x.idx = i;
    x.d = (uintptr_t) v.data;
    x.w = v.width;
    x.h = v.height;
    x.s = v.step;
    x.pitch = v.height > 1 ? v.pitch : 0;
    x.luma = inputs[i].source != HistSource::plane;
    x.bgr = inputs[i].source == HistSource::luma_bgr;
    x.vec = (x.s == 1 || x.s == 2 || x.s == 4) && x.pitch % (size_t) x.s == 0 &&
        (!x.luma || (x.s == 4 && (x.d & 3) <= 1));
  }
  if (nin == 0 && accumulate)
    return Status::ok;          /* nothing to add */

  int dev = 0;
  DevInfo di;
  st = device_info (&dev, &di);
  if (st != Status::ok)
    return st;

  /* channels of one packed frame share a group; a group that would not fit
   * in shared memory is read member by member */
  HostGroup grp[kHistogramMaxInputs];
  int ng = 0;
  for (int i = 0; i < nin; i++) {
    int gi = -1;
    for (int k = 0; k < ng && gi < 0; k++)
      if (joinable (grp[k], in, in[i]))
        gi = k;
    if (gi < 0)
      gi = ng++;
    grp[gi].mem[grp[gi].n++] = i;
  }
  auto fits = [&] (int a, int n) {
    return (size_t) n * region_words (a, bins) * 4 <= di.dyn_max;
  };
  for (int k = 0; k < ng; k++) {
    HostGroup &g = grp[k];
    const uint64_t px = (uint64_t) in[g.mem[0]].w * (uint64_t) in[g.mem[0]].h;
    if (algo == HistAlgorithm::automatic) {
      g.algo = to_algo (detail::histogram_pick_group (px, g.n, bins));
      if (!fits (g.algo, g.n) && fits (kPacked16, g.n))
        g.algo = kPacked16;     /* keep the channels in one pass */
    } else {
      g.algo = to_algo (algo);
    }
    if (!fits (g.algo, g.n)) {
      for (int i = 1; i < g.n; i++) {
        HostGroup &s = grp[ng++];
        s.n = 1;
        s.mem[0] = g.mem[i];
        s.algo = algo == HistAlgorithm::automatic ?
            to_algo (detail::histogram_pick_group (px, 1, bins)) : g.algo;
      }
      g.n = 1;
      if (algo == HistAlgorithm::automatic)
        g.algo = to_algo (detail::histogram_pick_group (px, 1, bins));
    }
  }

  Params prm;
  memset (&prm, 0, sizeof (prm));
  prm.ngroups = ng;
  prm.bins = bins;
  prm.shift = 0;
  while ((256 >> prm.shift) > bins)
    prm.shift++;
  prm.nout = count;
  prm.accumulate = accumulate ? 1 : 0;
  prm.out = d_hist;
  prm.ticket = static_cast<uint32_t *> (d_ws);
  prm.claim = reinterpret_cast<unsigned long long *> (static_cast<uint8_t *> (d_ws) + 8);
  prm.ready = reinterpret_cast<uint32_t *> (static_cast<uint8_t *> (d_ws) + 16);
  prm.acc = reinterpret_cast<uint32_t *> (static_cast<uint8_t *> (d_ws) + kWsHeader);

  size_t smem = 0;
  uint64_t total_items = 0, vec_bytes = 0;
  for (int k = 0; k < ng; k++) {
    const HostGroup &hg = grp[k];
    Group &g = prm.g[k];
    const HostIn &f = in[hg.mem[0]];
    g.algo = hg.algo;
    g.nmem = hg.n;
    g.region_words = region_words (hg.algo, bins);
    smem = std::max (smem, (size_t) hg.n * g.region_words * 4);
    uintptr_t lo = f.d, hi = f.d;
    for (int i = 0; i < hg.n; i++) {
      const HostIn &x = in[hg.mem[i]];
      Member &mb = g.mem[i];
      mb.input = x.idx;
      mb.luma = x.luma ? 1 : 0;
      mb.res = f.vec ? (int) (x.d % (uintptr_t) x.s) : 0;
      mb.c0 = x.bgr ? kLuma709B : kLuma709R;
      mb.c2 = x.bgr ? kLuma709R : kLuma709B;
      lo = std::min (lo, x.d);
      hi = std::max (hi, x.d + (x.luma ? 2 : 0));
    }
    uint64_t rows = (uint64_t) f.h, ipr;
    g.step = f.s;
    g.pitch = f.pitch;
    if (f.vec) {
      g.path = f.s == 1 ? kPathVec1 : f.s == 2 ? kPathVec2 : kPathVec4;
      g.rgb3 = g.path == kPathVec4 && hg.n == 3 && !g.mem[0].luma &&
          !g.mem[1].luma && !g.mem[2].luma;
      g.base = reinterpret_cast<const uint8_t *> (lo);
      size_t span = (size_t) (hi - lo) + (size_t) f.s * (size_t) (f.w - 1) + 1;
      if (f.h > 1 && f.pitch == (size_t) f.s * (size_t) f.w) {
        /* no gaps between rows: one long row */
        span += (size_t) (f.h - 1) * f.pitch;
        rows = 1;
      }
      g.span = span;
      vec_bytes += rows * span;
      ipr = vec_items_per_row (span);
    } else {
      g.path = kPathGeneric;
      g.base = reinterpret_cast<const uint8_t *> (f.d);
      g.span = (size_t) f.w;
      ipr = generic_items_per_row (f.w);
    }
    if (rows * ipr > 0x7FFFFFFFull)
      return Status::unsupported;
    g.items_per_row = (uint32_t) ipr;
    g.items = (uint32_t) (rows * ipr);
    total_items += g.items;
  }

  /* the launch shape: forced (tuning), or picked for the largest group */
  int shape_idx = g_shape.load ();
  if (shape_idx < 0 || shape_idx >= detail::kHistShapeCount) {
    uint64_t px = 0;
    int members = 1;
    for (int k = 0; k < ng; k++) {
      const HostIn &f = in[grp[k].mem[0]];
      const uint64_t gpx = (uint64_t) f.w * (uint64_t) f.h;
      if (gpx > px || (gpx == px && grp[k].n > members)) {
        px = gpx;
        members = grp[k].n;
      }
    }
    shape_idx = detail::histogram_pick_shape (px, members, ng);
    if (shape_idx < 0 || shape_idx >= detail::kHistShapeCount)
      shape_idx = 0;
  }
  const detail::HistShape &shape = detail::kHistShapes[shape_idx];
  /* the shape's code variants: replicated groups only (any other runs the
   * kernel of every algorithm, with the shape's launch) */
  int variant = (shape.prefetch ? kVarPrefetch : 0) |
      (shape.b8 && bins == 256 ? kVarB8 : 0);
  for (int k = 0; k < ng; k++)
    if (prm.g[k].algo != kReplicated)
      variant = 0;
  const HistKernel kernel = kHistKernels[variant];
  prm.direct = shape.direct ? 1 : 0;
  /* The prefetch before the wait pays where the input is not in L2 already:
   * in bench/RESULTS.md round 28, 8K planes and 4K RGBA frames (33 MB)
   * gained 0.3-1 us a call back to back, 4K planes (8.3 MB) lost 0.2 us.
   * Without PDL between calls there is no wait to hide it behind. */
  const bool pdl = detail::between_calls_pdl ();
  prm.prefetch = pdl && vec_bytes > (uint64_t) detail::l2_cache_bytes () / 4;

  /* the block: the shape's size, else 512 threads, or 1024 where two blocks
   * would not fit an SM; the grid: one block per warps * items_per_warp
   * items, at most what is resident at once (or the shape's cap), shared
   * between the groups by their work */
  int threads = shape.threads > 0 ? shape.threads : kSmallThreads, per_sm = 1;
  if (ng > 0) {
    st = blocks_per_sm (dev, threads, smem, &per_sm, kernel);
    if (st == Status::ok && per_sm < 2 && shape.threads == 0) {
      threads = kMaxThreads;
      st = blocks_per_sm (dev, threads, smem, &per_sm, kernel);
    }
    if (st != Status::ok)
      return st;
    if (shape.max_per_sm > 0)
      per_sm = std::min (per_sm, shape.max_per_sm);
  }
  /* no pixels: one block writes the zeros */
  const int grid = share_grid (di, threads, per_sm, prm.g, ng, total_items,
      std::max (1, shape.items_per_warp));

  /* opted in by device_info() */
  return detail::launch_opted (kernel, grid, threads, smem, stream, prm,
      "histogram", pdl);
}

/* ---- drawing ---------------------------------------------------------------- */

namespace {

constexpr int kDrawBlockX = 32, kDrawBlockY = 8;

struct DrawParams {
  HistDrawPlane planes[kHistDrawMaxPlanes];
  const uint32_t *hist;
  int count, bins, alpha;
};

/* One block paints a 32 x 8 tile of plane blockIdx.z (grid-stride in y for
 * tall planes), after loading the counts and each histogram's maximum into
 * shared memory (at most 4 KiB: no need to share them between blocks). */
__global__ void
__launch_bounds__ (kDrawBlockX * kDrawBlockY)
histogram_draw_kernel (const __grid_constant__ DrawParams prm)
{
  __shared__ uint32_t h[kHistogramMaxInputs * kHistDrawMaxBins];
  __shared__ uint32_t mx[kHistogramMaxInputs];
  const int tid = threadIdx.y * kDrawBlockX + threadIdx.x;
  const int n = prm.count * prm.bins;

  if (tid < kHistogramMaxInputs)
    mx[tid] = 0;
  for (int i = tid; i < n; i += kDrawBlockX * kDrawBlockY)
    h[i] = prm.hist[i];
  __syncthreads ();
  for (int i = tid; i < n; i += kDrawBlockX * kDrawBlockY)
    atomicMax (&mx[i / prm.bins], h[i]);
  __syncthreads ();

  const HistDrawPlane &p = prm.planes[blockIdx.z];
  const int x = blockIdx.x * kDrawBlockX + threadIdx.x;
  if (x >= p.width)
    return;
  for (int y = blockIdx.y * kDrawBlockY + threadIdx.y; y < p.height;
      y += gridDim.y * kDrawBlockY) {
    uint8_t *s = p.data + (size_t) y * p.pitch + (size_t) x * p.step;
    *s = detail::hist_draw_sample (*s, x, y, p, h, mx, prm.count, prm.bins,
        prm.alpha);
  }
}

}  // namespace

Status
histogram_draw (const uint32_t *d_hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha, Stream stream)
{
  Status st = detail::histogram_draw_validate (d_hist, count, bins, planes,
      n_planes, alpha);
  if (st != Status::ok)
    return st;
  DrawParams prm {};
  prm.hist = d_hist;
  prm.count = count;
  prm.bins = bins;
  prm.alpha = alpha;
  int w = 0, h = 0, np = 0;
  for (int k = 0; k < n_planes; k++) {
    if (planes[k].width == 0 || planes[k].height == 0)
      continue;
    prm.planes[np++] = planes[k];
    w = std::max (w, planes[k].width);
    h = std::max (h, planes[k].height);
  }
  if (np == 0)
    return Status::ok;
  dim3 block (kDrawBlockX, kDrawBlockY);
  dim3 grid ((unsigned) ((w + kDrawBlockX - 1) / kDrawBlockX),
      (unsigned) std::min ((h + kDrawBlockY - 1) / kDrawBlockY, 65535), np);
  histogram_draw_kernel<<<grid, block, 0, stream>>> (prm);
  CIP_LAUNCH_CHECK (stream, "histogram_draw");
  return Status::ok;
}

}  // namespace cip
