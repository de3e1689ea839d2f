/* cip histogram: histograms of up to four planes or channels in one launch,
 * of 8-bit views or of 10- to 16-bit views (ImageView's bytes/depth/shift).
 *
 * Bins: `bins` from 2 to kHistogramMaxBins (65536), any integer, spread
 * evenly over each input's value range range_min .. range_max (inclusive,
 * the view's own values; by default 0 .. view.max_value ()). With
 * span = range_max - range_min + 1, a value v is counted in
 *     bin = floor((v - range_min) * bins / span)      (range_min <= v <= range_max)
 * and values outside the range are not counted. Bin b so holds the values
 *     range_min + ceil(b * span / bins) .. range_min + ceil((b + 1) * span / bins) - 1
 * which is ceil or floor of span / bins values when bins does not divide
 * span (e.g. 3 bins over 0..9: {0..3}, {4..6}, {7..9}), and none at all when
 * bins > span leaves gaps. This is CUB's DeviceHistogram::HistogramEven with
 * levels range_min and range_max + 1. For 8-bit inputs over 0..255 and a
 * power-of-two `bins` <= 256 it reduces to
 *     bin = v >> (8 - log2(bins))    (256 bins: bin = v; 2 bins: v < 128, v >= 128)
 * which is the fast 8-bit path (below).
 *
 * Inputs (HistInput): a view and what to count in it.
 * - HistSource::plane counts the values of the view: a planar plane (step =
 *   bytes per sample), or one channel of a packed plane given as a view
 *   with a larger step whose data points at that channel's first sample
 *   (e.g. R, G and B of RGBA are three views with step 4 and data = base +
 *   0, + 1, + 2; U and V of P010 two 16-bit views with step 4 and data =
 *   base + 0, + 2). 16-bit views count (sample >> shift) & max_value (): the
 *   bits outside the value (P010's low six) are ignored.
 * - HistSource::luma_rgb / luma_bgr (8-bit views only) count the Rec.709
 *   luma of packed RGB pixels, computed on the fly. view.data points at the
 *   first of three consecutive colour bytes, R,G,B (luma_rgb) or B,G,R
 *   (luma_bgr); step is the pixel size (>= 3, 4 for RGBx/BGRx/xRGB/xBGR:
 *   xRGB and xBGR pass base + 1). The formula, exact and the same on the CPU
 *   and the GPU, is full-range BT.709 with 16-bit weights summing to 65536:
 *     Y = (13933 * R + 46871 * G + 4732 * B + 32768) >> 16     (0..255)
 *   so grey (R = G = B = v) gives Y = v. See luma709().
 * A region of interest is a crop of the view (ImageView::crop): any pointer
 * alignment (2 bytes for 16-bit views) and any pitch is accepted.
 *
 * Output: `count` histograms of `bins` uint32 counts each, histogram i at
 * hist[i * bins] (device memory for histogram(), host memory for the
 * reference). A frame may hold at most kHistogramMaxPixels pixels per input,
 * so that one frame's counts are exact. With accumulate = false the output is
 * overwritten (an empty input gives zeros); with accumulate = true the
 * frame's counts are added to it, wrapping modulo 2^32 (the caller bounds the
 * number of accumulated frames).
 *
 * Several 8-bit inputs that are channels of the same packed frame (same
 * size, step and pitch, data within one pixel) are read once for all of them.
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
constexpr int kHistogramMaxBins = 65536;
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
  /* The counted values, inclusive, in the view's values: 0 <= range_min <=
   * range_max <= view.max_value () (255 for luma); range_max < 0 means
   * view.max_value (). */
  int32_t range_min = 0;
  int32_t range_max = -1;
};

/* The range of `in` with the defaults resolved: *lo .. *hi. */
void histogram_range (const HistInput &in, uint32_t *lo, uint32_t *hi);

/* The fast 8-bit path (8-bit inputs over 0..255, power-of-two bins <= 256).
 * All variants privatize per thread block in shared memory, read 16-byte
 * vectors where the layout allows and merge once per block, into an
 * accumulator that the last block (by a block-done ticket) moves to the
 * output, or straight into the output (the automatic shapes: the first block
 * to arrive zeroes it); either way a call is one launch.
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
 *   fit in the device's shared memory. See histogram_pick().
 *
 * The general path (any other call: 16-bit views, a range, bins that are
 * not a power of two or above 256), one launch too, reads 16-byte vectors
 * of planar views (any other step sample by sample) and maps values to bins
 * by an exact multiply-high division:
 * packed16: per block, C copies of the histogram in shared memory with two
 *   16-bit sub-counters per 32-bit word (Ross's packed atomics), warp w
 *   counting into copy w % C; C = as many copies (a power of two, <= the
 *   warps of a block) as fit on chip. A sub-counter overflow (detected
 *   from the value the atomic returns, as in the 8-bit path) is carried
 *   straight into the 32-bit accumulator in global memory, so the wide bins
 *   take no shared memory: 65536 bins fit in 128 KiB (sm_80 and later).
 * warp_aggregated: when even one packed copy does not fit (or on request):
 *   no privatization; lanes of a warp holding the same bin are grouped
 *   (__match_any_sync) and one global atomic per group goes to the
 *   accumulator (L2-resident for every bin count: 4 * 65536 * 4 bytes).
 * automatic: packed16 where one copy fits, else warp_aggregated.
 * replicated and packed8 are 8-bit-path variants: a general-path call with
 * them returns unsupported. */
enum class HistAlgorithm { automatic, replicated, packed16, packed8, warp_aggregated };

const char *hist_algorithm_name (HistAlgorithm a);

/* The variant HistAlgorithm::automatic runs for this input when it is read on
 * its own (defined in CPU-only builds too; for the general path, the variant
 * when the device's shared memory holds a packed copy). */
HistAlgorithm histogram_pick (const HistInput &input, int bins);

/* True when a call with these inputs and bins takes the fast 8-bit path. */
bool histogram_is_8bit_path (const HistInput *inputs, int count, int bins);

/* Bytes of device scratch histogram() needs for `count` inputs of `bins` bins.
 * A workspace of histogram_workspace_bytes(kHistogramMaxInputs,
 * kHistogramMaxBins) bytes (1 MiB) serves every call. */
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

/* Testing and tuning only: launch shapes of the fast 8-bit path, compared
 * side by side by bench/histogram. A shape sets
 * - the launch: block size, grid (smallest work per warp, resident blocks
 *   per SM);
 * - two code variants of the replicated counters (ignored by the others):
 *   `pf`, loads of a warp's next item issued before its current item is
 *   counted; `b8`, 256-bin byte extraction with one byte permute;
 * - the merge: `direct` adds each block's counts straight into the output
 *   (two workspace header words order the zeroing) instead of into an
 *   accumulator that the last block moves to the output.
 * Shape 0 is the launch of earlier releases. Every call runs the shape
 * detail::histogram_pick_shape() picks for its size unless
 * histogram_debug_shape(k) forces shape k on every later call in this
 * process (-1: back to the pick). Every shape counts exactly. */
int histogram_debug_shape_count ();
/* Name of shape k ("base", "pf+b8", "t256+pf+b8", ...), or nullptr. */
const char *histogram_debug_shape_name (int k);
void histogram_debug_shape (int k);

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
 * Planes may be in any order and must not overlap; count 1..4, bins 2 ..
 * kHistDrawMaxBins (any count values; the counts sit in each block's shared
 * memory). */
constexpr int kHistDrawMaxPlanes = 4;
constexpr int kHistDrawMaxBins = 256;

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
