/* cip halftone on the GPU: error diffusion by single-kernel soft
 * synchronization (skss), the per-wavefront and single-block variants it is
 * measured against, and ordered dithering.
 *
 * skss. A plane is cut into strips of kHtStripRows = 64 rows. A worker is a
 * 128-thread block: warp 0 computes, warps 1 and 2 move the boundary rows
 * between strips, warp 3 (io) moves the pixels of staged planes between
 * global and shared memory. Workers claim strips
 * through a global ticket (ht_schedule's order: strip s of a plane always
 * after strip s-1), so a worker only ever waits on a strip already claimed
 * by a running worker, and any grid size and residency terminates.
 *
 * Compute warp: lane k owns rows 2k and 2k+1 of the strip. Row i processes
 * column x = t - S i at step t (a shear of S columns per row: at least the
 * kernel's min_shift, so row i-1 has finished every column row i gathers
 * from one step before it is needed; ht_skss_shift: 2 for Floyd-Steinberg,
 * Sierra Lite and Atkinson, kHtShift = 4 for the kernels that reach
 * further). Every row's chunk of 32 columns starts on a 4-byte boundary
 * (shear 4, 16-bit samples, even rows) or 2 bytes off one (8-bit odd rows
 * at shear 2: aligned words joined by funnel shifts), so pixels move as
 * 32-bit words. Each row keeps in registers the errors it gathers from: the row
 * above (columns x-lr1 .. x+3), the row two above (x-lr2 .. x+7) and its own
 * last two. After every step a row hands its new error, and what it received
 * from above, to the row below: in the same lane through registers, to the
 * next lane through a warp shuffle. Lane 0 takes the strip above's last two
 * rows from a shared-memory ring; lane 31 puts the strip's last two rows into
 * another. Steps run in chunks of kHtChunk = 32, unrolled: the chunk's input
 * (and history) words are loaded one chunk ahead, its outputs stored after
 * it; chunks where every row is inside the plane skip the edge masks, and
 * row chunks wholly inside it load and store plain words.
 *
 * Where the time goes (bench_halftone --trace, H100, 4K Floyd-Steinberg):
 * a strip starts when the strip above has finished S * kRows / kC chunks
 * (the ones crossing the left edge) and the strips' edge chunks are on the
 * critical path at both ends, so edge chunks load and store straight-line
 * predicated words like the interior ones (load_chunk). The chain is
 * W + S * H steps.
 *
 * Where the rest went (bench_halftone --trace of the staged kernel): the
 * compute warp's own loads and stores put each lane's word in another row
 * (32 lines a warp instruction) and cost ~1 us of each ~2.2 us chunk; the io
 * warp (io_strip) moves a row's words through consecutive lanes instead, so
 * the compute warp touches only shared memory between its steps. A chunk
 * then costs ~1.0-1.2 us computing and ~0.4 us in handshakes, 1.3-1.5 us
 * computing at the edges (the masks), and a strip starts ~10 us after the
 * one above (5 edge chunks and the hand-off).
 *
 * Mover warps: warp 1 prefetches the strip's rows into L2 and copies the
 * strip above's boundary rows chunk by chunk from global memory into the up
 * ring once their words carry this launch's tag; warp 2 copies the down
 * ring to this strip's boundary words in global memory, tagged (mover_strip:
 * a 64-bit store is single-copy atomic, so a word is wholly this launch's
 * or visibly not: no progress words, no fences, the pattern of decoupled
 * look-back's flag-and-value words). The warps synchronize through
 * shared-memory rings of 4 chunks with back-pressure both ways, handed over
 * by mbarriers (Ring; sm_75: polled counters); the compute warp never
 * touches global flags.
 *
 * 16-bit planes (10/16-bit video) run the same kernels with sample size
 * B = 2 as a template parameter: a 32-bit word holds two samples instead of
 * four (16 words per row chunk instead of 8; an even shear keeps every
 * chunk 4-byte aligned), values are taken at the planes' shift and masked,
 * errors (up to 128 M, M = 2^depth - 1) are int32 in the rings and boundary
 * rows, and the level arithmetic runs for M (a division instead of the
 * 8-bit multiply-high). Every B-dependent expression of the B = 1
 * instantiation reduces to the original 8-bit code.
 *
 * The workspace's ticket, done counter and epoch start at zero
 * (halftone_workspace_init); the last worker to finish puts the ticket and
 * counter back and advances the epoch, which tags the next launch's words.
 */
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <vector>

#include "cip/halftone.h"
#include "detail/check.cuh"
#include "detail/halftone_internal.h"
#include "detail/launch.cuh"

namespace cip {
namespace {

using namespace detail;

constexpr int kRpl = kHtRowsPerLane;
constexpr int kRows = kHtStripRows;
constexpr int kC = kHtChunk;
/* Sample size B (bytes: 1, or 2 for 16-bit words): the sample and error
 * types, and the 32-bit words of a row's chunk. The 8-bit instantiation is
 * the original kernel: every B-dependent expression reduces to it. */
template <int B>
struct Smp;
template <>
struct Smp<1> {
  using T = uint8_t;
  using E = short;              /* |error| <= 255 * 128 */
};
template <>
struct Smp<2> {
  using T = uint16_t;
  using E = int;                /* |error| <= 65535 * 128 */
};
template <int B>
constexpr int kSpw = 4 / B;         /* samples per 32-bit word */
template <int B>
constexpr int kWB = kC / kSpw<B>;   /* 32-bit words per row and chunk */
constexpr int kNR = 4;              /* ring slots (chunks) */
constexpr int kHtThreads = 128;     /* compute, up mover, down mover, io */
/* staged planes (io_strip): the input kHtStage chunks ahead in kNStg slots,
 * the outputs in kNO; a row's chunk in kStgW<B> words (8-bit odd rows at
 * shear 2 keep the 9 aligned words around it; odd, so that the compute
 * warp's lanes, two rows apart, meet in at most two banks) */
constexpr int kHtStage = 3;
constexpr int kNStg = 4;
static_assert (kHtStage < kNStg, "a slot for the chunk being computed");
/* (16-bit planes: two output slots, so that a block with history stays
 * within 48 KiB of static shared memory) */
template <int B>
constexpr int kNO = B == 1 ? 4 : 2;
template <int B>
constexpr int kStgW = kWB<B> + 1;
template <int B>
constexpr int kSlotW = kRows * kStgW<B>;    /* words of a slot */
constexpr unsigned kFull = 0xffffffffu;

static_assert (kRpl >= 2, "lane 31 must own both boundary rows");
static_assert (kC == 32, "the mover copies one ring entry per lane and row");

struct PlaneP {
  const uint8_t *src;
  size_t src_pitch;
  int src_step;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  uint8_t *hist;               /* null: none */
  size_t hist_pitch;
  int width, height;
  int strips, first_strip;     /* strips over all planes: first_strip .. + strips */
  void *bnd;                   /* Smp<B>::E; strip s: bnd + s * 2 * bw; [0] row 62, [1] row 63 */
  int bw;
  short *ring;                 /* wavefront: kHtRing slots per row */
  bool src_vec, dst_vec, hist_vec;   /* 32-bit words possible */
};

struct Params {
  PlaneP pl[halftone_max_planes];
  int nplanes;
  int levels;
  uint32_t lmagic;
  int band;                    /* > 0: histories are read */
  uint32_t *ctl;               /* [0] ticket, [1] done, [2] epoch */
  HtSchedule sched;
  int workers;
  int maxv, shift;             /* the planes' layout: largest value, shift */
  unsigned long long watchdog_ns;   /* Watchdog's bound, 0: off */
};

__device__ __forceinline__ PlaneP
plane_of (const Params &p, int i)
{
  switch (i) {
    case 0: return p.pl[0];
    case 1: return p.pl[1];
    case 2: return p.pl[2];
    default: return p.pl[3];
  }
}

/* S: skss's shear (ht_skss_shift: 2 or kHtShift); even, so that 16-bit rows start
 * chunks on 4-byte
 * boundaries, and 8-bit rows on 4- or (odd rows at shear 2) 2-byte ones. */
template <HalftoneKernel KK, int S = ht_skss_shift (KK)>
struct Traits {
  static constexpr HtKernelDef d = ht_kernel_def (KK);
  static constexpr HtFootprint f = ht_footprint (KK);
  static constexpr int D = d.div;
  static constexpr bool two = f.rows == 2;
  static constexpr int L1 = S + f.lr1;               /* row-above window */
  static constexpr int L2 = two ? 2 * S + f.lr2 : 1;
  static constexpr int w01 = ht_weight (d, 1, 0);
  static constexpr int w02 = ht_weight (d, 2, 0);
  static_assert (f.min_shift <= S, "shear below the kernel's reach");
  static_assert (S % 2 == 0 && (S * kRows) % kC == 0,
      "rows must start on 2-byte boundaries, boundary chunks stay aligned");
  static_assert ((kRpl * S) % 4 == 0,
      "a row's offset from a word depends on its index in the lane only");
  static_assert (f.r0 <= 2 && f.lr1 <= 2 && f.rr1 <= 2 && f.lr2 <= 2 &&
      f.rr2 <= 2, "footprint beyond two columns");
};

/* A wait on another warp or block that lasts longer than its bound is a bug
 * (the strip being waited for is always running): trap, so that it fails
 * instead of hanging the GPU. The bound is the host's (ht_watchdog_ns:
 * CIP_HT_WATCHDOG_S, else CIP_HT_WATCHDOG_NS), checked every 1024 polls, so
 * a wait that succeeds at once never reads the clock. Under compute-sanitizer
 * a tall plane's last strip legitimately waits longer than 10 s (it waits for
 * every strip above), so tests/sanitize-gpu.sh raises it. CIP_HT_WATCHDOG_NS
 * 0 compiles the check out. */
#ifndef CIP_HT_WATCHDOG_NS
#define CIP_HT_WATCHDOG_NS 10000000000ull
#endif

struct Watchdog {
  unsigned long long start = 0;
  unsigned n = 0;
  __device__ __forceinline__ void poll (unsigned long long limit) {
#if CIP_HT_WATCHDOG_NS > 0
    if ((++n & 1023) != 0 || limit == 0)
      return;
    unsigned long long t;
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t));
    if (start == 0)
      start = t;
    else if (t - start > limit)
      __trap ();
#endif
  }
};

/* CIP_HT_TRACE (a diagnostic build, bench/halftone/build-trace.sh): lane 0
 * of each warp stamps %globaltimer at the hand-offs of the first
 * kHtTrChunks chunks of the first kHtTrStrips strips (strip index over all
 * planes): where a strip's time goes, and how long a hand-off between
 * strips takes. Compiled out otherwise. */
#ifdef CIP_HT_TRACE
constexpr int kHtTrStrips = 64, kHtTrChunks = 160;
enum { kTrWait, kTrGo, kTrSeen, kTrPub, kTrMisc, kTrUp, kTrDone, kTrIn, kTrIoGot,
  kTrIoEnd, kTrIoMid, kTrOut, kTrKinds };
__device__ unsigned long long g_ht_trace[kHtTrStrips][kTrKinds][kHtTrChunks];
__device__ __forceinline__ void
ht_trace (int s, int kind, int n)
{
  if (s < kHtTrStrips && n >= 0 && n < kHtTrChunks && (threadIdx.x & 31) == 0) {
    unsigned long long t;
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l" (t));
    g_ht_trace[s][kind][n] = t;
  }
}
#define HT_TRACE(s, kind, n) ht_trace ((s), (kind), (n))
#else
#define HT_TRACE(s, kind, n) do { } while (0)
#endif

/* ------------------------------------------- skss: the warps' handshakes */

/* A ring's handshake between the warp that fills its slots (producer) and
 * the warp that reads them (consumer). Chunk i goes to slot i % kNR, i
 * counted over all the block's strips (ht_skss), so that both sides agree on
 * every slot's use without resetting anything between strips. All 32 lanes
 * of both warps take part in every step: each lane's own shared-memory
 * accesses are ordered by its own release or acquire, with no lane standing
 * in for the others.
 *
 * sm_80 and newer: mbarriers, full[k] (the producer's 32 lanes arrive once
 * slot k is written) and empty[k] (the consumer's 32 lanes arrive once it is
 * read); arrive is a release and the wait an acquire at CTA scope, and they
 * are a synchronization compute-sanitizer's racecheck models (cuda::barrier
 * is an mbarrier), where polled flags look like races. Use u of slot k is
 * phase u of full[k] and the end of phase u - 1 of empty[k]; back-pressure
 * keeps either side within one phase of the other, so a parity names it.
 * sm_75 (no mbarrier): counters of chunks filled and freed, polled with
 * volatile loads and ordered with block fences, lane 0 storing for the warp
 * after a __syncwarp. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CIP_HT_MBARRIER 1
#else
#define CIP_HT_MBARRIER 0
#endif

/* N: slots (a power of two) */
template <int N = kNR>
struct Ring {
  static_assert ((N & (N - 1)) == 0, "ring slots: a power of two");
#if CIP_HT_MBARRIER
  unsigned long long full[N], empty[N];
#else
  int filled, freed;           /* chunks written / read */
#endif
};

template <int N = kNR>
__device__ __forceinline__ int
slot_of (int i)
{
  return (int) ((unsigned) i % N);
}

#if CIP_HT_MBARRIER
__device__ __forceinline__ uint32_t
smem (const void *p)
{
  return (uint32_t) __cvta_generic_to_shared (p);
}

__device__ __forceinline__ void
mbar_arrive (unsigned long long *b)
{
  asm volatile ("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }"
      : : "r" (smem (b)) : "memory");
}

/* Whether phase parity has completed (sm_90: waits a while in hardware
 * before it says no, instead of spinning). */
__device__ __forceinline__ bool
mbar_done (unsigned long long *b, unsigned parity)
{
  uint32_t ok;
#if __CUDA_ARCH__ >= 900
  asm volatile ("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2;"
      " selp.u32 %0, 1, 0, p; }" : "=r" (ok) : "r" (smem (b)), "r" (parity)
      : "memory");
#else
  asm volatile ("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2;"
      " selp.u32 %0, 1, 0, p; }" : "=r" (ok) : "r" (smem (b)), "r" (parity)
      : "memory");
#endif
  return ok != 0;
}

__device__ __forceinline__ void
mbar_wait (unsigned long long *b, unsigned parity, unsigned long long limit)
{
  Watchdog wd;
  while (!mbar_done (b, parity))
    wd.poll (limit);
}
#else
__device__ __forceinline__ int
vload (const volatile int *p)
{
  return *p;
}

__device__ __forceinline__ void
vstore (volatile int *p, int v)
{
  *p = v;
}

/* lane 0 says the warp's accesses before are done: count = v */
__device__ __forceinline__ void
warp_signal (int *count, int v)
{
  __syncwarp ();
  if ((threadIdx.x & 31) == 0) {
    __threadfence_block ();
    vstore (count, v);
  }
}
#endif

/* One thread, before the __syncthreads that starts the first strip. */
template <int N>
__device__ __forceinline__ void
ring_init (Ring<N> &r)
{
#if CIP_HT_MBARRIER
  for (int k = 0; k < N; k++) {
    asm volatile ("mbarrier.init.shared.b64 [%0], %1;"
        : : "r" (smem (&r.full[k])), "r" (32) : "memory");
    asm volatile ("mbarrier.init.shared.b64 [%0], %1;"
        : : "r" (smem (&r.empty[k])), "r" (32) : "memory");
  }
#else
  r.filled = r.freed = 0;
#endif
}

/* Consumer: until chunk i's slot is written. */
template <int N>
__device__ __forceinline__ void
ring_wait_full (Ring<N> &r, int i, unsigned long long limit)
{
#if CIP_HT_MBARRIER
  mbar_wait (&r.full[slot_of<N> (i)], (unsigned) (i / N) & 1u, limit);
#else
  Watchdog wd;
  while (vload (&r.filled) <= i)
    wd.poll (limit);
  __threadfence_block ();
#endif
}

/* Producer: chunk i's slot is written. */
template <int N>
__device__ __forceinline__ void
ring_fill (Ring<N> &r, int i)
{
#if CIP_HT_MBARRIER
  mbar_arrive (&r.full[slot_of<N> (i)]);
#else
  warp_signal (&r.filled, i + 1);
#endif
}

/* Producer: until chunk i's slot is free (chunk i - N read). */
template <int N>
__device__ __forceinline__ void
ring_wait_empty (Ring<N> &r, int i, unsigned long long limit)
{
  if (i < N)
    return;
#if CIP_HT_MBARRIER
  mbar_wait (&r.empty[slot_of<N> (i)], (unsigned) (i / N - 1) & 1u, limit);
#else
  Watchdog wd;
  while (vload (&r.freed) < i - N + 1)
    wd.poll (limit);
  __threadfence_block ();
#endif
}

/* Consumer: chunk i's slot is read. */
template <int N>
__device__ __forceinline__ void
ring_free (Ring<N> &r, int i)
{
#if CIP_HT_MBARRIER
  mbar_arrive (&r.empty[slot_of<N> (i)]);
#else
  warp_signal (&r.freed, i + 1);
#endif
}

#if CIP_HT_MBARRIER
/* Producer whose writes are the lane's cp.async copies: chunk i's slot is
 * written once they are done (the mbarrier counts the lane's arrival when
 * its copies issued before complete, and the waiting consumer sees them). */
template <int N>
__device__ __forceinline__ void
ring_fill_async (Ring<N> &r, int i)
{
  asm volatile ("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];"
      : : "r" (smem (&r.full[slot_of<N> (i)])) : "memory");
}
#endif

/* ------------------------------------------------------ skss: compute warp */

template <typename E>
struct Shared {
  E up[kNR][2 * kC];           /* [0][j] row -2, [1][j] row -1 of chunk */
  E down[kNR][2 * kC];         /* [0][j] row 62, [1][j] row 63 */
  E zero[2 * kC];              /* the "strip above" of strip 0 */
  Ring<> up_ring, down_ring;   /* up mover -> compute, compute -> down mover */
  Ring<kNStg> in_ring;         /* io warp -> compute: staged input */
  Ring<kNO<sizeof (E) == 2 ? 1 : 2>> out_ring;   /* compute -> io warp: outputs */
  int ticket, last;
};

template <HalftoneKernel KK, int S>
struct State {
  int a1[kRpl][Traits<KK, S>::L1];
  int a2[kRpl][Traits<KK, S>::L2];
  int l1[kRpl], l2[kRpl];      /* e(x-1), e(x-2) */
};

/* w(DX, DY) * a[IDX], or nothing where the kernel has no such tap or the
 * tap is not of the part asked for: NEW, the window's newest entry (IDX 0,
 * received the step before); otherwise the older ones. */
template <HalftoneKernel KK, int DX, int DY, int IDX, bool NEW = false, int N>
__device__ __forceinline__ int
tap (const int (&a)[N])
{
  constexpr int w = ht_weight (ht_kernel_def (KK), DX, DY);
  if constexpr (w != 0 && (IDX == 0) == NEW) {
    static_assert (IDX >= 0 && IDX < N, "tap outside the window");
    return w * a[IDX];
  } else {
    return 0;
  }
}

struct Ctx {
  int width, nrows, lane, levels, band;
  uint32_t lmagic;
  int maxv, shift, offset;     /* 16-bit: M, the shift, ht_offset (M) */
};

__device__ __forceinline__ uint32_t
byte_of (uint32_t w, int j)
{
  return (w >> (8 * (j & 3))) & 0xffu;
}

/* The value of step j's sample in a row chunk's words. */
template <int B, int N>
__device__ __forceinline__ int
sample_of (const uint32_t (&w)[N], int j, const Ctx &c)
{
  if constexpr (B == 1)
    return (int) byte_of (w[j >> 2], j);
  else
    return (int) ((w[j >> 1] >> (16 * (j & 1) + c.shift)) & (uint32_t) c.maxv);
}

/* Puts value o as step j's sample. */
template <int B, int N>
__device__ __forceinline__ void
put_sample (uint32_t (&w)[N], int j, int o, const Ctx &c)
{
  if constexpr (B == 1)
    w[j >> 2] |= (uint32_t) o << (8 * (j & 3));
  else
    w[j >> 1] |= (uint32_t) (o << c.shift) << (16 * (j & 1));
}

/* Steps T .. T+kC-1 of the lane's rows. in/hi: the chunk's input and history
 * bytes per row (column x0 + 4g + b in byte b of word g, x0 = T - S i);
 * out: the outputs, same layout. up: the up ring slot (zeros for strip 0),
 * read by every lane, used by lane 0; down: the down ring slot, where lane
 * 31 stores its last two rows' errors (null for the other lanes and without
 * a strip below: a predicated store, no branch in the step, and no lane
 * writes what another writes). MASK: some pixel of the chunk is outside the
 * plane (its error is 0, its output unused). */
template <HalftoneKernel KK, int S, int B, bool BIN, bool TEMP, bool MASK>
__device__ __forceinline__ void
compute_chunk (State<KK, S> &st, const uint32_t (&in)[kRpl][kWB<B>],
    const uint32_t (&hi)[kRpl][kWB<B>], uint32_t (&out)[kRpl][kWB<B>],
    const typename Smp<B>::E *up, typename Smp<B>::E *down, int T,
    const Ctx &c)
{
  using Tr = Traits<KK, S>;
  /* the numerators' offset: a constant for 8-bit */
  const int off = B == 1 ? kHtOffset : c.offset;
  /* MASK: bit j of inside[r] says whether step j of row r is inside the
   * plane (one test per step instead of the column arithmetic) */
  uint32_t inside[kRpl];
#pragma unroll
  for (int r = 0; r < kRpl; r++) {
    inside[r] = 0;
    if constexpr (MASK) {
      const int x0 = T - S * (c.lane * kRpl + r);
      const int lo = max (0, -x0), hi = min (kC, c.width - x0);
      if (c.lane * kRpl + r < c.nrows && hi > lo)
        inside[r] = (hi >= 32 ? ~0u : (1u << hi) - 1) & ~((1u << lo) - 1);
    }
  }
#pragma unroll
  for (int r = 0; r < kRpl; r++)
#pragma unroll
    for (int g = 0; g < kWB<B>; g++)
      out[r][g] = 0;
#pragma unroll
  for (int j = 0; j < kC; j++) {
    int e[kRpl];
#pragma unroll
    for (int r = 0; r < kRpl; r++) {
      const int b = sample_of<B> (in[r], j, c);
      /* everything but the two errors that arrive last: off the critical
       * path */
      int q = Tr::D * (b * kHtOne + off) + Tr::D / 2;
      q += tap<KK, -2, 1, S - 3> (st.a1[r]) + tap<KK, -1, 1, S - 2> (st.a1[r]) +
          tap<KK, 0, 1, S - 1> (st.a1[r]) + tap<KK, 1, 1, S> (st.a1[r]) +
          tap<KK, 2, 1, S + 1> (st.a1[r]);
      if constexpr (Tr::two)
        q += tap<KK, -2, 2, 2 * S - 3> (st.a2[r]) +
            tap<KK, -1, 2, 2 * S - 2> (st.a2[r]) +
            tap<KK, 0, 2, 2 * S - 1> (st.a2[r]) +
            tap<KK, 1, 2, 2 * S> (st.a2[r]) + tap<KK, 2, 2, 2 * S + 1> (st.a2[r]);
      if constexpr (Tr::w02 != 0)
        q += Tr::w02 * st.l2[r];
      /* The row above's newest error (at shear 2, the shuffle from the
       * lane above, the step before) is added last, after the left
       * neighbour's. Left to itself the compiler put the shuffled value
       * first of the sum, five dependent operations before the comparison
       * (ncu source counters, H100), and the chain of steps ran through
       * the shuffle and that sum; now it is one multiply-add. The empty asm
       * keeps the rest as one value. bench_halftone --probe, H100: one
       * 3840x64 strip 0.192 -> 0.159 ms. */
      q += Tr::w01 * st.l1[r];
      asm ("" : "+r" (q));
      q += tap<KK, -2, 1, S - 3, true> (st.a1[r]) +
          tap<KK, -1, 1, S - 2, true> (st.a1[r]) +
          tap<KK, 0, 1, S - 1, true> (st.a1[r]);
      /* vo = v + kHtOffset; the error is vo - (kHtOffset + 128 out), so
       * the output's select runs beside the division */
      const int vo = (int) ((uint32_t) q / (uint32_t) Tr::D);
      const int v = vo - off;
      int o, sub;
      if constexpr (BIN && B == 1) {
        const bool up_level = ht_level_index2 (v);
        o = up_level ? 255 : 0;
        sub = up_level ? kHtOffset + 255 * kHtOne : kHtOffset;
      } else if constexpr (BIN) {
        const bool up_level = ht_level_index2 (v, c.maxv);
        o = up_level ? c.maxv : 0;
        sub = off + o * kHtOne;
      } else if constexpr (B == 1) {
        o = ht_level_value_magic (ht_level_index (v, c.levels), c.levels,
            c.lmagic);
        sub = kHtOffset + o * kHtOne;
      } else {
        /* (the multiply-high level value is exact for 8-bit numerators only) */
        o = ht_level_value (ht_level_index (v, c.levels, c.maxv), c.levels,
            c.maxv);
        sub = off + o * kHtOne;
      }
      if constexpr (TEMP) {
        const int prev = sample_of<B> (hi[r], j, c);
        const int dv = v - prev * kHtOne;
        if (dv >= -c.band && dv <= c.band) {
          o = prev;
          sub = off + prev * kHtOne;
        }
      }
      int ee = vo - sub;
      if constexpr (MASK) {
        if (!(inside[r] & (1u << j)))
          ee = 0;
      }
      put_sample<B> (out[r], j, o, c);
      e[r] = ee;
    }
    /* what each row receives: the new error of the row above (at column
     * x + S) and what that row received (row two above, column x + 2 S) */
    int in1[kRpl], in2[kRpl];
    const int u1 = up[kC + j];
    int s1 = __shfl_up_sync (kFull, e[kRpl - 1], 1);
    s1 = c.lane == 0 ? u1 : s1;
    int s2 = 0;
    if constexpr (Tr::two) {
      const int u2 = up[j];
      s2 = __shfl_up_sync (kFull, e[kRpl - 2], 1);
      s2 = c.lane == 0 ? u2 : s2;
    }
    in1[0] = s1;
    in2[0] = s2;
#pragma unroll
    for (int r = 1; r < kRpl; r++) {
      in1[r] = e[r - 1];
      in2[r] = in1[r - 1];
    }
#pragma unroll
    for (int r = 0; r < kRpl; r++) {
#pragma unroll
      for (int m = Tr::L1 - 1; m > 0; m--)
        st.a1[r][m] = st.a1[r][m - 1];
      st.a1[r][0] = in1[r];
      if constexpr (Tr::two) {
#pragma unroll
        for (int m = Tr::L2 - 1; m > 0; m--)
          st.a2[r][m] = st.a2[r][m - 1];
        st.a2[r][0] = in2[r];
      }
      st.l2[r] = st.l1[r];
      st.l1[r] = e[r];
    }
    if (down) {
      down[j] = (typename Smp<B>::E) e[kRpl - 2];
      down[kC + j] = (typename Smp<B>::E) e[kRpl - 1];
    }
  }
}

/* Loads and stores of a lane's row chunk. A row chunk wholly inside the
 * plane is eight plain 32-bit words. The chunks that cross the plane's
 * edges are on the critical path: every strip starts with S * kRows / kC of
 * them at the left edge and ends with as many at the right one, and the
 * strip below waits for both (bench_halftone --trace: branchy per-word code
 * there cost 2-3 us a chunk against 1.3 us for an interior one). So both
 * edges are straight-line code too: predicated words (x0 is a multiple of a
 * word's samples, so a word is inside or outside as a whole), and samples
 * only for the one word across a right edge that is not a word multiple
 * (`ragged`, uniform over the plane) or without 32-bit access. B: bytes per
 * sample (a word holds kSpw<B> samples). 8-bit rows of shear 2 that start
 * 2 bytes off a word (odd rows) move as aligned words joined by funnel
 * shifts inside the plane, as predicated 16-bit halves at its edges. */
template <int B>
__device__ __forceinline__ uint32_t
ld_samples (const uint8_t *row, int xg, int step, int width, bool use_ldg)
{
  using T = typename Smp<B>::T;
  uint32_t v = 0;
#pragma unroll
  for (int b = 0; b < kSpw<B>; b++) {
    const int x = xg + b;
    if (x >= 0 && x < width) {
      const T *a = reinterpret_cast<const T *> (row + (size_t) x * step);
      v |= (uint32_t) (use_ldg ? __ldg (a) : *a) << (8 * B * b);
    }
  }
  return v;
}

template <int B>
__device__ __forceinline__ void
st_samples (uint8_t *row, int xg, int step, int width, uint32_t v)
{
  using T = typename Smp<B>::T;
#pragma unroll
  for (int b = 0; b < kSpw<B>; b++) {
    const int x = xg + b;
    if (x >= 0 && x < width)
      *reinterpret_cast<T *> (row + (size_t) x * step) = (T) (v >> (8 * B * b));
  }
}

template <typename W>
__device__ __forceinline__ uint32_t
ld_pred (const W *a, bool in, bool use_ldg)
{
  W v = 0;
  if (in)
    v = use_ldg ? __ldg (a) : *a;
  return v;
}

template <int S, int B>
__device__ __forceinline__ void
load_chunk (const uint8_t *base, size_t pitch, int step, bool vec, int width,
    int y0, int T, const Ctx &c, uint32_t (&w)[kRpl][kWB<B>], bool use_ldg)
{
  constexpr int P = kSpw<B>;
  const bool ragged = width % P != 0;
#pragma unroll
  for (int r = 0; r < kRpl; r++) {
    const int i = c.lane * kRpl + r;
    const int x0 = T - S * i;
    /* (S i) mod 4 is S r mod 4: the lane's part is a multiple of 4 */
    const bool half = B == 1 && (S * r) % 4 != 0;
#pragma unroll
    for (int g = 0; g < kWB<B>; g++)
      w[r][g] = 0;
    if (i >= c.nrows || x0 >= width || x0 + kC <= 0)
      continue;
    const uint8_t *row = base + (size_t) (y0 + i) * pitch;
    if (!vec) {
#pragma unroll
      for (int g = 0; g < kWB<B>; g++)
        w[r][g] = ld_samples<B> (row, x0 + P * g, step, width, use_ldg);
    } else if (half && x0 >= 2 && x0 + kC + 2 <= width) {
      /* the aligned words around the chunk, joined by funnel shifts */
      const uint32_t *a = reinterpret_cast<const uint32_t *> (row + x0 - 2);
      uint32_t al[kWB<B> + 1];
#pragma unroll
      for (int g = 0; g <= kWB<B>; g++)
        al[g] = use_ldg ? __ldg (a + g) : a[g];
#pragma unroll
      for (int g = 0; g < kWB<B>; g++)
        w[r][g] = __funnelshift_r (al[g], al[g + 1], 16);
    } else if (half) {
      const uint16_t *a = reinterpret_cast<const uint16_t *> (row + x0);
#pragma unroll
      for (int h = 0; h < 2 * kWB<B>; h++) {
        const int xh = x0 + 2 * h;
        uint32_t v = ld_pred (a + h, xh >= 0 && xh + 2 <= width, use_ldg);
        if (ragged && xh == width - 1)
          v = use_ldg ? __ldg (row + xh) : row[xh];
        w[r][h / 2] |= v << (16 * (h % 2));
      }
    } else if (x0 >= 0 && x0 + kC <= width) {
      const uint32_t *a = reinterpret_cast<const uint32_t *> (row + x0 * B);
#pragma unroll
      for (int g = 0; g < kWB<B>; g++)
        w[r][g] = use_ldg ? __ldg (a + g) : a[g];
    } else {
      const uint32_t *a = reinterpret_cast<const uint32_t *> (row + x0 * B);
#pragma unroll
      for (int g = 0; g < kWB<B>; g++) {
        const int xg = x0 + P * g;
        w[r][g] = ld_pred (a + g, xg >= 0 && xg + P <= width, use_ldg);
        if (ragged && xg < width && xg + P > width)
          w[r][g] = ld_samples<B> (row, xg, B, width, use_ldg);
      }
    }
  }
}

/* Stores the chunk's samples of the lane's rows that are inside the plane
 * (the same cases as load_chunk). */
template <int S, int B>
__device__ __forceinline__ void
store_chunk (uint8_t *base, size_t pitch, int step, bool vec, int width,
    int y0, int T, const Ctx &c, const uint32_t (&w)[kRpl][kWB<B>])
{
  constexpr int P = kSpw<B>;
  const bool ragged = width % P != 0;
#pragma unroll
  for (int r = 0; r < kRpl; r++) {
    const int i = c.lane * kRpl + r;
    const int x0 = T - S * i;
    const bool half = B == 1 && (S * r) % 4 != 0;
    if (i >= c.nrows || x0 >= width || x0 + kC <= 0)
      continue;
    uint8_t *row = base + (size_t) (y0 + i) * pitch;
    if (!vec) {
#pragma unroll
      for (int g = 0; g < kWB<B>; g++)
        st_samples<B> (row, x0 + P * g, step, width, w[r][g]);
    } else if (half && x0 >= 0 && x0 + kC <= width) {
      /* a half, seven aligned words joined by funnel shifts, a half */
      *reinterpret_cast<uint16_t *> (row + x0) = (uint16_t) w[r][0];
      uint32_t *a = reinterpret_cast<uint32_t *> (row + x0 + 2);
#pragma unroll
      for (int g = 0; g + 1 < kWB<B>; g++)
        a[g] = __funnelshift_r (w[r][g], w[r][g + 1], 16);
      *reinterpret_cast<uint16_t *> (row + x0 + kC - 2) =
          (uint16_t) (w[r][kWB<B> - 1] >> 16);
    } else if (half) {
      uint16_t *a = reinterpret_cast<uint16_t *> (row + x0);
#pragma unroll
      for (int h = 0; h < 2 * kWB<B>; h++) {
        const int xh = x0 + 2 * h;
        const uint32_t v = w[r][h / 2] >> (16 * (h % 2));
        if (xh >= 0 && xh + 2 <= width)
          a[h] = (uint16_t) v;
        if (ragged && xh == width - 1)
          row[xh] = (uint8_t) v;
      }
    } else if (x0 >= 0 && x0 + kC <= width) {
      uint32_t *a = reinterpret_cast<uint32_t *> (row + x0 * B);
#pragma unroll
      for (int g = 0; g < kWB<B>; g++)
        a[g] = w[r][g];
    } else {
      uint32_t *a = reinterpret_cast<uint32_t *> (row + x0 * B);
#pragma unroll
      for (int g = 0; g < kWB<B>; g++) {
        const int xg = x0 + P * g;
        if (xg >= 0 && xg + P <= width)
          a[g] = w[r][g];
        if (ragged && xg < width && xg + P > width)
          st_samples<B> (row, xg, B, width, w[r][g]);
      }
    }
  }
}

/* Staged planes (sm_80+; input, output and history planes of 32-bit
 * access with whole-word pitches): a fourth warp, the io warp, moves the
 * pixels between global and shared memory, so that the compute warp only
 * reads and writes shared memory between its steps. bench_halftone
 * --trace: with the compute warp's own loads and stores, each chunk spent
 * ~1 us after its ~1.15 us of computing, most of it in global accesses
 * where each lane's word is in another row (32 lines a warp instruction);
 * the io warp's lanes take consecutive words of a row (kWB<B> lanes a row).
 * Input: cp.async copies kHtStage chunks ahead into the in ring's slots,
 * which the mbarrier marks full as the copies complete (ring_fill_async).
 * A word outside the plane copies no byte, from a word of the workspace
 * that is always there (`zsrc`: compute-sanitizer checks a copy's 4-byte
 * address range, not the bytes it reads); the one across a right edge that
 * is not a word multiple copies the bytes inside, and its 4 bytes stay
 * inside the row's pitch (whole-word pitches). Every slot word a chunk reads
 * is written by a copy (plain stores mixed in made the kernel 25% slower).
 * Output: the compute warp writes its words to the out ring; the io warp
 * stores them: whole words inside the plane, samples for the word across a
 * ragged right edge, and, for 8-bit odd rows of shear 2 (2 bytes off a
 * word), aligned words joined by funnel shifts between a half at each end. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CIP_HT_STAGE 1
#else
#define CIP_HT_STAGE 0
#endif

#if CIP_HT_STAGE
/* (the io warp's helpers: sm_80 and newer) */
__device__ __forceinline__ void
cp_async4 (uint32_t *dst, const void *src, int bytes)
{
  asm volatile ("cp.async.ca.shared.global [%0], [%1], 4, %2;"
      : : "r" (smem (dst)), "l" (src), "r" (bytes) : "memory");
}

/* the same for a word inside the plane (no source size to pass) */
__device__ __forceinline__ void
cp_async4 (uint32_t *dst, const void *src)
{
  asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;"
      : : "r" (smem (dst)), "l" (src) : "memory");
}

/* Whether every word the io warp moves for the chunk at step T is inside
 * the plane (8-bit odd rows at shear 2 reach 2 bytes further left): then
 * it takes the straight-line path, pointers that step down the lane's rows
 * and no tests (bench_halftone --trace: with a test and an address per
 * word, the io warp, not the compute warp, set the pace). */
template <int S>
__device__ __forceinline__ bool
io_interior (int width, int T)
{
  return T - S * (kRows - 1) - 2 >= 0 && T + kC <= width;
}

/* 8-bit rows that start 2 bytes off a word at shear S */
template <int S, int B>
__device__ __forceinline__ bool
half_row (int i)
{
  return B == 1 && (S * i) % 4 != 0;
}

/* The word of row i at aligned column xa (samples) into slot word d. */
template <int B>
__device__ __forceinline__ void
stage_word (uint32_t *d, const uint8_t *base, size_t pitch, int width,
    int y0, int nrows, int i, int xa, const void *zsrc)
{
  const int n = i < nrows && xa >= 0 ? min (max ((width - xa) * B, 0), 4) : 0;
  cp_async4 (d, n > 0 ? base + (size_t) (y0 + i) * pitch + (size_t) xa * B :
      zsrc, n);
}

/* Copies the chunk at step T of the strip's rows into `slot` (row i at
 * slot + i kStgW<B>): lane L takes word L % kWB<B> of kC / kWB<B> rows an
 * instruction; the odd rows' ninth word, one a lane. */
template <int S, int B>
__device__ __forceinline__ void
io_stage (uint32_t *slot, const uint8_t *base, size_t pitch, int width,
    int y0, int nrows, int T, const void *zsrc)
{
  constexpr int P = kSpw<B>, LPR = kWB<B>, RPI = 32 / LPR;
  const int lane = threadIdx.x & 31, g = lane % LPR;
  if (io_interior<S> (width, T)) {
    /* row q + m RPI: RPI rows further down, S RPI samples further left */
    const int q = lane / LPR;
    const uint8_t *r0 = base + (size_t) (y0 + q) * pitch +
        (ptrdiff_t) (T - S * q + P * g - (half_row<S, B> (q) ? 2 : 0)) * B;
    const ptrdiff_t adv = (ptrdiff_t) (RPI * pitch) - (ptrdiff_t) (S * RPI * B);
    uint32_t *d = slot + q * kStgW<B> + g;
    /* full: every row of the strip is in the plane; otherwise (its last
     * strip) the rows past it copy no byte */
    auto rows = [&] (auto full) {
      const uint8_t *r = r0;
#pragma unroll
      for (int m = 0; m < kRows / RPI; m++, r += adv) {
        if (decltype (full)::value || q + m * RPI < nrows)
          cp_async4 (d + m * RPI * kStgW<B>, r);
        else
          cp_async4 (d + m * RPI * kStgW<B>, zsrc, 0);
      }
      if constexpr (B == 1 && S % 4 != 0) {
        const int i = 2 * lane + 1;
        if (decltype (full)::value || i < nrows)
          cp_async4 (slot + i * kStgW<B> + kWB<B>, base + (size_t) (y0 + i) *
              pitch + (T - S * i + kC - 2));
        else
          cp_async4 (slot + i * kStgW<B> + kWB<B>, zsrc, 0);
      }
    };
    if (nrows == kRows)
      rows (std::true_type ());
    else
      rows (std::false_type ());
    return;
  }
#pragma unroll 4
  for (int m = 0; m < kRows / RPI; m++) {
    const int i = m * RPI + lane / LPR;
    const int xa = T - S * i + P * g - (half_row<S, B> (i) ? 2 : 0);
    stage_word<B> (slot + i * kStgW<B> + g, base, pitch, width, y0, nrows, i,
        xa, zsrc);
  }
  if constexpr (B == 1 && S % 4 != 0) {
    const int i = 2 * lane + 1;
    stage_word<B> (slot + i * kStgW<B> + kWB<B>, base, pitch, width, y0, nrows,
        i, T - S * i + kC - 2, zsrc);
  }
}

/* Stores word v at aligned column xa of a row: whole inside the plane,
 * samples across a ragged right edge (a word is inside or outside as a
 * whole otherwise). */
template <int B>
__device__ __forceinline__ void
store_word (uint8_t *row, int xa, int width, uint32_t v)
{
  constexpr int P = kSpw<B>;
  if (xa >= 0 && xa + P <= width)
    *reinterpret_cast<uint32_t *> (row + (size_t) xa * B) = v;
  else if (width % P != 0 && xa < width && xa + P > width)
    st_samples<B> (row, xa, B, width, v);
}

/* The same for a 16-bit half at byte column xh of an 8-bit row. */
__device__ __forceinline__ void
store_half (uint8_t *row, int xh, int width, uint32_t v)
{
  if (xh >= 0 && xh + 2 <= width)
    *reinterpret_cast<uint16_t *> (row + xh) = (uint16_t) v;
  else if (xh == width - 1)
    row[xh] = (uint8_t) v;
}

/* Stores the outputs in `slot` (the compute warp's words: row i's chunk from
 * column T - S i) to the strip's rows: lane L takes word L % kWB<B> of
 * kC / kWB<B> rows an instruction, rows of one kind at a time. */
template <int S, int B>
__device__ __forceinline__ void
io_store (const uint32_t *slot, uint8_t *base, size_t pitch, int width,
    int y0, int nrows, int T)
{
  constexpr int P = kSpw<B>, LPR = kWB<B>, RPI = 32 / LPR;
  constexpr bool halves = B == 1 && S % 4 != 0;
  /* with halves: even rows here, odd ones below */
  constexpr int RS = halves ? 2 : 1;
  const int lane = threadIdx.x & 31, g = lane % LPR;
  if (io_interior<S> (width, T)) {
    /* rows RS (q + m RPI) (+ 1): RS RPI rows further down, S RS RPI samples
     * further left; full as in io_stage */
    const int i0 = RS * (lane / LPR);
    const ptrdiff_t adv = (ptrdiff_t) (RS * RPI * pitch) -
        (ptrdiff_t) (S * RS * RPI * B);
    auto rows = [&] (auto full) {
      uint8_t *r = base + (size_t) (y0 + i0) * pitch +
          (ptrdiff_t) (T - S * i0) * B;
      const uint32_t *d = slot + i0 * kStgW<B>;
#pragma unroll
      for (int m = 0; m < kRows / RPI / RS; m++, r += adv)
        if (decltype (full)::value || i0 + m * RS * RPI < nrows)
          *reinterpret_cast<uint32_t *> (r + 4 * g) =
              d[m * RS * RPI * kStgW<B> + g];
      if constexpr (halves) {
        r = base + (size_t) (y0 + i0 + 1) * pitch + (T - S * (i0 + 1));
        d += kStgW<B>;
#pragma unroll
        for (int m = 0; m < kRows / RPI / 2; m++, r += adv) {
          const uint32_t *dd = d + m * 2 * RPI * kStgW<B>;
          if (!decltype (full)::value && i0 + 1 + m * 2 * RPI >= nrows)
            continue;
          if (g + 1 < LPR) {
            *reinterpret_cast<uint32_t *> (r + 2 + 4 * g) =
                __funnelshift_r (dd[g], dd[g + 1], 16);
          } else {
            *reinterpret_cast<uint16_t *> (r) = (uint16_t) dd[0];
            *reinterpret_cast<uint16_t *> (r + kC - 2) =
                (uint16_t) (dd[LPR - 1] >> 16);
          }
        }
      }
    };
    if (nrows == kRows)
      rows (std::true_type ());
    else
      rows (std::false_type ());
    return;
  }
#pragma unroll 4
  for (int m = 0; m < kRows / RPI / RS; m++) {
    const int i = RS * (m * RPI + lane / LPR);
    if (i < nrows)
      store_word<B> (base + (size_t) (y0 + i) * pitch, T - S * i + P * g, width,
          slot[i * kStgW<B> + g]);
  }
  if constexpr (halves) {
#pragma unroll 4
    for (int m = 0; m < kRows / RPI / 2; m++) {
      const int i = 2 * (m * RPI + lane / LPR) + 1;
      if (i >= nrows)
        continue;
      uint8_t *row = base + (size_t) (y0 + i) * pitch;
      const uint32_t *d = slot + i * kStgW<B>;
      const int x0 = T - S * i;
      if (g + 1 < LPR) {
        store_word<B> (row, x0 + 2 + 4 * g, width,
            __funnelshift_r (d[g], d[g + 1], 16));
      } else {
        store_half (row, x0, width, d[0]);
        store_half (row, x0 + kC - 2, width, d[LPR - 1] >> 16);
      }
    }
  }
}
#endif  /* CIP_HT_STAGE */

/* The lane's rows of a staged chunk, as load_chunk gives them. */
template <int S, int B>
__device__ __forceinline__ void
read_stage (const uint32_t *slot, const Ctx &c, uint32_t (&w)[kRpl][kWB<B>])
{
#pragma unroll
  for (int r = 0; r < kRpl; r++) {
    const uint32_t *d = slot + (c.lane * kRpl + r) * kStgW<B>;
    const bool half = B == 1 && (S * r) % 4 != 0;
#pragma unroll
    for (int g = 0; g < kWB<B>; g++)
      w[r][g] = half ? __funnelshift_r (d[g], d[g + 1], 16) : d[g];
  }
}

/* Chunks of a strip: steps -kC .. t_last, t_last = W-1 + S (nrows-1), the
 * first one only fills the windows from the strip above. */
__device__ __forceinline__ int
strip_chunks (int width, int nrows, int S)
{
  const int t_last = width - 1 + S * (nrows - 1);
  return (t_last + kC) / kC + 1;
}

/* Staged planes: every plane the io warp can move as words. */
__device__ __forceinline__ bool
plane_io (const PlaneP &pp)
{
#if CIP_HT_STAGE
  return pp.src_vec && pp.src_pitch % 4 == 0 && pp.dst_vec &&
      pp.dst_pitch % 4 == 0 &&
      (!pp.hist || (pp.hist_vec && pp.hist_pitch % 4 == 0));
#else
  return false;
#endif
}

template <HalftoneKernel KK, int S, int B, bool BIN, bool TEMP>
__device__ void
compute_strip (const Params &p, const PlaneP &pp, int s,
    Shared<typename Smp<B>::E> &sm, uint32_t *stg, uint32_t *obuf, int up_i,
    int down_i, int io_i)
{
  using E = typename Smp<B>::E;
  constexpr int kWb = kWB<B>;
  Ctx c;
  c.width = pp.width;
  c.lane = threadIdx.x & 31;
  c.levels = p.levels;
  c.band = p.band;
  c.lmagic = p.lmagic;
  c.maxv = p.maxv;
  c.shift = p.shift;
  c.offset = ht_offset (p.maxv);
  const int y0 = s * kRows;
  c.nrows = min (kRows, pp.height - y0);
  const bool has_up = s > 0, has_down = s + 1 < pp.strips;
  const int nch = strip_chunks (pp.width, c.nrows, S);

  State<KK, S> st;
#pragma unroll
  for (int r = 0; r < kRpl; r++) {
#pragma unroll
    for (int m = 0; m < Traits<KK, S>::L1; m++)
      st.a1[r][m] = 0;
#pragma unroll
    for (int m = 0; m < Traits<KK, S>::L2; m++)
      st.a2[r][m] = 0;
    st.l1[r] = st.l2[r] = 0;
  }
  uint32_t inb[kRpl][kWb], hib[kRpl][kWb], ob[kRpl][kWb];
#pragma unroll
  for (int r = 0; r < kRpl; r++)
#pragma unroll
    for (int g = 0; g < kWb; g++)
      hib[r][g] = 0;
  /* staged planes: the io warp's rings (io_strip); otherwise the input one
   * chunk ahead in registers */
  const bool io = plane_io (pp);
  if (!io) {
    load_chunk<S, B> (pp.src, pp.src_pitch, pp.src_step, pp.src_vec, pp.width, y0,
        -kC, c, inb, true);
    if constexpr (TEMP)
      load_chunk<S, B> (pp.hist, pp.hist_pitch, B, pp.hist_vec, pp.width, y0, -kC,
          c, hib, false);
  }

  for (int n = 0; n < nch; n++) {
    const int T = -kC + n * kC;
    uint32_t inn[kRpl][kWb], hin[kRpl][kWb];
    if (io) {
#if CIP_HT_STAGE
      const int k = slot_of<kNStg> (io_i + n);
      ring_wait_full (sm.in_ring, io_i + n, p.watchdog_ns);
      HT_TRACE (pp.first_strip + s, kTrIn, n);
      read_stage<S, B> (stg + k * kSlotW<B>, c, inb);
      if constexpr (TEMP)
        read_stage<S, B> (stg + (kNStg + k) * kSlotW<B>, c, hib);
      ring_free (sm.in_ring, io_i + n);
#endif
    } else {
      /* next chunk's input, in flight while this one computes */
      load_chunk<S, B> (pp.src, pp.src_pitch, pp.src_step, pp.src_vec, pp.width,
          y0, T + kC, c, inn, true);
      if constexpr (TEMP)
        load_chunk<S, B> (pp.hist, pp.hist_pitch, B, pp.hist_vec, pp.width, y0,
            T + kC, c, hin, false);
    }

    const E *up = sm.zero;
    HT_TRACE (pp.first_strip + s, kTrWait, n);
    if (n == 64 || n == 96)
      HT_TRACE (pp.first_strip + s, kTrMisc, n == 64 ? 2 : 3);
    if (has_up) {
      ring_wait_full (sm.up_ring, up_i + n, p.watchdog_ns);
      up = sm.up[slot_of (up_i + n)];
    }
    HT_TRACE (pp.first_strip + s, kTrUp, n);
    E *down = nullptr;
    if (has_down) {
      ring_wait_empty (sm.down_ring, down_i + n, p.watchdog_ns);
      if (c.lane == 31)
        down = sm.down[slot_of (down_i + n)];
    }
    HT_TRACE (pp.first_strip + s, kTrGo, n);
    /* (a strip of fewer rows, the plane's last, computes its rows past
     * the plane too, wherever its rows in the plane are inside: their
     * input is 0, nothing of theirs is stored, and their errors only flow
     * right and down, to rows past the plane. bench_halftone --trace,
     * H100: masking them made every chunk of the last strip an edge chunk,
     * 2.2 us instead of 1.2, 60 us of 1080p's 310) */
    const bool interior = T - S * (c.nrows - 1) >= 0 && T + kC <= pp.width;
    if (interior)
      compute_chunk<KK, S, B, BIN, TEMP, false> (st, inb, hib, ob, up, down, T, c);
    else
      compute_chunk<KK, S, B, BIN, TEMP, true> (st, inb, hib, ob, up, down, T, c);
    HT_TRACE (pp.first_strip + s, kTrDone, n);
    if (has_up)
      ring_free (sm.up_ring, up_i + n);
    if (has_down)
      ring_fill (sm.down_ring, down_i + n);
    if (io) {
#if CIP_HT_STAGE
      ring_wait_empty (sm.out_ring, io_i + n, p.watchdog_ns);
      HT_TRACE (pp.first_strip + s, kTrOut, n);
      uint32_t *d = obuf + slot_of<kNO<B>> (io_i + n) * kSlotW<B>;
#pragma unroll
      for (int r = 0; r < kRpl; r++)
#pragma unroll
        for (int g = 0; g < kWb; g++)
          d[(c.lane * kRpl + r) * kStgW<B> + g] = ob[r][g];
      ring_fill (sm.out_ring, io_i + n);
#endif
    } else {
      store_chunk<S, B> (pp.dst, pp.dst_pitch, pp.dst_step, pp.dst_vec, pp.width,
          y0, T, c, ob);
      if (pp.hist)
        store_chunk<S, B> (pp.hist, pp.hist_pitch, B, pp.hist_vec, pp.width, y0,
            T, c, ob);
#pragma unroll
      for (int r = 0; r < kRpl; r++)
#pragma unroll
        for (int g = 0; g < kWb; g++) {
          inb[r][g] = inn[r][g];
          if constexpr (TEMP)
            hib[r][g] = hin[r][g];
        }
    }
  }
}

/* ------------------------------------------------------------ skss: io warp */

/* The io warp's strip (staged planes): the input (and history) kHtStage
 * chunks ahead into the in ring, each chunk's outputs out of the out ring
 * once computed. io_i: chunks through both rings in the strips before. */
template <int S, int B, bool TEMP>
__device__ void
io_strip (const Params &p, const PlaneP &pp, int s, Ring<kNStg> &in_ring,
    Ring<kNO<B>> &out_ring, uint32_t *stg, const uint32_t *obuf, int io_i)
{
#if CIP_HT_STAGE
  const int y0 = s * kRows;
  const int nrows = min (kRows, pp.height - y0);
  const int nch = strip_chunks (pp.width, nrows, S);
  /* the workspace's last control word (never written): the source of the
   * copies of no byte */
  const void *const zsrc = p.ctl + 63;
  auto stage = [&] (int k) {
    ring_wait_empty (in_ring, io_i + k, p.watchdog_ns);
    const int q = slot_of<kNStg> (io_i + k);
    io_stage<S, B> (stg + q * kSlotW<B>, pp.src, pp.src_pitch, pp.width, y0,
        nrows, -kC + k * kC, zsrc);
    if constexpr (TEMP)
      io_stage<S, B> (stg + (kNStg + q) * kSlotW<B>, pp.hist, pp.hist_pitch,
          pp.width, y0, nrows, -kC + k * kC, zsrc);
    ring_fill_async (in_ring, io_i + k);
  };
  for (int k = 0; k < kHtStage && k < nch; k++)
    stage (k);
  for (int n = 0; n < nch; n++) {
    const int T = -kC + n * kC;
    ring_wait_full (out_ring, io_i + n, p.watchdog_ns);
    HT_TRACE (pp.first_strip + s, kTrIoGot, n);
    const uint32_t *d = obuf + slot_of<kNO<B>> (io_i + n) * kSlotW<B>;
    io_store<S, B> (d, pp.dst, pp.dst_pitch, pp.width, y0, nrows, T);
    if (pp.hist)
      io_store<S, B> (d, pp.hist, pp.hist_pitch, pp.width, y0, nrows, T);
    ring_free (out_ring, io_i + n);
    HT_TRACE (pp.first_strip + s, kTrIoMid, n);
    if (n + kHtStage < nch)
      stage (n + kHtStage);
    HT_TRACE (pp.first_strip + s, kTrIoEnd, n);
  }
#endif
}

/* --------------------------------------------------------- skss: mover warp */

__device__ __forceinline__ void
prefetch_l2 (const void *p)
{
  asm volatile ("prefetch.global.L2 [%0];" : : "l" (p));
}

/* Down mover, chunk i of the ring (step T): the errors of rows 62 and 63
 * that go to column entry *idx of the boundary, out of the down ring, whose
 * slot is then free for the compute warp; false where *idx is outside the
 * boundary rows. */
template <int S, typename E>
__device__ __forceinline__ bool
take_down (Shared<E> &sm, int i, int T, int bw, unsigned long long limit,
    int *idx, int *v62, int *v63)
{
  const int lane = threadIdx.x & 31;
  ring_wait_full (sm.down_ring, i, limit);
  const E *slot = sm.down[slot_of (i)];
  *idx = T - S * kRows + kHtPad + lane;
  const bool in = *idx >= 0 && *idx < bw;
  *v62 = in ? (int) slot[lane] : 0;
  *v63 = in ? (int) slot[kC + lane] : 0;
  ring_free (sm.down_ring, i);
  return in;
}

/* The hand-off between strips: boundary rows as 64-bit words that carry
 * their launch's tag beside the errors (halftone_internal.h, ht_pk_*), one
 * load a column on the reading side. Word k of column entry idx of strip s:
 * bnd + (s * kPkWords<B> + k) * bw + idx; 8-bit: one word (row 62's and row
 * 63's int16 errors, tag), 16-bit: two (row 62's, then row 63's int32
 * error, each with the tag). The trace (bench_halftone --trace, H100) of
 * the earlier hand-off, a progress word behind two GPU-scope fences every
 * chunk, showed it 2-4% slower. */
template <int B>
constexpr int kPkWords = B == 1 ? 1 : 2;

__device__ __forceinline__ unsigned long long
ld_relaxed_u64 (const unsigned long long *a)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l" (v) : "l" (a)
      : "memory");
  return v;
}

__device__ __forceinline__ void
st_relaxed_u64 (unsigned long long *a, unsigned long long v)
{
  asm volatile ("st.relaxed.gpu.global.u64 [%0], %1;" : : "l" (a), "l" (v)
      : "memory");
}

/* The word at a once it carries `tag` (spins until then). */
__device__ __forceinline__ unsigned long long
wait_tagged (const unsigned long long *a, uint32_t tag,
    unsigned long long limit)
{
  unsigned long long v = ld_relaxed_u64 (a);
  Watchdog wd;
  while (ht_pk_tag_of (v) != tag) {
    __nanosleep (32);
    wd.poll (limit);
    v = ld_relaxed_u64 (a);
  }
  return v;
}

template <int S, int B>
__device__ void
mover_strip (const Params &p, const PlaneP &pp, int s,
    Shared<typename Smp<B>::E> &sm, bool up_role, int ring_i, uint32_t tag)
{
  using E = typename Smp<B>::E;
  constexpr int NW = kPkWords<B>;
  const int lane = threadIdx.x & 31;
  const int y0 = s * kRows;
  const int nrows = min (kRows, pp.height - y0);
  const int W = pp.width;
  const bool has_up = s > 0, has_down = s + 1 < pp.strips;
  const int nch = strip_chunks (W, nrows, S);
  unsigned long long *const bnd = static_cast<unsigned long long *> (pp.bnd);
  const size_t bw = (size_t) pp.bw;

  /* the strip's input (and history) into L2 while it waits for the strip
   * above: the compute warp's loads then come from L2 */
  const size_t src_row = (size_t) (W - 1) * pp.src_step + B;
  for (int i = 0; up_role && i < nrows; i++) {
    const uint8_t *r = pp.src + (size_t) (y0 + i) * pp.src_pitch;
    for (size_t o = (size_t) lane * 128; o < src_row; o += 32 * 128)
      prefetch_l2 (r + o);
    if (p.band > 0) {
      const uint8_t *h = pp.hist + (size_t) (y0 + i) * pp.hist_pitch;
      for (size_t o = (size_t) lane * 128; o < (size_t) W * B; o += 32 * 128)
        prefetch_l2 (h + o);
    }
  }

  /* one warp takes the strip above's rows in, another sends this strip's
   * out: a middle strip does both at once. Each waits only on the compute
   * warp's ring and, the up mover, on the strip above. */
  if (up_role && has_up) {
    const unsigned long long *ub = bnd + (size_t) (s - 1) * NW * bw;
    for (int m = 0; m < nch; m++) {
      /* chunk m (once the compute warp has freed its slot): column entries
       * T + kHtPad + lane, row 62 at column T + lane + 2 S, row 63 at
       * T + lane + S */
      const int T = -kC + m * kC;
      ring_wait_empty (sm.up_ring, ring_i + m, p.watchdog_ns);
      const int idx = T + lane + kHtPad;
      const int c62 = T + lane + 2 * S, c63 = T + lane + S;
      const bool in62 = c62 >= 0 && c62 < W, in63 = c63 >= 0 && c63 < W;
      int v62 = 0, v63 = 0;
      if constexpr (B == 1) {
        if (in62 || in63) {
          const unsigned long long w = wait_tagged (ub + idx, tag,
              p.watchdog_ns);
          v62 = ht_pk_pair_62 (w);
          v63 = ht_pk_pair_63 (w);
        }
      } else {
        if (in62)
          v62 = ht_pk_one_value (wait_tagged (ub + idx, tag, p.watchdog_ns));
        if (in63)
          v63 = ht_pk_one_value (wait_tagged (ub + bw + idx, tag,
                  p.watchdog_ns));
      }
      HT_TRACE (pp.first_strip + s, kTrSeen, m);
      E *slot = sm.up[slot_of (ring_i + m)];
      slot[lane] = (E) (in62 ? v62 : 0);
      slot[kC + lane] = (E) (in63 ? v63 : 0);
      ring_fill (sm.up_ring, ring_i + m);
    }
  } else if (!up_role && has_down) {
    unsigned long long *db = bnd + (size_t) s * NW * bw;
    for (int n = 0; n < nch; n++) {
      int idx, v62, v63;
      if (take_down<S> (sm, ring_i + n, -kC + n * kC, pp.bw, p.watchdog_ns,
              &idx, &v62, &v63)) {
        if constexpr (B == 1) {
          st_relaxed_u64 (db + idx, ht_pk_pair (v62, v63, tag));
        } else {
          st_relaxed_u64 (db + idx, ht_pk_one (v62, tag));
          st_relaxed_u64 (db + bw + idx, ht_pk_one (v63, tag));
        }
      }
      HT_TRACE (pp.first_strip + s, kTrPub, n);
    }
  }
}

template <HalftoneKernel KK, int S, int B, bool BIN, bool TEMP>
__global__ void __launch_bounds__ (kHtThreads)
ht_skss (const Params p)
{
  __shared__ Shared<typename Smp<B>::E> sm;
#if CIP_HT_STAGE
  __shared__ uint32_t stg[(TEMP ? 2 : 1) * kNStg * kSlotW<B>];
  __shared__ uint32_t obuf[kNO<B> * kSlotW<B>];
#else
  uint32_t *const stg = nullptr, *const obuf = nullptr;
#endif
  const int warp = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 2 * kC; i += blockDim.x)
    sm.zero[i] = 0;
  if (threadIdx.x == 0) {
    ring_init (sm.up_ring);
    ring_init (sm.down_ring);
#if CIP_HT_STAGE
    ring_init (sm.in_ring);
    ring_init (sm.out_ring);
#endif
  }
  /* this launch's tag of the boundary words: the epoch word that the
   * previous launch's last worker advanced (ordered by the launches) */
  const uint32_t tag = ht_pk_tag (__ldcg (p.ctl + 2));
  /* chunks through each ring in the strips before (every thread counts) */
  int up_i = 0, down_i = 0, io_i = 0;
  for (;;) {
    if (threadIdx.x == 0)
      sm.ticket = (int) atomicAdd (p.ctl, 1u);
    __syncthreads ();
    const int t = sm.ticket;
    if (t >= p.sched.total)
      break;
    int plane, strip;
    ht_ticket (p.sched, t, &plane, &strip);
    const PlaneP pp = plane_of (p, plane);
    if (threadIdx.x == 0)
      HT_TRACE (pp.first_strip + strip, kTrMisc, 0);
    const bool io = plane_io (pp);
    if (warp == 0)
      compute_strip<KK, S, B, BIN, TEMP> (p, pp, strip, sm, stg, obuf, up_i,
          down_i, io_i);
    else if (warp == 3 && io)
      io_strip<S, B, TEMP> (p, pp, strip, sm.in_ring, sm.out_ring, stg, obuf,
          io_i);
    else if (warp < 3)
      mover_strip<S, B> (p, pp, strip, sm, warp == 1, warp == 1 ? up_i : down_i,
          tag);
    const int nch = strip_chunks (pp.width, min (kRows, pp.height - strip * kRows),
        S);
    if (threadIdx.x == 0)
      HT_TRACE (pp.first_strip + strip, kTrMisc, 1);
    up_i += strip > 0 ? nch : 0;
    down_i += strip + 1 < pp.strips ? nch : 0;
    io_i += io ? nch : 0;
    __syncthreads ();
  }
  /* the last worker out leaves the ticket and done counter at zero for the
   * next call and advances the epoch; the fences order every worker's read
   * of the epoch (above) before that store */
  if (threadIdx.x == 0) {
    __threadfence ();
    sm.last = atomicAdd (p.ctl + 1, 1u) == (uint32_t) (p.workers - 1);
    if (sm.last)
      __threadfence ();
  }
  __syncthreads ();
  if (sm.last && threadIdx.x == 0) {
    p.ctl[0] = 0;
    p.ctl[1] = 0;
    p.ctl[2] = p.ctl[2] + 1;
  }
}

/* ---------------------------------------------------- wavefront (per launch) */

/* One pixel per row on the anti-diagonal x + min_shift * y = tau; errors in
 * kHtRing slots per row (slot x mod kHtRing), which hold every error a later
 * pixel still gathers and are never the slot a same-tau pixel reads. */
template <HalftoneKernel KK>
__global__ void __launch_bounds__ (128)
ht_wavefront (const Params p, int tau)
{
  using Tr = Traits<KK>;
  constexpr HtKernelDef d = Tr::d;
  constexpr int S = Tr::f.min_shift;
  static_assert (2 * S + Tr::f.lr2 < kHtRing && S + Tr::f.lr1 < kHtRing,
      "error slots too few");
  const PlaneP pp = plane_of (p, blockIdx.y);
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= pp.height)
    return;
  const int x = tau - S * y;
  if (x < 0 || x >= pp.width)
    return;
  int sum = 0;
#pragma unroll
  for (int t = 0; t < d.ntaps; t++) {
    const int yy = y - d.taps[t].dy, xx = x - d.taps[t].dx;
    if (yy >= 0 && xx >= 0 && xx < pp.width)
      sum += d.taps[t].w * pp.ring[(size_t) yy * kHtRing + (xx & (kHtRing - 1))];
  }
  const int in = pp.src[(size_t) y * pp.src_pitch + (size_t) x * pp.src_step];
  const int v = ht_diffused (in, sum, Tr::D);
  const int prev = p.band > 0 ? pp.hist[(size_t) y * pp.hist_pitch + x] : 0;
  const int o = ht_quantize (v, p.levels, p.band, prev);
  pp.ring[(size_t) y * kHtRing + (x & (kHtRing - 1))] = (short) (v - o * kHtOne);
  pp.dst[(size_t) y * pp.dst_pitch + (size_t) x * pp.dst_step] = (uint8_t) o;
  if (pp.hist)
    pp.hist[(size_t) y * pp.hist_pitch + x] = (uint8_t) o;
}

/* ------------------------------------------------------ single block (mpv) */

template <HalftoneKernel KK>
constexpr int
sb_ring ()
{
  constexpr HtFootprint f = ht_footprint (KK);
  const int age = std::max (std::max (f.min_shift + f.lr1, f.r0),
      f.rows == 2 ? 2 * f.min_shift + f.lr2 : 0);
  int r = 1;
  while (r <= age)
    r *= 2;
  return r;
}

/* One block per plane sweeps tau = x + min_shift * y with a barrier per step;
 * thread k owns rows k, k + blockDim, ... (up to RPT); errors in shared memory,
 * sb_ring slots per row; each step loads the next step's inputs. */
template <HalftoneKernel KK, int RPT>
__global__ void __launch_bounds__ (1024)
ht_single_block (const Params p)
{
  using Tr = Traits<KK>;
  constexpr HtKernelDef d = Tr::d;
  constexpr int S = Tr::f.min_shift;
  constexpr int R = sb_ring<KK> ();
  extern __shared__ short ering[];
  const PlaneP pp = plane_of (p, blockIdx.x);
  const int W = pp.width, H = pp.height, nt = blockDim.x;
  const int tau_end = W - 1 + S * (H - 1);
  int inb[RPT], hib[RPT];
#pragma unroll
  for (int k = 0; k < RPT; k++) {
    const int y = threadIdx.x + k * nt;
    inb[k] = hib[k] = 0;
    if (y < H && -S * y >= 0 && W > 0) {
      inb[k] = pp.src[(size_t) y * pp.src_pitch];
      if (p.band > 0)
        hib[k] = pp.hist[(size_t) y * pp.hist_pitch];
    }
  }
  for (int tau = 0; tau <= tau_end; tau++) {
    int inn[RPT], hin[RPT];
#pragma unroll
    for (int k = 0; k < RPT; k++) {
      const int y = threadIdx.x + k * nt, x = tau + 1 - S * y;
      inn[k] = hin[k] = 0;
      if (y < H && x >= 0 && x < W) {
        inn[k] = pp.src[(size_t) y * pp.src_pitch + (size_t) x * pp.src_step];
        if (p.band > 0)
          hin[k] = pp.hist[(size_t) y * pp.hist_pitch + x];
      }
    }
#pragma unroll
    for (int k = 0; k < RPT; k++) {
      const int y = threadIdx.x + k * nt, x = tau - S * y;
      if (y < H && x >= 0 && x < W) {
        int sum = 0;
#pragma unroll
        for (int t = 0; t < d.ntaps; t++) {
          const int yy = y - d.taps[t].dy, xx = x - d.taps[t].dx;
          if (yy >= 0 && xx >= 0 && xx < W)
            sum += d.taps[t].w * ering[yy * R + (xx & (R - 1))];
        }
        const int v = ht_diffused (inb[k], sum, Tr::D);
        const int o = ht_quantize (v, p.levels, p.band, hib[k]);
        ering[y * R + (x & (R - 1))] = (short) (v - o * kHtOne);
        pp.dst[(size_t) y * pp.dst_pitch + (size_t) x * pp.dst_step] = (uint8_t) o;
        if (pp.hist)
          pp.hist[(size_t) y * pp.hist_pitch + x] = (uint8_t) o;
      }
      inb[k] = inn[k];
      hib[k] = hin[k];
    }
    __syncthreads ();
  }
}

/* ------------------------------------------------------------------ ordered */

template <int B>
__global__ void __launch_bounds__ (256)
ht_ordered_kernel (const Params p)
{
  const PlaneP pp = plane_of (p, blockIdx.z);
  const int y = blockIdx.y;
  if (y >= pp.height)
    return;
  const uint8_t *in = pp.src + (size_t) y * pp.src_pitch;
  uint8_t *out = pp.dst + (size_t) y * pp.dst_pitch;
  uint8_t *hist = pp.hist ? pp.hist + (size_t) y * pp.hist_pitch : nullptr;
  for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < pp.width;
      x += gridDim.x * blockDim.x) {
    if constexpr (B == 1) {
      const int o = ht_ordered (__ldg (in + (size_t) x * pp.src_step), p.levels,
          ht_bayer (x & 7, y & 7));
      out[(size_t) x * pp.dst_step] = (uint8_t) o;
      if (hist)
        hist[x] = (uint8_t) o;
    } else {
      const int o = ht_ordered (ht_get (in + (size_t) x * pp.src_step, 2,
              p.shift, p.maxv), p.levels, ht_bayer (x & 7, y & 7), p.maxv);
      ht_put (out + (size_t) x * pp.dst_step, 2, p.shift, o);
      if (hist)
        ht_put (hist + (size_t) x * 2, 2, p.shift, o);
    }
  }
}

/* ---------------------------------------------------------------- host side */

/* The skss watchdog's bound: CIP_HT_WATCHDOG_S seconds (0: off), read once,
 * else CIP_HT_WATCHDOG_NS. */
unsigned long long
ht_watchdog_ns ()
{
  static const unsigned long long ns = [] {
    const char *e = getenv ("CIP_HT_WATCHDOG_S");
    char *end = nullptr;
    const double s = e ? strtod (e, &end) : -1.0;
    if (!e || end == e || !(s >= 0.0))
      return (unsigned long long) CIP_HT_WATCHDOG_NS;
    return (unsigned long long) std::min (s * 1e9, 1e18);
  }();
  return ns;
}

/* The hand-off trusts a word that carries this launch's tag. When the last
 * skss launch on a workspace ran on planes of the same shape, every word a
 * launch reads was written by that launch (another tag) or is being written
 * by this one. Otherwise the boundary regions may hold anything (other
 * regions' bytes under another layout, words of launches long ago whose tag
 * may come round again): they are zeroed first, in stream order. The last skss launch of
 * each workspace is remembered here (the latest 64; one forgotten is only
 * zeroed again); halftone_workspace_init forgets its workspace. */
using PkShape = std::array<int, 3 * halftone_max_planes>;
struct PkLast {
  const void *ws;
  PkShape shape;
};
std::mutex g_pk_mu;
std::vector<PkLast> g_pk_last;

void
pk_forget (const void *ws)
{
  std::lock_guard<std::mutex> lock (g_pk_mu);
  g_pk_last.erase (std::remove_if (g_pk_last.begin (), g_pk_last.end (),
          [ws] (const PkLast &l) { return l.ws == ws; }), g_pk_last.end ());
}

Status
pk_prepare (const HalftonePlane *planes, int n_planes, const HtLayout &lay,
    uint8_t *ws, cudaStream_t cs)
{
  /* no allocation: this runs every frame */
  PkShape shape;
  shape.fill (-2);
  for (int i = 0; i < n_planes; i++) {
    const bool empty = ht_plane_empty (planes[i]);
    shape[3 * i] = empty ? -1 : planes[i].src.width;
    shape[3 * i + 1] = empty ? -1 : planes[i].src.height;
    shape[3 * i + 2] = empty ? -1 : planes[i].src.bytes;
  }
  std::lock_guard<std::mutex> lock (g_pk_mu);
  auto it = std::find_if (g_pk_last.begin (), g_pk_last.end (),
      [ws] (const PkLast &l) { return l.ws == ws; });
  const bool same = it != g_pk_last.end () && it->shape == shape;
  if (it != g_pk_last.end ())
    g_pk_last.erase (it);
  for (int i = 0; !same && i < n_planes; i++)
    if (lay.bnd_bytes[i] > 0)
      CIP_CUDA_TRY (cudaMemsetAsync (ws + lay.bnd[i], 0, lay.bnd_bytes[i], cs));
  if (g_pk_last.size () >= 64)
    g_pk_last.erase (g_pk_last.begin ());
  g_pk_last.push_back (PkLast { ws, shape });
  return Status::ok;
}

bool
aligned4 (const void *ptr, size_t pitch, int height)
{
  return (uintptr_t) ptr % 4 == 0 && (height <= 1 || pitch % 4 == 0);
}

template <HalftoneKernel KK, int S, int B>
Status
launch_skss (const Params &p, int grid, cudaStream_t stream, bool bin, bool temp)
{
  if (bin && temp)
    ht_skss<KK, S, B, true, true><<<grid, kHtThreads, 0, stream>>> (p);
  else if (bin)
    ht_skss<KK, S, B, true, false><<<grid, kHtThreads, 0, stream>>> (p);
  else if (temp)
    ht_skss<KK, S, B, false, true><<<grid, kHtThreads, 0, stream>>> (p);
  else
    ht_skss<KK, S, B, false, false><<<grid, kHtThreads, 0, stream>>> (p);
  CIP_LAUNCH_CHECK (stream, "ht_skss");
  return Status::ok;
}

template <HalftoneKernel KK, int B>
Status
run_skss (const Params &p, int grid, cudaStream_t stream, bool bin, bool temp)
{
  return launch_skss<KK, ht_skss_shift (KK), B> (p, grid, stream, bin, temp);
}

template <HalftoneKernel KK>
Status
run_wavefront (const Params &p, cudaStream_t stream)
{
  constexpr int S = Traits<KK>::f.min_shift;
  int taus = 0, hmax = 0;
  for (int i = 0; i < p.nplanes; i++) {
    taus = std::max (taus, p.pl[i].width + S * (p.pl[i].height - 1));
    hmax = std::max (hmax, p.pl[i].height);
  }
  const dim3 grid ((unsigned) ((hmax + 127) / 128), (unsigned) p.nplanes);
  for (int tau = 0; tau < taus; tau++) {
    ht_wavefront<KK><<<grid, 128, 0, stream>>> (p, tau);
    CIP_LAUNCH_CHECK (stream, "ht_wavefront");
  }
  return Status::ok;
}

template <HalftoneKernel KK, int RPT>
Status
launch_single_block (const Params &p, int threads, size_t smem,
    cudaStream_t stream)
{
  if (smem > 48 * 1024)
    CIP_CUDA_TRY (cudaFuncSetAttribute (ht_single_block<KK, RPT>,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
  ht_single_block<KK, RPT><<<p.nplanes, threads, smem, stream>>> (p);
  CIP_LAUNCH_CHECK (stream, "ht_single_block");
  return Status::ok;
}

template <HalftoneKernel KK>
Status
run_single_block (const Params &p, cudaStream_t stream)
{
  int hmax = 0;
  for (int i = 0; i < p.nplanes; i++)
    hmax = std::max (hmax, p.pl[i].height);
  if (hmax > halftone_single_block_max_rows)
    return Status::unsupported;
  const size_t smem = (size_t) hmax * sb_ring<KK> () * sizeof (short);
  if (smem > (size_t) detail::max_optin_smem ())
    return Status::unsupported;
  const int rpt = hmax <= 1024 ? 1 : hmax <= 2048 ? 2 : hmax <= 4096 ? 4 : 8;
  const int threads = std::min (1024, ((hmax + rpt - 1) / rpt + 31) / 32 * 32);
  switch (rpt) {
    case 1: return launch_single_block<KK, 1> (p, threads, smem, stream);
    case 2: return launch_single_block<KK, 2> (p, threads, smem, stream);
    case 4: return launch_single_block<KK, 4> (p, threads, smem, stream);
    default: return launch_single_block<KK, 8> (p, threads, smem, stream);
  }
}

/* bytes: the planes' sample size (wavefront and single_block: 1 only,
 * checked before). */
template <HalftoneKernel KK>
Status
run_diffusion (const Params &p, HalftoneAlgorithm algo, int grid, int bytes,
    cudaStream_t stream)
{
  switch (algo) {
    case HalftoneAlgorithm::wavefront:
      return run_wavefront<KK> (p, stream);
    case HalftoneAlgorithm::single_block:
      return run_single_block<KK> (p, stream);
    default:
      if (bytes == 2)
        return run_skss<KK, 2> (p, grid, stream, p.levels == 2, p.band > 0);
      return run_skss<KK, 1> (p, grid, stream, p.levels == 2, p.band > 0);
  }
}

}  // namespace

Status
halftone_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (ws_bytes == 0)
    return Status::ok;
  if (!d_ws)
    return Status::invalid_argument;
  pk_forget (d_ws);
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, ws_bytes, (cudaStream_t) stream));
  return Status::ok;
}

namespace {

/* rgb_luma planes: packed RGB to its luma plane, and the grey output back to
 * the three colour bytes (one thread a pixel). */
struct RgbP {
  const uint8_t *src;
  uint8_t *dst;
  size_t pitch, dst_pitch, lpitch;
  int step, o0, o1, o2, width;
  uint8_t *luma, *grey;
};

__global__ void __launch_bounds__ (256)
ht_rgb_to_luma (const RgbP r)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= r.width)
    return;
  const uint8_t *px = r.src + (size_t) y * r.pitch + (size_t) x * r.step;
  r.luma[(size_t) y * r.lpitch + x] = halftone_luma (px[r.o0], px[r.o1], px[r.o2]);
}

__global__ void __launch_bounds__ (256)
ht_grey_to_rgb (const RgbP r)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= r.width)
    return;
  const uint8_t v = r.grey[(size_t) y * r.lpitch + x];
  uint8_t *px = r.dst + (size_t) y * r.dst_pitch + (size_t) x * r.step;
  px[r.o0] = v;
  px[r.o1] = v;
  px[r.o2] = v;
}

Status
rgb_pass (const HalftonePlane &hp, uint8_t *luma, uint8_t *grey, bool to_luma,
    cudaStream_t cs)
{
  RgbP r;
  r.src = hp.src.data;
  r.dst = hp.dst;
  r.pitch = hp.src.pitch;
  r.dst_pitch = hp.dst_pitch;
  r.lpitch = ht_luma_pitch (hp.src.width);
  r.step = hp.src.step;
  r.o0 = hp.rgb_offset[0];
  r.o1 = hp.rgb_offset[1];
  r.o2 = hp.rgb_offset[2];
  r.width = hp.src.width;
  r.luma = luma;
  r.grey = grey;
  const dim3 grid ((unsigned) ((hp.src.width + 255) / 256), (unsigned) hp.src.height);
  if (to_luma) {
    ht_rgb_to_luma<<<grid, 256, 0, cs>>> (r);
    CIP_LAUNCH_CHECK (cs, "ht_rgb_to_luma");
  } else {
    ht_grey_to_rgb<<<grid, 256, 0, cs>>> (r);
    CIP_LAUNCH_CHECK (cs, "ht_grey_to_rgb");
  }
  return Status::ok;
}

Status halftone_planes (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &opt, void *d_ws, size_t ws_bytes, cudaStream_t cs,
    HalftoneAlgorithm algo);

}  // namespace

Status
halftone (const HalftonePlane *planes, int n_planes, const HalftoneOptions &opt,
    void *d_ws, size_t ws_bytes, Stream stream, HalftoneAlgorithm algo)
{
  if (algo != HalftoneAlgorithm::automatic && algo != HalftoneAlgorithm::skss &&
      algo != HalftoneAlgorithm::wavefront &&
      algo != HalftoneAlgorithm::single_block)
    return Status::invalid_argument;
  Status st = halftone_validate (planes, n_planes, opt, d_ws, ws_bytes);
  if (st != Status::ok)
    return st;
  /* the comparison variants take 8-bit planes only */
  if (opt.method == HalftoneMethod::error_diffusion &&
      (algo == HalftoneAlgorithm::wavefront ||
          algo == HalftoneAlgorithm::single_block))
    for (int i = 0; i < n_planes; i++)
      if (!ht_plane_empty (planes[i]) && planes[i].src.bytes != 1)
        return Status::invalid_argument;
  const cudaStream_t cs = (cudaStream_t) stream;
  /* rgb_luma planes become planes of the workspace: their luma in, grey out */
  const HtLayout lay = ht_layout (planes, n_planes);
  HalftonePlane q[halftone_max_planes];
  bool luma = false;
  for (int i = 0; i < n_planes; i++) {
    q[i] = planes[i];
    if (!planes[i].rgb_luma || ht_plane_empty (planes[i]))
      continue;
    if (!d_ws || ws_bytes < lay.total || (uintptr_t) d_ws % 256 != 0)
      return Status::invalid_argument;
    if (planes[i].src.width > kHtMaxSide || planes[i].src.height > kHtMaxSide)
      return Status::unsupported;
    uint8_t *ws = static_cast<uint8_t *> (d_ws);
    q[i] = ht_grey_plane (planes[i], ws + lay.luma[i], ws + lay.grey[i]);
    st = rgb_pass (planes[i], ws + lay.luma[i], ws + lay.grey[i], true, cs);
    if (st != Status::ok)
      return st;
    luma = true;
  }
  st = halftone_planes (q, n_planes, opt, d_ws, ws_bytes, cs, algo);
  for (int i = 0; luma && st == Status::ok && i < n_planes; i++)
    if (planes[i].rgb_luma && !ht_plane_empty (planes[i]))
      st = rgb_pass (planes[i], (uint8_t *) q[i].src.data, q[i].dst, false, cs);
  return st;
}

namespace {

/* halftone() once the arguments are checked and rgb_luma planes replaced. */
Status
halftone_planes (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &opt, void *d_ws, size_t ws_bytes, cudaStream_t cs,
    HalftoneAlgorithm algo)
{
  const HtLayout lay = ht_layout (planes, n_planes);
  Params p = { };
  int strips[halftone_max_planes] = { };
  int hmax = 0, wmax = 0, bytes = 1, depth = 8;
  uint8_t *ws = static_cast<uint8_t *> (d_ws);
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &hp = planes[i];
    if (ht_plane_empty (hp))
      continue;
    if (hp.src.width > kHtMaxSide || hp.src.height > kHtMaxSide)
      return Status::unsupported;
    PlaneP &q = p.pl[p.nplanes];
    q.src = hp.src.data;
    q.src_pitch = hp.src.pitch;
    q.src_step = hp.src.step;
    q.dst = hp.dst;
    q.dst_pitch = hp.dst_pitch;
    q.dst_step = hp.dst_step;
    q.hist = hp.history;
    q.hist_pitch = hp.history_pitch;
    q.width = hp.src.width;
    q.height = hp.src.height;
    q.strips = ht_strips (q.height);
    q.first_strip = lay.first_strip[i];
    q.bw = (int) ht_boundary_width (q.width);
    /* one sample layout a call (halftone_validate) */
    bytes = hp.src.bytes;
    depth = hp.src.depth;
    p.maxv = (int) hp.src.max_value ();
    p.shift = hp.src.shift;
    q.src_vec = q.src_step == bytes && aligned4 (q.src, q.src_pitch, q.height);
    q.dst_vec = q.dst_step == bytes && aligned4 (q.dst, q.dst_pitch, q.height);
    q.hist_vec = q.hist && aligned4 (q.hist, q.hist_pitch, q.height);
    if (ws) {
      q.bnd = ws + lay.bnd[i];
      q.ring = reinterpret_cast<short *> (ws + lay.ring[i]);
    }
    strips[p.nplanes] = q.strips;
    hmax = std::max (hmax, q.height);
    wmax = std::max (wmax, q.width);
    p.nplanes++;
  }
  if (p.nplanes == 0)
    return Status::ok;
  p.levels = opt.levels;
  p.lmagic = ht_level_magic (opt.levels);
  p.watchdog_ns = ht_watchdog_ns ();
  p.band = ht_reads_history (opt) ?
      halftone_hysteresis (opt.levels, opt.temporal_stability,
          depth) : 0;

  if (opt.method == HalftoneMethod::ordered) {
    const dim3 grid ((unsigned) std::min ((wmax + 255) / 256, 64), (unsigned) hmax,
        (unsigned) p.nplanes);
    if (bytes == 2)
      ht_ordered_kernel<2><<<grid, 256, 0, cs>>> (p);
    else
      ht_ordered_kernel<1><<<grid, 256, 0, cs>>> (p);
    CIP_LAUNCH_CHECK (cs, "ht_ordered");
    return Status::ok;
  }

  if (!d_ws || ws_bytes < lay.total || (uintptr_t) d_ws % 256 != 0)
    return Status::invalid_argument;
  p.ctl = reinterpret_cast<uint32_t *> (ws);
  p.sched = ht_schedule (strips, p.nplanes);
  int grid = p.sched.total;
  const int cap = ht_debug_max_workers ();
  if (cap > 0 && cap < grid)
    grid = cap;
  p.workers = grid;
  if (algo == HalftoneAlgorithm::automatic)
    algo = halftone_pick (planes, n_planes, opt);
  if (algo == HalftoneAlgorithm::skss) {
    const Status st = pk_prepare (planes, n_planes, lay, ws, cs);
    if (st != Status::ok)
      return st;
  }

#ifdef CIP_HT_FS8_ONLY
  /* a quick diagnostic build (build-trace.sh --fs8): 8-bit Floyd-Steinberg
   * by skss only */
  if (opt.kernel != HalftoneKernel::floyd_steinberg || bytes != 1 ||
      algo != HalftoneAlgorithm::skss)
    return Status::unsupported;
  return run_skss<HalftoneKernel::floyd_steinberg, 1> (p, grid, cs,
      p.levels == 2, p.band > 0);
#else
  switch (opt.kernel) {
    case HalftoneKernel::floyd_steinberg:
      return run_diffusion<HalftoneKernel::floyd_steinberg> (p, algo, grid,
          bytes, cs);
    case HalftoneKernel::jarvis_judice_ninke:
      return run_diffusion<HalftoneKernel::jarvis_judice_ninke> (p, algo, grid,
          bytes, cs);
    case HalftoneKernel::stucki:
      return run_diffusion<HalftoneKernel::stucki> (p, algo, grid, bytes, cs);
    case HalftoneKernel::burkes:
      return run_diffusion<HalftoneKernel::burkes> (p, algo, grid, bytes, cs);
    case HalftoneKernel::sierra:
      return run_diffusion<HalftoneKernel::sierra> (p, algo, grid, bytes, cs);
    case HalftoneKernel::sierra_lite:
      return run_diffusion<HalftoneKernel::sierra_lite> (p, algo, grid,
          bytes, cs);
    case HalftoneKernel::atkinson:
      return run_diffusion<HalftoneKernel::atkinson> (p, algo, grid, bytes, cs);
  }
  return Status::invalid_argument;
#endif
}

}  // namespace

}  // namespace cip

#ifdef CIP_HT_TRACE
namespace cip {
namespace detail {

/* Copies the trace stamps out ([strip][kind][chunk], kind: wait, go, seen,
 * published, misc = claim, end, chunk 64, chunk 96; up: the up ring's wait
 * done; done: the chunk computed) and zeroes them. */
cudaError_t
ht_trace_take (unsigned long long *host, size_t bytes)
{
  cudaError_t e = cudaMemcpyFromSymbol (host, g_ht_trace,
      std::min (bytes, sizeof (g_ht_trace)));
  static unsigned long long zero[kHtTrStrips][kTrKinds][kHtTrChunks];
  if (e == cudaSuccess)
    e = cudaMemcpyToSymbol (g_ht_trace, zero, sizeof (zero));
  return e;
}

}  // namespace detail
}  // namespace cip
#endif
