/* cip integral: summed area tables (integral images) of 8-bit planes and of
 * 16-bit ones (ImageView bytes 2, any depth: sums of the values, e.g. of
 * P010's 10-bit values, not of the raw words).
 *
 * Layout is OpenCV's cv::integral / NPP's nppiIntegral: exclusive, (W+1) x (H+1)
 * elements, first row and first column zero:
 *   sum(x, y) = sum of src(i, j) for i < x, j < y      (0 <= x <= W, 0 <= y <= H)
 * so the sum over the rectangle [x0, x1) x [y0, y1) is
 *   sum(x1, y1) - sum(x0, y1) - sum(x1, y0) + sum(x0, y0).
 *
 * SatType::u32 wraps modulo 2^32. Because the rectangle formula is a ring
 * identity, every rectangle sum below 2^32 (any rectangle of up to 16,843,009
 * pixels) is still exact at any frame size when evaluated in uint32_t.
 * SatType::u64 gives exact absolute values. The optional squared SAT (sum of
 * src^2) is always u64 (exact for 16-bit values too: 65535^4 < 2^64). With
 * 16-bit values a u32 rectangle sum is exact below 2^32, i.e. for up to
 * 65,537 pixels of any value.
 *
 * Example (2x2 image {1,2;3,4}, u32):
 *   sum = { 0,0,0,  0,1,3,  0,4,10 }   (3x3, row-major)
 */
#pragma once

#include "cip/cip.h"

namespace cip {

enum class SatType { u32, u64 };

/* single_pass: one kernel, strips claimed through a global ticket, decoupled
 * look-back through per-strip flags (1R1W). multi_pass: strip aggregates,
 * their column scan, then the strip SATs (2R1W, three launches).
 * tiled: 128 x 16 or 128 x 32 tiles, one warp each: tile row and column
 * sums, their scans, then the tiles' SATs (2R1W, three launches; two up to
 * 8192 columns, with 16-row tiles, where the first pass scans groups of
 * tiles and the last sums the groups); 8-bit samples with step 1, 2 (a
 * channel of two interleaved, as NV12's U and V) or 4 (a channel of packed
 * 4-byte pixels, as RGBA's), no squared SAT, a destination of 16-byte
 * aligned address and pitch, sides up to 16384 (other requests for it run
 * multi_pass). Where the plane takes at most 3/2 of the device's L2
 * (sm_80 on), its first pass reads it with an evict_last L2 policy and its
 * last pass evict_first, so that the second read comes from L2.
 * automatic: the faster one for the size and table type, as measured by
 * bench/integral.
 * 16-bit views run multi_pass's kernels on 16-bit samples; single_pass is
 * 8-bit only (a 16-bit request for it runs multi_pass). */
enum class SatAlgorithm { automatic, single_pass, multi_pass, tiled };

const char *sat_algorithm_name (SatAlgorithm a);

struct SatDest {
  void *sum = nullptr;         /* (W+1) x (H+1) elements of SatType */
  size_t sum_pitch = 0;        /* bytes, multiple of the element size */
  uint64_t *sqsum = nullptr;   /* optional: (W+1) x (H+1) uint64 sums of squares */
  size_t sqsum_pitch = 0;      /* bytes, multiple of 8 */
};

/* Bytes of device scratch integral() needs for this size (for any sample
 * layout). */
size_t integral_workspace_bytes (int width, int height, SatType type,
    bool squared);

/* Zeroes a freshly allocated workspace (once; asynchronous). integral() leaves
 * the workspace ready for the next call on success; after a failed call,
 * initialize it again. A workspace serves one call at a time: calls that
 * share one must be ordered (e.g. issued on one stream). */
Status integral_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* The algorithm SatAlgorithm::automatic picks for this size and table type
 * (a request that algorithm does not serve, e.g. 16-bit samples or a squared
 * SAT for tiled, runs multi_pass). */
SatAlgorithm integral_pick (int width, int height, SatType type);

/* Computes the SAT (and optionally the squared SAT) of src on the GPU.
 * src: device view (step 1, or any step for a channel of a packed plane).
 * dst.sum / dst.sqsum: device memory, must not overlap src or each other.
 * Asynchronous on stream. */
Status integral (const ImageView &src, SatType type, const SatDest &dst,
    void *d_ws, size_t ws_bytes, Stream stream,
    SatAlgorithm algo = SatAlgorithm::automatic);

namespace ref {
/* CPU reference: same layout and wrap-around, host pointers. */
Status integral (const ImageView &src, SatType type, const SatDest &dst);
}  // namespace ref

}  // namespace cip
