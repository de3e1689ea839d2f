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
  v.bytes = sample_bytes;
  v.depth = depth;
  v.shift = shift;
  return v;
}

uint32_t
HostImage::value (int x, int y, int channel) const
{
  const uint8_t *p = bytes.data () + (size_t) y * pitch + (size_t) x * step +
      (size_t) channel * sample_bytes;
  uint32_t s = sample_bytes == 2 ? (uint32_t) p[0] | ((uint32_t) p[1] << 8) : p[0];
  return (s >> shift) & ((1u << depth) - 1u);
}

static uint32_t
xorshift (uint32_t &s)
{
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

uint32_t
content_value (Content c, int x, int y, int width, int height, int depth,
    uint32_t seed, uint32_t &s)
{
  const uint32_t max = (1u << depth) - 1u;
  /* 8-bit contents scaled to the depth: v8 * max / 255 */
  auto scale = [&] (uint32_t v8) { return (uint32_t) ((uint64_t) v8 * max / 255u); };
  switch (c) {
    case Content::random: return xorshift (s) >> (32 - depth);
    case Content::constant: return scale ((uint8_t) (37 + seed * 11));
    case Content::zeros: return 0;
    case Content::all255: return max;
    case Content::gradient:
      return (uint32_t) ((uint64_t) x * max / (uint64_t) (width > 1 ? width - 1 : 1) / 2 +
          (uint64_t) y * max / (uint64_t) (height > 1 ? height - 1 : 1) / 2);
    case Content::checkerboard: return scale (((x / 8 + y / 8) & 1) ? 235 : 16);
    case Content::natural: {
      double fx = (double) x / 97.0, fy = (double) y / 71.0;
      double base = 110 + 60 * std::sin (fx) * std::cos (fy * 0.7) +
          40 * std::sin ((fx + fy) * 0.3);
      double n = (double) (xorshift (s) >> 28) - 7.5;
      double v = (base + n) * (double) max / 255.0;
      long iv = std::lround (v);
      return (uint32_t) (iv < 0 ? 0 : iv > (long) max ? (long) max : iv);
    }
  }
  return 0;
}

HostImage
make_image16 (int width, int height, Content c, int depth, int shift,
    uint32_t seed, int channels, size_t pad, bool junk)
{
  HostImage img;
  img.width = width;
  img.height = height;
  img.step = 2 * channels;
  img.sample_bytes = 2;
  img.depth = depth;
  img.shift = shift;
  img.pitch = (size_t) width * img.step + pad;
  if (img.pitch == 0)
    img.pitch = 2;
  img.bytes.assign (img.pitch * (size_t) (height > 0 ? height : 1), 0xA5);
  const uint32_t mask = ((1u << depth) - 1u) << shift;
  for (int ch = 0; ch < channels; ch++) {
    const uint32_t cs = seed + 7919u * ch;
    uint32_t s = cs * 2654435761u + 12345u, js = cs * 40503u + 7u;
    if (s == 0)
      s = 1;
    for (int y = 0; y < height; y++)
      for (int x = 0; x < width; x++) {
        uint32_t w = content_value (c, x, y, width, height, depth, cs, s) << shift;
        if (junk)
          w |= xorshift (js) & 0xFFFFu & ~mask;
        uint8_t *p = img.row (y) + (size_t) x * img.step + 2 * ch;
        p[0] = (uint8_t) w;
        p[1] = (uint8_t) (w >> 8);
      }
  }
  return img;
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
