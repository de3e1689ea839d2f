/* Internals of the integral family shared by integral.cu, integral_ref.cpp,
 * the test and the benchmark. Plain C++: compiles without CUDA. Not part of
 * the public API. */
#pragma once

#include "cip/integral.h"

namespace cip {
namespace detail {

/* Argument checks shared by cip::integral and cip::ref::integral (everything
 * but the workspace): invalid_argument for bad views, types, destinations or
 * pitches. Returns ok for a valid request, including empty ones. */
Status integral_check_args (const ImageView &src, SatType type,
    const SatDest &dst);

/* Largest width or height the GPU path serves (Status::unsupported above).
 * Column sums of squares of a whole column stay below 2^32 up to this height. */
constexpr int kSatMaxSide = 65535;

/* Largest width or height SatAlgorithm::tiled serves. */
constexpr int kSatTiledMaxSide = 16384;

/* The algorithm integral() runs for this request: automatic resolved by
 * integral_pick, and requests an algorithm does not serve (single_pass on
 * 16-bit samples; tiled on 16-bit samples, a step other than 1, 2 or 4, a squared
 * SAT, a destination not 16-byte aligned in address and pitch, or a side
 * above kSatTiledMaxSide) moved to multi_pass. */
SatAlgorithm sat_resolve (const ImageView &src, SatType type,
    const SatDest &dst, SatAlgorithm algo);

/* Tuning knobs of the GPU kernels, for benchmarks sweeping them (0 = the
 * built-in default for the size). Process-wide, not thread-safe: set before
 * sizing workspaces and launching. */
struct SatTuning {
  int th_single = 0;     /* rows per strip, single_pass (multiple of 4, 4..128) */
  int th_multi = 0;      /* rows per strip, multi_pass (multiple of 4, 4..128) */
  int lookback = 0;      /* aggregates summed before waiting on a prefix (1..1024) */
  int max_threads = 0;   /* threads per block cap: 128, 256 or 512 */
  int th_tiled = 0;      /* rows per tile, tiled (16 or 32) */
  int tiled_plain = 0;   /* tiled: 1 stores the table with plain stores instead
                            of streaming ones (st.global.cs) */
  int tiled_ungrouped = 0;  /* tiled: 1 keeps three launches where the grouped
                               two serve (16-row tiles, <= 8192 columns),
                               with the ungrouped tile height (32 rows above
                               9 M pixels) unless th_tiled sets it */
  int tiled_l2 = 0;      /* tiled: whether the first pass keeps the input in L2
                            for the output pass: 0 where it takes at most 3/2
                            of L2, 1 never, 2 always */
};
void sat_set_tuning (const SatTuning &t);
SatTuning sat_get_tuning ();

/* The launch configuration integral() uses for this request. */
struct SatConfig {
  SatAlgorithm algo = SatAlgorithm::single_pass;  /* resolved, never automatic */
  int threads = 0;       /* threads per block: 16 columns per thread */
  int th = 0;            /* rows per strip (tiled: per tile) */
  int strips = 0;        /* blocks of the strip kernels (tiled: tile rows) */
  int segments = 0;      /* column segments of 16 * threads columns per strip
                            (tiled: tile columns) */
  int lookback = 0;
  bool grouped = false;  /* tiled: two launches (the grouped first pass) */
};
SatConfig sat_config (int width, int height, SatType type, bool squared,
    SatAlgorithm algo);

/* The tile tables of SatAlgorithm::tiled, for kernels of other families that
 * consume them instead of a table (the box filter's fused algorithm). The
 * image is cut into tiles of 128 columns x th rows (ntx x nty of them); after
 * sat_tiled_tables(), without groups (gcol null):
 *   col[ty * colp + x] = sum of src(x, y) over y < ty * th   (u32, colp = 128 ntx)
 *   row[tx * rowp + y] = sum of src(x, y) over x < 128 tx    (u32, rowp = th nty)
 *   tot[ty * ntx + tx] = sum over tile column tx, rows < ty * th
 * grouped (gcol set: 16-row tiles, ntx <= 64; one launch instead of two),
 * with g = ty / 16 and the group's first tile row g0 = 16 g:
 *   col[ty * colp + x] = sum of src(x, y) over g0 * th <= y < ty * th
 *   gcol[g * colp + x] = sum of src(x, y) over the group's rows
 *   row[tx * rowp + y] = sum of src(x, y) over 128 tx <= x < 128 (tx + 1)
 *   tot, gtot: the same for the tile columns' totals
 * where col, gcol and row hold 16-bit elements at those indices (they fit:
 * below; read and written through sat_col16_load, sat_col16_store and
 * sat_row16) and tot, gtot u32 (sums modulo 2^32). */
struct SatTiles {
  const uint8_t *src = nullptr;
  size_t src_pitch = 0;
  int width = 0, height = 0;
  int step = 1;               /* bytes between samples: 1, 2 (a channel
                                 of two interleaved, NV12's U or V) or 4
                                 (a channel of RGBA and the like) */
  int par = 0;                /* src's address modulo the step */
  bool aligned_in = false;    /* src - par and pitch multiples of 4 * step */
  int th = 0;
  int ntx = 0, nty = 0;       /* tiles across, down */
  size_t colp = 0, rowp = 0;  /* elements a row of col[] and of row[] */
  uint32_t *col = nullptr;    /* grouped: 16-bit sums (sat_col16_load) */
  uint32_t *row = nullptr;    /* grouped: 16-bit sums (sat_row16) */
  uint32_t *tot = nullptr;
  uint32_t *gcol = nullptr, *gtot = nullptr;  /* grouped (above; gcol in
                                                 16 bits) */
  bool keep_in_l2 = false;    /* the input stays in L2 for the output pass */
};

/* Grouped tables: tile rows a group, tile columns at most. */
constexpr int kSatTiledGroupRows = 16;
constexpr int kSatTiledGroupMaxTx = 64;

#ifdef __CUDACC__
/* Grouped tables in 16 bits. row[] holds each tile row's sum (at most
 * 128 x 255 = 32640), row16[tx * rowp + y]; col[] the column sums over the
 * group's tiles above (at most 15 x 16 x 255) and gcol[] over the group's
 * tiles (at most 65280), 4 to a lane as one 8-byte word. The output pass
 * gathers every tile's tables to its left and above: half the bytes of
 * 32-bit sums (round 32). Ungrouped, row[] and col[] hold 32-bit sums
 * scanned across the tiles. */
__device__ __forceinline__ uint16_t *
sat_row16 (const SatTiles &t)
{
  return reinterpret_cast<uint16_t *> (t.row);
}

/* Row k's 4 column sums from column x (a multiple of 4) of a grouped col[]
 * or gcol[] of row pitch colp. */
__device__ __forceinline__ uint4
sat_col16_load (const uint32_t *tab, size_t colp, size_t k, int x)
{
  const uint2 q = __ldcg (reinterpret_cast<const uint2 *> (
          reinterpret_cast<const uint16_t *> (tab) + k * colp + x));
  return make_uint4 (q.x & 0xffffu, q.x >> 16, q.y & 0xffffu, q.y >> 16);
}

__device__ __forceinline__ void
sat_col16_store (uint32_t *tab, size_t colp, size_t k, int x, const uint4 &v)
{
  __stcg (reinterpret_cast<uint2 *> (reinterpret_cast<uint16_t *> (tab) +
          k * colp + x), make_uint2 (v.x | (v.y << 16), v.z | (v.w << 16)));
}
#endif

/* Whether sat_tiled_tables() serves src: 8-bit samples, step 1, 2 or 4, sides
 * 1 .. kSatTiledMaxSide. */
bool sat_tiled_serves (const ImageView &src);

/* The tables of SatAlgorithm::tiled before its output pass: the tile sums
 * and their scans in two launches, or grouped in one where tiled itself runs
 * grouped (16-row tiles, up to 8192 columns; SatTuning::tiled_ungrouped
 * keeps the two), of src into d_ws (>= integral_workspace_bytes (w, h, u32,
 * false), prepared by integral_workspace_init), asynchronous on stream;
 * *out describes the tables; allow_grouped false: never grouped, and then
 * with the ungrouped tile height unless SatTuning::th_tiled sets it. The first
 * launch waits for the kernel ahead of it (PDL between calls,
 * detail/launch.cuh). The kernel launched next on stream may use
 * programmatic dependent launch: it may read src before its
 * griddepcontrol.wait, and must wait before reading the tables.
 * unsupported when !sat_tiled_serves (src). */
Status sat_tiled_tables (const ImageView &src, void *d_ws, size_t ws_bytes,
    Stream stream, SatTiles *out, bool allow_grouped = true);

}  // namespace detail
}  // namespace cip
