/* cip halftone: error diffusion and ordered dithering of 8-bit planes, and
 * of 16-bit planes (10- and 16-bit video), to `levels` output levels, up to
 * four planes or channels in one launch.
 *
 * Samples: 8-bit (ImageView bytes 1, depth 8, shift 0) or 16-bit words
 * (bytes 2, any depth with shift, e.g. P010's 10 bits at bit 6; see
 * cip::ImageView). M = src.max_value () = 2^depth - 1 (255 for 8-bit). All
 * planes of one call share one sample layout (bytes, depth, shift). Inputs
 * are read as values (bits outside the value ignored), outputs written in
 * the source's layout (value << shift, the other bits zero). Everything
 * below is written for any M; with M = 255 it is the 8-bit definition.
 *
 * Levels: `levels` = L in 2..256 output values per plane, spread evenly over
 *   0..M: level k is round(k * M / (L - 1)) (halves up), see
 *   halftone_level(); 2 levels give 0 and M, 256 levels of 8-bit every value.
 *
 * Error diffusion (HalftoneMethod::error_diffusion) in raster order (left to
 * right on every row, no serpentine), defined in fixed point so that the GPU
 * and the CPU reference agree bit for bit. Errors are integers in 1/128 of a
 * value step (kHalftoneErrorOne; the same 128 at every depth, so 8-bit is
 * unchanged); |error| <= 128 M: int16 at 8 bits, below 2^23 at 16 bits, and
 * every intermediate below 2^32. For pixel (x, y) with input value `in`:
 *   sum = sum of w * e(x - dx, y - dy) over the kernel's taps (dx, dy, w):
 *         the pixels already processed that diffuse into (x, y); pixels
 *         outside the plane count as 0 ("error collection": each pixel
 *         gathers, so each error is written once)
 *   v   = 128 * in + floor((sum + div / 2) / div)      (the diffused value)
 *   k   = the level whose ideal position k * M / (L - 1) is nearest to
 *         v / 128 (clamped to 0..M; a tie goes to the lower level):
 *         k = floor((2 (L - 1) c + 128 M - 1) / (256 M)), c = v clamped to
 *         0 .. 128 M
 *   out = level k;  e(x, y) = v - 128 * out
 * Kernels (weights / div; X is the pixel, errors go right and down):
 *   floyd_steinberg      X 7 / 3 5 1                                 (/16)
 *   jarvis_judice_ninke  X 7 5 / 3 5 7 5 3 / 1 3 5 3 1               (/48)
 *   stucki               X 8 4 / 2 4 8 4 2 / 1 2 4 2 1               (/42)
 *   burkes               X 8 4 / 2 4 8 4 2                           (/32)
 *   sierra               X 5 3 / 2 4 5 4 2 / . 2 3 2 .               (/32)
 *   sierra_lite          X 2 / 1 1 .                                 (/4)
 *   atkinson             X 1 1 / 1 1 1 / . 1 .   (/8: only 6/8 of the error
 *                        is diffused, as Atkinson defined it)
 * Errors stay within +-M values, so the output's mean follows the
 * input's (up to what leaves the plane at its edges, and Atkinson's 2/8).
 * With 256 levels (and no temporal stability) 8-bit output is the input.
 *
 * Temporal stability (error diffusion only): plain error diffusion flickers
 * on video, as tiny input changes reshuffle the dot pattern. With
 * temporal_stability s in (0, 1] and a valid history, a pixel keeps its
 * previous output p while its diffused value stays within a hysteresis band
 * around it:
 *   if |v - 128 * p| <= halftone_hysteresis(L, s, depth): out = p
 *   halftone_hysteresis(L, s, depth) = floor((1 + s) * M * 128 / (2 * (L - 1)))
 * i.e. half a level step widened by s half steps. The error diffused is still
 * v - 128 * out, so the mean is preserved; a large change (a scene cut) moves
 * v out of the band at once. The previous outputs are per-plane state the
 * caller keeps across frames: HalftonePlane::history (device memory for the
 * GPU), width x height samples of the source's size and layout (a planar
 * copy of the output: bytes for 8-bit, 16-bit words at the shift for 16-bit
 * planes). Every call that is given a history writes the
 * plane's output into it; it reads it only when history_valid is set and
 * s > 0. Pass history_valid = false on the first frame and after a reset
 * (new caps, a seek, changed levels/kernel/method): plain diffusion runs and
 * fills the history. halftone_recommended_stability is the setting the tests
 * measure (see tests/kernels/test_halftone.cpp: at 0.5, on a static scene
 * with sensor noise, far fewer pixels change from frame to frame while the
 * low-pass error stays within 1 dB of plain diffusion).
 *
 * Ordered dithering (HalftoneMethod::ordered): the 8x8 Bayer matrix B (values
 * 0..63, origin at the plane's top-left sample) as thresholds between levels:
 *   k = floor((in * (L - 1) * 128 + (2 * B[y % 8][x % 8] + 1) * M) / (128 * M))
 *   out = level k
 * Every pixel is independent: fast and free of flicker, but patterned. The
 * kernel, temporal_stability and history_valid are ignored; a given history
 * is written like in error diffusion.
 *
 * Planes: up to halftone_max_planes per call, halftoned independently, so one
 * call covers a frame (Y, U, V of I420; Y and the two channels of NV12's UV
 * plane as step-2 views; R, G, B (and A) of RGBA as step-4 views). Each plane
 * has its source view, a destination of the source's size (pointer, pitch,
 * step: a destination may be a channel of a packed plane) and an optional
 * history (planar: step = the sample's bytes). No in-place halftoning: a destination must not
 * overlap any source, and a history nothing else of the call (checked on the
 * address ranges: invalid_argument). Destinations of different planes may
 * interleave but must not share samples.
 *
 * GPU algorithms (all bit-identical to the reference):
 * - skss: single-kernel soft synchronization (Funasaka, Nakano, Ito). Strips of
 *   64 rows, one worker (a 96-thread block) per strip at a time, claimed
 *   through a global ticket so that any grid size and residency terminates.
 *   In a strip, lane k of the compute warp owns rows 2k and 2k+1, each row
 *   sheared 2 (Floyd-Steinberg, Sierra Lite, Atkinson) or 4 (the kernels
 *   that reach further) columns left of the one above (parallelogram
 *   tiles), so all 64 rows step through their columns in lockstep; errors
 *   move down a row through registers and warp shuffles. The strip's last
 *   two rows go to the next strip through global memory chunk by chunk, as
 *   64-bit words tagged with the launch's epoch (no flags, no fences), sent
 *   by one of the block's two mover warps while the other fetches the strip
 *   above's rows: the compute warp never waits on global memory. One launch
 *   for all planes. 16-bit
 *   planes run the same kernel instantiated for 16-bit words (a sample-size
 *   template parameter: 32-bit words of two samples instead of four, int32
 *   errors in the rings and boundary rows, the level arithmetic for M).
 * - wavefront: one launch per anti-diagonal wavefront of pixels (the
 *   conventional schedule; thousands of launches per frame). For comparison;
 *   8-bit planes only (16-bit: invalid_argument).
 * - single_block: one thread block per plane sweeps the sheared plane column
 *   by column with a barrier per column and errors in shared memory (the way
 *   mpv's GPU renderer does it). For comparison; planes of up to 8192 rows;
 *   8-bit planes only (16-bit: invalid_argument).
 * - automatic: skss.
 *
 * Example (a 3x1 plane {64, 64, 64}, Floyd-Steinberg, 2 levels):
 *   v = 8192 -> 0, e = 8192; v = 8192 + floor((7 * 8192 + 8) / 16) = 11776
 *   -> 0, e = 11776; v = 8192 + 5152 = 13344 -> 0   => { 0, 0, 0 }
 */
#pragma once

#include "cip/cip.h"

namespace cip {

enum class HalftoneMethod { error_diffusion, ordered };

enum class HalftoneKernel {
  floyd_steinberg,
  jarvis_judice_ninke,
  stucki,
  burkes,
  sierra,
  sierra_lite,
  atkinson,
};

enum class HalftoneAlgorithm { automatic, skss, wavefront, single_block };

const char *halftone_method_name (HalftoneMethod m);
const char *halftone_kernel_name (HalftoneKernel k);
const char *halftone_algorithm_name (HalftoneAlgorithm a);

constexpr int halftone_max_planes = 4;
constexpr int halftone_min_levels = 2;
constexpr int halftone_max_levels = 256;
/* Errors are integers in units of 1/kHalftoneErrorOne value step (any depth). */
constexpr int kHalftoneErrorOne = 128;
/* temporal_stability the tests measure and recommend (see above). */
constexpr double halftone_recommended_stability = 0.5;
/* single_block serves planes of up to this many rows. */
constexpr int halftone_single_block_max_rows = 8192;

/* Output value of level k (0 .. levels - 1) of 8-bit planes:
 * round(k * 255 / (levels - 1)). */
constexpr uint8_t
halftone_level (int levels, int k)
{
  return (uint8_t) ((510 * k + levels - 1) / (2 * (levels - 1)));
}

/* The same at `depth` bits (M = 2^depth - 1, 1 .. 16):
 * round(k * M / (levels - 1)), the value before the shift. */
constexpr uint32_t
halftone_level (int levels, int k, int depth)
{
  return (uint32_t) ((2 * (int64_t) ((1 << depth) - 1) * k + levels - 1) /
      (2 * (levels - 1)));
}

/* The hysteresis band (in 1/kHalftoneErrorOne value steps) for `levels`,
 * temporal stability s and the planes' depth; 0 when s <= 0 (temporal
 * stability off). */
int halftone_hysteresis (int levels, double s, int depth = 8);

struct HalftoneOptions {
  HalftoneMethod method = HalftoneMethod::error_diffusion;
  HalftoneKernel kernel = HalftoneKernel::floyd_steinberg;
  int levels = 2;                   /* halftone_min_levels .. halftone_max_levels */
  double temporal_stability = 0.0;  /* 0 .. 1; 0 = plain error diffusion */
  bool history_valid = false;       /* the histories hold the previous outputs */
};

/* One plane of a halftone call. */
struct HalftonePlane {
  ImageView src;                 /* 8- or 16-bit source (device memory for the GPU) */
  uint8_t *dst = nullptr;        /* first output sample; src.width x src.height
                                    samples of src's layout */
  size_t dst_pitch = 0;          /* bytes between output rows */
  int dst_step = 1;              /* bytes between output samples in a row */
  /* Optional per-plane state for temporal stability: src.width x
   * src.height samples of src.bytes each (planar, src's depth and shift),
   * kept by the caller from call to call; pitch in bytes. */
  uint8_t *history = nullptr;
  size_t history_pitch = 0;
  /* Optional: packed RGB halftoned to grey. With rgb_luma set, src.data is
   * the first byte of the first pixel and src.step the bytes per pixel
   * (3 .. 8); R, G and B sit at byte offsets rgb_offset[0..2] of a pixel.
   * The plane halftoned is their luma, halftone_luma(R, G, B), and each
   * output level goes to the pixel's three colour bytes in dst (dst_step
   * the bytes per pixel, the same offsets); other bytes (alpha, padding)
   * are not written. 8-bit planes only. A history holds one byte per pixel. On the GPU the
   * luma and the grey output pass through the workspace. */
  bool rgb_luma = false;
  int rgb_offset[3] = {0, 1, 2};
};

/* ITU-R BT.601 luma of 8-bit R, G, B, as Pillow's convert("L"):
 * (19595 R + 38470 G + 7471 B + 32768) >> 16. */
constexpr uint8_t
halftone_luma (int r, int g, int b)
{
  return (uint8_t) ((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
}

/* Bytes of device scratch halftone() needs for these planes (depends only on
 * their sizes; enough for every method and algorithm). */
size_t halftone_workspace_bytes (const HalftonePlane *planes, int n_planes);

/* Zeroes a freshly allocated workspace (once; asynchronous on stream).
 * halftone() leaves it ready for the next call; after a failed call, or a
 * call whose kernel faulted, initialize it again. One workspace serves one
 * call at a time (calls sharing one must be ordered, e.g. on one stream). */
Status halftone_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* The algorithm HalftoneAlgorithm::automatic runs (error diffusion). */
HalftoneAlgorithm halftone_pick (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &opt);

/* Halftones n_planes (0 .. halftone_max_planes) planes on the GPU,
 * asynchronous on stream. Device pointers; d_ws / ws_bytes >=
 * halftone_workspace_bytes() of the same planes (ordered dithering needs
 * none), prepared by halftone_workspace_init(), 256-byte aligned. Empty
 * planes are skipped. Launches: one (skss, ordered), one per wavefront
 * (wavefront), one (single_block; unsupported above
 * halftone_single_block_max_rows rows or when the plane's error rows do not
 * fit in shared memory). */
Status halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &opt, void *d_ws, size_t ws_bytes, Stream stream,
    HalftoneAlgorithm algo = HalftoneAlgorithm::automatic);

/* Testing only: caps the grid of later skss launches in this process at n
 * workers (thread blocks), fewer than the strips they must process; 0, the
 * default, removes the cap. */
void halftone_debug_max_workers (int n);


namespace ref {
/* CPU reference: same semantics, host pointers, bit-identical output (and
 * history). */
Status halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneOptions &opt);
}  // namespace ref

}  // namespace cip
