/* cip boxfilter: mean filter over a (2*rx+1) x (2*ry+1) window of 8-bit
 * planes, in constant time per pixel whatever the radius.
 *
 * For every pixel (x, y) of a plane of W x H samples the window is the columns
 * x-rx .. x+rx and the rows y-ry .. y+ry. The output is the window's mean,
 * rounded to nearest (halves up), in integer arithmetic:
 *   out = (sum + area / 2) / area
 * BoxBorder::clip: only the part of the window inside the frame counts:
 *   sum of the samples inside, area = their number.
 * BoxBorder::replicate: coordinates are clamped to the frame (edge samples
 *   repeated, OpenCV BORDER_REPLICATE / NPP_BORDER_REPLICATE), so the window
 *   always holds (2*rx+1) * (2*ry+1) samples.
 * rx = 0 (or ry = 0) leaves that direction untouched (window width 1); rx, ry
 * are 0 .. boxfilter_max_radius and may exceed the frame.
 *
 * GPU algorithms (results are bit-identical; the CPU reference matches all):
 * - sat: a u32 summed area table of the plane (cip::integral, layout of
 *   integral.h) in the workspace, then one gather kernel for all planes of the
 *   call that reads 4 SAT taps per pixel (16-byte vector loads, 8 outputs per
 *   thread). At the frame's edges the clamped window is the inner rectangle
 *   plus its repeated edge columns and rows, each a SAT rectangle weighted by
 *   its repeat count; uint32 wrap-around is exact because every window sum
 *   is < 2^32. Time does not depend on the radius.
 * - direct: one kernel for all planes, shared-memory tiles and separable sums
 *   straight from the 8-bit source; only for rx, ry <=
 *   boxfilter_direct_max_radius.
 *   Its time grows with the radius, but up to 16 it is faster than computing
 *   a SAT. Planar planes with 4-byte aligned rows at rx, ry <= 3 (and
 *   square windows up to rx = ry = 5) run a kernel without shared memory
 *   instead (a warp slides its columns' sums down in registers; one launch
 *   per radius among them). A call whose 4 planes are the channels of one
 *   plane of 4-byte pixels (RGBA, BGRx, AYUV, ...: step-4 views of the same
 *   rows written to the same channels of one destination, 4-byte aligned
 *   addresses and pitches), with one window for the channels filtered and
 *   (0, 0) for those copied, runs them as one packed plane: one pass over
 *   the pixels rather than one over each channel.
 * - sliding: one kernel for all planes (8- and 16-bit) that reads the source
 *   and writes the output without any table: a block keeps vertical sliding
 *   sums of its tile's columns (plus the horizontal halo) and scans them per
 *   row in shared memory (detail/boxfilter_sliding.h). Constant work per
 *   pixel in the window size, but the halo grows with the radius: tiles and
 *   strips are chosen from radius, size and SM count. Measured 3x slower
 *   than direct and sat on an H100 (bench/RESULTS.md): a comparison variant,
 *   never picked by automatic.
 * - fused: no table. The first two passes of the tiled SAT (tile column,
 *   row and total sums and their scans, cip::integral's scratch), then one
 *   output kernel whose blocks own full-width bands of rows: it slides the
 *   window's column sums down the band, scans them per row into shared
 *   memory and reads both taps of every output from there. Constant time in
 *   the radius, and no 4-byte table written and read back. 8-bit planes
 *   with step 1 and 4-byte aligned rows (address and pitch), width up to
 *   8192 and height up to 16384, without a precomputed SAT; other planes
 *   asked for fused run sat. Three launches per plane, one plane at a time.
 * - automatic: boxfilter_pick() per plane and border (8-bit: direct up to
 *   boxfilter_direct_max_radius, up to 13 on planes of 4 million samples
 *   or more that fused serves (clip below 16 million samples: up to 10);
 *   above, fused on planes it serves of 2 million samples and 1920 columns
 *   or more, sat on others; direct up to 4 when the plane brings a SAT;
 *   16-bit: sat; constants in host/boxfilter_host.cpp, from bench/boxfilter).
 *   In one call, a plane at radius 11-16 (clip, below 16 million samples)
 *   or 14-16 runs direct with the others when they do (one launch).
 * Rounding: all use (sum + area/2) / area exactly; a constant area divides
 * by multiply-high with a precomputed magic number, a varying one (clip, at
 * the edges) by a float reciprocal with an integer correction step (fused:
 * by magic numbers for each row's height and each window width).
 * A plane may bring a precomputed u32 SAT of its source (e.g. from an upstream
 * element); the sat algorithm then uses it instead of computing one.
 *
 * Planes: up to boxfilter_max_planes per call, so one call filters a whole
 * frame (Y, U, V of I420; Y and the two channels of NV12's UV plane as step-2
 * views; the 4 channels of RGBA as step-4 views). Each plane has its own source
 * view, destination (pointer, pitch, step: a destination may be a channel of a
 * packed plane too) and radius (the caller scales the radius of subsampled
 * chroma planes). The destination has the source's width and height.
 *
 * No in-place filtering: source and destination must be different buffers.
 * A destination must not overlap any source, any precomputed SAT or the
 * workspace of the call (checked on the address ranges each spans:
 * invalid_argument). Destinations of different planes may interleave
 * (channels of one packed plane) but must not share samples.
 *
 * Example (3x3 image {0,0,0; 0,9,0; 0,0,0}, rx = ry = 1):
 *   clip:      { 2,2,2; 2,1,2; 2,2,2 }   (9/4 -> 2, 9/6 -> 2, 9/9 -> 1)
 *   replicate: { 1,1,1; 1,1,1; 1,1,1 }
 */
#pragma once

#include "cip/cip.h"

namespace cip {

enum class BoxBorder { clip, replicate };

enum class BoxAlgorithm { automatic, sat, direct, sliding, fused };

const char *box_algorithm_name (BoxAlgorithm a);
const char *box_border_name (BoxBorder b);

constexpr int boxfilter_max_radius = 1024;
constexpr int boxfilter_max_planes = 4;
/* BoxAlgorithm::direct serves planes with rx, ry <= this. */
constexpr int boxfilter_direct_max_radius = 16;

/* One plane of a box filter call. */
struct BoxPlane {
  ImageView src;                 /* 8-bit source (device memory for the GPU) */
  uint8_t *dst = nullptr;        /* first output sample; src.width x src.height */
  size_t dst_pitch = 0;          /* bytes between output rows */
  int dst_step = 1;              /* bytes between output samples in a row */
  int rx = 0, ry = 0;            /* window radii, 0 .. boxfilter_max_radius */
  /* Optional: a u32 SAT of src (integral.h layout: exclusive, (W+1) x (H+1),
   * first row and column zero), e.g. computed upstream. It must be the SAT of
   * this src: the sat algorithm reads only it, the direct one only src.
   * sat_pitch in bytes, a multiple of 4; 16-byte aligned rows (pointer and
   * pitch multiples of 16) take the vectorized gather, others a slower one. */
  const uint32_t *sat = nullptr;
  size_t sat_pitch = 0;
};

/* Bytes of device scratch boxfilter() needs for these planes: the internal
 * SATs of the planes without a precomputed one, and cip::integral's scratch.
 * Depends only on the sizes and on which planes bring a SAT, not on radii,
 * border or algorithm; planes without `sat` give an upper bound for any mix. */
size_t boxfilter_workspace_bytes (const BoxPlane *planes, int n_planes);

/* Prepares a freshly allocated workspace (once; asynchronous on stream: a
 * caller that then filters on another stream orders the two). After a failed
 * boxfilter() call, prepare it again. The workspace must be 256-byte aligned
 * (cudaMalloc's are). */
Status boxfilter_workspace_init (void *d_ws, size_t ws_bytes, Stream stream);

/* The algorithm BoxAlgorithm::automatic runs for this plane with this
 * border. */
BoxAlgorithm boxfilter_pick (const BoxPlane &plane,
    BoxBorder border = BoxBorder::replicate);

/* Filters n_planes (0 .. boxfilter_max_planes) planes on the GPU, asynchronous
 * on stream. Device pointers; d_ws / ws_bytes >= boxfilter_workspace_bytes()
 * of the same planes, prepared by boxfilter_workspace_init(). The direct
 * algorithm with a radius above boxfilter_direct_max_radius is unsupported,
 * and so is the sat algorithm (without a precomputed SAT) for planes that
 * cip::integral cannot serve. Empty planes are skipped. Launches: the SAT of
 * each plane that needs one (cip::integral), then one gather launch and/or
 * one direct launch (and one per radius for the planes of its registers
 * kernel) and/or one sliding launch (per sample size) for all planes, and
 * three launches (tile sums, their scans, the output) per fused plane, two
 * where the tile sums come scanned in groups (16-row tiles, up to 4096
 * columns; cip::integral's tiled algorithm groups them up to 8192). The
 * sliding algorithm ignores a plane's precomputed SAT and uses
 * no workspace itself, but the call still needs the workspace
 * boxfilter_workspace_bytes() gives (sized for the SATs of automatic). */
Status boxfilter (const BoxPlane *planes, int n_planes, BoxBorder border,
    void *d_ws, size_t ws_bytes, Stream stream,
    BoxAlgorithm algo = BoxAlgorithm::automatic);

namespace ref {
/* CPU reference: same semantics, host pointers, bit-identical output. Uses a
 * plane's precomputed SAT when given, else computes one (cip::ref::integral). */
Status boxfilter (const BoxPlane *planes, int n_planes, BoxBorder border);
}  // namespace ref

}  // namespace cip
