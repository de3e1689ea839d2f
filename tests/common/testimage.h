/* Test images and comparisons shared by the kernel and element tests. */
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cip/cip.h"

namespace testutil {

enum class Content { random, constant, zeros, all255, gradient, checkerboard, natural };
const char *content_name (Content c);
extern const Content all_contents[7];

/* A host plane with row padding (pitch >= width * step). Padding bytes hold a
 * poison value so a read of them shows up in results. Samples are 8-bit, or
 * 16-bit words (`sample_bytes` = 2) holding `depth` bits at bit `shift`
 * (cip::ImageView's layout; step is in bytes either way). */
struct HostImage {
  int width = 0, height = 0, step = 1;
  int sample_bytes = 1, depth = 8, shift = 0;
  size_t pitch = 0;
  std::vector<uint8_t> bytes;
  cip::ImageView view (int channel = 0) const;
  uint8_t *row (int y) { return bytes.data () + (size_t) y * pitch; }
  /* The value (not the raw sample) of channel `channel` at (x, y). */
  uint32_t value (int x, int y, int channel = 0) const;
};

/* pad: extra bytes per row beyond width * step. seed fixes random content. */
HostImage make_image (int width, int height, Content c, uint32_t seed = 1,
    int step = 1, size_t pad = 0);

/* A plane of 16-bit words with `channels` interleaved channels (step =
 * 2 * channels), each holding `depth`-bit values at bit `shift` filled with
 * content c at that depth (all255 = every value 2^depth - 1). junk: the
 * bits outside the value hold random garbage (which readers must ignore),
 * else zeros. */
HostImage make_image16 (int width, int height, Content c, int depth,
    int shift, uint32_t seed = 1, int channels = 1, size_t pad = 0,
    bool junk = false);

/* Value v of content c at (x, y) for `depth` bits (what fill() writes at 8
 * bits, scaled); `s` is the random state. */
uint32_t content_value (Content c, int x, int y, int width, int height,
    int depth, uint32_t seed, uint32_t &s);

/* Fills channel `channel` of an existing image. */
void fill (HostImage &img, Content c, uint32_t seed, int channel = 0);

/* Compares two row-pitched arrays of T (w x h elements); prints the first
 * mismatch with `what` and returns false on any difference. */
template <typename T>
bool equal_2d (const T *a, size_t a_pitch, const T *b, size_t b_pitch, int w,
    int h, const std::string &what)
{
  for (int y = 0; y < h; y++) {
    const T *ra = (const T *) ((const uint8_t *) a + (size_t) y * a_pitch);
    const T *rb = (const T *) ((const uint8_t *) b + (size_t) y * b_pitch);
    for (int x = 0; x < w; x++) {
      if (ra[x] != rb[x]) {
        fprintf (stderr, "%s: first mismatch at (x=%d, y=%d): %llu != %llu\n",
            what.c_str (), x, y, (unsigned long long) ra[x],
            (unsigned long long) rb[x]);
        return false;
      }
    }
  }
  return true;
}

/* Sizes every family is tested at (1x1, odd, non-multiple-of-32, video). */
struct Size { int w, h; };
extern const Size edge_sizes[];
extern const int n_edge_sizes;

/* True when tests must fail rather than skip without a GPU (CIP_REQUIRE_GPU=1). */
bool gpu_required ();

}  // namespace testutil
