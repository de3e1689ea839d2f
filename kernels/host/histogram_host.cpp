/* Host side of the histogram family: argument checks (histograms and
 * drawing), algorithm choice, workspace size, and the GPU entry points of
 * CPU-only builds. */
#include "cip/histogram.h"

#include <cstring>

#include "detail/histogram_internal.h"

namespace cip {

namespace detail {

static bool
is_luma (HistSource s)
{
  return s == HistSource::luma_rgb || s == HistSource::luma_bgr;
}

/* Checks every argument that does not depend on the device. Used by
 * ref::histogram and by the GPU histogram (kernels/src/histogram.cu). */
Status
histogram_validate (const HistInput *inputs, int count, int bins,
    const void *hist)
{
  if (!inputs || count < 1 || count > kHistogramMaxInputs || !hist)
    return Status::invalid_argument;
  if (bins < 2 || bins > kHistogramMaxBins)
    return Status::invalid_argument;
  if (((uintptr_t) hist & 3) != 0)
    return Status::invalid_argument;
  for (int i = 0; i < count; i++) {
    const HistInput &in = inputs[i];
    const ImageView &v = in.view;
    if (in.source != HistSource::plane && !is_luma (in.source))
      return Status::invalid_argument;
    if (!view_is_valid (v))
      return Status::invalid_argument;
    if ((uint64_t) v.width * (uint64_t) v.height > kHistogramMaxPixels)
      return Status::invalid_argument;
    uint32_t lo, hi;
    histogram_range (in, &lo, &hi);
    if (in.range_min < 0 || lo > hi || hi > v.max_value ())
      return Status::invalid_argument;
    if (is_luma (in.source)) {
      /* 8-bit colour bytes only */
      if (!v.is_8bit ())
        return Status::unsupported;
      /* three colour bytes per pixel, a row spans (width - 1) * step + 3 */
      if (v.step < 3)
        return Status::invalid_argument;
      if (v.width > 0 && v.height > 1 &&
          v.pitch < (size_t) (v.width - 1) * (size_t) v.step + 3)
        return Status::invalid_argument;
    }
  }
  return Status::ok;
}

/* What HistAlgorithm::automatic prefers for a group of `members` channels
 * read together, `pixels` pixels each (histogram() falls back to packed16
 * when the group does not fit in the device's shared memory). Measured on an
 * H200 (bench/histogram): replicated was the fastest variant at every size
 * and content, planar and packed RGBA, 1.3-2.3x ahead of packed16 at 7680x4320
 * and above; packed8 and warp_aggregated were slower still. */
HistAlgorithm
histogram_pick_group (uint64_t pixels, int members, int bins)
{
  (void) pixels;
  (void) members;
  (void) bins;
  return HistAlgorithm::replicated;
}

/* Launch shapes of the 8-bit path, compared by bench/histogram (every one
 * against CUB in one run); "base" is the launch measured before they
 * existed. Only append or edit: the bench and the tests take them all.
 * Block sizes are 0 (automatic) or powers of two of at least 256 threads:
 * merge_sums takes a thread per word of 256 bins and works in shifts. */
const HistShape kHistShapes[] = {
  /* name                  threads items/warp max/SM prefetch b8  direct */
  { "base",                 0,      1,         0,     false,  false, false },
  { "b8",                   0,      1,         0,     false,  true,  false },
  { "pf",                   0,      1,         0,     true,   false, false },
  { "pf+b8",                0,      1,         0,     true,   true,  false },
  { "t256",                 256,    1,         0,     false,  false, false },
  { "t256+b8",              256,    1,         0,     false,  true,  false },
  { "t256+pf+b8",           256,    1,         0,     true,   true,  false },
  { "t1024+pf+b8",          1024,   1,         0,     true,   true,  false },
  { "ipw4+pf+b8",           0,      4,         0,     true,   true,  false },
  { "sm1+pf+b8",            1024,   1,         1,     true,   true,  false },
  { "direct",               0,      1,         0,     false,  false, true },
  { "b8+direct",            0,      1,         0,     false,  true,  true },
  { "pf+b8+direct",         0,      1,         0,     true,   true,  true },
  { "t256+b8+direct",       256,    1,         0,     false,  true,  true },
  { "t256+pf+b8+direct",    256,    1,         0,     true,   true,  true },
  { "t1024+pf+b8+direct",   1024,   1,         0,     true,   true,  true },
  { "ipw2+b8+direct",       0,      2,         0,     false,  true,  true },
  { "ipw4+b8+direct",       0,      4,         0,     false,  true,  true },
  { "ipw4+pf+b8+direct",    0,      4,         0,     true,   true,  true },
};
const int kHistShapeCount = (int) (sizeof (kHistShapes) / sizeof (kHistShapes[0]));

/* Index of the shape called `name` (0, "base", when there is none). */
static int
shape_named (const char *name)
{
  for (int k = 0; k < kHistShapeCount; k++)
    if (strcmp (kHistShapes[k].name, name) == 0)
      return k;
  return 0;
}

/* What a call runs when no shape is forced. TUNE HERE after a bench run:
 * return the fastest shape by its name (the bench prints rows
 * "replicated/<name>"), by `pixels`, `members` and `groups` where the
 * winners differ (members 1: a plane; 3 or 4: R, G, B (and luma) of packed
 * RGB; groups: inputs read in separate groups, e.g. 3 for Y, U, V). */
int
histogram_pick_shape (uint64_t pixels, int members, int groups)
{
  /* bench_histogram, H100, four runs on two machines (RESULTS.md round
   * 16), against b8+direct in the same runs:
   * - one 1080p-class plane alone: t256+b8+direct, 0.0095-0.0104 ms
   *   against 0.0099-0.0108 (b2b 0.0064-0.0069 against 0.0065-0.0075);
   *   slower at 4K, and for Y, U, V in one call;
   * - R, G, B of packed RGBA up to UHD: t1024+pf+b8+direct, 1080p
   *   0.0152-0.0170 ms against 0.0161-0.0179 (b2b 0.0120-0.0128 against
   *   0.0129-0.0138), UHD b2b 0.0201-0.0226 against 0.0202-0.0236; with
   *   luma (4 members) no better; with other groups in the call, not
   *   measured. */
  if (members == 1 && groups == 1 && pixels <= 2500000)
    return shape_named ("t256+b8+direct");
  /* RESULTS.md round 25 (calls 8-9): a plane of 8K and above, on frames
   * in turn, 0.1-0.2 us faster than b8+direct (0.0146-0.0147 ms against
   * 0.0147-0.0148 constant, 0.0151-0.0154 against 0.0153-0.0155 natural,
   * 8K b2b), the same on one input at 8K and 16384^2; slower at 4K
   * (0.0079-0.0081 against 0.0061-0.0062) */
  if (members == 1 && groups == 1 && pixels > 16000000)
    return shape_named ("ipw4+b8+direct");
  if (members == 3 && groups == 1 && pixels <= 9000000)
    return shape_named ("t1024+pf+b8+direct");
  /* RESULTS.md round 5: the best single shape on a plane at 1080p to
   * 16384^2 (1.14-1.65x CUB against base's 1.13-1.42x), and better than
   * base on R, G, B of RGBA in 5 of 6 cases */
  return shape_named ("b8+direct");
}

Status
histogram_draw_validate (const void *hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha)
{
  if (!hist || ((uintptr_t) hist & 3) != 0)
    return Status::invalid_argument;
  if (count < 1 || count > kHistogramMaxInputs)
    return Status::invalid_argument;
  if (bins < 2 || bins > kHistDrawMaxBins)
    return Status::invalid_argument;
  if (alpha < 0 || alpha > 256 || n_planes < 0 ||
      n_planes > kHistDrawMaxPlanes || (n_planes > 0 && !planes))
    return Status::invalid_argument;
  for (int k = 0; k < n_planes; k++) {
    const HistDrawPlane &p = planes[k];
    ImageView v;
    v.data = p.data;
    v.pitch = p.pitch;
    v.width = p.width;
    v.height = p.height;
    v.step = p.step;
    if (!view_is_valid (v))
      return Status::invalid_argument;
  }
  return Status::ok;
}

}  // namespace detail

const char *
hist_algorithm_name (HistAlgorithm a)
{
  switch (a) {
    case HistAlgorithm::automatic: return "automatic";
    case HistAlgorithm::replicated: return "replicated";
    case HistAlgorithm::packed16: return "packed16";
    case HistAlgorithm::packed8: return "packed8";
    case HistAlgorithm::warp_aggregated: return "warp_aggregated";
  }
  return "?";
}

void
histogram_range (const HistInput &in, uint32_t *lo, uint32_t *hi)
{
  *lo = in.range_min > 0 ? (uint32_t) in.range_min : 0u;
  *hi = in.range_max < 0 ? in.view.max_value () : (uint32_t) in.range_max;
}

bool
histogram_is_8bit_path (const HistInput *inputs, int count, int bins)
{
  if (bins > 256 || (bins & (bins - 1)) != 0)
    return false;
  for (int i = 0; i < count; i++) {
    uint32_t lo, hi;
    histogram_range (inputs[i], &lo, &hi);
    if (!inputs[i].view.is_8bit () || lo != 0 || hi != 255)
      return false;
  }
  return true;
}

HistAlgorithm
histogram_pick (const HistInput &input, int bins)
{
  if (!histogram_is_8bit_path (&input, 1, bins))
    return HistAlgorithm::packed16;
  uint64_t px = 0;
  if (input.view.width > 0 && input.view.height > 0)
    px = (uint64_t) input.view.width * (uint64_t) input.view.height;
  return detail::histogram_pick_group (px, 1, bins);
}

size_t
histogram_workspace_bytes (int count, int bins)
{
  if (count < 1)
    count = 1;
  if (bins < 2)
    bins = 2;
  /* a 128-byte header (the block-done ticket, the direct launches' claim
   * and ready words), then count * bins uint32 */
  return 128 + (size_t) count * (size_t) bins * sizeof (uint32_t);
}

int
histogram_debug_shape_count ()
{
  return detail::kHistShapeCount;
}

const char *
histogram_debug_shape_name (int k)
{
  return k >= 0 && k < detail::kHistShapeCount ? detail::kHistShapes[k].name : nullptr;
}

#ifndef HAVE_CUDA
/* CPU-only build: the GPU entry points exist and report unsupported. */
void
histogram_debug_max_blocks (int)
{
}

void
histogram_debug_shape (int)
{
}

Status
histogram_workspace_init (void *, size_t, Stream)
{
  return Status::unsupported;
}

Status
histogram (const HistInput *inputs, int count, int bins, uint32_t *d_hist,
    bool, void *, size_t, Stream, HistAlgorithm)
{
  Status st = detail::histogram_validate (inputs, count, bins, d_hist);
  return st != Status::ok ? st : Status::unsupported;
}

Status
histogram_draw (const uint32_t *d_hist, int count, int bins,
    const HistDrawPlane *planes, int n_planes, int alpha, Stream)
{
  Status st = detail::histogram_draw_validate (d_hist, count, bins, planes,
      n_planes, alpha);
  return st != Status::ok ? st : Status::unsupported;
}
#endif

}  // namespace cip
