/* An independent box filter reference for the tests: sliding-window sums in
 * 64-bit (no summed area table, none of the kernel library's arithmetic),
 * O(1) per pixel whatever the radius, with the documented rounding
 * (sum + area / 2) / area evaluated in 64-bit. */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace testutil {

/* Filters a w x h plane whose sample (x, y) has the value at (x, y) into a
 * tight w x h array of values. replicate: coordinates clamped to the frame;
 * else (clip) only the samples inside count, and the area is their number. */
template <typename At>
inline std::vector<uint32_t>
sliding_box_values (At at, int w, int h, int rx, int ry, bool replicate)
{
  std::vector<uint32_t> out ((size_t) (w > 0 ? w : 0) * (h > 0 ? h : 0));
  if (w <= 0 || h <= 0)
    return out;
  /* a window position i of a row (column) of n samples: its sample index, or
   * -1 when clip leaves it out */
  auto idx = [replicate] (int i, int n) -> int {
    if (i >= 0 && i < n)
      return i;
    if (!replicate)
      return -1;
    return i < 0 ? 0 : n - 1;
  };
  /* horizontal window sums of every row */
  std::vector<uint64_t> hs ((size_t) w * h);
  for (int y = 0; y < h; y++) {
    uint64_t s = 0;
    for (int i = -rx; i <= rx; i++) {
      int k = idx (i, w);
      if (k >= 0)
        s += (uint64_t) at (k, y);
    }
    for (int x = 0; x < w; x++) {
      hs[(size_t) y * w + x] = s;
      int in = idx (x + rx + 1, w), outk = idx (x - rx, w);
      if (in >= 0)
        s += (uint64_t) at (in, y);
      if (outk >= 0)
        s -= (uint64_t) at (outk, y);
    }
  }
  /* vertical window sums of those, row by row */
  std::vector<uint64_t> vs (w, 0);
  for (int j = -ry; j <= ry; j++) {
    int k = idx (j, h);
    if (k >= 0)
      for (int x = 0; x < w; x++)
        vs[x] += hs[(size_t) k * w + x];
  }
  for (int y = 0; y < h; y++) {
    uint64_t rows = replicate ? 2 * (uint64_t) ry + 1 :
        (uint64_t) (std::min (y + ry, h - 1) - std::max (y - ry, 0) + 1);
    for (int x = 0; x < w; x++) {
      uint64_t cols = replicate ? 2 * (uint64_t) rx + 1 :
          (uint64_t) (std::min (x + rx, w - 1) - std::max (x - rx, 0) + 1);
      uint64_t area = rows * cols;
      out[(size_t) y * w + x] = (uint32_t) ((vs[x] + area / 2) / area);
    }
    int in = idx (y + ry + 1, h), outk = idx (y - ry, h);
    for (int x = 0; x < w; x++) {
      if (in >= 0)
        vs[x] += hs[(size_t) in * w + x];
      if (outk >= 0)
        vs[x] -= hs[(size_t) outk * w + x];
    }
  }
  return out;
}


/* The same on an 8-bit plane (sample (x, y) at px[y * pitch + x * step]). */
inline std::vector<uint8_t>
sliding_box (const uint8_t * px, size_t pitch, int step, int w, int h, int rx,
    int ry, bool replicate)
{
  std::vector<uint32_t> v = sliding_box_values ([&] (int x, int y) {
        return px[(size_t) y * pitch + (size_t) x * step];
      }, w, h, rx, ry, replicate);
  return std::vector<uint8_t> (v.begin (), v.end ());
}

}  // namespace testutil
