/* cip equalize: histogram equalization of 8-bit luma, global or CLAHE, with
 * temporal smoothing, a strength blend, a histogram region (ROI) and reuse of
 * an upstream histogram. One call does histogram -> (smoothing) -> LUT ->
 * apply; the LUTs it applied can be written to a caller buffer.
 *
 * High bit depth (EqConfig::depth 9..16, gray layout, global or CLAHE): the
 * frame's samples are 16-bit little-endian words holding a depth-bit value at
 * bit EqConfig::shift (P010: depth 10, shift 6; I420_10LE: 10, 0; 16-bit
 * formats: 16, 0; the other bits are ignored on input and written as zero).
 * Everything below holds with B = 2^depth bins and values 0..M, M = B - 1, in
 * place of 256 and 255, and the LUTs hold B uint16 entries (little-endian)
 * per table:
 * - global: scale = (float) M / (float) (total - h[i0]), entries saturate to
 *   0..M (equalizeHist's formula with B bins);
 * - CLAHE: OpenCV's CV_16U CLAHE (histSize = 65536) with histSize = B:
 *   clip = max ((int) (clip_limit * area / B), 1), the excess spread as E / B
 *   to every bin and E % B as +1 to bins 0, s, 2s, ... (s = max (B / r, 1)),
 *   lut[v] = saturate ((float) cum[v] * ((float) M / (float) area)) and the
 *   interpolated output saturated to 0..M (saturate_cast<ushort> at 16 bits).
 *   At depth 8 these are exactly the 8-bit formulas below.
 * On the GPU a global call is four launches (cip::histogram's general path,
 * the LUT, the apply), a CLAHE call three (tile histograms, LUTs, apply).
 *
 * Layouts (EqLayout):
 * - gray: one 8-bit plane (GRAY8, or the Y plane of any YUV frame; the caller
 *   leaves the chroma planes alone).
 * - rgbx / bgrx / xrgb / xbgr: packed 4-byte pixels, colour bytes at offsets
 *   R,G,B = 0,1,2 (rgbx = RGBA/RGBx), 2,1,0 (bgrx = BGRA/BGRx), 1,2,3 (xrgb),
 *   3,2,1 (xbgr). The fourth byte is copied unchanged. Pointers and pitches
 *   must be multiples of 4.
 *   rgb_mode luma (default): Y = cip::luma709(R,G,B) (histogram.h), the LUT
 *     maps Y to Y', and every colour byte gets the same offset:
 *       C' = clamp(C + (Y' - Y), 0, 255)        (C = R, G, B)
 *     An equal offset on R, G and B leaves the colour differences (and so
 *     BT.709 Cb/Cr, which are linear in R-Y and B-Y) unchanged until a byte
 *     clamps; grey stays grey. Histograms and LUTs are of Y.
 *   rgb_mode per_channel: R, G and B are each equalized with their own
 *     histogram and LUT (hues shift; this is what equalizing each plane
 *     with cv::equalizeHist gives).
 *
 * Global mode (the default), per LUT, from a 256-bin histogram h with
 * total = sum h, exactly OpenCV's cv::equalizeHist (EqualizeHistLut_Invoker /
 * equalizeHist in modules/imgproc/src/histogram.cpp):
 *   i0 = first bin with h[i0] > 0;
 *   if total == 0 or h[i0] == total: lut[v] = v (identity: a constant frame
 *     keeps its value, which is OpenCV's setTo(i0));
 *   else scale = 255.f / (float) (total - h[i0]);
 *        lut[v] = 0 for v <= i0,
 *        lut[v] = saturate_cast<uchar>((float) (cum[v] - h[i0]) * scale)
 *        for v > i0, cum[v] = h[0] + ... + h[v]; float product rounded to
 *        nearest even, as cvRound.
 *   The histogram is of the ROI (roi_* of EqConfig; whole frame by default);
 *   the LUT is applied to the whole frame.
 * CLAHE mode, OpenCV's cv::createCLAHE(clip_limit, Size(tiles_x, tiles_y))
 * ->apply() (modules/imgproc/src/clahe.cpp): when width % tiles_x or
 * height % tiles_y is not 0, the histograms see the frame padded at the right
 * by tiles_x - width % tiles_x columns and at the bottom by
 * tiles_y - height % tiles_y rows (both, as OpenCV does), BORDER_REFLECT_101;
 * tile = padded size / tiles; area = tile_w * tile_h;
 *   clip = clip_limit > 0 ? max((int) (clip_limit * area / 256), 1) : none;
 *   bins above clip are cut to clip, the excess E spread as E / 256 to every
 *   bin and the remainder r = E % 256 as +1 to bins 0, s, 2s, ... (r of them,
 *   s = max(256 / r, 1));
 *   lut[v] = saturate_cast<uchar>((float) cum[v] * (255.f / (float) area));
 *   out = saturate_cast<uchar>((L11 * xa1 + L12 * xa) * ya1 + (L21 * xa1 +
 *   L22 * xa) * ya) with the float weights of CLAHE_Interpolation_Body
 *   (txf = x * (1.f / tile_w) - 0.5f, ...), evaluated in that order.
 *   The ROI must be the whole frame in CLAHE mode.
 *
 * Smoothing (0 <= smoothing <= 1): the histograms (per tile in CLAHE, before
 *   clipping) are an exponential moving average over frames, kept in a
 *   caller-owned state (EqState) of 64-bit fixed-point bins S (8 fraction bits):
 *     a = max(1, round((1 - smoothing) * 65536)),  d = (h << 8) - S,
 *     S += d * a / 65536 (rounded half away from zero; at least +-1 while
 *     d != 0), or S = h << 8 when the state is not valid (first frame);
 *   the LUT is built from hs[v] = (S[v] + 128) >> 8, total = sum hs. On a
 *   static input S reaches h << 8 exactly in finitely many frames, and the
 *   output is then the per-frame result. smoothing 0 gives the per-frame
 *   result at once (and still updates the state).
 * Strength (0..1): s = round(strength * 256) folded into every LUT:
 *   lut'[v] = (v * (256 - s) + lut[v] * s + 128) >> 8
 *   (s = 0: identity, s = 256: lut). In CLAHE the tile LUTs are blended
 *   before interpolation.
 *
 * Outputs: the frame is written to dst (dst == src with the same pitch is
 * in-place; otherwise the two must not overlap). lut_out, optional, receives
 * the applied LUTs (after smoothing and strength), equalize_lut_bytes():
 * per tile (row-major, 1 tile in global mode) per channel (1, or R, G, B in
 * per_channel mode) 256 bytes: lut_out[((tile * nch) + ch) * 256 + v].
 *
 * GPU: equalize() is two launches at depth 8 (histograms + LUTs in one, the
 * last block of each tile building its LUT; then the apply), no host round
 * trip. equalize_from_histogram() skips the histogram pass (one small launch
 * builds the LUTs, then the apply). CLAHE above depth 8: tile histograms of
 * up to 65536 bins do not fit shared memory, so they are counted in chunks
 * of at most 16384 bins (one block per tile, band of rows and chunk, in
 * shared memory) and added to per-tile counts in the workspace; one block
 * per tile then builds the LUT (and zeroes the counts); then the apply.
 */
#pragma once

#include "cip/cip.h"

namespace cip {

enum class EqMode { global, clahe };
enum class EqLayout { gray, rgbx, bgrx, xrgb, xbgr };
enum class EqRgbMode { luma, per_channel };

constexpr int kEqMaxTiles = 64;         /* per direction */
constexpr int kEqBins = 256;            /* bins and LUT entries at depth 8 */
constexpr int kEqMaxDepth = 16;

struct EqConfig {
  EqMode mode = EqMode::global;
  EqLayout layout = EqLayout::gray;
  EqRgbMode rgb_mode = EqRgbMode::luma;
  int tiles_x = 8, tiles_y = 8;         /* CLAHE grid, 1 .. kEqMaxTiles */
  double clip_limit = 40.0;             /* CLAHE; <= 0: no clipping */
  double smoothing = 0.0;               /* 0 .. 1 (needs an EqState) */
  double strength = 1.0;                /* 0 .. 1 */
  /* Global mode: the region whose histogram drives the LUT; width = height
   * = 0 means the whole frame. Must lie inside the frame. */
  int roi_x = 0, roi_y = 0, roi_width = 0, roi_height = 0;
  /* Gray frames: significant bits of a sample (8: bytes; 9..16: 16-bit words
   * holding the value at bit `shift`). */
  int depth = 8;
  int shift = 0;
};

/* One frame: width x height pixels (1 or 4 bytes each, see EqLayout; 2 for
 * gray frames of depth > 8). */
struct EqFrame {
  const uint8_t *src = nullptr;
  size_t src_pitch = 0;
  uint8_t *dst = nullptr;
  size_t dst_pitch = 0;
  int width = 0, height = 0;
};

/* Temporal smoothing state, owned by the caller (device memory for the GPU,
 * host memory for the reference), equalize_state_bytes() bytes, 8-byte
 * aligned. valid = false on the first frame and after a flush or a change of
 * caps/config: that frame's own histograms are used. A successful call sets
 * valid = true. */
struct EqState {
  void *data = nullptr;
  bool valid = false;
};

/* Histograms / LUTs per tile: 3 for RGB per_channel, else 1. */
int equalize_channels (const EqConfig &cfg);
/* Tiles: tiles_x * tiles_y in CLAHE mode, else 1. */
int equalize_tiles (const EqConfig &cfg);
/* Bins and LUT entries per table: 2^depth (256 at depth 8). */
int equalize_bins (const EqConfig &cfg);
size_t equalize_lut_bytes (const EqConfig &cfg);
size_t equalize_state_bytes (const EqConfig &cfg);
/* Device scratch of equalize() / equalize_from_histogram() for this config
 * (depends on mode, tiles, layout and rgb_mode only). */
size_t equalize_workspace_bytes (const EqConfig &cfg);

/* Zeroes a freshly allocated workspace (once; asynchronous). Calls leave it
 * ready for the next one; after a failed call or a faulted kernel,
 * initialize it again. 256-byte aligned (cudaMalloc's are). One workspace
 * per stream. */
Status equalize_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* Equalizes frame f on the GPU (device pointers), asynchronous on stream.
 * state: optional (required when smoothing > 0). d_lut_out: optional device
 * buffer of equalize_lut_bytes(cfg). */
Status equalize (const EqFrame &f, const EqConfig &cfg, EqState *state,
    uint8_t *d_lut_out, void *d_ws, size_t ws_bytes, Stream stream);

/* Global mode only: builds the LUT(s) from ready 256-bin histograms (one, or
 * R, G, B for per_channel: equalize_channels(cfg) * 256 uint32 counts, e.g.
 * from cip::histogram with HistSource::luma_rgb) and applies them; no
 * histogram pass (the ROI is ignored). hist is device memory when
 * hist_on_device, else host memory (copied into the launch's parameters: no
 * copy, no sync). */
Status equalize_from_histogram (const EqFrame &f, const EqConfig &cfg,
    const uint32_t *hist, bool hist_on_device, EqState *state,
    uint8_t *d_lut_out, void *d_ws, size_t ws_bytes, Stream stream);

namespace ref {
/* CPU references: host pointers, bit-identical results (frame, LUTs and
 * state). */
Status equalize (const EqFrame &f, const EqConfig &cfg, EqState *state,
    uint8_t *lut_out);
Status equalize_from_histogram (const EqFrame &f, const EqConfig &cfg,
    const uint32_t *hist, EqState *state, uint8_t *lut_out);
}  // namespace ref

}  // namespace cip
