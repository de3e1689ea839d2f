/* cip histogram: 8-bit histograms of up to four planes or channels in one
 * launch.
 *
 * Bins: `bins` is a power of two from 2 to 256 and 8-bit values map evenly,
 *   bin = v >> (8 - log2(bins))      (256 bins: bin = v; 2 bins: v < 128, v >= 128)
 *
 * Inputs (HistInput): a view and what to count in it.
 * - HistSource::plane counts the samples of the view: a planar 8-bit plane
 *   (step 1), or one channel of a packed plane given as a view with step 2/4
 *   whose data points at that channel's byte (e.g. R, G and B of RGBA are
 *   three views with step 4 and data = base + 0, + 1, + 2).
 * - HistSource::luma_rgb / luma_bgr count the Rec.709 luma of packed RGB
 *   pixels, computed on the fly. view.data points at the first of three
 *   consecutive colour bytes, R,G,B (luma_rgb) or B,G,R (luma_bgr); step is
 *   the pixel size (>= 3, 4 for RGBx/BGRx/xRGB/xBGR: xRGB and xBGR pass
 *   base + 1). The formula, exact and the same on the CPU and the GPU, is
 *   full-range BT.709 with 16-bit weights summing to 65536:
 *     Y = (13933 * R + 46871 * G + 4732 * B + 32768) >> 16     (0..255)
 *   so grey (R = G = B = v) gives Y = v. See luma709().
 * A region of interest is a crop of the view (ImageView::crop): any pointer
 * alignment and any pitch is accepted.
 *
 * Output: `count` histograms of `bins` uint32 counts each, histogram i at
 * hist[i * bins] (device memory for histogram(), host memory for the
 * reference). A frame may hold at most kHistogramMaxPixels pixels per input,
 * so that one frame's counts are exact. With accumulate = false the output is
 * overwritten (an empty input gives zeros); with accumulate = true the
 * frame's counts are added to it, wrapping modulo 2^32 (the caller bounds the
 * number of accumulated frames).
 *
 * Several inputs that are channels of the same packed frame (same size, step
 * and pitch, data within one pixel) are read once for all of them.
 *
 * Example: R, G, B and luma of an RGBA frame `f` (step 4), 256 bins:
 *   HistInput in[4] = { {f.crop(..), plane}, ... };   // data = base+0/1/2
 *   in[3].view = rgba; in[3].source = HistSource::luma_rgb;
 *   histogram(in, 4, 256, d_hist, false, d_ws, ws_bytes, stream);
 */
#pragma once

#include "cip/cip.h"

namespace cip {

constexpr int kHistogramMaxInputs = 4;
constexpr int kHistogramMaxBins = 256;
/* Pixels of one input in one call. */
constexpr uint64_t kHistogramMaxPixels = 0xFFFFFFFFull;

/* BT.709 luma weights (x 65536) used by HistSource::luma_rgb / luma_bgr. */
constexpr uint32_t kLuma709R = 13933;
constexpr uint32_t kLuma709G = 46871;
constexpr uint32_t kLuma709B = 4732;

constexpr uint8_t
luma709 (uint8_t r, uint8_t g, uint8_t b)
{
  return (uint8_t) ((kLuma709R * r + kLuma709G * g + kLuma709B * b + 32768u) >> 16);
}

enum class HistSource { plane, luma_rgb, luma_bgr };

struct HistInput {
  ImageView view;
  HistSource source = HistSource::plane;
};

/* All variants privatize per thread block in shared memory, read 16-byte
 * vectors where the layout allows and merge once per block; a block-done
 * ticket lets the last block write the output, so a call is one launch.
 * replicated: 32-bit bins, one copy per warp lane (bank-conflict-free for any
 *   data, constant frames included).
 * packed16 / packed8: the same per-lane copies with two 16-bit or four 8-bit
 *   bins per 32-bit word (Ross); a sub-counter overflow is detected from the
 *   value the atomic returns and carried into a 32-bit per-block bin.
 * warp_aggregated: one 32-bit copy per block; lanes holding the same bin are
 *   grouped (__match_any_sync) and one of them adds the group's count.
 * automatic: chosen per input (or group of channels read together); today
 *   replicated, the fastest at every size and content measured on an H200
 *   (bench/histogram), or packed16 where a group's replicated copies do not
 *   fit in the device's shared memory. See histogram_pick(). */
enum class HistAlgorithm { automatic, replicated, packed16, packed8, warp_aggregated };

const char *hist_algorithm_name (HistAlgorithm a);

/* The variant HistAlgorithm::automatic runs for this input when it is read on
 * its own (defined in CPU-only builds too). */
HistAlgorithm histogram_pick (const HistInput &input, int bins);

/* Bytes of device scratch histogram() needs for `count` inputs of `bins` bins.
 * A workspace of histogram_workspace_bytes(kHistogramMaxInputs,
 * kHistogramMaxBins) bytes serves every call. */
size_t histogram_workspace_bytes (int count, int bins);

/* Zeroes a freshly allocated workspace (once; asynchronous). histogram()
 * leaves it ready for the next call; after a failed call or a call whose
 * kernel faulted, initialize it again. One workspace must not be used by two
 * calls in flight at once (different streams need different workspaces). */
Status histogram_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* Computes `count` (1..kHistogramMaxInputs) histograms of `bins` bins into
 * d_hist (device, count * bins uint32, 4-byte aligned, not overlapping the
 * inputs or the workspace) in one launch on `stream`. Input views are device
 * memory. Asynchronous. */
Status histogram (const HistInput *inputs, int count, int bins,
    uint32_t *d_hist, bool accumulate, void *d_ws, size_t ws_bytes,
    Stream stream, HistAlgorithm algo = HistAlgorithm::automatic);

/* Testing and tuning only: caps the grid of every later histogram() launch
 * in this process at n blocks (at least one per group of inputs); 0, the
 * default, removes the cap. Few blocks make the packed sub-counters overflow
 * often, which is how the tests reach the carry path. */
void histogram_debug_max_blocks (int n);

/* ---- drawing: histograms as a bar chart painted into a frame ------------
 *
 * histogram_draw() paints `count` histograms of `bins` counts (histogram i at
 * hist[i * bins], as histogram() writes them) as a bar chart into a
 * rectangle of a frame, in place, one 8-bit component at a time: a
 * HistDrawPlane is the rectangle's samples in one component (a subsampled
 * chroma plane has its own, smaller rectangle) and the values painted there.
 * In a plane of W x H samples:
 * - the histograms are stacked in bands: histogram i covers the rows
 *   [i * H / count, (i + 1) * H / count) (integer division), Hb rows;
 * - bin b covers the columns x with x * bins / W == b;
 * - with m the largest count of histogram i, the sample in row r of the band
 *   (0 = top) belongs to bin b's bar when
 *     count_b * Hb > (Hb - 1 - r) * m                (64-bit)
 *   so bars grow from the bottom, are ceil(count_b * Hb / m) rows high, the
 *   fullest bin fills the band, any non-empty bin shows at least one row and
 *   m = 0 draws no bar; bar samples become bar[i] (solid);
 * - every other sample of the rectangle is blended towards `background`:
 *     s' = (s * (256 - alpha) + background * alpha + 128) >> 8
 *   alpha 0..256 (0: the frame shows unchanged, 256: a solid background).
 * Planes may be in any order and must not overlap; count 1..4, bins as for
 * histogram() (any count values). */
constexpr int kHistDrawMaxPlanes = 4;

struct HistDrawPlane {
  uint8_t *data = nullptr;      /* first sample of the rectangle (written) */
  size_t pitch = 0;             /* bytes between rows */
  int width = 0;                /* samples per row */
  int height = 0;               /* rows */
  int step = 1;                 /* bytes between samples in a row */
  uint8_t bar[kHistogramMaxInputs] = {};  /* value of histogram i's bars */
  uint8_t background = 0;       /* value the background is blended towards */
};

/* Paints the chart on the GPU: d_hist and the planes are device memory; one
 * launch on `stream`, asynchronous. */
Status histogram_draw (const uint32_t *d_hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha, Stream stream);

namespace ref {
/* CPU reference: same arguments and results, host pointers. */
Status histogram (const HistInput *inputs, int count, int bins,
    uint32_t *hist, bool accumulate);
/* CPU reference of histogram_draw(): host pointers, identical pixels. */
Status histogram_draw (const uint32_t *hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha);
}  // namespace ref

}  // namespace cip
