/* cip halftone: error diffusion and ordered dithering of 8-bit planes to
 * 2..256 output levels, up to four planes or channels per call.
 *
 * Output levels: level k of L is round (k * 255 / (L - 1)) (halves up), so two
 * levels give 0 and 255 and 256 levels are the identity.
 *
 * Error diffusion (HalftoneMethod::error_diffusion). Raster order (left to
 * right on every row, no serpentine); the classic kernels of
 * HalftoneKernel, Atkinson diffusing 6/8 of the error (its definition).
 * Errors are fixed-point integers (1/256 of a level) and each neighbour's
 * share is rounded on its own (detail/halftone_math.h), so the GPU output is
 * bit-identical to cip::ref::halftone and the same from run to run. Neighbours
 * outside the plane get nothing.
 *
 * Ordered dithering (HalftoneMethod::ordered): Bayer 8x8 thresholds at the
 * plane's own coordinates, levels-aware:
 *   k = min (L - 1, floor (in * (L - 1) / 255 + (bayer (x, y) + 0.5) / 64)).
 *
 * Temporal stability (error diffusion only). Plain error diffusion flickers on
 * video: noise reshuffles the dot pattern every frame. With a per-plane history
 * (the previous frame's output, kept by the caller) and
 * temporal_stability = s in (0, 1], a pixel keeps its previous output while
 * its diffused value (input + collected error) stays within a band of
 * (1 + s) / 2 output steps of it, and is quantized as usual once it moves
 * further (so a scene cut updates at once). The error diffused is always
 * (diffused value - chosen output), so the mean is preserved. The history is
 * read (when history_valid and s > 0) and then overwritten with the new output
 * on every call that gives one, whatever s; history_valid = false (first frame,
 * after a reset) runs plain diffusion and fills it. Recommended: s = 0.5
 * (tests/kernels/test_halftone.cpp measures it: on a noisy static scene the
 * share of pixels changing between frames falls more than 5x, the low-pass
 * error against the input worsens by less than 1 dB).
 *
 * Planes: each plane or channel of a frame is halftoned independently, all of
 * them in one launch (Y, U, V of I420; the two channels of NV12's UV plane as
 * step-2 views; R, G, B(, A) of RGBA as step-4 views). A destination may be a
 * channel of a packed plane (own pitch and step); it has the source's size.
 * Destinations must not overlap any source, any history or the workspace, nor
 * share samples with each other; a history is width x height bytes (step 1)
 * and must not overlap any source, destination, other history or the
 * workspace (invalid_argument).
 *
 * GPU algorithms (bit-identical):
 * - skss: one kernel, single-kernel soft synchronization (Funasaka, Nakano,
 *   Ito). Error collection (a pixel gathers the shares of its finished
 *   neighbours), one warp per 32 rows with rows sheared by the kernel's reach
 *   (a parallelogram schedule: rows advance in lockstep, errors handed down
 *   through warp shuffles), a few warps per block stacked vertically (errors
 *   handed down through shared memory), strips of blocks claimed through a
 *   global ticket and the strip boundary handed through global memory as
 *   epoch-tagged words. Terminates whatever the grid size and residency.
 * - wavefront: one launch per wavefront of 32x32 parallelogram tiles (the
 *   classic schedule). NOT WRITTEN YET: error diffusion returns
 *   Status::unsupported (ordered dithering ignores the algorithm).
 * - single_block: the skss kernel with one block of 32 warps (1024 rows at a
 *   time, all row hand-offs in shared memory), the way mpv's renderer does it.
 * - automatic: skss.
 */
#pragma once

#include "cip/cip.h"

namespace cip {

enum class HalftoneKernel {
  floyd_steinberg, jarvis_judice_ninke, stucki, burkes, sierra, sierra_lite,
  atkinson
};
enum class HalftoneMethod { error_diffusion, ordered };
enum class HalftoneAlgorithm { automatic, skss, wavefront, single_block };

constexpr int halftone_max_planes = 4;
constexpr int halftone_min_levels = 2;
constexpr int halftone_max_levels = 256;
/* Largest width or height served (invalid_argument above). */
constexpr int halftone_max_side = 65535;

/* The element's property nicks: "floyd-steinberg", "jarvis-judice-ninke",
 * "stucki", "burkes", "sierra", "sierra-lite", "atkinson"; "error-diffusion",
 * "ordered"; "automatic", "skss", "wavefront", "single-block". */
const char *halftone_kernel_name (HalftoneKernel k);
const char *halftone_method_name (HalftoneMethod m);
const char *halftone_algorithm_name (HalftoneAlgorithm a);

/* One plane (or channel) of a halftone call. */
struct HalftonePlane {
  ImageView src;                 /* 8-bit source (device memory for the GPU) */
  uint8_t *dst = nullptr;        /* first output sample; src.width x src.height */
  size_t dst_pitch = 0;          /* bytes between output rows */
  int dst_step = 1;              /* bytes between output samples in a row */
  /* Optional temporal state: width x height bytes, step 1, kept by the caller
   * across frames (in/out). nullptr: no temporal stability for this plane. */
  uint8_t *history = nullptr;
  size_t history_pitch = 0;
};

struct HalftoneParams {
  HalftoneMethod method = HalftoneMethod::error_diffusion;
  HalftoneKernel kernel = HalftoneKernel::floyd_steinberg;
  int levels = 2;                    /* 2 .. 256 per channel */
  float temporal_stability = 0.f;    /* 0 .. 1, 0 = plain diffusion */
  bool history_valid = false;        /* the planes' histories hold the last output */
};

/* Value of output level k (0 <= k < levels): round (k * 255 / (levels - 1)). */
int halftone_level (int k, int levels);

/* Bytes of device scratch halftone() needs for these planes (any algorithm,
 * method or kernel). */
size_t halftone_workspace_bytes (const HalftonePlane *planes, int n_planes);

/* Zeroes a freshly allocated workspace (once; asynchronous). halftone()
 * leaves it ready for the next call; after a failed call, or one whose kernel
 * faulted, initialize it again. A workspace serves one call at a time (calls
 * sharing one must be ordered, e.g. on one stream). 256-byte aligned. */
Status halftone_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* Halftones n_planes (0 .. halftone_max_planes) planes on the GPU,
 * asynchronous on stream. Device pointers; d_ws / ws_bytes >=
 * halftone_workspace_bytes() of the same planes. Empty planes are skipped.
 * skss and single_block: one launch for all planes; ordered: one launch;
 * wavefront: one launch per wavefront. */
Status halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params, void *d_ws, size_t ws_bytes, Stream stream,
    HalftoneAlgorithm algo = HalftoneAlgorithm::automatic);

/* Testing and tuning only: caps the grid of every later skss launch in this
 * process at n blocks; 0, the default, removes the cap. */
void halftone_debug_max_blocks (int n);

namespace ref {
/* CPU reference: same arguments and results, host pointers. Error diffusion
 * is plain sequential raster-order diffusion (each pixel pushes its error's
 * shares to its neighbours) with the GPU's arithmetic. */
Status halftone (const HalftonePlane *planes, int n_planes,
    const HalftoneParams &params);
}  // namespace ref

}  // namespace cip
