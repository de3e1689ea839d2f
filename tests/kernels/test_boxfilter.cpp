/* Box filter: the CPU reference against the definition (a direct loop over
 * the window) and against an independent sliding-window reference in 64-bit
 * (tests/common/boxref.h: no SAT, none of the library's arithmetic), at every
 * radius and on frames whose u32 table wraps; the precomputed-SAT and
 * multi-plane forms, the argument checks; on a GPU, every algorithm against
 * the reference and the independent one, byte for byte. */
#include "boxref.h"
#include "cipcheck.h"
#include "testimage.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cip/boxfilter.h"
#include "cip/integral.h"
#include "detail/boxfilter_math.h"
#include "detail/boxfilter_plan.h"
#include "detail/integral_internal.h"
#include "detail/boxfilter_sliding.h"

#ifdef HAVE_CUDA
#include "testcuda.h"
#endif

using cip::BoxAlgorithm;
using cip::BoxBorder;
using cip::BoxPlane;
using cip::ImageView;
using cip::Status;
using testutil::Content;
using testutil::HostImage;
#ifdef HAVE_CUDA
using testutil::DevBuf;
#endif

namespace {

struct Radius {
  int rx, ry;
};

const BoxBorder borders[2] = { BoxBorder::clip, BoxBorder::replicate };

/* ---- definitions the filter must match -------------------------------- */

uint8_t
sample (const ImageView &v, int x, int y)
{
  return v.data[(size_t) y * v.pitch + (size_t) x * v.step];
}

int
clamp (int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

uint8_t
mean_of (uint64_t sum, uint64_t n)
{
  return (uint8_t) ((sum + n / 2) / n);
}

/* The definition: every sample of the window, coordinates clamped
 * (replicate) or skipped and not counted (clip). */
std::vector<uint8_t>
naive_box (const ImageView &v, Radius r, BoxBorder b)
{
  const int w = v.width, h = v.height;
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t sum = 0, n = 0;
      for (int j = -r.ry; j <= r.ry; j++) {
        int yy = y + j;
        if (b == BoxBorder::replicate)
          yy = clamp (yy, 0, h - 1);
        else if (yy < 0 || yy >= h)
          continue;
        for (int i = -r.rx; i <= r.rx; i++) {
          int xx = x + i;
          if (b == BoxBorder::replicate)
            xx = clamp (xx, 0, w - 1);
          else if (xx < 0 || xx >= w)
            continue;
          sum += sample (v, xx, yy);
          n++;
        }
      }
      out[(size_t) y * w + x] = mean_of (sum, n);
    }
  return out;
}

/* The same definition evaluated separably (rows, then columns): O(r) per
 * pixel, for the cases too large for the direct loop. */
std::vector<uint8_t>
separable_box (const ImageView &v, Radius r, BoxBorder b)
{
  const int w = v.width, h = v.height;
  const bool rep = b == BoxBorder::replicate;
  std::vector<uint64_t> hs ((size_t) w * h);
  std::vector<uint64_t> cw (w), ch (h);
  for (int x = 0; x < w; x++)
    cw[x] = rep ? 2 * r.rx + 1 : std::min (x + r.rx, w - 1) - std::max (x - r.rx, 0) + 1;
  for (int y = 0; y < h; y++)
    ch[y] = rep ? 2 * r.ry + 1 : std::min (y + r.ry, h - 1) - std::max (y - r.ry, 0) + 1;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t s = 0;
      for (int i = -r.rx; i <= r.rx; i++) {
        int xx = x + i;
        if (rep)
          xx = clamp (xx, 0, w - 1);
        else if (xx < 0 || xx >= w)
          continue;
        s += sample (v, xx, y);
      }
      hs[(size_t) y * w + x] = s;
    }
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint64_t s = 0;
      for (int j = -r.ry; j <= r.ry; j++) {
        int yy = y + j;
        if (rep)
          yy = clamp (yy, 0, h - 1);
        else if (yy < 0 || yy >= h)
          continue;
        s += hs[(size_t) yy * w + x];
      }
      out[(size_t) y * w + x] = mean_of (s, cw[x] * ch[y]);
    }
  return out;
}

/* The independent reference (boxref.h) on a view. */
std::vector<uint8_t>
sliding_ref (const ImageView &v, Radius r, BoxBorder b)
{
  return testutil::sliding_box (v.data, v.pitch, v.step, v.width, v.height,
      r.rx, r.ry, b == BoxBorder::replicate);
}

/* ---- helpers -------------------------------------------------------------- */

/* A destination like the source (step, padding), every byte poisoned. */
HostImage
make_dst (int w, int h, int step, size_t pad)
{
  HostImage d = testutil::make_image (w, h, Content::zeros, 1, step, pad);
  std::fill (d.bytes.begin (), d.bytes.end (), 0xA5);
  return d;
}

BoxPlane
plane_of (const ImageView &src, HostImage &dst, int channel, Radius r)
{
  BoxPlane p;
  p.src = src;
  p.dst = dst.bytes.data () + channel;
  p.dst_pitch = dst.pitch;
  p.dst_step = dst.step;
  p.rx = r.rx;
  p.ry = r.ry;
  return p;
}

std::string
describe (const char *what, int w, int h, Content c, Radius r, BoxBorder b,
    int step = 1)
{
  char buf[256];
  snprintf (buf, sizeof (buf), "%s %dx%d %s r=(%d,%d) %s step %d", what, w, h,
      testutil::content_name (c), r.rx, r.ry, cip::box_border_name (b), step);
  return buf;
}

/* dst (channel `channel`) holds `want`, and every other byte of dst still
 * equals `before` (padding and other channels untouched). */
bool
check_output (const HostImage &dst, int channel, const std::vector<uint8_t> &want,
    const std::vector<uint8_t> &before, const std::string &what)
{
  std::vector<uint8_t> expect = before;
  for (int y = 0; y < dst.height; y++)
    for (int x = 0; x < dst.width; x++)
      expect[(size_t) y * dst.pitch + (size_t) x * dst.step + channel] =
          want[(size_t) y * dst.width + x];
  for (size_t i = 0; i < expect.size (); i++) {
    if (dst.bytes[i] != expect[i]) {
      size_t y = i / dst.pitch, xb = i % dst.pitch;
      fprintf (stderr, "%s: first difference at row %zu byte %zu: got %u want %u\n",
          what.c_str (), y, xb, dst.bytes[i], expect[i]);
      return false;
    }
  }
  return true;
}

/* Filters channel `channel` of src with the reference into a fresh padded
 * destination, checks against `want` and the untouched padding. */
bool
ref_matches (const HostImage &src, int channel, Radius r, BoxBorder b,
    const std::vector<uint8_t> &want, size_t dst_pad, int dst_step,
    const std::string &what)
{
  HostImage dst = make_dst (src.width, src.height, dst_step, dst_pad);
  const int dch = dst_step > 1 ? dst_step - 1 : 0;
  std::vector<uint8_t> before = dst.bytes;
  BoxPlane p = plane_of (src.view (channel), dst, dch, r);
  Status st = cip::ref::boxfilter (&p, 1, b);
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s\n", what.c_str (), cip::status_string (st));
    return false;
  }
  return check_output (dst, dch, want, before, what);
}

std::vector<uint8_t>
ref_output (const ImageView &src, Radius r, BoxBorder b)
{
  std::vector<uint8_t> out ((size_t) src.width * src.height, 0);
  BoxPlane p;
  p.src = src;
  p.dst = out.data ();
  p.dst_pitch = (size_t) src.width;
  p.rx = r.rx;
  p.ry = r.ry;
  if (src.width > 0 && src.height > 0)
    fail_unless (cip::ref::boxfilter (&p, 1, b) == Status::ok);
  return out;
}

/* The u32 SAT of a view (reference), rows `pitch` bytes apart. */
std::vector<uint8_t>
ref_sat (const ImageView &v, size_t pitch)
{
  std::vector<uint8_t> sat (pitch * ((size_t) v.height + 1) + 16, 0xEE);
  cip::SatDest d;
  d.sum = sat.data ();
  d.sum_pitch = pitch;
  fail_unless (cip::ref::integral (v, cip::SatType::u32, d) == Status::ok);
  return sat;
}

uint64_t
naive_cost (int w, int h, Radius r)
{
  return (uint64_t) w * h * (2 * r.rx + 1) * (2 * r.ry + 1);
}

uint64_t
separable_cost (int w, int h, Radius r)
{
  return (uint64_t) w * h * (2 * r.rx + 2 * r.ry + 2);
}

}  // namespace

/* ---- CPU ------------------------------------------------------------------- */

GST_START_TEST (test_round_div)
{
  /* box_round_div (float estimate + correction) is exact integer rounding for
   * every area a window can have and every sum it can reach. */
  const uint32_t max_area = 2049u * 2049u;
  uint32_t seed = 12345;
  /* and so is box_round_div_magic (multiply-high by a precomputed magic) */
  cip::detail::BoxDivisor dv = cip::detail::box_divisor (1);
  auto check = [&dv] (uint32_t sum, uint32_t area) {
    uint32_t want = (uint32_t) (((uint64_t) sum + area / 2) / area);
    uint32_t got = cip::detail::box_round_div (sum, area,
        cip::detail::box_rcp (area));
    fail_unless (got == want, "sum %u area %u: %u != %u", sum, area, got, want);
    if (dv.d != area)
      dv = cip::detail::box_divisor (area);
    got = cip::detail::box_round_div_magic (sum, dv);
    fail_unless (got == want, "magic: sum %u area %u: %u != %u", sum, area, got,
        want);
  };
  for (uint32_t area = 1; area <= max_area;
      area = area < 5000 ? area + 1 : area + 997 + (area % 13)) {
    check (0, area);
    check (255u * area, area);
    for (uint32_t q = 0; q <= 255; q += (area < 300 ? 1 : 17)) {
      /* around each rounding threshold (q + 1/2) * area */
      uint64_t t = (uint64_t) q * area + (area + 1) / 2;
      for (int d = -2; d <= 2; d++) {
        int64_t s = (int64_t) t + d;
        if (s >= 0 && s <= 255ll * area)
          check ((uint32_t) s, area);
      }
    }
    seed = seed * 1664525u + 1013904223u;
    check ((uint32_t) (((uint64_t) seed * (255ull * area + 1)) >> 32), area);
  }
  check (255u * max_area, max_area);
  check (255u * max_area - 1, max_area);
  /* box_round_div_byte (top byte of a multiply-add): every sum of every
   * area below 256, which covers the registers kernel's (up to 121) */
  for (uint32_t area = 1; area < 256; area++) {
    const cip::detail::BoxByteDivisor bd = cip::detail::box_byte_divisor (area);
    for (uint32_t sum = 0; sum <= 255u * area; sum++) {
      const uint32_t want = (sum + area / 2) / area;
      const uint32_t got = cip::detail::box_round_div_byte (sum, bd);
      if (got != want)
        fail ("byte divisor: sum %u area %u: %u != %u", sum, area, got, want);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_doc_example)
{
  HostImage src = testutil::make_image (3, 3, Content::zeros, 1, 1, 0);
  src.row (1)[1] = 9;
  const uint8_t clip[9] = { 2, 2, 2, 2, 1, 2, 2, 2, 2 };
  const uint8_t rep[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  for (BoxBorder b : borders) {
    std::vector<uint8_t> out = ref_output (src.view (), { 1, 1 }, b);
    const uint8_t *want = b == BoxBorder::clip ? clip : rep;
    fail_unless (memcmp (out.data (), want, 9) == 0, "%s",
        cip::box_border_name (b));
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_small_radii)
{
  /* every size, content, border; step 1 with distinct src/dst padding */
  const Radius radii[] = { {0, 0}, {1, 1}, {2, 2}, {3, 1}, {0, 4}, {5, 0}, {1, 2} };
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (Content c : testutil::all_contents) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 3 + si, 1, 13);
      for (Radius r : radii)
        for (BoxBorder b : borders) {
          std::string what = describe ("ref", sz.w, sz.h, c, r, b);
          std::vector<uint8_t> want = naive_box (src.view (), r, b);
          fail_unless (ref_matches (src, 0, r, b, want, 7, 1, what), "%s",
              what.c_str ());
        }
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_large_radii)
{
  /* radii up to and beyond the frame; the direct loop where affordable, the
   * separable definition above that, the sliding-window sums for the rest
   * (no case is skipped) */
  const Radius radii[] = { {7, 7}, {50, 50}, {13, 40}, {40, 3}, {1024, 1024},
    {1024, 0}, {0, 1024}, {16, 17} };
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    const bool small = (uint64_t) sz.w * sz.h <= 33 * 33;
    for (Content c : testutil::all_contents) {
      if (!small && c != Content::random && c != Content::gradient &&
          c != Content::natural)
        continue;
      HostImage src = testutil::make_image (sz.w, sz.h, c, 17 + si, 1, 5);
      for (Radius r : radii)
        for (BoxBorder b : borders) {
          std::vector<uint8_t> want;
          if (naive_cost (sz.w, sz.h, r) <= 6000000)
            want = naive_box (src.view (), r, b);
          else if (separable_cost (sz.w, sz.h, r) <= 40000000)
            want = separable_box (src.view (), r, b);
          else
            want = sliding_ref (src.view (), r, b);
          std::string what = describe ("ref", sz.w, sz.h, c, r, b);
          fail_unless (ref_matches (src, 0, r, b, want, 3, 1, what), "%s",
              what.c_str ());
        }
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_naive_agree)
{
  /* the three definitions used here agree with each other */
  for (int step : { 1, 4 }) {
    HostImage src = testutil::make_image (37, 29, Content::random, 5, step, 3);
    const Radius radii[] = { {0, 0}, {1, 1}, {3, 7}, {20, 2}, {40, 40},
      {0, 30}, {1024, 1} };
    for (Radius r : radii)
      for (BoxBorder b : borders) {
        std::vector<uint8_t> n = naive_box (src.view (step - 1), r, b);
        fail_unless (n == separable_box (src.view (step - 1), r, b));
        fail_unless (n == sliding_ref (src.view (step - 1), r, b),
            "sliding r=(%d,%d) %s step %d", r.rx, r.ry,
            cip::box_border_name (b), step);
      }
  }
}
GST_END_TEST;

/* A frame of bright content large enough that its u32 table wraps (the
 * whole-frame sum passes 2^32, so the last rows of the table hold wrapped
 * values): window sums stay exact, with the table computed inside and given
 * precomputed. */
static HostImage
wrapping_frame (int w, int h, uint32_t seed)
{
  /* 192..255: the sum passes 2^32 after at most 22.4 M pixels */
  HostImage img = testutil::make_image (w, h, Content::random, seed, 1, 9);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      img.row (y)[x] |= 0xC0;
  return img;
}

GST_START_TEST (test_ref_wrapping_table)
{
  const int W = 5000, H = 4200;
  HostImage src = wrapping_frame (W, H, 77);
  uint64_t total = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      total += src.row (y)[x];
  fail_unless (total > (1ull << 32) + (1ull << 28), "the table must wrap: %llu",
      (unsigned long long) total);
  const size_t pitch = ((size_t) W + 1) * 4 + 48;
  std::vector<uint8_t> sat = ref_sat (src.view (), pitch);
  const Radius radii[] = { {1, 1}, {40, 25}, {1024, 1024}, {0, 1024} };
  for (Radius r : radii)
    for (BoxBorder b : borders) {
      std::vector<uint8_t> want = sliding_ref (src.view (), r, b);
      std::string what = describe ("ref wrap", W, H, Content::random, r, b);
      fail_unless (ref_matches (src, 0, r, b, want, 0, 1, what), "%s",
          what.c_str ());
      HostImage dst = make_dst (W, H, 1, 0);
      std::vector<uint8_t> before = dst.bytes;
      BoxPlane p = plane_of (src.view (), dst, 0, r);
      p.sat = (const uint32_t *) sat.data ();
      p.sat_pitch = pitch;
      fail_unless (cip::ref::boxfilter (&p, 1, b) == Status::ok);
      fail_unless (check_output (dst, 0, want, before, what + " presat"), "%s",
          what.c_str ());
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_steps)
{
  /* channels of packed planes: step-4 source channels into step-4, step-1
   * and step-3 destinations */
  const testutil::Size sizes[] = { {1, 1}, {31, 17}, {129, 32}, {1001, 67} };
  const Radius radii[] = { {0, 0}, {1, 1}, {2, 5}, {7, 7}, {50, 50} };
  for (testutil::Size sz : sizes)
    for (Content c : testutil::all_contents) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 29, 4, 9);
      for (int ch = 0; ch < 4; ch++)
        for (Radius r : radii)
          for (BoxBorder b : borders) {
            std::vector<uint8_t> want;
            if (naive_cost (sz.w, sz.h, r) <= 6000000)
              want = naive_box (src.view (ch), r, b);
            else
              want = separable_box (src.view (ch), r, b);
            for (int dstep : { 1, 3, 4 }) {
              std::string what = describe ("ref", sz.w, sz.h, c, r, b, 4) +
                  " ch " + std::to_string (ch) + " dst step " +
                  std::to_string (dstep);
              fail_unless (ref_matches (src, ch, r, b, want, 11, dstep, what),
                  "%s", what.c_str ());
            }
          }
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_precomputed_sat)
{
  const testutil::Size sizes[] = { {1, 1}, {15, 1}, {1, 15}, {33, 33}, {257, 3},
    {640, 480} };
  const Radius radii[] = { {0, 0}, {1, 1}, {7, 3}, {50, 50}, {1024, 1024} };
  for (testutil::Size sz : sizes)
    for (Content c : { Content::random, Content::all255, Content::natural }) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 41, 1, 6);
      for (size_t extra : { (size_t) 0, (size_t) 52 }) {
        const size_t pitch = ((size_t) sz.w + 1) * 4 + extra;
        std::vector<uint8_t> sat = ref_sat (src.view (), pitch);
        for (Radius r : radii)
          for (BoxBorder b : borders) {
            std::vector<uint8_t> want = ref_output (src.view (), r, b);
            HostImage dst = make_dst (sz.w, sz.h, 1, 3);
            std::vector<uint8_t> before = dst.bytes;
            BoxPlane p = plane_of (src.view (), dst, 0, r);
            p.sat = (const uint32_t *) sat.data ();
            p.sat_pitch = pitch;
            fail_unless (cip::ref::boxfilter (&p, 1, b) == Status::ok);
            std::string what = describe ("ref sat", sz.w, sz.h, c, r, b);
            fail_unless (check_output (dst, 0, want, before, what), "%s",
                what.c_str ());
          }
      }
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_multiplane)
{
  /* one call over several planes equals one call per plane: I420-like
   * planes with scaled radii, and the 4 channels of RGBA with their own radii */
  for (BoxBorder b : borders) {
    HostImage y = testutil::make_image (67, 45, Content::natural, 1, 1, 3);
    HostImage u = testutil::make_image (34, 23, Content::random, 2, 1, 10);
    HostImage v = testutil::make_image (34, 23, Content::gradient, 3, 1, 0);
    const Radius ry = { 9, 5 }, ruv = { 4, 2 };
    HostImage dy = make_dst (67, 45, 1, 5), du = make_dst (34, 23, 1, 2),
        dv = make_dst (34, 23, 1, 30);
    BoxPlane p[3] = { plane_of (y.view (), dy, 0, ry),
      plane_of (u.view (), du, 0, ruv), plane_of (v.view (), dv, 0, ruv) };
    std::vector<uint8_t> by = dy.bytes, bu = du.bytes, bv = dv.bytes;
    fail_unless (cip::ref::boxfilter (p, 3, b) == Status::ok);
    fail_unless (check_output (dy, 0, ref_output (y.view (), ry, b), by, "Y"));
    fail_unless (check_output (du, 0, ref_output (u.view (), ruv, b), bu, "U"));
    fail_unless (check_output (dv, 0, ref_output (v.view (), ruv, b), bv, "V"));

    HostImage rgba = testutil::make_image (53, 31, Content::random, 4, 4, 8);
    HostImage out = make_dst (53, 31, 4, 12);
    const Radius rr[4] = { {1, 1}, {2, 7}, {0, 0}, {30, 30} };
    BoxPlane q[4];
    for (int ch = 0; ch < 4; ch++)
      q[ch] = plane_of (rgba.view (ch), out, ch, rr[ch]);
    fail_unless (cip::ref::boxfilter (q, 4, b) == Status::ok);
    for (int ch = 0; ch < 4; ch++) {
      std::vector<uint8_t> want = naive_box (rgba.view (ch), rr[ch], b);
      for (int yy = 0; yy < 31; yy++)
        for (int xx = 0; xx < 53; xx++)
          fail_unless (out.row (yy)[xx * 4 + ch] == want[(size_t) yy * 53 + xx],
              "rgba ch %d (%d,%d)", ch, xx, yy);
      for (int yy = 0; yy < 31; yy++)
        for (size_t i = 53 * 4; i < out.pitch; i++)
          fail_unless (out.row (yy)[i] == 0xA5, "rgba padding");
    }
  }
}
GST_END_TEST;

/* Which calls boxfilter() runs as one packed plane of 4-byte pixels
 * (detail::box_packed, host code): the 4 channels of the same rows in any
 * order, written to the same channels of one packed destination, 4-byte
 * aligned bases and pitches, one window for the channels filtered and
 * (0, 0) for those copied. */
GST_START_TEST (test_packed_detect)
{
  using cip::detail::BoxPacked;
  using cip::detail::box_packed;
  alignas (16) static uint8_t src[64 * 8], dst[64 * 8];
  const int off_rgba[4] = { 0, 1, 2, 3 }, off_bgra[4] = { 2, 1, 0, 3 };
  auto frame = [&] (const int *off, BoxPlane *p, int w = 10, size_t pitch = 64) {
    for (int i = 0; i < 4; i++) {
      p[i] = BoxPlane ();
      p[i].src = ImageView { src + off[i], pitch, w, 8, 4 };
      p[i].dst = dst + off[i];
      p[i].dst_pitch = pitch;
      p[i].dst_step = 4;
      p[i].rx = 5;
      p[i].ry = 2;
    }
  };
  BoxPlane p[4];
  BoxPacked pk;
  frame (off_rgba, p);
  fail_unless (box_packed (p, 4, pk));
  fail_unless (pk.src == src && pk.dst == dst && pk.w == 10 && pk.h == 8 &&
      pk.rx == 5 && pk.ry == 2 && pk.copy_mask == 0 && pk.src_pitch == 64);
  frame (off_bgra, p);
  p[3].rx = p[3].ry = 0;                /* alpha copied */
  fail_unless (box_packed (p, 4, pk));
  fail_unless (pk.src == src && pk.rx == 5 && pk.copy_mask == 0xff000000u);
  frame (off_bgra, p);
  p[0].rx = p[0].ry = 0;                /* R, at byte 2, copied */
  fail_unless (box_packed (p, 4, pk) && pk.copy_mask == 0x00ff0000u);
  frame (off_rgba, p);
  for (BoxPlane &q : p)
    q.rx = q.ry = 0;                    /* all copied: a window of one */
  fail_unless (box_packed (p, 4, pk) && pk.rx == 0 && pk.ry == 0 &&
      pk.copy_mask == 0);
  /* refused */
  frame (off_rgba, p);
  fail_unless (!box_packed (p, 3, pk));                 /* not 4 planes */
  frame (off_rgba, p);
  p[2].rx = 4;                                          /* two windows */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  p[1].rx = 0;                                          /* (0, 2) is a window */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p, 10, 62);                          /* pitch */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  for (BoxPlane &q : p) {
    q.src.data = static_cast<const uint8_t *> (q.src.data) + 1;
    q.dst += 1;                                         /* base not aligned */
  }
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  std::swap (p[0].dst, p[1].dst);                       /* channels swapped */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  p[3].src.data = src + 2;                              /* a channel twice */
  p[3].dst = dst + 2;
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  p[2].src.width = 9;                                   /* sizes */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  for (BoxPlane &q : p)
    q.src.step = 2;                                     /* not 4-byte pixels */
  fail_unless (!box_packed (p, 4, pk));
  frame (off_rgba, p);
  p[1].dst_step = 1;
  fail_unless (!box_packed (p, 4, pk));
}
GST_END_TEST;

GST_START_TEST (test_ref_invalid_arguments)
{
  HostImage src = testutil::make_image (20, 10, Content::random, 1, 1, 4);
  HostImage dst = make_dst (20, 10, 1, 4);
  BoxPlane ok = plane_of (src.view (), dst, 0, { 1, 1 });
  fail_unless (cip::ref::boxfilter (&ok, 1, BoxBorder::clip) == Status::ok);
  fail_unless (cip::ref::boxfilter (&ok, 0, BoxBorder::clip) == Status::ok);
  fail_unless (cip::ref::boxfilter (nullptr, 0, BoxBorder::clip) == Status::ok);
  fail_unless (cip::ref::boxfilter (nullptr, 1, BoxBorder::clip) ==
      Status::invalid_argument);
  BoxPlane five[5] = { ok, ok, ok, ok, ok };
  fail_unless (cip::ref::boxfilter (five, 5, BoxBorder::clip) ==
      Status::invalid_argument);
  fail_unless (cip::ref::boxfilter (&ok, 1, (BoxBorder) 7) ==
      Status::invalid_argument);

  BoxPlane p = ok;
  p.rx = cip::boxfilter_max_radius + 1;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = ok;
  p.ry = -1;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = ok;
  p.rx = p.ry = cip::boxfilter_max_radius;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::replicate) == Status::ok);
  p = ok;
  p.dst = nullptr;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = ok;
  p.dst_pitch = 19;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = ok;
  p.dst_step = 0;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = ok;
  p.src.pitch = 19;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);

  /* in place, or a destination inside a source of the call: refused */
  HostImage inplace = testutil::make_image (20, 10, Content::random, 1, 1, 4);
  p = ok;
  p.src = inplace.view ();
  p.dst = inplace.bytes.data ();
  p.dst_pitch = inplace.pitch;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p.dst = inplace.bytes.data () + inplace.pitch * 5;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  BoxPlane two[2] = { ok, ok };
  two[1].dst = (uint8_t *) src.bytes.data () + 3;   /* plane 1 writes plane 0's source */
  HostImage other = testutil::make_image (20, 10, Content::random, 9, 1, 4);
  two[1].src = other.view ();
  fail_unless (cip::ref::boxfilter (two, 2, BoxBorder::clip) == Status::invalid_argument);
  two[1] = ok;      /* two planes writing the same samples */
  two[1].src = other.view ();
  fail_unless (cip::ref::boxfilter (two, 2, BoxBorder::clip) == Status::invalid_argument);

  /* precomputed SAT: short pitch, misaligned, destination inside it */
  std::vector<uint8_t> sat = ref_sat (src.view (), 21 * 4);
  p = ok;
  p.sat = (const uint32_t *) sat.data ();
  p.sat_pitch = 21 * 4;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::ok);
  p.sat_pitch = 20 * 4;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p.sat_pitch = 21 * 4 + 2;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p.sat_pitch = 21 * 4;
  p.dst = sat.data () + 8;
  p.dst_pitch = 24;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);

  /* empty planes are valid and do nothing */
  p = ok;
  p.src.width = 0;
  p.src.data = nullptr;
  p.dst = nullptr;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::ok);

  /* workspace size: none for a plane with a SAT, and the upper bound rule */
  BoxPlane w2[2] = { ok, ok };
  size_t both = cip::boxfilter_workspace_bytes (w2, 2);
  w2[1].sat = (const uint32_t *) sat.data ();
  w2[1].sat_pitch = 21 * 4;
  fail_unless (cip::boxfilter_workspace_bytes (w2, 2) < both);
  fail_unless (cip::boxfilter_workspace_bytes (w2, 2) >=
      cip::boxfilter_workspace_bytes (&ok, 1));
  fail_unless (cip::boxfilter_workspace_bytes (nullptr, 0) == 0);

  /* picks: direct only where it can serve, the same pick for rx, ry swapped
   * (the larger radius decides), and a given table read above radius 4 (the
   * element relies on it); the limits in between are the bench's to set */
  BoxPlane big = ok;
  for (int r = 0; r <= cip::boxfilter_max_radius; r += r < 40 ? 1 : 97) {
    big.rx = big.ry = r;
    const BoxAlgorithm a = cip::boxfilter_pick (big);
    fail_unless (a != BoxAlgorithm::automatic);
    fail_unless (a != BoxAlgorithm::direct || r <= cip::boxfilter_direct_max_radius);
    big.rx = 0;
    fail_unless (cip::boxfilter_pick (big) == a, "r %d", r);
    big.rx = r;
    big.ry = 0;
    fail_unless (cip::boxfilter_pick (big) == a, "r %d", r);
  }
  big.sat = (const uint32_t *) sat.data ();
  big.sat_pitch = 21 * 4;
  for (int r = 0; r <= cip::boxfilter_max_radius; r += r < 40 ? 1 : 97) {
    big.rx = big.ry = r;
    fail_unless (cip::boxfilter_pick (big) == (r <= 4 ? BoxAlgorithm::direct :
            BoxAlgorithm::sat), "with a table, r %d", r);
  }

  /* fused runs where it serves (8-bit, step 1, width <= 8192), sat elsewhere;
   * the other algorithms are never moved */
  BoxPlane f = ok;
  f.rx = f.ry = 40;
  fail_unless (cip::detail::box_resolve (f, BoxAlgorithm::fused) ==
      BoxAlgorithm::fused);
  fail_unless (cip::detail::box_resolve (f, BoxAlgorithm::automatic) ==
      cip::boxfilter_pick (f));
  for (BoxAlgorithm a : { BoxAlgorithm::sat, BoxAlgorithm::direct,
          BoxAlgorithm::sliding })
    fail_unless (cip::detail::box_resolve (f, a) == a);
  BoxPlane g = f;
  g.src.step = 2;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g = f;
  g.src.width = cip::detail::kBoxFusedMaxWidth + 1;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g.src.width = cip::detail::kBoxFusedMaxWidth;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::fused);
  g.src.height = cip::detail::kSatTiledMaxSide + 1;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g = f;
  g.src.bytes = 2;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g = f;
  g.src.pitch = (size_t) 1 << 20;  /* offsets past 2^32: sat */
  g.src.height = 4097;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g.src.height = 4096;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::fused);
  g = f;
  g.src.pitch += 2;               /* rows not whole words */
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  g = f;
  g.sat = (const uint32_t *) sat.data ();   /* a table given: sat reads it */
  g.sat_pitch = 21 * 4;
  fail_unless (cip::detail::box_resolve (g, BoxAlgorithm::fused) ==
      BoxAlgorithm::sat);
  /* automatic: fused above the direct radii on planes of 2 million samples
   * and 1920 columns or more, not on smaller ones nor on planes with a
   * table */
  g = f;
  g.src.width = 3840;
  g.src.height = 2160;
  g.src.pitch = 3840;
  g.rx = g.ry = cip::boxfilter_direct_max_radius + 1;
  fail_unless (cip::boxfilter_pick (g) == BoxAlgorithm::fused);
  g.src.width = g.src.pitch = 1920;
  g.src.height = 1080;
  fail_unless (cip::boxfilter_pick (g) == BoxAlgorithm::fused);
  g.rx = g.ry = cip::boxfilter_direct_max_radius;   /* 1080p: direct to 16 */
  fail_unless (cip::boxfilter_pick (g) == BoxAlgorithm::direct);
  g.rx = g.ry = cip::boxfilter_direct_max_radius + 1;
  g.src.width = g.src.pitch = 1280;
  g.src.height = 720;
  fail_unless (cip::boxfilter_pick (g) == BoxAlgorithm::sat);
  g.src.height = 4000;            /* narrow: never measured, sat */
  fail_unless (cip::boxfilter_pick (g) == BoxAlgorithm::sat);

  /* fused takes over from direct above radius 13 on a plane it serves
   * (clip: 10 below 16 million samples, e.g. 4K, 13 from there on, e.g.
   * 8K) */
  g = f;
  g.src.width = g.src.pitch = 7680;
  g.src.height = 4320;
  for (BoxBorder b : borders)
    for (int r = 9; r <= 18; r++) {
      g.rx = g.ry = r;
      fail_unless (cip::boxfilter_pick (g, b) == (r <= 13 ?
              BoxAlgorithm::direct : BoxAlgorithm::fused), "8K r %d", r);
    }
  /* at 4K; in one call with planes that run direct (NV12's chroma, step-2
   * views) such a plane runs direct too (one launch), above radius 16
   * fused */
  g = f;
  g.src.width = g.src.pitch = 3840;
  g.src.height = 2160;
  BoxPlane call[3] = { g, g, g };
  for (int c = 1; c < 3; c++) {
    call[c].src.width = 1920;
    call[c].src.height = 1080;
    call[c].src.step = 2;
    call[c].dst_step = 2;
  }
  BoxAlgorithm out[3];
  for (BoxBorder b : borders)
    for (int r = 9; r <= 18; r++) {
      for (BoxPlane &c : call)
        c.rx = c.ry = r;
      const BoxAlgorithm alone = cip::boxfilter_pick (call[0], b);
      fail_unless (alone == (r <= (b == BoxBorder::clip ? 10 : 13) ?
              BoxAlgorithm::direct : BoxAlgorithm::fused), "r %d", r);
      cip::detail::box_resolve_call (call, 1, BoxAlgorithm::automatic, out, b);
      fail_unless (out[0] == alone, "r %d", r);
      cip::detail::box_resolve_call (call, 3, BoxAlgorithm::automatic, out, b);
      fail_unless (out[0] == (r <= cip::boxfilter_direct_max_radius ?
              BoxAlgorithm::direct : BoxAlgorithm::fused), "r %d", r);
      for (int c = 1; c < 3; c++)
        fail_unless (out[c] == cip::boxfilter_pick (call[c], b), "r %d", r);
      /* an algorithm asked for is kept */
      cip::detail::box_resolve_call (call, 3, BoxAlgorithm::fused, out, b);
      fail_unless (out[0] == BoxAlgorithm::fused && out[1] == BoxAlgorithm::sat);
    }
}
GST_END_TEST;


/* ---- 16-bit planes (CPU) ---------------------------------------------------- */

namespace {

struct Layout16 { int depth, shift; const char *name; };
const Layout16 layouts16[] = { {10, 6, "p010"}, {10, 0, "i420_10"}, {16, 0, "16bit"} };
const Content contents16[] = { Content::random, Content::all255,
  Content::gradient, Content::natural, Content::constant };

/* A 16-bit source (garbage in the bits outside the values) and its
 * destination of the same layout, every byte poisoned. */
struct Case16 {
  HostImage src, dst;
  std::vector<uint8_t> before;
  int ch;
  Case16 (int w, int h, Content c, const Layout16 &l, int chans, size_t pad)
      : src (testutil::make_image16 (w, h, c, l.depth, l.shift, 17, chans, pad, true)),
        dst (testutil::make_image16 (w, h, Content::zeros, l.depth, l.shift, 1,
                chans, pad + 2)), ch (chans - 1) {
    std::fill (dst.bytes.begin (), dst.bytes.end (), 0xA5);
    before = dst.bytes;
  }
  BoxPlane plane (Radius r) {
    BoxPlane p;
    p.src = src.view (2 * ch);
    p.dst = dst.bytes.data () + 2 * ch;
    p.dst_pitch = dst.pitch;
    p.dst_step = dst.step;
    p.rx = r.rx;
    p.ry = r.ry;
    return p;
  }
  /* bytes dst must hold: the sliding-window values, shifted into place (the
   * other bits zero), everything else as before */
  std::vector<uint8_t> expect (Radius r, BoxBorder b) const {
    std::vector<uint32_t> v = testutil::sliding_box_values ([&] (int x, int y) {
          return src.value (x, y, ch);
        }, src.width, src.height, r.rx, r.ry, b == BoxBorder::replicate);
    std::vector<uint8_t> e = before;
    for (int y = 0; y < src.height; y++)
      for (int x = 0; x < src.width; x++) {
        const uint32_t w = v[(size_t) y * src.width + x] << src.shift;
        uint8_t *q = e.data () + (size_t) y * dst.pitch + (size_t) x * dst.step + 2 * ch;
        q[0] = (uint8_t) w;
        q[1] = (uint8_t) (w >> 8);
      }
    return e;
  }
};

/* Bytes (or values: T = uint32_t, pitch in values) of two images equal. */
template <typename T>
bool
same_bytes (const std::vector<T> &got, const std::vector<T> &want,
    size_t pitch, const std::string &what)
{
  for (size_t i = 0; i < want.size (); i++)
    if (got[i] != want[i]) {
      fprintf (stderr, "%s: first difference at row %zu element %zu: got %u want %u\n",
          what.c_str (), i / pitch, i % pitch, (unsigned) got[i], (unsigned) want[i]);
      return false;
    }
  return true;
}

const Radius radii16[] = { {0, 0}, {1, 1}, {3, 2}, {16, 16}, {100, 3}, {1024, 1024} };

}  // namespace

/* 10- and 16-bit planes and interleaved channels: the reference against the
 * independent sliding-window model (64-bit sums, the same rounding), output
 * in the source's layout (P010: value << 6, low bits zero), padding and the
 * other channel untouched; window sums beyond 2^32 (all-max frames, large
 * radii). */
GST_START_TEST (test_ref_16bit)
{
  const testutil::Size sizes[] = { {1, 1}, {31, 17}, {67, 23} };
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (const testutil::Size &sz : sizes)
        for (int chans : { 1, 2 })
          for (Radius r : radii16)
            for (BoxBorder b : { BoxBorder::clip, BoxBorder::replicate }) {
              Case16 k (sz.w, sz.h, c, l, chans, 6);
              BoxPlane p = k.plane (r);
              fail_unless (cip::boxfilter_pick (p) != BoxAlgorithm::direct);
              fail_unless (cip::ref::boxfilter (&p, 1, b) == Status::ok);
              const std::string what = describe ((std::string ("ref16 ") +
                      l.name).c_str (), sz.w, sz.h, c, r, b, 2 * chans);
              fail_unless (same_bytes (k.dst.bytes, k.expect (r, b), k.dst.pitch,
                      what), "%s", what.c_str ());
            }
  /* 16-bit planes: no precomputed u32 SAT, aligned destinations */
  Case16 k (8, 8, Content::random, layouts16[0], 1, 0);
  BoxPlane p = k.plane ({ 1, 1 });
  std::vector<uint32_t> sat (81, 0);
  p.sat = sat.data ();
  p.sat_pitch = 9 * 4;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::unsupported);
  p = k.plane ({ 1, 1 });
  p.dst += 1;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = k.plane ({ 1, 1 });
  p.dst_step = 1;
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
  p = k.plane ({ 1, 1 });
  p.dst = (uint8_t *) p.src.data + 2;       /* overlaps the source's last byte */
  fail_unless (cip::ref::boxfilter (&p, 1, BoxBorder::clip) == Status::invalid_argument);
}
GST_END_TEST;

/* ---- the sliding kernel's steps, emulated on the CPU ------------------------ */

namespace {

/* What the sliding kernel computes, block by block and row by row, with the
 * functions it runs (detail/boxfilter_sliding.h): the plan, each block's
 * tile and source columns, the vertical sums (a full window at the strip's
 * first row, then one slide per row, in uint32), the exclusive prefix of a
 * row's column sums in the kernel's sum type (uint32 wrapping for 8-bit,
 * uint64 for 16-bit), the prefix taps and the rounding. Only the threads'
 * sharing of the work is left out. Checks the plan's invariants, that every
 * prefix tap lies in the scanned entries, and that every output is written
 * exactly once. Returns the output values (0xFFFFFFFF: not written). */
template <typename U>
std::vector<uint32_t>
emulate_sliding (const ImageView &v, Radius r, BoxBorder b, int sms,
    const std::string &what)
{
  namespace d = cip::detail;
  const int w = v.width, h = v.height;
  const bool rep = b == BoxBorder::replicate;
  std::vector<uint32_t> out ((size_t) w * h, 0xFFFFFFFFu);
  const d::BoxSlidingPlan P = d::box_sliding_plan (w, h, r.rx, r.ry,
      (int) sizeof (U), sms);
  const int T = d::box_sliding_threads;
  fail_unless (P.tile_w >= T && P.tile_w <= d::box_sliding_max_tile_w &&
      P.tile_w % T == 0 && P.strip_h >= 1, "%s: tile %d strip %d", what.c_str (),
      P.tile_w, P.strip_h);
  fail_unless ((long long) P.tiles_x * P.tile_w >= w &&
      (long long) (P.tiles_x - 1) * P.tile_w < w &&
      (long long) P.strips * P.strip_h >= h &&
      (long long) (P.strips - 1) * P.strip_h < h, "%s: grid", what.c_str ());
  fail_unless (P.kv >= 1 && P.kv <= d::box_sliding_max_kv &&
      P.kv * T >= P.cols && P.row_stride > P.cols && P.row_stride % 32 == 0 &&
      (P.row_stride / 32) % 2 == 1 && P.rows_batch >= 1 &&
      P.rows_batch <= d::box_sliding_max_rows_batch &&
      P.smem == (size_t) P.rows_batch * P.row_stride * sizeof (U) &&
      P.smem <= d::box_sliding_max_smem, "%s: plan", what.c_str ());
  auto get = [&v] (int c, int y) -> uint32_t {
    const uint8_t *q = v.data + (size_t) y * v.pitch + (size_t) c * v.step;
    if (v.bytes == 1)
      return *q;
    return (((uint32_t) q[0] | ((uint32_t) q[1] << 8)) >> v.shift) &
        v.max_value ();
  };
  const d::BoxDivisor full = d::box_divisor ((uint32_t) (2 * r.rx + 1) *
      (uint32_t) (2 * r.ry + 1));
  bool bad_tap = false, twice = false, bad_cols = false;
  for (int ty = 0; ty < P.strips; ty++)
    for (int tx = 0; tx < P.tiles_x; tx++) {
      const d::BoxSlidingTile t = d::box_sliding_tile (P, w, h, r.rx, tx, ty);
      const int cols = t.lb - t.la;
      if (t.la < 0 || t.lb > w || cols < 1 || cols > P.cols) {
        bad_cols = true;
        continue;
      }
      std::vector<uint32_t> vs (cols);
      for (int c = t.la; c < t.lb; c++)
        vs[c - t.la] = d::box_sliding_col_init (get, c, t.y0, r.ry, h, rep);
      std::vector<U> pre (P.row_stride);
      for (int y = t.y0; y < t.y1; y++) {
        U run = 0;
        for (int i = 0; i < P.row_stride; i++) {
          if (i < cols && y > t.y0)
            vs[i] = d::box_sliding_col_step (vs[i], get, t.la + i, y, r.ry, h,
                rep);
          pre[i] = run;
          run += i < cols ? (U) vs[i] : (U) 0;
        }
        /* (no fail_unless per pixel: Check marks every call through a pipe) */
        auto tap = [&] (int i) -> U {
          if (i < 0 || i > cols) {
            bad_tap = true;
            return 0;
          }
          return pre[i];
        };
        for (int x = t.x0; x < t.x1; x++) {
          const U sum = d::box_sliding_hsum<U> (tap, x, r.rx, w, t.la, rep);
          const uint32_t area = d::box_sliding_area (x, y, w, h, r.rx, r.ry, rep);
          uint32_t &o = out[(size_t) y * w + x];
          twice |= o != 0xFFFFFFFFu;
          o = sizeof (U) == 4 ? d::box_sliding_out8 ((uint32_t) sum, area, full) :
              d::box_sliding_out16 ((uint64_t) sum, area);
        }
      }
    }
  fail_unless (!bad_cols, "%s: a tile's columns outside the plan", what.c_str ());
  fail_unless (!bad_tap, "%s: a prefix tap outside the scanned columns",
      what.c_str ());
  fail_unless (!twice, "%s: an output written twice", what.c_str ());
  return out;
}

/* Sizes around the tile widths (256, 512, 1024) and radii around the strip
 * heights the plan picks (8 .. 128), besides the edge sizes. */
const testutil::Size sliding_sizes[] = { {255, 9}, {256, 9}, {257, 9}, {511, 5},
  {512, 5}, {513, 5}, {1023, 3}, {1025, 3}, {767, 40}, {300, 300} };
const Radius sliding_radii[] = { {0, 0}, {1, 1}, {3, 2}, {2, 9}, {7, 7}, {8, 8},
  {9, 9}, {15, 16}, {17, 31}, {32, 33}, {63, 64}, {65, 128}, {40, 3},
  {100, 100}, {1024, 0}, {0, 1024}, {1024, 1024} };

}  // namespace

/* The sliding algorithm's decomposition and arithmetic (what the GPU kernel
 * runs, emulated) against the independent sliding-window model: 8-bit edge
 * sizes and tile/strip edges, plans for 1, 132 and 1000 SMs, a channel of a
 * packed plane, and 10/16-bit planes with window sums beyond 2^32. */
GST_START_TEST (test_sliding_emulation)
{
  std::vector<testutil::Size> sizes (testutil::edge_sizes,
      testutil::edge_sizes + testutil::n_edge_sizes);
  sizes.insert (sizes.end (), std::begin (sliding_sizes), std::end (sliding_sizes));
  for (const testutil::Size &sz : sizes)
    for (Content c : { Content::random, Content::all255, Content::natural }) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 31, 1, 5);
      for (Radius r : sliding_radii)
        for (BoxBorder b : borders) {
          const std::vector<uint8_t> want8 = sliding_ref (src.view (), r, b);
          const std::vector<uint32_t> want (want8.begin (), want8.end ());
          for (int sms : { 1, 132, 1000 }) {
            if (sms != 132 && (long long) sz.w * sz.h > 20000)
              continue;
            const std::string what = describe ("sliding emulation", sz.w, sz.h,
                c, r, b) + " sms " + std::to_string (sms);
            fail_unless (same_bytes (emulate_sliding<uint32_t> (src.view (), r,
                        b, sms, what), want, sz.w, what), "%s", what.c_str ());
          }
        }
    }
  /* a channel of RGBA */
  HostImage rgba = testutil::make_image (301, 37, Content::random, 9, 4, 8);
  for (Radius r : { Radius { 1, 1 }, Radius { 20, 5 }, Radius { 300, 40 } })
    for (BoxBorder b : borders) {
      const std::vector<uint8_t> want8 = sliding_ref (rgba.view (2), r, b);
      const std::string what = describe ("sliding emulation", 301, 37,
          Content::random, r, b, 4);
      fail_unless (same_bytes (emulate_sliding<uint32_t> (rgba.view (2), r, b,
                  132, what), std::vector<uint32_t> (want8.begin (), want8.end ()),
              301, what), "%s", what.c_str ());
    }
  /* 10/16-bit, interleaved channels, garbage outside the value bits */
  const testutil::Size sizes16[] = { {1, 1}, {31, 17}, {257, 20} };
  for (const Layout16 &l : layouts16)
    for (Content c : { Content::random, Content::all255 })
      for (const testutil::Size &sz : sizes16)
        for (Radius r : radii16)
          for (BoxBorder b : borders) {
            Case16 k (sz.w, sz.h, c, l, 2, 6);
            const std::vector<uint32_t> want = testutil::sliding_box_values (
                [&] (int x, int y) { return k.src.value (x, y, k.ch); },
                sz.w, sz.h, r.rx, r.ry, b == BoxBorder::replicate);
            const std::string what = describe ((std::string ("sliding emulation ") +
                    l.name).c_str (), sz.w, sz.h, c, r, b, 4);
            fail_unless (same_bytes (emulate_sliding<uint64_t> (k.src.view (2 * k.ch),
                        r, b, 132, what), want, sz.w, what), "%s", what.c_str ());
          }
}
GST_END_TEST;

/* ---- GPU ----------------------------------------------------------------- */

#ifdef HAVE_CUDA
namespace {


ImageView
dev_view (const HostImage &img, const DevBuf &d, int channel)
{
  ImageView v = img.view (channel);
  v.data = d.p + channel;
  return v;
}

/* Workspace for `planes`, prepared once and reused (grown when needed). */
struct Workspace {
  DevBuf *buf = nullptr;
  ~Workspace () { delete buf; }
  void *get (const BoxPlane *planes, int n, size_t *bytes) {
    size_t need = cip::boxfilter_workspace_bytes (planes, n);
    if (!buf || buf->n < need) {
      delete buf;
      buf = new DevBuf (need);
      /* prepared on the legacy stream: wait before other streams use it */
      fail_unless (cip::boxfilter_workspace_init (buf->p, buf->n, nullptr) ==
          Status::ok);
      CUDA_OK (cudaDeviceSynchronize ());
    }
    *bytes = buf->n;
    return buf->p;
  }
};

enum class SatMode { none, aligned, unaligned };

/* dst's bytes with every sample of the channels in `mask` inverted: a device
 * destination holding this before a call cannot match the expected output
 * where a sample is missed. Row padding keeps its value. */
std::vector<uint8_t>
inverted_samples (const HostImage &dst, unsigned mask)
{
  std::vector<uint8_t> v = dst.bytes;
  for (int y = 0; y < dst.height; y++)
    for (int x = 0; x < dst.width; x++)
      for (int ch = 0; ch < dst.step; ch++)
        if (mask & (1u << ch))
          v[(size_t) y * dst.pitch + (size_t) x * dst.step + ch] ^= 0xFF;
  return v;
}

/* One GPU run: device destination holding `expect` with every written
 * sample inverted (so a sample the kernel misses cannot match), the filter,
 * then the whole destination buffer (padding included) compared. */
bool
gpu_run_matches (const HostImage &src, const DevBuf &dsrc, int channel,
    Radius r, BoxBorder b, BoxAlgorithm algo, SatMode sm,
    const std::vector<uint8_t> &expect, const HostImage &dst_shape,
    Workspace &ws, cudaStream_t stream, const std::string &what)
{
  const int dch = dst_shape.step > 1 ? dst_shape.step - 1 : 0;
  std::vector<uint8_t> poison = expect;
  for (int y = 0; y < dst_shape.height; y++)
    for (int x = 0; x < dst_shape.width; x++)
      poison[(size_t) y * dst_shape.pitch + (size_t) x * dst_shape.step + dch] ^= 0xFF;
  DevBuf ddst (expect.size ());
  ddst.upload (poison);

  BoxPlane p;
  p.src = dev_view (src, dsrc, channel);
  p.dst = ddst.p + dch;
  p.dst_pitch = dst_shape.pitch;
  p.dst_step = dst_shape.step;
  p.rx = r.rx;
  p.ry = r.ry;
  std::unique_ptr<DevBuf> dsat;
  if (sm != SatMode::none) {
    /* aligned: 128-byte pitch, 16-byte aligned rows (vectorized gather);
     * unaligned: tight pitch, starting 4 bytes into the allocation */
    const size_t pitch = ((size_t) src.width + 1) * 4;
    const size_t sp = sm == SatMode::aligned ? (pitch + 127) / 128 * 128 : pitch;
    const size_t shift = sm == SatMode::unaligned ? 4 : 0;
    std::vector<uint8_t> sat = ref_sat (src.view (channel), sp);
    sat.insert (sat.begin (), shift, (uint8_t) 0);
    dsat.reset (new DevBuf (sat.size ()));
    dsat->upload (sat);
    p.sat = (const uint32_t *) (dsat->p + shift);
    p.sat_pitch = sp;
  }
  size_t ws_bytes = 0;
  void *d_ws = ws.get (&p, 1, &ws_bytes);
  Status st = cip::boxfilter (&p, 1, b, d_ws, ws_bytes, stream, algo);
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s %s\n", what.c_str (), cip::status_string (st),
        cip::last_cuda_error ());
    return false;
  }
  CUDA_OK (cudaStreamSynchronize (stream));
  std::vector<uint8_t> got = ddst.download ();
  for (size_t i = 0; i < got.size (); i++)
    if (got[i] != expect[i]) {
      fprintf (stderr, "%s: first difference at row %zu byte %zu: got %u want %u\n",
          what.c_str (), i / dst_shape.pitch, i % dst_shape.pitch, got[i], expect[i]);
      return false;
    }
  return true;
}

/* Every algorithm (and SAT form) that can serve radius r. */
void
gpu_check_all (const HostImage &src, const DevBuf &dsrc, int channel, Radius r,
    BoxBorder b, int dst_step, size_t dst_pad, Workspace &ws,
    cudaStream_t stream, Content c)
{
  HostImage dst = make_dst (src.width, src.height, dst_step, dst_pad);
  const int dch = dst_step > 1 ? dst_step - 1 : 0;
  BoxPlane p = plane_of (src.view (channel), dst, dch, r);
  std::vector<uint8_t> before = dst.bytes;
  fail_unless (cip::ref::boxfilter (&p, 1, b) == Status::ok);
  /* the expected bytes are the independent reference's, not only the CPU
   * reference's (which shares the per-pixel arithmetic with the kernels) */
  fail_unless (check_output (dst, dch, sliding_ref (src.view (channel), r, b),
          before, describe ("ref vs sliding", src.width, src.height, c, r, b,
              src.step)), "reference != sliding-window reference");
  struct Variant { BoxAlgorithm a; SatMode s; const char *name; };
  const Variant vs[] = { {BoxAlgorithm::automatic, SatMode::none, "auto"},
    {BoxAlgorithm::sat, SatMode::none, "sat"},
    {BoxAlgorithm::direct, SatMode::none, "direct"},
    {BoxAlgorithm::sliding, SatMode::none, "sliding"},
    {BoxAlgorithm::fused, SatMode::none, "fused"},
    {BoxAlgorithm::sat, SatMode::aligned, "sat+presat"},
    {BoxAlgorithm::sat, SatMode::unaligned, "sat+presat-unaligned"},
    {BoxAlgorithm::automatic, SatMode::aligned, "auto+presat"} };
  for (const Variant &v : vs) {
    if (v.a == BoxAlgorithm::direct && (r.rx > cip::boxfilter_direct_max_radius ||
            r.ry > cip::boxfilter_direct_max_radius))
      continue;
    std::string what = describe ("gpu", src.width, src.height, c, r, b, src.step) +
        " ch " + std::to_string (channel) + " dst step " +
        std::to_string (dst_step) + " " + v.name;
    fail_unless (gpu_run_matches (src, dsrc, channel, r, b, v.a, v.s,
            dst.bytes, dst, ws, stream, what), "%s", what.c_str ());
  }
}

}  // namespace

/* PDL between calls (kernels/detail/launch.cuh): a call's first kernel may
 * be scheduled before the one ahead of it ends and must wait for it before
 * it touches memory. Ahead of call A a kernel that lets the next be
 * scheduled at once writes A's frame late (testutil::late_copy: other
 * bytes there until then); call B, on another frame and output, follows
 * with no sync through the same workspace (whose tables A still reads).
 * fused on grouped tables and on tables in two launches (the tiled SAT's
 * tuning), and automatic at 4K (fused there), both borders. */
GST_START_TEST (test_gpu_late_input)
{
  const bool sm = cip_test_small ();
  const cip::detail::SatTuning saved = cip::detail::sat_get_tuning ();
  Workspace ws;
  cudaStream_t st;
  CUDA_OK (cudaStreamCreateWithFlags (&st, cudaStreamNonBlocking));
  struct Size2 { int w, h; };
  for (const Size2 &sz : { Size2 { 644, 37 }, Size2 { 3840, 2160 } }) {
    if (sm && sz.w > 644)
      continue;
    const HostImage a = make_image (sz.w, sz.h, Content::natural, 71);
    const HostImage b = make_image (sz.w, sz.h, Content::random, 72);
    const HostImage junk = make_image (sz.w, sz.h, Content::random, 73);
    DevBuf da (a.bytes.size ()), db (b.bytes.size ()), stage (a.bytes.size ());
    DevBuf oa ((size_t) sz.w * sz.h), ob ((size_t) sz.w * sz.h);
    stage.upload (a.bytes);
    db.upload (b.bytes);
    const Radius r = { 15, 15 };
    struct Run { BoxAlgorithm algo; int ungrouped; };
    for (BoxBorder bd : { BoxBorder::replicate, BoxBorder::clip })
      for (const Run &run : { Run { BoxAlgorithm::fused, 0 },
              Run { BoxAlgorithm::fused, 1 },
              Run { BoxAlgorithm::automatic, 0 } }) {
        const BoxAlgorithm algo = run.algo;
        if (algo == BoxAlgorithm::automatic && sz.w < 3840)
          continue;             /* direct there: no tables */
        cip::detail::SatTuning t = saved;
        t.tiled_ungrouped = run.ungrouped;
        cip::detail::sat_set_tuning (t);
        const std::vector<uint8_t> wa = ref_output (a.view (), r, bd),
            wb = ref_output (b.view (), r, bd);
        BoxPlane pa, pb;
        pa.src = dev_view (a, da, 0);
        pb.src = dev_view (b, db, 0);
        pa.dst = oa.p;
        pb.dst = ob.p;
        pa.dst_pitch = pb.dst_pitch = (size_t) sz.w;
        pa.rx = pb.rx = r.rx;
        pa.ry = pb.ry = r.ry;
        const bool fused = cip::detail::box_resolve (pa, algo, bd) ==
            BoxAlgorithm::fused;
        size_t wsb = 0;
        void *w = ws.get (&pa, 1, &wsb);
        da.upload (junk.bytes);
        CUDA_OK (cudaMemsetAsync (oa.p, 0xA5, oa.n, st));
        CUDA_OK (cudaMemsetAsync (ob.p, 0xA5, ob.n, st));
        CUDA_OK (testutil::late_copy (da.p, stage.p, a.bytes.size (), 40, st));
        const Status s1 = cip::boxfilter (&pa, 1, bd, w, wsb, st, algo);
        const Status s2 = cip::boxfilter (&pb, 1, bd, w, wsb, st, algo);
        CUDA_OK (cudaStreamSynchronize (st));
        const bool ok_a = oa.download () == wa, ok_b = ob.download () == wb;
        cip::detail::sat_set_tuning (saved);
        fail_unless (fused && s1 == Status::ok && s2 == Status::ok && ok_a &&
            ok_b, "late input %dx%d %s%s %s: fused %d, %s / %s, A %s, B %s",
            sz.w, sz.h, cip::box_algorithm_name (algo), run.ungrouped ?
            " (tables in two launches)" : "", bd == BoxBorder::clip ? "clip" :
            "replicate", (int) fused, cip::status_string (s1),
            cip::status_string (s2), ok_a ? "ok" : "differs",
            ok_b ? "ok" : "differs");
      }
  }
  cudaStreamDestroy (st);
}
GST_END_TEST;

GST_START_TEST (test_gpu_edge_sizes)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const Radius radii[] = { {0, 0}, {1, 1}, {2, 2}, {3, 1}, {7, 7}, {16, 16},
    {17, 2}, {50, 50}, {13, 40}, {1024, 1024} };
  /* CIP_TEST_SMALL (compute-sanitizer, where each launch is slow): every
   * algorithm's cases (direct, sat, the largest direct radius, asymmetric,
   * radii beyond the frame) on two contents */
  const bool sm = cip_test_small ();
  const Radius small_radii[] = { {0, 0}, {1, 1}, {16, 16}, {17, 2}, {13, 40},
    {1024, 1024} };
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (Content c : testutil::all_contents) {
      if (sm && ((c != Content::random && c != Content::all255) ||
              (long) sz.w * sz.h > 40000))
        continue;
      HostImage src = testutil::make_image (sz.w, sz.h, c, 3 + si, 1, 13);
      DevBuf dsrc (src.bytes.size ());
      dsrc.upload (src.bytes);
      for (Radius r : sm ? std::vector<Radius> (std::begin (small_radii),
              std::end (small_radii)) : std::vector<Radius> (std::begin (radii),
              std::end (radii)))
        for (BoxBorder b : borders)
          gpu_check_all (src, dsrc, 0, r, b, 1, 7, ws, stream, c);
    }
  }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

GST_START_TEST (test_gpu_steps)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const testutil::Size sizes[] = { {1, 1}, {31, 17}, {129, 32}, {1001, 67} };
  const Radius radii[] = { {0, 0}, {1, 1}, {2, 5}, {16, 3}, {50, 50} };
  for (testutil::Size sz : sizes)
    for (Content c : { Content::random, Content::natural, Content::checkerboard }) {
      /* 1001 columns: rows of a multiple of 16 bytes (tiled's aligned
       * loads for the sat path's table); the others byte by byte */
      HostImage src = testutil::make_image (sz.w, sz.h, c, 29, 4,
          sz.w == 1001 ? 12 : 9);
      DevBuf dsrc (src.bytes.size ());
      dsrc.upload (src.bytes);
      for (int ch = 0; ch < 4; ch++) {
        /* CIP_TEST_SMALL: the first and last channel of one content */
        if (cip_test_small () && (c != Content::random || ch == 1 || ch == 2 ||
                (long) sz.w * sz.h > 40000))
          continue;
        for (Radius r : radii)
          for (BoxBorder b : borders)
            for (int dstep : { 1, 4 })
              gpu_check_all (src, dsrc, ch, r, b, dstep, 11, ws, stream, c);
      }
    }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

GST_START_TEST (test_gpu_video_sizes)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const testutil::Size sizes[] = { {1920, 1080}, {3840, 2160} };
  const Radius radii[] = { {1, 1}, {8, 8}, {15, 15}, {100, 100}, {3, 40},
    {500, 500}, {1024, 1024} };
  for (testutil::Size sz : sizes)
    for (Content c : { Content::random, Content::natural, Content::all255 }) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 7, 1, 64);
      DevBuf dsrc (src.bytes.size ());
      dsrc.upload (src.bytes);
      for (Radius r : radii)
        for (BoxBorder b : borders)
          gpu_check_all (src, dsrc, 0, r, b, 1, 0, ws, stream, c);
    }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* The sliding kernel at its tile and strip edges: sizes around the tile
 * widths, radii around the strip heights, plane sizes whose plans differ
 * (1080p, 4K, a tall and a wide plane), against the independent model. */
GST_START_TEST (test_gpu_sliding_tiles)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  std::vector<testutil::Size> sizes (std::begin (sliding_sizes),
      std::end (sliding_sizes));
  if (!cip_test_small ())
    sizes.insert (sizes.end (), { {1920, 1080}, {3840, 2160}, {97, 4000},
        {5000, 61} });
  for (const testutil::Size &sz : sizes)
    for (Content c : { Content::random, Content::all255 }) {
      HostImage src = testutil::make_image (sz.w, sz.h, c, 43, 1, 3);
      DevBuf dsrc (src.bytes.size ());
      dsrc.upload (src.bytes);
      for (Radius r : sliding_radii)
        for (BoxBorder b : borders) {
          if ((long long) sz.w * sz.h > 1000000 && c != Content::random)
            continue;
          HostImage dst = make_dst (sz.w, sz.h, 1, 5);
          std::vector<uint8_t> before = dst.bytes;
          const std::vector<uint8_t> want = sliding_ref (src.view (), r, b);
          std::vector<uint8_t> expect = before;
          for (int y = 0; y < sz.h; y++)
            memcpy (expect.data () + (size_t) y * dst.pitch, want.data () +
                (size_t) y * sz.w, sz.w);
          const std::string what = describe ("gpu sliding", sz.w, sz.h, c, r, b);
          fail_unless (gpu_run_matches (src, dsrc, 0, r, b, BoxAlgorithm::sliding,
                  SatMode::none, expect, dst, ws, stream, what), "%s", what.c_str ());
        }
    }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* The fused kernel (and direct at radius 1 and 2) at their seams: widths
 * around the 128-column tiles, at fused's limit (8192; 8193 runs sat),
 * heights around the 16- and 32-row tiles, radii around fused's inner-tap
 * condition and past the frame, and for fused bands of 1, 2, 5 and 8 rows a
 * block as well as the automatic height (every block's first row computes
 * its column sums from the tables), tables of 32-row tiles, and 8 warps a
 * block (two tiles a warp); 601 columns: an odd number of tiles (five,
 * outputs rotated by two) and a last word straddling the width. Poisoned,
 * padded destinations; the device source ends at the last row's last
 * sample, so a read past it leaves the allocation (memcheck). */
GST_START_TEST (test_gpu_seams)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const bool sm = cip_test_small ();
  std::vector<testutil::Size> sizes = { {1, 1}, {127, 33}, {128, 16},
    {129, 47}, {259, 31}, {260, 64}, {300, 200}, {1000, 77}, {700, 600},
    {601, 45} };
  if (!sm)
    sizes.insert (sizes.end (), { {132, 9}, {4096, 70}, {4096, 1000}, {4100, 35},
        {cip::detail::kBoxFusedMaxWidth, 40},
        {cip::detail::kBoxFusedMaxWidth + 1, 20}, {3, 1500} });
  const Radius radii[] = { {0, 0}, {1, 1}, {2, 2}, {5, 40}, {63, 2},
    {64, 64}, {127, 9}, {128, 128}, {300, 20}, {1024, 1024} };
  const cip::detail::BoxTuning saved = cip::detail::box_get_tuning ();
  const cip::detail::SatTuning saved_sat = cip::detail::sat_get_tuning ();
  for (const testutil::Size &sz : sizes) {
    /* padded rows, whole words (fused reads the source a word at a time);
     * the device copy ends at the last row's last sample, so a read of the
     * padding there leaves the allocation (memcheck) */
    const size_t pad = 13 + (4 - (sz.w + 13) % 4) % 4;
    HostImage src = testutil::make_image (sz.w, sz.h,
        sz.w % 2 ? Content::random : Content::natural, 51, 1, pad);
    const size_t tight = (size_t) (sz.h - 1) * src.pitch + sz.w;
    DevBuf dsrc (tight);
    dsrc.upload (src.bytes.data (), tight);
    const bool served = sz.w <= cip::detail::kBoxFusedMaxWidth;
    fail_unless (cip::detail::box_resolve (plane_of (dev_view (src, dsrc, 0),
                src, 0, Radius { 1, 1 }), BoxAlgorithm::fused) == (served ?
            BoxAlgorithm::fused : BoxAlgorithm::sat), "%dx%d", sz.w, sz.h);
    for (Radius r : { Radius { 1, 1 }, Radius { 2, 2 }, Radius { 1, 2 } })
      for (BoxBorder b : borders) {
        HostImage dst = make_dst (sz.w, sz.h, 1, 9);
        BoxPlane hp = plane_of (src.view (), dst, 0, r);
        fail_unless (cip::ref::boxfilter (&hp, 1, b) == Status::ok);
        const std::string what = describe ("gpu direct", sz.w, sz.h,
            Content::random, r, b);
        fail_unless (gpu_run_matches (src, dsrc, 0, r, b, BoxAlgorithm::direct,
                SatMode::none, dst.bytes, dst, ws, stream, what), "%s",
            what.c_str ());
      }
    /* rows a block (2000: one band, whose row-sum tables at 4096x1000 do
     * not fit in shared memory: more bands); then 32-row tiles (the tables'
     * other height), 8 warps a block (two tiles a warp from 9 tiles on),
     * and 16-row tiles in three launches where they would come grouped
     * (700x600: three groups of tile rows); with one tile a warp, the
     * outputs' tiles not rotated (-4) and rotated by one tile (-5) instead
     * of half the plane */
    for (int rows : { 1, 2, 5, 8, 2000, 0, -1, -2, -3, -4, -5 }) {
      if (sm && rows != 2 && rows != 0 && rows != -1 && rows != -3)
        continue;
      cip::detail::BoxTuning t = saved;
      t.fused_rows = rows > 0 ? rows : 0;
      t.fused_warps = rows == -2 ? 8 : 0;
      t.fused_rotate = rows == -4 ? 0 : rows == -5 ? 1 : -1;
      cip::detail::box_set_tuning (t);
      cip::detail::SatTuning st = saved_sat;
      st.th_tiled = rows == -1 ? 32 : 0;
      st.tiled_ungrouped = rows == -3 ? 1 : 0;
      cip::detail::sat_set_tuning (st);
      if (rows == 0 || rows == -3) {
        /* the tables come grouped (one launch) exactly where tiled runs
         * grouped: 16-row tiles, up to 8192 columns, not turned off (fused
         * itself asks for them up to 4096 columns, kFusedGroupMaxTx) */
        const cip::ImageView dv = dev_view (src, dsrc, 0);
        BoxPlane pl = plane_of (dv, src, 0, Radius { 1, 1 });
        size_t bytes = 0;
        void *w = ws.get (&pl, 1, &bytes);
        cip::detail::SatTiles tt;
        fail_unless (cip::detail::sat_tiled_tables (dv, w, bytes, stream, &tt) ==
            Status::ok, "%dx%d", sz.w, sz.h);
        const bool want = rows == 0 &&
            sz.w <= 128 * cip::detail::kSatTiledGroupMaxTx;
        fail_unless ((tt.gcol != nullptr) == want && cip::detail::sat_config (sz.w,
                sz.h, cip::SatType::u32, false, cip::SatAlgorithm::tiled).grouped ==
            want, "%dx%d rows %d: grouped tables", sz.w, sz.h, rows);
      }
      for (Radius r : radii)
        for (BoxBorder b : borders) {
          HostImage dst = make_dst (sz.w, sz.h, 1, 9);
          BoxPlane hp = plane_of (src.view (), dst, 0, r);
          fail_unless (cip::ref::boxfilter (&hp, 1, b) == Status::ok);
          const std::string what = describe ("gpu fused", sz.w, sz.h,
              Content::random, r, b) + " rows " + std::to_string (rows);
          const bool ok = gpu_run_matches (src, dsrc, 0, r, b,
              BoxAlgorithm::fused, SatMode::none, dst.bytes, dst, ws, stream,
              what);
          if (!ok) {
            cip::detail::box_set_tuning (saved);
            cip::detail::sat_set_tuning (saved_sat);
          }
          fail_unless (ok, "%s", what.c_str ());
        }
    }
  }
  cip::detail::box_set_tuning (saved);
  cip::detail::sat_set_tuning (saved_sat);
  /* past kFusedGroupMaxTx tile columns fused refuses grouped tables, and
   * sat_tiled_tables falls back to the tile height tiled takes without
   * groups: 16 rows up to 9 M pixels, 32 above (grouped where asked: 16);
   * then fused at 4100 x 2200 on those 32-row tables */
  if (!sm) {
    struct Fallback { int w, h, th; };
    for (const Fallback &f : { Fallback { 4100, 2100, 16 },
            Fallback { 4100, 2200, 32 }, Fallback { 8192, 1100, 32 } }) {
      HostImage src = testutil::make_image (f.w, f.h, Content::random, 57);
      DevBuf dsrc (src.bytes.size ());
      dsrc.upload (src.bytes);
      const cip::ImageView dv = dev_view (src, dsrc, 0);
      DevBuf dws (cip::integral_workspace_bytes (f.w, f.h, cip::SatType::u32,
              false));
      for (bool grouped : { false, true }) {
        cip::detail::SatTiles tt;
        fail_unless (cip::detail::sat_tiled_tables (dv, dws.p, dws.n, stream,
                &tt, grouped) == Status::ok, "%dx%d", f.w, f.h);
        fail_unless (tt.th == (grouped ? 16 : f.th) &&
            (tt.gcol != nullptr) == grouped, "%dx%d grouped %d: %d-row tiles",
            f.w, f.h, (int) grouped, tt.th);
      }
      CUDA_OK (cudaStreamSynchronize (stream));
      if (f.h != 2200)
        continue;
      HostImage dst = make_dst (f.w, f.h, 1, 9);
      BoxPlane hp = plane_of (src.view (), dst, 0, Radius { 2, 2 });
      fail_unless (cip::ref::boxfilter (&hp, 1, borders[0]) == Status::ok);
      const std::string what = describe ("gpu fused, 32-row tables", f.w,
          f.h, Content::random, Radius { 2, 2 }, borders[0]);
      fail_unless (gpu_run_matches (src, dsrc, 0, Radius { 2, 2 }, borders[0],
              BoxAlgorithm::fused, SatMode::none, dst.bytes, dst, ws, stream,
              what), "%s", what.c_str ());
    }
  }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* Direct's registers kernel (rx, ry <= 3 and squares up to 5, planar,
 * 4-byte aligned rows) for every radius pair it instantiates, against the
 * reference and against the tile kernel: sizes around its 4-sample words,
 * its 120- and 112-column strips (a partial last word in a lane that only
 * loads: widths 121, 123, 113, 117) and its 8- and 12-row bands (1x1,
 * partial last words), padded source rows (whole words; the device copy
 * ends at the last row's last sample, so a read past it leaves the
 * allocation under memcheck) and padded, poisoned destinations; all-255
 * frames reach the largest pair sums. Then one call of five planes: two
 * radii (two launches of it), a plane it does not serve (odd pitch: the
 * tile kernel) and a step-2 view beside them. */
GST_START_TEST (test_gpu_direct_registers)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const bool sm = cip_test_small ();
  std::vector<testutil::Size> sizes = { {1, 1}, {2, 3}, {3, 2}, {5, 17},
    {8, 33}, {113, 9}, {117, 25}, {121, 13}, {123, 8}, {127, 16},
    {128, 15}, {129, 64}, {130, 65}, {259, 31}, {1001, 47} };
  if (!sm)
    sizes.insert (sizes.end (), { {4, 4}, {7, 1}, {131, 2}, {255, 97},
        {1920, 66}, {3841, 35} });
  /* every pair up to 3, the squares up to 5, and the tile kernel at the
   * squares up to 7 (where the registers kernel was measured slower) */
  std::vector<Radius> reg_radii;
  for (int rx = 0; rx <= cip::detail::kBoxRegMaxRadius; rx++)
    for (int ry = 0; ry <= cip::detail::kBoxRegMaxRadius; ry++)
      reg_radii.push_back (Radius { rx, ry });
  for (int r = cip::detail::kBoxRegMaxRadius + 1; r <= 7; r++)
    reg_radii.push_back (Radius { r, r });
  const cip::detail::BoxTuning saved = cip::detail::box_get_tuning ();
  for (const testutil::Size &sz : sizes)
    for (Content c : { Content::random, Content::all255, Content::natural }) {
      if (sm && c == Content::natural)
        continue;
      const size_t pad = 4 + (4 - sz.w % 4) % 4;
      HostImage src = testutil::make_image (sz.w, sz.h, c, 61, 1, pad);
      const size_t tight = (size_t) (sz.h - 1) * src.pitch + sz.w;
      DevBuf dsrc (tight);
      dsrc.upload (src.bytes.data (), tight);
      for (const Radius r : reg_radii)
        for (BoxBorder b : borders)
          for (int tile : { 0, 1 }) {
            if (sm && tile && (r.rx != r.ry || c != Content::random))
              continue;
            HostImage dst = make_dst (sz.w, sz.h, 1,
                8 + (4 - sz.w % 4) % 4);
            BoxPlane hp = plane_of (src.view (), dst, 0, r);
            fail_unless (cip::ref::boxfilter (&hp, 1, b) == Status::ok);
            cip::detail::BoxTuning t = saved;
            t.direct_tile = tile;
            cip::detail::box_set_tuning (t);
            BoxPlane dp = hp;
            dp.src = dev_view (src, dsrc, 0);
            dp.dst = (uint8_t *) dsrc.p;     /* any aligned pointer */
            fail_unless (cip::detail::box_direct_registers (dp) == (!tile &&
                    r.rx <= cip::detail::kBoxRegMaxSquare));
            const std::string what = describe (tile ? "gpu direct tile" :
                "gpu direct registers", sz.w, sz.h, c, r, b);
            const bool ok = gpu_run_matches (src, dsrc, 0, r, b,
                BoxAlgorithm::direct, SatMode::none, dst.bytes, dst, ws,
                stream, what);
            cip::detail::box_set_tuning (saved);
            fail_unless (ok, "%s", what.c_str ());
          }
    }

  /* one call: planes 0 and 2 at (1, 1) (one launch), plane 1 at (5, 5)
   * (another), plane 3 with an odd pitch and plane 4 a step-2 view (both the
   * tile kernel) */
  for (BoxBorder b : borders) {
    const int W = 333, H = 71;
    /* pitches: 340, 344, 336 (served), 335 (not) */
    HostImage srcs[4] = { testutil::make_image (W, H, Content::natural, 5, 1, 7),
      testutil::make_image (W + 8, H - 9, Content::random, 6, 1, 3),
      testutil::make_image (W - 1, H + 3, Content::all255, 7, 1, 4),
      testutil::make_image (W, H, Content::random, 8, 1, 2) };
    HostImage uv = testutil::make_image (W / 2, H, Content::random, 9, 2, 6);
    const Radius rr[5] = { {1, 1}, {5, 5}, {1, 1}, {1, 1}, {1, 1} };
    HostImage hd[5] = { make_dst (W, H, 1, 3), make_dst (W + 8, H - 9, 1, 7),
      make_dst (W - 1, H + 3, 1, 8), make_dst (W, H, 1, 3),
      make_dst (W / 2, H, 2, 2) };
    std::vector<std::unique_ptr<DevBuf>> ds, dd;
    BoxPlane hp[5], dp[5];
    for (int i = 0; i < 5; i++) {
      const HostImage &s = i < 4 ? srcs[i] : uv;
      ds.emplace_back (new DevBuf (s.bytes.size ()));
      ds.back ()->upload (s.bytes);
      dd.emplace_back (new DevBuf (hd[i].bytes.size ()));
      hp[i] = plane_of (s.view (0), hd[i], 0, rr[i]);
      dp[i] = hp[i];
      dp[i].src = dev_view (s, *ds.back (), 0);
      dp[i].dst = dd.back ()->p;
    }
    for (int i = 0; i < 5; i++)
      fail_unless (cip::detail::box_direct_registers (dp[i]) == (i < 3),
          "plane %d", i);
    /* radii it does not serve: non-square above 3, squares above 5 */
    for (Radius r : { Radius { 4, 3 }, Radius { 2, 5 }, Radius { 6, 6 } }) {
      BoxPlane q = dp[0];
      q.rx = r.rx;
      q.ry = r.ry;
      fail_unless (!cip::detail::box_direct_registers (q), "(%d, %d)", r.rx,
          r.ry);
    }
    /* at most boxfilter_max_planes a call: planes 0-3, then 4 with 0 again */
    const int calls[2][4] = { {0, 1, 2, 3}, {4, 0, -1, -1} };
    for (const auto &cl : calls) {
      BoxPlane hq[4], dq[4];
      int n = 0;
      for (int k = 0; k < 4 && cl[k] >= 0; k++, n++) {
        hq[n] = hp[cl[k]];
        dq[n] = dp[cl[k]];
      }
      fail_unless (cip::ref::boxfilter (hq, n, b) == Status::ok);
      for (int k = 0; k < n; k++)
        dd[cl[k]]->upload (inverted_samples (hd[cl[k]], 1));
      size_t wsb = 0;
      void *d_ws = ws.get (dq, n, &wsb);
      fail_unless (cip::boxfilter (dq, n, b, d_ws, wsb, stream,
              BoxAlgorithm::direct) == Status::ok, "%s", cip::last_cuda_error ());
      CUDA_OK (cudaStreamSynchronize (stream));
      for (int k = 0; k < n; k++)
        fail_unless (dd[cl[k]]->download () == hd[cl[k]].bytes,
            "mixed call plane %d %s", cl[k], cip::box_border_name (b));
    }
  }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* Frames whose u32 table wraps, on every algorithm and SAT form. */
GST_START_TEST (test_gpu_wrapping_table)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  HostImage src = wrapping_frame (5000, 4200, 78);
  DevBuf dsrc (src.bytes.size ());
  dsrc.upload (src.bytes);
  const Radius radii[] = { {1, 1}, {16, 16}, {17, 3}, {40, 25},
    {1024, 1024} };
  for (Radius r : radii)
    for (BoxBorder b : borders)
      gpu_check_all (src, dsrc, 0, r, b, 1, 0, ws, stream, Content::random);
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

GST_START_TEST (test_gpu_multiplane)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  /* I420 planes with scaled radii, and RGBA channels, each in one call */
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  for (BoxAlgorithm algo : { BoxAlgorithm::automatic, BoxAlgorithm::sat,
          BoxAlgorithm::direct, BoxAlgorithm::sliding, BoxAlgorithm::fused })
    for (BoxBorder b : borders) {
      const int W = 1921, H = 1081;   /* odd: chroma rounds up */
      const int cw = (W + 1) / 2, chh = (H + 1) / 2;
      HostImage src[3] = { testutil::make_image (W, H, Content::natural, 1, 1, 7),
        testutil::make_image (cw, chh, Content::random, 2, 1, 3),
        testutil::make_image (cw, chh, Content::gradient, 3, 1, 0) };
      const Radius rr[3] = { algo == BoxAlgorithm::direct ? Radius { 15, 15 }
        : Radius { 30, 30 }, { 7, 7 }, { 8, 7 } };
      HostImage hd[3] = { make_dst (W, H, 1, 1), make_dst (cw, chh, 1, 5),
        make_dst (cw, chh, 1, 64) };
      DevBuf ds0 (src[0].bytes.size ()), ds1 (src[1].bytes.size ()),
          ds2 (src[2].bytes.size ());
      DevBuf dd0 (hd[0].bytes.size ()), dd1 (hd[1].bytes.size ()),
          dd2 (hd[2].bytes.size ());
      DevBuf *ds[3] = { &ds0, &ds1, &ds2 }, *dd[3] = { &dd0, &dd1, &dd2 };
      BoxPlane hp[3], dp[3];
      for (int i = 0; i < 3; i++) {
        ds[i]->upload (src[i].bytes);
        hp[i] = plane_of (src[i].view (), hd[i], 0, rr[i]);
        dp[i] = hp[i];
        dp[i].src = dev_view (src[i], *ds[i], 0);
        dp[i].dst = dd[i]->p;
      }
      fail_unless (cip::ref::boxfilter (hp, 3, b) == Status::ok);
      /* destinations poisoned with the expected output inverted */
      for (int i = 0; i < 3; i++)
        dd[i]->upload (inverted_samples (hd[i], 1));
      size_t wsb = 0;
      void *d_ws = ws.get (dp, 3, &wsb);
      Status st = cip::boxfilter (dp, 3, b, d_ws, wsb, stream, algo);
      fail_unless (st == Status::ok, "%s", cip::last_cuda_error ());
      CUDA_OK (cudaStreamSynchronize (stream));
      for (int i = 0; i < 3; i++)
        fail_unless (dd[i]->download () == hd[i].bytes, "I420 plane %d %s %s", i,
            cip::box_algorithm_name (algo), cip::box_border_name (b));

      HostImage rgba = testutil::make_image (641, 363, Content::random, 4, 4, 8);
      HostImage out = make_dst (641, 363, 4, 12);
      DevBuf drgba (rgba.bytes.size ()), dout (out.bytes.size ());
      drgba.upload (rgba.bytes);
      const Radius cr[4] = { {1, 1}, {2, 7}, {0, 0}, {16, 16} };
      BoxPlane hq[4], dq[4];
      for (int ch = 0; ch < 4; ch++) {
        hq[ch] = plane_of (rgba.view (ch), out, ch, cr[ch]);
        dq[ch] = hq[ch];
        dq[ch].src = dev_view (rgba, drgba, ch);
        dq[ch].dst = dout.p + ch;
      }
      fail_unless (cip::ref::boxfilter (hq, 4, b) == Status::ok);
      dout.upload (inverted_samples (out, 0xF));
      d_ws = ws.get (dq, 4, &wsb);
      st = cip::boxfilter (dq, 4, b, d_ws, wsb, stream, algo);
      fail_unless (st == Status::ok, "%s", cip::last_cuda_error ());
      CUDA_OK (cudaStreamSynchronize (stream));
      fail_unless (dout.download () == out.bytes, "RGBA %s %s",
          cip::box_algorithm_name (algo), cip::box_border_name (b));
    }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* The 4 channels of a packed plane of 4-byte pixels in one call: boxfilter()
 * runs them as one packed direct launch (detail::box_packed, checked here
 * for each case). Channel orders as cudaboxfilter gives them (RGBA; BGRA,
 * R at byte 2, alpha copied; ARGB; RGBx, the padding byte copied), edge
 * sizes, padded pitches (a pitch not a multiple of 4 runs channel by
 * channel), every content, windows up to the direct limit, both borders,
 * direct and (641x363) automatic and sat (one gather launch for the 4
 * channels); each case asserts the path taken (packed or not); poisoned
 * destinations, the whole buffer compared with the CPU reference. */
GST_START_TEST (test_gpu_packed)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const bool sm = cip_test_small ();
  struct Order { int off[4]; unsigned copy; const char *name; };
  const Order orders[] = { { {0, 1, 2, 3}, 0, "RGBA" },
    { {2, 1, 0, 3}, 0x8, "BGRA, A copied" }, { {1, 2, 3, 0}, 0, "ARGB" },
    { {0, 1, 2, 3}, 0x8, "RGBx" }, { {3, 1, 0, 2}, 0x2, "byte 1 copied" } };
  /* 32 and 100 columns: rows of whole 16-byte chunks */
  const testutil::Size sizes[] = { {1, 1}, {2, 3}, {31, 17}, {32, 7},
    {33, 65}, {100, 70}, {129, 32}, {641, 363} };
  /* (14, 16) first: the tall tile's dynamic shared memory is exactly 48 KiB
   * there and passes it only with the static shift[], so the launch fails
   * unless the kernel is opted in (detail::launch, to the tall tile's
   * largest size, on every call) */
  const Radius radii[] = { {14, 16}, {0, 0}, {1, 1}, {2, 5}, {7, 0}, {0, 9},
    {13, 13}, {16, 3}, {3, 16}, {13, 16}, {16, 16} };
  int salt = 0;
  for (testutil::Size sz : sizes) {
    const bool large = sz.w * sz.h > 4096;
    if (sm && large)
      continue;
    for (Content c : testutil::all_contents) {
      if (large && c != Content::random && c != Content::natural)
        continue;
      for (size_t pad : { 0, 60, 2 }) {
        if ((large || sm) && pad != 60)
          continue;
        HostImage src = testutil::make_image (sz.w, sz.h, c, 41 + salt++, 4, pad);
        DevBuf dsrc (src.bytes.size ());
        dsrc.upload (src.bytes);
        /* a destination pitch of its own */
        HostImage out = make_dst (sz.w, sz.h, 4, pad + 8);
        DevBuf dout (out.bytes.size ());
        for (const Order &o : orders)
          for (Radius r : radii)
            for (BoxBorder b : borders)
              for (BoxAlgorithm algo : { BoxAlgorithm::direct,
                      BoxAlgorithm::automatic, BoxAlgorithm::sat }) {
                if (algo != BoxAlgorithm::direct && !large)
                  continue;
                std::fill (out.bytes.begin (), out.bytes.end (), 0xA5);
                BoxPlane hq[4], dq[4];
                for (int i = 0; i < 4; i++) {
                  const Radius ri = (o.copy >> i) & 1 ? Radius { 0, 0 } : r;
                  hq[i] = plane_of (src.view (o.off[i]), out, o.off[i], ri);
                  dq[i] = hq[i];
                  dq[i].src = dev_view (src, dsrc, o.off[i]);
                  dq[i].dst = dout.p + o.off[i];
                }
                const std::string what = describe ("gpu packed", sz.w, sz.h, c,
                    r, b, 4) + " " + o.name + " pad " + std::to_string (pad) +
                    " " + cip::box_algorithm_name (algo);
                cip::detail::BoxPacked pk;
                fail_unless (cip::detail::box_packed (dq, 4, pk) == (pad % 4 == 0),
                    "%s: packed detection", what.c_str ());
                fail_unless (cip::ref::boxfilter (hq, 4, b) == Status::ok);
                dout.upload (inverted_samples (out, 0xF));
                size_t wsb = 0;
                void *d_ws = ws.get (dq, 4, &wsb);
                const unsigned long launches = cip::detail::box_packed_launches ();
                const Status st = cip::boxfilter (dq, 4, b, d_ws, wsb, stream, algo);
                fail_unless (st == Status::ok, "%s: %s", what.c_str (),
                    cip::last_cuda_error ());
                /* the path taken: packed where box_packed takes the call
                 * and it runs direct */
                const bool direct = algo == BoxAlgorithm::direct ||
                    (algo == BoxAlgorithm::automatic &&
                        cip::boxfilter_pick (dq[0], b) == BoxAlgorithm::direct);
                fail_unless (cip::detail::box_packed_launches () - launches ==
                    (pad % 4 == 0 && direct ? 1u : 0u), "%s: path", what.c_str ());
                CUDA_OK (cudaStreamSynchronize (stream));
                fail_unless (same_bytes (dout.download (), out.bytes, out.pitch,
                        what), "%s", what.c_str ());
              }
      }
    }
  }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

/* 16-bit planes on the GPU: automatic and sat against the sliding-window
 * model at edge and video sizes (poisoned destinations); direct says
 * unsupported. */
GST_START_TEST (test_gpu_16bit)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  Workspace ws;
  const testutil::Size sizes[] = { {1, 1}, {31, 17}, {67, 23}, {1920, 1080} };
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (const testutil::Size &sz : sizes)
        for (int chans : { 1, 2 })
          for (Radius r : radii16)
            for (BoxBorder b : { BoxBorder::clip, BoxBorder::replicate }) {
              if ((sz.w > 100 && (c == Content::constant || c == Content::gradient ||
                      chans == 2 || r.rx == 100)) ||
                  (cip_test_small () && sz.w > 100))
                continue;             /* small mode: no 1920x1080 */
              Case16 k (sz.w, sz.h, c, l, chans, 6);
              const std::vector<uint8_t> want = k.expect (r, b);
              DevBuf dsrc (k.src.bytes.size ()), ddst (k.dst.bytes.size ());
              dsrc.upload (k.src.bytes);
              BoxPlane p = k.plane (r);
              p.src.data = dsrc.p + 2 * k.ch;
              p.dst = ddst.p + 2 * k.ch;
              for (BoxAlgorithm a : { BoxAlgorithm::automatic, BoxAlgorithm::sat,
                      BoxAlgorithm::sliding, BoxAlgorithm::fused }) {
                ddst.upload (k.before);
                size_t ws_bytes = 0;
                void *d_ws = ws.get (&p, 1, &ws_bytes);
                const std::string what = describe ((std::string ("gpu16 ") +
                        l.name).c_str (), sz.w, sz.h, c, r, b, 2 * chans) + " " +
                    cip::box_algorithm_name (a);
                Status st = cip::boxfilter (&p, 1, b, d_ws, ws_bytes, stream, a);
                fail_unless (st == Status::ok, "%s: %s %s", what.c_str (),
                    cip::status_string (st), cip::last_cuda_error ());
                CUDA_OK (cudaStreamSynchronize (stream));
                fail_unless (same_bytes (ddst.download (), want, k.dst.pitch, what),
                    "%s", what.c_str ());
              }
              size_t ws_bytes = 0;
              void *d_ws = ws.get (&p, 1, &ws_bytes);
              fail_unless (cip::boxfilter (&p, 1, b, d_ws, ws_bytes, stream,
                      BoxAlgorithm::direct) == Status::unsupported);
            }
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;

GST_START_TEST (test_gpu_invalid_arguments)
{
  HostImage src = testutil::make_image (64, 32, Content::random, 1, 1, 0);
  DevBuf dsrc (src.bytes.size ()), ddst (src.bytes.size ());
  dsrc.upload (src.bytes);
  BoxPlane p;
  p.src = dev_view (src, dsrc, 0);
  p.dst = ddst.p;
  p.dst_pitch = 64;
  p.rx = p.ry = 17;
  Workspace ws;
  size_t wsb = 0;
  void *d_ws = ws.get (&p, 1, &wsb);
  fail_unless (cip::boxfilter (&p, 1, BoxBorder::clip, d_ws, wsb, nullptr,
          BoxAlgorithm::direct) == Status::unsupported);
  fail_unless (cip::boxfilter (&p, 1, BoxBorder::clip, d_ws, wsb - 1, nullptr)
      == Status::invalid_argument);
  fail_unless (cip::boxfilter (&p, 1, BoxBorder::clip, nullptr, 0, nullptr)
      == Status::invalid_argument);
  fail_unless (cip::boxfilter (&p, 1, BoxBorder::clip, d_ws, wsb, nullptr,
          (BoxAlgorithm) 9) == Status::invalid_argument);
  BoxPlane inplace = p;
  inplace.dst = dsrc.p;
  fail_unless (cip::boxfilter (&inplace, 1, BoxBorder::clip, d_ws, wsb, nullptr)
      == Status::invalid_argument);
  BoxPlane inws = p;
  inws.dst = (uint8_t *) d_ws;
  fail_unless (cip::boxfilter (&inws, 1, BoxBorder::clip, d_ws, wsb, nullptr)
      == Status::invalid_argument);
  fail_unless (cip::boxfilter (&p, 1, BoxBorder::clip, d_ws, wsb, nullptr) ==
      Status::ok);
  CUDA_OK (cudaDeviceSynchronize ());
}
GST_END_TEST;
#endif

static Suite *
boxfilter_suite (void)
{
  Suite *s = suite_create ("boxfilter");
  TCase *tc = tcase_create ("cpu");
  tcase_add_test (tc, test_round_div);
  tcase_add_test (tc, test_doc_example);
  tcase_add_test (tc, test_ref_naive_agree);
  tcase_add_test (tc, test_ref_small_radii);
  tcase_add_test (tc, test_ref_large_radii);
  tcase_add_test (tc, test_ref_wrapping_table);
  tcase_add_test (tc, test_ref_steps);
  tcase_add_test (tc, test_ref_precomputed_sat);
  tcase_add_test (tc, test_ref_multiplane);
  tcase_add_test (tc, test_packed_detect);
  tcase_add_test (tc, test_ref_invalid_arguments);
  tcase_add_test (tc, test_ref_16bit);
  tcase_add_test (tc, test_sliding_emulation);
  suite_add_tcase (s, tc);

  TCase *gpu = tcase_create ("gpu");
#ifdef HAVE_CUDA
  tcase_add_test (gpu, test_gpu_invalid_arguments);
  tcase_add_test (gpu, test_gpu_multiplane);
  tcase_add_test (gpu, test_gpu_edge_sizes);
  tcase_add_test (gpu, test_gpu_steps);
  tcase_add_test (gpu, test_gpu_video_sizes);
  tcase_add_test (gpu, test_gpu_wrapping_table);
  tcase_add_test (gpu, test_gpu_16bit);
  tcase_add_test (gpu, test_gpu_sliding_tiles);
  tcase_add_test (gpu, test_gpu_seams);
  tcase_add_test (gpu, test_gpu_direct_registers);
  tcase_add_test (gpu, test_gpu_late_input);
  tcase_add_test (gpu, test_gpu_packed);
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (boxfilter_suite, argc, argv);
}
