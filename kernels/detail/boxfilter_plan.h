/* Argument checks and workspace layout of the box filter, shared by the GPU
 * entry point (src/boxfilter.cu) and the CPU reference. Defined in
 * ref/boxfilter_ref.cpp, which every build compiles. Plain C++. */
#pragma once

#include "cip/boxfilter.h"
#include "cip/integral.h"
#include "detail/integral_internal.h"

namespace cip {
namespace detail {

/* Workspace: cip::integral's scratch at offset 0, then one SAT per plane
 * that has no precomputed SAT (u32 for 8-bit planes, u64 for 16-bit ones;
 * rows 128-byte aligned: the gather reads them 16 bytes at a time). */
struct BoxLayout {
  size_t integral_bytes = 0;            /* at offset 0 */
  size_t sat_offset[boxfilter_max_planes] = {};
  size_t sat_pitch[boxfilter_max_planes] = {};  /* 0: none (precomputed or empty) */
  size_t total = 0;
};

BoxLayout box_layout (const BoxPlane *planes, int n_planes);

/* Shapes, radii, pitches, border, and no destination overlapping a source,
 * a precomputed SAT or [ws, ws + ws_bytes) (ws may be null). */
Status box_validate (const BoxPlane *planes, int n_planes, BoxBorder border,
    const void *ws, size_t ws_bytes);

inline bool
box_plane_empty (const BoxPlane &p)
{
  return p.src.width == 0 || p.src.height == 0;
}

/* The SAT a plane's sat algorithm needs: u32 for 8-bit samples (every window
 * sum < 2^32), u64 for 16-bit ones. */
inline SatType
box_sat_type (const BoxPlane &p)
{
  return p.src.bytes == 2 ? SatType::u64 : SatType::u32;
}

/* Widest plane BoxAlgorithm::fused serves (two tiles of 128 columns for
 * each of a block's 32 warps). */
constexpr int kBoxFusedMaxWidth = 8192;

/* Whether BoxAlgorithm::fused serves this plane (else it runs sat): 8-bit
 * samples, step 1, source address and pitch multiples of 4, width up to
 * kBoxFusedMaxWidth, height up to kSatTiledMaxSide, the last sample less
 * than 2^32 bytes after the first (32-bit row offsets), no precomputed SAT
 * (the workspace then has no scratch for the tile tables; sat reads the
 * table). On a device whose blocks cannot hold the kernel's four shared
 * rows (sm_75 above 3968 columns, sm_86/89 above 6272; fewer with clip at
 * large radii, whose table of window widths takes up to 8 KiB more)
 * boxfilter() runs sat too, or direct where automatic chose fused at radius
 * 11-16 (clip below 16 million samples) or 14-16. */
bool box_fused_serves (const BoxPlane &p);

/* Direct's registers kernel serves every rx, ry up to kBoxRegMaxRadius and
 * square windows (rx = ry) up to kBoxRegMaxSquare. Its 16-bit pair sums
 * would hold (2r+1)^2 * 255 up to r = 7 and the words it shuffles reach 8
 * samples either side, but at r = 7 it was slower than the tile kernel on
 * an H100 (its 2r halo rows a band of 8, registers spilled; RESULTS.md,
 * round 14). */
constexpr int kBoxRegMaxRadius = 3;
constexpr int kBoxRegMaxSquare = 5;

/* Whether BoxAlgorithm::direct runs this plane with its registers kernel
 * (else its shared-memory tile kernel): 8-bit samples, step 1 source and
 * destination, their addresses and pitches multiples of 4, rx and ry up to
 * kBoxRegMaxRadius or rx = ry up to kBoxRegMaxSquare, and
 * BoxTuning::direct_tile off. */
bool box_direct_registers (const BoxPlane &p);

/* One packed plane of 4-byte pixels (RGBA, BGRx, AYUV, ...) that the
 * direct kernel filters in one pass, all four channels at once. */
struct BoxPacked {
  const uint8_t *src = nullptr;         /* channel 0 of the first pixel */
  size_t src_pitch = 0;
  uint8_t *dst = nullptr;
  size_t dst_pitch = 0;
  int w = 0, h = 0, rx = 0, ry = 0;     /* w in pixels */
  uint32_t copy_mask = 0;               /* 0xff in the bytes of the channels
                                           at radius 0 (copied) */
};

/* Widest packed plane (the kernel's byte offsets in a row are ints). */
constexpr int kBoxPackedMaxWidth = (0x7fffffff - 4096) / 4;

/* Whether the n planes are the 4 channels of one packed plane of 4-byte
 * pixels, in any order: 8-bit step-4 views of the same rows (sources
 * base + 0 .. 3, up to kBoxPackedMaxWidth pixels), each written to the
 * same channel of one packed destination (dbase + the source's offset,
 * step 4), base, dbase and both pitches multiples of 4, and one window
 * (rx, ry) for every channel but those at (0, 0), which are copied.
 * Then out describes it. boxfilter() runs such a call, where all four
 * planes run direct, as one packed direct launch. */
bool box_packed (const BoxPlane *planes, int n, BoxPacked &out);

/* Packed launches boxfilter() has made in this process (GPU builds; for
 * tests: which path a call took). */
unsigned long box_packed_launches ();

/* The algorithm boxfilter() runs for this plane: automatic resolved by
 * boxfilter_pick, fused moved to sat where it does not serve. */
BoxAlgorithm box_resolve (const BoxPlane &p, BoxAlgorithm algo,
    BoxBorder border = BoxBorder::replicate);

/* box_resolve for each of the n planes of one call into out[], except that
 * automatic keeps direct (up to boxfilter_direct_max_radius) for a plane it
 * would give fused when another plane of the call runs direct: one direct
 * launch serves them all, where fused adds three (frames whose chroma
 * planes are step-2 views, which fused does not serve). Empty planes get
 * box_resolve's answer and are skipped by boxfilter(). */
void box_resolve_call (const BoxPlane *planes, int n, BoxAlgorithm algo,
    BoxAlgorithm *out, BoxBorder border = BoxBorder::replicate);

/* The fused kernel's blocks own at least this many rows (each block's first
 * row reads up to th source rows per tile more than the others). */
constexpr int kBoxFusedMinRows = 8;

/* Tuning knobs for benchmarks (0 = built-in, except fused_rotate: -1).
 * Process-wide, not thread-safe: set before launching. */
struct BoxTuning {
  int fused_rows = 0;           /* output rows per block of the fused kernel */
  int fused_warps = 0;          /* its warps per block (1 .. 32, raised to
                                   half the tiles: a warp takes at most two) */
  int direct_tile = 0;          /* 1: direct runs its shared-memory tile
                                   kernel where the registers one serves */
  int fused_rotate = -1;        /* fused, one tile a warp: the tile offset
                                   of a set's second output row (-1: half
                                   the tiles, 0: none; taken modulo the
                                   tiles, so a multiple of them is none) */
};
void box_set_tuning (const BoxTuning &t);
BoxTuning box_get_tuning ();

}  // namespace detail
}  // namespace cip
