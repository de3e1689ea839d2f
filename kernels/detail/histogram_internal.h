/* Internals of the histogram family shared by histogram.cu, the host code and
 * the CPU reference. Plain C++ (host + device under nvcc). Not part of the
 * public API. */
#pragma once

#include "cip/histogram.h"

#ifdef __CUDACC__
#define CIP_HIST_HD __host__ __device__ __forceinline__
#else
#define CIP_HIST_HD inline
#endif

namespace cip {
namespace detail {

/* Checks every argument that does not depend on the device (ok for valid
 * requests, empty ones included). */
Status histogram_validate (const HistInput *inputs, int count, int bins,
    const void *hist);

/* The variant `automatic` runs for a group of `members` inputs read together. */
HistAlgorithm histogram_pick_group (uint64_t pixels, int members, int bins);

/* A launch shape of the 8-bit path (see histogram_debug_shape()). */
struct HistShape {
  const char *name;
  int threads;          /* block size; 0: 512, or 1024 when two blocks of
                         * the call's shared memory do not fit an SM */
  int items_per_warp;   /* smallest work per warp when sizing the grid */
  int max_per_sm;       /* cap on the grid's blocks per SM; 0: occupancy */
  bool prefetch;        /* replicated: next item loaded while counting */
  bool b8;              /* replicated, 256 bins: bytes by __byte_perm */
  bool direct;          /* blocks add into the output (no accumulator to
                         * move; overwrite: the first block zeroes the
                         * output, the others wait for it) */
};
extern const HistShape kHistShapes[];
extern const int kHistShapeCount;

/* The shape (index into kHistShapes) a call runs when no shape is forced:
 * `pixels` of its largest group of inputs, `members` inputs read together
 * in it, `groups` groups in the call. */
int histogram_pick_shape (uint64_t pixels, int members, int groups);

/* Checks the arguments of histogram_draw() that do not depend on the device. */
Status histogram_draw_validate (const void *hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha);

/* One sample of histogram_draw() (see cip/histogram.h): `s` at column x, row
 * y of a plane of w x h samples; h_counts the count * bins counts, max_of[i]
 * the largest count of histogram i. The reference and the kernel both paint
 * through this. */
CIP_HIST_HD uint8_t
hist_draw_sample (uint8_t s, int x, int y, const HistDrawPlane &p,
    const uint32_t *h_counts, const uint32_t *max_of, int count, int bins,
    int alpha)
{
  /* the band of row y: the last i with i * h / count <= y */
  int i = count - 1;
  while (i > 0 && y < (int) ((int64_t) i * p.height / count))
    i--;
  const int top = (int) ((int64_t) i * p.height / count);
  const int hb = (int) ((int64_t) (i + 1) * p.height / count) - top;
  const int b = (int) ((int64_t) x * bins / p.width);
  const uint64_t c = h_counts[i * bins + b];
  const uint64_t m = max_of[i];
  if (c * (uint64_t) hb > (uint64_t) (hb - 1 - (y - top)) * m)
    return p.bar[i];
  return (uint8_t) (((uint32_t) s * (uint32_t) (256 - alpha) +
          (uint32_t) p.background * (uint32_t) alpha + 128u) >> 8);
}

}  // namespace detail
}  // namespace cip
