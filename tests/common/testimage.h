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

/* A host 8-bit plane with row padding (pitch >= width * step). Padding bytes
 * hold a poison value so a read of them shows up in results. */
struct HostImage {
  int width = 0, height = 0, step = 1;
  size_t pitch = 0;
  std::vector<uint8_t> bytes;
  cip::ImageView view (int channel = 0) const;
  uint8_t *row (int y) { return bytes.data () + (size_t) y * pitch; }
};

/* pad: extra bytes per row beyond width * step. seed fixes random content. */
HostImage make_image (int width, int height, Content c, uint32_t seed = 1,
    int step = 1, size_t pad = 0);

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
