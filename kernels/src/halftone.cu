/* cip halftone on the GPU: error diffusion by single-kernel soft
 * synchronization (SKSS), and ordered dithering.
 *
 * Error collection. Pixel (x, y) gathers the shares of the errors of its
 * finished neighbours: (x-1, y), (x-2, y) and columns x-2 .. x+reach of rows
 * y-1 and y-2, each share rounded on its own (detail/halftone_math.h), so the
 * sum equals the reference's pushed shares exactly and every error is written
 * once.
 *
 * Schedule. Lane k of a warp owns row y0 + k; at step t it does pixel
 * x = t - shift * k (a parallelogram: each row runs `shift` pixels behind the
 * row above, shift from the kernel's footprint, see ht_shift), so everything
 * a pixel needs from rows y-1 and y-2 was finished at an earlier step. The
 * error a lane just produced goes to the two lanes below by warp shuffles; a
 * lane keeps sliding windows of the rows above and its own last two errors in
 * registers. The warps of a block are stacked (32 * WPB rows): the last two
 * rows of warp w reach warp w + 1 through a shared-memory ring with progress
 * counters (volatile, block-scope fences, checked every kGroup steps). The
 * block's last warp hands its last two rows to the next block strip through
 * global memory as 8-byte words tagged with the call's epoch (a word is valid
 * when its tag is this call's: no flags, no fences); the next strip's first
 * warp loads them 32 columns at a time, one chunk ahead, and spins only when
 * a tag is not there yet. Block strips are claimed through a global ticket in
 * plane-then-row order, so a strip waits only on strips already claimed by
 * running blocks: any grid size terminates. The last block to finish resets
 * the ticket and advances the epoch (workspace ready for the next call).
 *
 * The pre-roll: a warp starts at t = -2 * shift so that its lanes receive the
 * columns of the rows above they need before their first pixel; u = t +
 * 2 * shift counts steps from 0 and tiles are 32 steps of u.
 */
#include <cstdint>

#include "cip/halftone.h"
#include "detail/check.cuh"
#include "detail/halftone_internal.h"
#include "detail/halftone_math.h"

namespace cip {
namespace {

using namespace detail;

constexpr int kRing = 128;          /* shared ring columns per row (power of 2) */
constexpr int kGroup = 8;           /* steps between intra-block hand-offs */
constexpr int kTile = 32;
constexpr int kSkssWarps = 4;       /* warps per block, skss */
constexpr int kSingleWarps = 16;    /* warps of the one block, single_block */

struct HtPlaneArgs {
  const uint8_t *src;
  size_t src_pitch;
  int src_step;
  uint8_t *dst;
  size_t dst_pitch;
  int dst_step;
  uint8_t *hist;
  size_t hist_pitch;
  int width, height;
  unsigned long long *edge;   /* per 32-row group: 2 rows of wp tagged words */
  size_t edge_stride;         /* words per group */
  size_t wp;
};

struct HtArgs {
  HtPlaneArgs plane[halftone_max_planes];
  int n_planes;
  int cum[halftone_max_planes + 1];   /* first ticket of each plane */
  HtQuant q;
  int32_t band;                       /* > 0: keep the history within it */
  uint32_t *ctl;                      /* [0] ticket, [1] done, [2] epoch */
};

__device__ __forceinline__ unsigned long long
ld_relaxed_u64 (const unsigned long long *p)
{
  unsigned long long v;
  asm volatile ("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l" (v) : "l" (p)
      : "memory");
  return v;
}

__device__ __forceinline__ void
st_relaxed_u64 (unsigned long long *p, unsigned long long v)
{
  asm volatile ("st.relaxed.gpu.global.u64 [%0], %1;" : : "l" (p), "l" (v)
      : "memory");
}

/* in | prev << 8 of the lane's pixel x (0 outside). */
__device__ __forceinline__ uint32_t
load_px (const HtPlaneArgs &p, int y, int x, bool active, bool hist)
{
  if (!active || x < 0 || x >= p.width)
    return 0;
  uint32_t v = __ldg (p.src + (size_t) y * p.src_pitch + (size_t) x * p.src_step);
  if (hist)
    v |= (uint32_t) p.hist[(size_t) y * p.hist_pitch + x] << 8;
  return v;
}

template <int KI, int WPB>
struct Strip {
  static constexpr HtKernelDef K = kHtKernels[KI];
  static constexpr int S = ht_shift (K);
  static constexpr bool DEEP = ht_deep (K);
  static constexpr int NA1 = S + 2;       /* row y-1: columns x-2 .. x+S-1 */
  static constexpr int NA2 = 2 * S + 2;   /* row y-2: columns x-2 .. x+2S-1 */
};

/* One warp's 32 rows of block strip `bs`. */
template <int KI, int WPB>
__device__ void
run_warp (const HtArgs &a, const HtPlaneArgs &p, int bs, int w, uint32_t tag,
    int32_t (*ring)[2][kRing], volatile int *prog)
{
  using St = Strip<KI, WPB>;
  constexpr HtKernelDef K = St::K;
  constexpr int S = St::S;
  const int lane = threadIdx.x & 31;
  const int W = p.width, H = p.height;
  const int y0 = (bs * WPB + w) * 32;
  if (y0 >= H)
    return;
  const int y = y0 + lane;
  const bool active = y < H;
  const bool to_ring = w < WPB - 1 && y0 + 32 < H;
  const bool to_global = w == WPB - 1 && y0 + 32 < H;
  const bool from_global = w == 0 && y0 > 0;
  const bool use_hist = a.band > 0 && p.hist != nullptr;
  const bool write_hist = p.hist != nullptr;
  const int u_end = (W + 33 * S + kTile - 1) / kTile * kTile;
  int32_t (*in_ring)[kRing] = ring[w];
  int32_t (*out_ring)[kRing] = ring[(w + 1) % WPB];
  unsigned long long *edge_out = to_global ?
      p.edge + (size_t) (y0 / 32) * p.edge_stride : nullptr;
  const unsigned long long *edge_in = from_global ?
      p.edge + (size_t) (y0 / 32 - 1) * p.edge_stride : nullptr;

  /* chunk c of the rows above into registers (warp 0 only) */
  auto load_chunk = [&] (int c, unsigned long long &g0, unsigned long long &g1) {
    const int x = c * 32 + lane;
    g0 = g1 = (unsigned long long) tag << 32;    /* zero, valid */
    if (from_global && x < W) {
      g0 = ld_relaxed_u64 (edge_in + x);
      g1 = ld_relaxed_u64 (edge_in + p.wp + x);
    }
  };
  auto store_chunk = [&] (int c, unsigned long long g0, unsigned long long g1) {
    const int x = c * 32 + lane;
    /* spin until both words carry this call's tag */
    unsigned ns = 32;
    while (!__all_sync (0xffffffffu, (uint32_t) (g0 >> 32) == tag &&
            (uint32_t) (g1 >> 32) == tag)) {
      __nanosleep (ns);
      ns = ns < 256 ? ns * 2 : ns;
      if ((uint32_t) (g0 >> 32) != tag)
        g0 = ld_relaxed_u64 (edge_in + x);
      if ((uint32_t) (g1 >> 32) != tag)
        g1 = ld_relaxed_u64 (edge_in + p.wp + x);
    }
    in_ring[0][x & (kRing - 1)] = (int32_t) (uint32_t) g0;
    in_ring[1][x & (kRing - 1)] = (int32_t) (uint32_t) g1;
    __syncwarp ();
  };

  int32_t A1[St::NA1], A2[St::NA2];
#pragma unroll
  for (int i = 0; i < St::NA1; i++)
    A1[i] = 0;
#pragma unroll
  for (int i = 0; i < St::NA2; i++)
    A2[i] = 0;
  int32_t p1 = 0, p2 = 0;

  unsigned long long g0, g1;
  if (w == 0) {
    load_chunk (0, g0, g1);
    store_chunk (0, g0, g1);
  }
  uint32_t cur[kTile], nxt[kTile];
#pragma unroll
  for (int i = 0; i < kTile; i++)
    cur[i] = load_px (p, y, i - 2 * S - S * lane, active, use_hist);

  for (int u0 = 0; u0 < u_end; u0 += kTile) {
    const bool more = u0 + kTile < u_end;
    if (w == 0 && more)
      load_chunk (u0 / kTile + 1, g0, g1);
#pragma unroll
    for (int i = 0; i < kTile; i++)
      nxt[i] = more ? load_px (p, y, u0 + kTile + i - 2 * S - S * lane, active,
          use_hist) : 0;
#pragma unroll
    for (int gi = 0; gi < kTile / kGroup; gi++) {
      const int ug = u0 + gi * kGroup;
      if (lane == 0) {
        if (w > 0) {
          const int need = min (ug + kGroup + 32 * S, u_end);
          while (prog[w - 1] < need)
            ;
        }
        if (to_ring) {
          while (prog[w + 1] <= ug + kGroup - 1 - 31 * S - kRing)
            ;
        }
        __threadfence_block ();
      }
      __syncwarp ();
#pragma unroll
      for (int s = 0; s < kGroup; s++) {
        const int u = ug + s;
        const int t = u - 2 * S;
        const int x = t - S * lane;
        const uint32_t word = cur[gi * kGroup + s];
        int32_t c = ht_term<K.div> (p1, K.own[0]);
        if (K.own[1])
          c += ht_term<K.div> (p2, K.own[1]);
#pragma unroll
        for (int i = 0; i < 5; i++) {
          if (K.r1[i])
            c += ht_term<K.div> (A1[4 - i], K.r1[i]);
          if (K.r2[i])
            c += ht_term<K.div> (A2[4 - i], K.r2[i]);
        }
        const int32_t v = (int32_t) ((word & 0xffu) << kHtFrac) + c;
        const uint32_t out = use_hist ? ht_choose (v, a.q, word >> 8, a.band) :
            ht_quantize (v, a.q);
        const bool valid = active && x >= 0 && x < W;
        const int32_t e = valid ? ht_clamp_err (v - (int32_t) (out << kHtFrac)) : 0;
        if (valid) {
          p.dst[(size_t) y * p.dst_pitch + (size_t) x * p.dst_step] = (uint8_t) out;
          if (write_hist)
            p.hist[(size_t) y * p.hist_pitch + x] = (uint8_t) out;
          if (lane >= 30) {
            if (to_ring)
              out_ring[lane - 30][x & (kRing - 1)] = e;
            if (to_global)
              st_relaxed_u64 (edge_out + (size_t) (lane - 30) * p.wp + x,
                  ((unsigned long long) tag << 32) | (uint32_t) e);
          }
        }
        /* hand the error down: lane k-1 -> k (row y-1), k-2 -> k (row y-2);
         * lanes 0 and 1 take the rows above the warp from the ring */
        int32_t up1 = __shfl_up_sync (0xffffffffu, e, 1);
        int32_t up2 = __shfl_up_sync (0xffffffffu, e, 2);
        const int c1 = t + S, c0 = t + 2 * S;
        const int32_t r1v = c1 >= 0 && c1 < W ? in_ring[1][c1 & (kRing - 1)] : 0;
        const int32_t r0v = c0 >= 0 && c0 < W ? in_ring[0][c0 & (kRing - 1)] : 0;
        if (lane == 0) {
          up1 = r1v;
          up2 = r0v;
        } else if (lane == 1) {
          up2 = r1v;
        }
#pragma unroll
        for (int i = 0; i < St::NA1 - 1; i++)
          A1[i] = A1[i + 1];
        A1[St::NA1 - 1] = up1;
        if (St::DEEP) {
#pragma unroll
          for (int i = 0; i < St::NA2 - 1; i++)
            A2[i] = A2[i + 1];
          A2[St::NA2 - 1] = up2;
        }
        p2 = p1;
        p1 = e;
      }
      __syncwarp ();
      if (lane == 0) {
        __threadfence_block ();
        prog[w] = ug + kGroup;
      }
    }
    if (w == 0 && more)
      store_chunk (u0 / kTile + 1, g0, g1);
#pragma unroll
    for (int i = 0; i < kTile; i++)
      cur[i] = nxt[i];
  }
}

template <int KI, int WPB>
__global__ void __launch_bounds__ (WPB * 32)
ht_skss (const HtArgs a)
{
  __shared__ int32_t ring[WPB][2][kRing];
  __shared__ volatile int prog[WPB];
  __shared__ int s_ticket;
  __shared__ uint32_t s_tag;
  if (threadIdx.x == 0)
    s_tag = *(volatile uint32_t *) (a.ctl + 2) + 1;
  const int w = threadIdx.x >> 5;
  const int total = a.cum[a.n_planes];
  for (;;) {
    if (threadIdx.x == 0)
      s_ticket = (int) atomicAdd (a.ctl, 1u);
    if (threadIdx.x < WPB)
      prog[threadIdx.x] = 0;
    __syncthreads ();
    const int t = s_ticket;
    if (t >= total)
      break;
    int pi = 0;
    while (t >= a.cum[pi + 1])
      pi++;
    run_warp<KI, WPB> (a, a.plane[pi], t - a.cum[pi], w, s_tag, ring, prog);
    __syncthreads ();
  }
  if (threadIdx.x == 0) {
    __threadfence ();
    if (atomicAdd (a.ctl + 1, 1u) == gridDim.x - 1) {
      a.ctl[0] = 0;
      a.ctl[1] = 0;
      a.ctl[2] = s_tag;
      __threadfence ();
    }
  }
}

__global__ void
ht_ordered (const HtArgs a)
{
  const HtPlaneArgs &p = a.plane[blockIdx.z];
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height)
    return;
  const uint32_t in = __ldg (p.src + (size_t) y * p.src_pitch +
      (size_t) x * p.src_step);
  const uint8_t out = (uint8_t) ht_ordered (in, ht_bayer8 (x, y), a.q);
  p.dst[(size_t) y * p.dst_pitch + (size_t) x * p.dst_step] = out;
  if (p.hist)
    p.hist[(size_t) y * p.hist_pitch + x] = out;
}

template <int WPB>
Status
launch_skss (HalftoneKernel k, const HtArgs &a, int grid, cudaStream_t stream)
{
  switch (k) {
#define CIP_HT_CASE(e, i)                                                 \
    case HalftoneKernel::e:                                               \
      ht_skss<i, WPB><<<grid, WPB * 32, 0, stream>>> (a);                 \
      break;
    CIP_HT_CASE (floyd_steinberg, 0)
    CIP_HT_CASE (jarvis_judice_ninke, 1)
    CIP_HT_CASE (stucki, 2)
    CIP_HT_CASE (burkes, 3)
    CIP_HT_CASE (sierra, 4)
    CIP_HT_CASE (sierra_lite, 5)
    CIP_HT_CASE (atkinson, 6)
#undef CIP_HT_CASE
  }
  CIP_LAUNCH_CHECK (stream, "ht_skss");
  return Status::ok;
}

int
sm_count ()
{
  int dev = 0, n = 0;
  if (cudaGetDevice (&dev) != cudaSuccess ||
      cudaDeviceGetAttribute (&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    cudaGetLastError ();
    return 16;
  }
  return n;
}

}  // namespace

Status
halftone_workspace_init (void *d_ws, size_t ws_bytes, Stream stream)
{
  if (ws_bytes == 0)
    return Status::ok;
  if (!d_ws)
    return Status::invalid_argument;
  /* control words and every tag: a zero tag is never valid */
  CIP_CUDA_TRY (cudaMemsetAsync (d_ws, 0, ws_bytes, (cudaStream_t) stream));
  return Status::ok;
}

Status
halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params, void *d_ws, size_t ws_bytes, Stream stream,
    HalftoneAlgorithm algo)
{
  if ((int) algo < 0 || (int) algo > (int) HalftoneAlgorithm::single_block)
    return Status::invalid_argument;
  Status st = halftone_validate (planes, n_planes, params, d_ws, ws_bytes);
  if (st != Status::ok)
    return st;
  const cudaStream_t cs = (cudaStream_t) stream;
  HtArgs a = { };
  a.q = ht_quant (params.levels);
  a.band = params.history_valid ?
      halftone_band (params.levels, params.temporal_stability) : 0;
  const bool ordered = params.method == HalftoneMethod::ordered;
  if (algo == HalftoneAlgorithm::automatic)
    algo = HalftoneAlgorithm::skss;
  if (!ordered && algo == HalftoneAlgorithm::wavefront)
    return Status::unsupported;     /* not written yet */
  const int wpb = algo == HalftoneAlgorithm::single_block ? kSingleWarps :
      kSkssWarps;
  const HtLayout lay = halftone_layout (planes, n_planes);
  int max_w = 0, max_h = 0;
  for (int i = 0; i < n_planes; i++) {
    const HalftonePlane &p = planes[i];
    if (halftone_plane_empty (p))
      continue;
    HtPlaneArgs &d = a.plane[a.n_planes];
    d.src = p.src.data;
    d.src_pitch = p.src.pitch;
    d.src_step = p.src.step;
    d.dst = p.dst;
    d.dst_pitch = p.dst_pitch;
    d.dst_step = p.dst_step;
    d.hist = p.history;
    d.hist_pitch = p.history_pitch;
    d.width = p.src.width;
    d.height = p.src.height;
    d.wp = ((size_t) p.src.width + 31) / 32 * 32;
    d.edge_stride = lay.edge_stride[i] / sizeof (unsigned long long);
    d.edge = reinterpret_cast<unsigned long long *> (
        static_cast<uint8_t *> (d_ws) + lay.edge_offset[i]);
    const int rows = 32 * wpb;
    a.cum[a.n_planes + 1] = a.cum[a.n_planes] + (d.height + rows - 1) / rows;
    max_w = max_w > d.width ? max_w : d.width;
    max_h = max_h > d.height ? max_h : d.height;
    a.n_planes++;
  }
  if (a.n_planes == 0)
    return Status::ok;
  if (ordered) {
    const dim3 block (32, 8);
    const dim3 grid ((max_w + 31) / 32, (max_h + 7) / 8, a.n_planes);
    ht_ordered<<<grid, block, 0, cs>>> (a);
    CIP_LAUNCH_CHECK (cs, "ht_ordered");
    return Status::ok;
  }
  if (!d_ws || ws_bytes < lay.total || (uintptr_t) d_ws % 256 != 0)
    return Status::invalid_argument;
  a.ctl = static_cast<uint32_t *> (d_ws);
  if (algo == HalftoneAlgorithm::single_block)
    return launch_skss<kSingleWarps> (params.kernel, a, 1, cs);
  /* every strip can run at once; more blocks would only take empty tickets */
  int grid = a.cum[a.n_planes];
  const int cap = halftone_debug_cap ();
  if (cap > 0 && grid > cap)
    grid = cap;
  (void) sm_count;
  return launch_skss<kSkssWarps> (params.kernel, a, grid, cs);
}

}  // namespace cip
