#include "testimage.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace testutil {

const Content all_contents[7] = { Content::random, Content::constant,
  Content::zeros, Content::all255, Content::gradient, Content::checkerboard,
  Content::natural };

const Size edge_sizes[] = { {1, 1}, {2, 1}, {1, 7}, {31, 17}, {33, 33},
  {15, 1}, {1, 15}, {129, 32}, {257, 3}, {640, 480}, {1001, 67} };
const int n_edge_sizes = sizeof (edge_sizes) / sizeof (edge_sizes[0]);

const char *
content_name (Content c)
{
  switch (c) {
    case Content::random: return "random";
    case Content::constant: return "constant";
    case Content::zeros: return "zeros";
    case Content::all255: return "all255";
    case Content::gradient: return "gradient";
    case Content::checkerboard: return "checkerboard";
    case Content::natural: return "natural";
  }
  return "?";
}

cip::ImageView
HostImage::view (int channel) const
{
  cip::ImageView v;
  v.data = bytes.data () + channel;
  v.pitch = pitch;
  v.width = width;
  v.height = height;
  v.step = step;
  return v;
}

static uint32_t
xorshift (uint32_t &s)
{
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

void
fill (HostImage &img, Content c, uint32_t seed, int channel)
{
  uint32_t s = seed * 2654435761u + 12345u;
  if (s == 0)
    s = 1;
  uint8_t k = (uint8_t) (37 + seed * 11);
  for (int y = 0; y < img.height; y++) {
    uint8_t *r = img.row (y);
    for (int x = 0; x < img.width; x++) {
      uint8_t v = 0;
      switch (c) {
        case Content::random: v = (uint8_t) (xorshift (s) >> 24); break;
        case Content::constant: v = k; break;
        case Content::zeros: v = 0; break;
        case Content::all255: v = 255; break;
        case Content::gradient:
          v = (uint8_t) ((x * 255) / (img.width > 1 ? img.width - 1 : 1) / 2 +
              (y * 255) / (img.height > 1 ? img.height - 1 : 1) / 2);
          break;
        case Content::checkerboard: v = ((x / 8 + y / 8) & 1) ? 235 : 16; break;
        case Content::natural: {
          /* smooth shading, a few blobs, mild noise: camera-like statistics */
          double fx = (double) x / 97.0, fy = (double) y / 71.0;
          double base = 110 + 60 * std::sin (fx) * std::cos (fy * 0.7) +
              40 * std::sin ((fx + fy) * 0.3);
          double n = (double) (xorshift (s) >> 28) - 7.5;
          int iv = (int) std::lround (base + n);
          v = (uint8_t) (iv < 0 ? 0 : iv > 255 ? 255 : iv);
          break;
        }
      }
      r[(size_t) x * img.step + channel] = v;
    }
  }
}

HostImage
make_image (int width, int height, Content c, uint32_t seed, int step,
    size_t pad)
{
  HostImage img;
  img.width = width;
  img.height = height;
  img.step = step;
  img.pitch = (size_t) width * step + pad;
  if (img.pitch == 0)
    img.pitch = 1;
  /* poison: padding and unused channels are 0xA5 unless filled */
  img.bytes.assign (img.pitch * (size_t) (height > 0 ? height : 1), 0xA5);
  for (int ch = 0; ch < step; ch++)
    fill (img, c, seed + 7919u * ch, ch);
  return img;
}

bool
gpu_required ()
{
  const char *e = getenv ("CIP_REQUIRE_GPU");
  return e && *e && strcmp (e, "0") != 0;
}

}  // namespace testutil
