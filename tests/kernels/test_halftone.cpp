/* Halftone: the CPU reference against independent naive loops written from
 * the textbook kernels (float-free), levels, ordered dithering, the temporal
 * stability requirement, argument checks; on a GPU, every algorithm against
 * the reference byte for byte. */
#include "cipcheck.h"
#include "testimage.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cip/halftone.h"
#include "detail/halftone_internal.h"
#include "detail/halftone_math.h"

#ifdef HAVE_CUDA
#include "testcuda.h"
#endif

using cip::HalftoneAlgorithm;
using cip::HalftoneKernel;
using cip::HalftoneMethod;
using cip::HalftoneParams;
using cip::HalftonePlane;
using cip::ImageView;
using cip::Status;
using testutil::Content;
using testutil::HostImage;
#ifdef HAVE_CUDA
using testutil::DevBuf;
#endif

namespace {

const HalftoneKernel all_kernels[7] = { HalftoneKernel::floyd_steinberg,
  HalftoneKernel::jarvis_judice_ninke, HalftoneKernel::stucki,
  HalftoneKernel::burkes, HalftoneKernel::sierra, HalftoneKernel::sierra_lite,
  HalftoneKernel::atkinson };
const int levels_tested[3] = { 2, 4, 256 };

/* ---- definitions the reference must match ----------------------------- */

struct Share { int dx, dy, w; };

/* The textbook kernels, written out: (dx, dy, weight), divisor. */
std::vector<Share>
textbook (HalftoneKernel k, int *div)
{
  switch (k) {
    case HalftoneKernel::floyd_steinberg:
      *div = 16;
      return { {1, 0, 7}, {-1, 1, 3}, {0, 1, 5}, {1, 1, 1} };
    case HalftoneKernel::jarvis_judice_ninke:
      *div = 48;
      return { {1, 0, 7}, {2, 0, 5}, {-2, 1, 3}, {-1, 1, 5}, {0, 1, 7},
        {1, 1, 5}, {2, 1, 3}, {-2, 2, 1}, {-1, 2, 3}, {0, 2, 5}, {1, 2, 3},
        {2, 2, 1} };
    case HalftoneKernel::stucki:
      *div = 42;
      return { {1, 0, 8}, {2, 0, 4}, {-2, 1, 2}, {-1, 1, 4}, {0, 1, 8},
        {1, 1, 4}, {2, 1, 2}, {-2, 2, 1}, {-1, 2, 2}, {0, 2, 4}, {1, 2, 2},
        {2, 2, 1} };
    case HalftoneKernel::burkes:
      *div = 32;
      return { {1, 0, 8}, {2, 0, 4}, {-2, 1, 2}, {-1, 1, 4}, {0, 1, 8},
        {1, 1, 4}, {2, 1, 2} };
    case HalftoneKernel::sierra:
      *div = 32;
      return { {1, 0, 5}, {2, 0, 3}, {-2, 1, 2}, {-1, 1, 4}, {0, 1, 5},
        {1, 1, 4}, {2, 1, 2}, {-1, 2, 2}, {0, 2, 3}, {1, 2, 2} };
    case HalftoneKernel::sierra_lite:
      *div = 4;
      return { {1, 0, 2}, {-1, 1, 1}, {0, 1, 1} };
    case HalftoneKernel::atkinson:
      *div = 8;
      return { {1, 0, 1}, {2, 0, 1}, {-1, 1, 1}, {0, 1, 1}, {1, 1, 1},
        {0, 2, 1} };
  }
  return {};
}

int64_t
floor_div (int64_t a, int64_t b)
{
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

int
level_of (int k, int levels)
{
  return (k * 255 * 2 + (levels - 1)) / (2 * (levels - 1));
}

/* Nearest level on the ideal grid, ties up, of v/256. */
int
naive_quantize (int64_t v, int levels)
{
  int64_t k = floor_div (2 * v * (levels - 1) + 255 * 256, 2 * 255 * 256);
  if (k < 0)
    k = 0;
  if (k > levels - 1)
    k = levels - 1;
  return level_of ((int) k, levels);
}

/* Whole-frame error diffusion over a W x H array of collected errors. */
std::vector<uint8_t>
naive_diffuse (const ImageView &v, HalftoneKernel k, int levels)
{
  int div = 1;
  const std::vector<Share> sh = textbook (k, &div);
  const int w = v.width, h = v.height;
  std::vector<int64_t> acc ((size_t) w * h, 0);
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const int64_t in = v.data[(size_t) y * v.pitch + (size_t) x * v.step];
      const int64_t val = in * 256 + acc[(size_t) y * w + x];
      const int o = naive_quantize (val, levels);
      int64_t e = val - (int64_t) o * 256;
      e = e < -(1 << 18) ? -(1 << 18) : e > (1 << 18) ? (1 << 18) : e;
      out[(size_t) y * w + x] = (uint8_t) o;
      for (const Share &s : sh) {
        const int xx = x + s.dx, yy = y + s.dy;
        if (xx < 0 || xx >= w || yy >= h)
          continue;
        acc[(size_t) yy * w + xx] += floor_div (e * s.w + div / 2, div);
      }
    }
  return out;
}

/* Bayer matrix by the recursive construction M(2n) = [4M, 4M+2; 4M+3, 4M+1]. */
std::vector<int>
bayer (int n)
{
  if (n == 1)
    return { 0 };
  std::vector<int> m = bayer (n / 2), r ((size_t) n * n);
  const int h = n / 2;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < h; x++) {
      const int b = 4 * m[(size_t) y * h + x];
      r[(size_t) y * n + x] = b;
      r[(size_t) y * n + x + h] = b + 2;
      r[(size_t) (y + h) * n + x] = b + 3;
      r[(size_t) (y + h) * n + x + h] = b + 1;
    }
  return r;
}

std::vector<uint8_t>
naive_ordered (const ImageView &v, int levels)
{
  const std::vector<int> m = bayer (8);
  std::vector<uint8_t> out ((size_t) v.width * v.height);
  for (int y = 0; y < v.height; y++)
    for (int x = 0; x < v.width; x++) {
      const int64_t in = v.data[(size_t) y * v.pitch + (size_t) x * v.step];
      /* floor (in (L-1) / 255 + (t + 0.5) / 64) */
      int64_t k = floor_div (in * (levels - 1) * 128 +
          255 * (2 * m[(size_t) (y % 8) * 8 + x % 8] + 1), 255 * 128);
      if (k > levels - 1)
        k = levels - 1;
      out[(size_t) y * v.width + x] = (uint8_t) level_of ((int) k, levels);
    }
  return out;
}

/* ---- helpers ----------------------------------------------------------- */

HostImage
make_dst (int w, int h, int step, size_t pad)
{
  HostImage d = testutil::make_image (w, h, Content::zeros, 1, step, pad);
  std::fill (d.bytes.begin (), d.bytes.end (), (uint8_t) 0xA5);
  return d;
}

HalftonePlane
plane_of (const ImageView &src, HostImage &dst, int dch)
{
  HalftonePlane p;
  p.src = src;
  p.dst = dst.bytes.data () + dch;
  p.dst_pitch = dst.pitch;
  p.dst_step = dst.step;
  return p;
}

/* The destination channel as a tight W x H array; checks the bytes around
 * it were left alone. */
std::vector<uint8_t>
tight (const HostImage &d, int dch, bool *untouched)
{
  std::vector<uint8_t> t ((size_t) d.width * d.height);
  *untouched = true;
  for (int y = 0; y < d.height; y++)
    for (size_t i = 0; i < d.pitch; i++) {
      const uint8_t b = d.bytes[(size_t) y * d.pitch + i];
      if (i < (size_t) d.width * d.step && (int) (i % d.step) == dch)
        t[(size_t) y * d.width + i / d.step] = b;
      else if (b != 0xA5)
        *untouched = false;
    }
  return t;
}

HalftoneParams
params_of (HalftoneKernel k, int levels,
    HalftoneMethod m = HalftoneMethod::error_diffusion)
{
  HalftoneParams p;
  p.kernel = k;
  p.levels = levels;
  p.method = m;
  return p;
}

std::string
describe (const char *what, int w, int h, HalftoneKernel k, int levels,
    Content c)
{
  return std::string (what) + " " + std::to_string (w) + "x" +
      std::to_string (h) + " " + cip::halftone_kernel_name (k) + " L" +
      std::to_string (levels) + " " + testutil::content_name (c);
}

/* The reference on one view (any src step / pad, dst step / pad) against
 * naive loops; returns the tight reference output. */
std::vector<uint8_t>
check_ref (const HostImage &src, int channel, HalftoneKernel k, int levels,
    int dst_step, size_t dst_pad, HalftoneMethod m, const std::string &what)
{
  const ImageView v = src.view (channel);
  HostImage dst = make_dst (v.width, v.height, dst_step, dst_pad);
  const int dch = dst_step - 1;
  HalftonePlane p = plane_of (v, dst, dch);
  const HalftoneParams prm = params_of (k, levels, m);
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok, "%s", what.c_str ());
  bool untouched = false;
  std::vector<uint8_t> got = tight (dst, dch, &untouched);
  fail_unless (untouched, "%s: wrote outside the destination", what.c_str ());
  const std::vector<uint8_t> want = m == HalftoneMethod::ordered ?
      naive_ordered (v, levels) : naive_diffuse (v, k, levels);
  for (size_t i = 0; i < want.size (); i++)
    fail_unless (got[i] == want[i], "%s: pixel (%zu, %zu): %u != naive %u",
        what.c_str (), i % v.width, i / v.width, got[i], want[i]);
  return got;
}

}  // namespace

/* ---- CPU tests ----------------------------------------------------------- */

GST_START_TEST (test_levels)
{
  for (int L = 2; L <= 256; L++) {
    const cip::detail::HtQuant q = cip::detail::ht_quant (L);
    for (int k = 0; k < L; k++) {
      fail_unless (cip::halftone_level (k, L) == level_of (k, L), "L %d k %d", L, k);
      fail_unless ((int) cip::detail::ht_level_value (k, q) == level_of (k, L));
    }
    fail_unless (cip::halftone_level (0, L) == 0);
    fail_unless (cip::halftone_level (L - 1, L) == 255);
    /* the quantizer against the naive one over the whole range of v */
    for (int32_t v = -70000; v <= 70000 + 65280; v += 37)
      fail_unless ((int) cip::detail::ht_quantize (v, q) == naive_quantize (v, L),
          "L %d v %d", L, v);
  }
  fail_unless (cip::halftone_level (1, 2) == 255);
  fail_unless (cip::halftone_level (1, 3) == 128);
  fail_unless (cip::halftone_level (-1, 2) == -1);
  fail_unless (cip::halftone_level (2, 2) == -1);
  fail_unless (cip::halftone_level (0, 1) == -1);
}
GST_END_TEST;

GST_START_TEST (test_term_rounding)
{
  /* the compile-time and run-time share against floor division */
  for (int32_t e = -(1 << 18); e <= (1 << 18); e += 13)
    for (int w = 1; w <= 8; w++) {
      fail_unless (cip::detail::ht_term<16> (e, w) == floor_div ((int64_t) e * w + 8, 16));
      fail_unless (cip::detail::ht_term<48> (e, w) == floor_div ((int64_t) e * w + 24, 48));
      fail_unless (cip::detail::ht_term<42> (e, w) == floor_div ((int64_t) e * w + 21, 42));
      fail_unless (cip::detail::ht_term_rt (e, w, 42) == floor_div ((int64_t) e * w + 21, 42));
      fail_unless (cip::detail::ht_term_rt (e, w, 4) == floor_div ((int64_t) e * w + 2, 4));
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_naive_agree)
{
  const Content contents[] = { Content::random, Content::natural,
    Content::gradient, Content::zeros, Content::all255, Content::constant };
  for (HalftoneKernel k : all_kernels)
    for (int L : levels_tested)
      for (int si = 0; si < testutil::n_edge_sizes; si++) {
        const testutil::Size sz = testutil::edge_sizes[si];
        if (sz.w * sz.h > 100000 && L == 4)
          continue;             /* 640x480 at L 2 and 256 */
        for (Content c : contents) {
          if (sz.w * sz.h > 100000 && c != Content::natural)
            continue;
          HostImage src = testutil::make_image (sz.w, sz.h, c, 11 + si);
          check_ref (src, 0, k, L, 1, 0, HalftoneMethod::error_diffusion,
              describe ("ref", sz.w, sz.h, k, L, c));
        }
      }
}
GST_END_TEST;

GST_START_TEST (test_ref_shapes)
{
  /* 1xN, Nx1, 31x33, odd widths, padded pitches, step-2/4 channels in and out */
  const testutil::Size sizes[] = { {1, 1}, {1, 57}, {57, 1}, {31, 33}, {33, 31},
    {101, 7} };
  for (HalftoneKernel k : all_kernels)
    for (const testutil::Size &sz : sizes)
      for (int step : { 1, 2, 4 }) {
        HostImage src = testutil::make_image (sz.w, sz.h, Content::random, 5,
            step, 3);
        for (int ch = 0; ch < step; ch++)
          check_ref (src, ch, k, 2, step == 1 ? 2 : step, 5,
              HalftoneMethod::error_diffusion,
              describe ("ref step", sz.w, sz.h, k, 2, Content::random) +
              " ch " + std::to_string (ch));
      }
}
GST_END_TEST;

GST_START_TEST (test_ref_constant_and_identity)
{
  for (HalftoneKernel k : all_kernels)
    for (int L : levels_tested) {
      for (Content c : { Content::zeros, Content::all255 }) {
        HostImage src = testutil::make_image (67, 45, c, 1);
        std::vector<uint8_t> out = check_ref (src, 0, k, L, 1, 0,
            HalftoneMethod::error_diffusion, describe ("const", 67, 45, k, L, c));
        for (uint8_t o : out)
          fail_unless (o == (c == Content::zeros ? 0 : 255));
      }
      /* levels = 256 is the identity on any content */
      if (L == 256)
        for (Content c : { Content::random, Content::natural, Content::constant }) {
          HostImage src = testutil::make_image (77, 39, c, 3);
          std::vector<uint8_t> out = check_ref (src, 0, k, L, 1, 0,
              HalftoneMethod::error_diffusion, describe ("ident", 77, 39, k, L, c));
          for (int y = 0; y < 39; y++)
            for (int x = 0; x < 77; x++)
              fail_unless (out[(size_t) y * 77 + x] == src.row (y)[x]);
        }
    }
  /* a 128 frame at 2 levels: half the pixels on (FS: a checkerboard-like mix) */
  HostImage src = testutil::make_image (64, 64, Content::zeros, 1);
  std::fill (src.bytes.begin (), src.bytes.end (), (uint8_t) 128);
  std::vector<uint8_t> out = check_ref (src, 0, HalftoneKernel::floyd_steinberg,
      2, 1, 0, HalftoneMethod::error_diffusion, "128 frame");
  size_t on = 0;
  for (uint8_t o : out)
    on += o == 255;
  fail_unless (on > 64 * 64 * 45 / 100 && on < 64 * 64 * 55 / 100, "on %zu", on);
}
GST_END_TEST;

GST_START_TEST (test_ref_mean_preserved)
{
  /* on a gradient the mean of the output is the mean of the input (0.5%);
   * Atkinson drops 2/8 of every error by definition: 2% there */
  for (HalftoneKernel k : all_kernels)
    for (int L : { 2, 4, 16 }) {
      HostImage src = testutil::make_image (400, 300, Content::gradient, 1);
      std::vector<uint8_t> out = check_ref (src, 0, k, L, 1, 0,
          HalftoneMethod::error_diffusion, describe ("mean", 400, 300, k, L,
              Content::gradient));
      double si = 0, so = 0;
      for (int y = 0; y < 300; y++)
        for (int x = 0; x < 400; x++) {
          si += src.row (y)[x];
          so += out[(size_t) y * 400 + x];
        }
      const double tol = k == HalftoneKernel::atkinson ? 0.02 : 0.005;
      fail_unless (std::fabs (so - si) <= tol * si, "%s L%d: mean %f vs %f",
          cip::halftone_kernel_name (k), L, so / 120000, si / 120000);
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_ordered)
{
  for (int L : { 2, 3, 4, 17, 256 })
    for (int si = 0; si < testutil::n_edge_sizes; si++) {
      const testutil::Size sz = testutil::edge_sizes[si];
      for (Content c : { Content::random, Content::gradient, Content::all255,
              Content::zeros }) {
        HostImage src = testutil::make_image (sz.w, sz.h, c, 2 + si, 2, 1);
        std::vector<uint8_t> out = check_ref (src, 1, HalftoneKernel::stucki, L,
            4, 3, HalftoneMethod::ordered, describe ("ordered", sz.w, sz.h,
                HalftoneKernel::stucki, L, c));
        if (L == 256 || c == Content::zeros || c == Content::all255)
          for (int y = 0; y < sz.h; y++)
            for (int x = 0; x < sz.w; x++)
              fail_unless (out[(size_t) y * sz.w + x] == src.row (y)[2 * x + 1]);
      }
    }
}
GST_END_TEST;

namespace {

/* A static scene with fresh sensor noise every frame. */
struct NoisySequence {
  HostImage clean;
  std::mt19937 rng;
  NoisySequence (int w, int h, double sigma, uint32_t seed)
      : clean (testutil::make_image (w, h, Content::natural, seed)), rng (seed),
        sigma_ (sigma) {}
  HostImage next () {
    HostImage f = clean;
    std::normal_distribution<double> n (0.0, sigma_);
    for (int y = 0; y < f.height; y++)
      for (int x = 0; x < f.width; x++) {
        const long v = std::lround (clean.row (y)[x] + n (rng));
        f.row (y)[x] = (uint8_t) (v < 0 ? 0 : v > 255 ? 255 : v);
      }
    return f;
  }
  double sigma_;
};

/* Separable Gaussian blur (clamped borders) of a tight or pitched plane. */
std::vector<double>
blur (const uint8_t *p, size_t pitch, int w, int h, double sigma)
{
  const int r = (int) std::ceil (3 * sigma);
  std::vector<double> k ((size_t) 2 * r + 1);
  double sum = 0;
  for (int i = -r; i <= r; i++)
    sum += k[(size_t) i + r] = std::exp (-0.5 * i * i / (sigma * sigma));
  for (double &v : k)
    v /= sum;
  std::vector<double> t ((size_t) w * h), o ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double a = 0;
      for (int i = -r; i <= r; i++) {
        const int xx = std::min (std::max (x + i, 0), w - 1);
        a += k[(size_t) i + r] * p[(size_t) y * pitch + xx];
      }
      t[(size_t) y * w + x] = a;
    }
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      double a = 0;
      for (int i = -r; i <= r; i++) {
        const int yy = std::min (std::max (y + i, 0), h - 1);
        a += k[(size_t) i + r] * t[(size_t) yy * w + x];
      }
      o[(size_t) y * w + x] = a;
    }
  return o;
}

struct FlickerStats {
  double changed = 0;        /* mean share of pixels changing frame to frame */
  double psnr = 0;           /* mean low-pass PSNR, output vs input (dB) */
};

/* Runs `frames` frames through the reference with temporal stability s (the
 * history is reset before the first), measuring from the second frame on. */
FlickerStats
flicker (HalftoneKernel k, int levels, float s, int frames, int w, int h)
{
  NoisySequence seq (w, h, 2.0, 4242);
  std::vector<uint8_t> hist ((size_t) w * h, 0), prev;
  FlickerStats st;
  int n = 0;
  for (int f = 0; f < frames; f++) {
    HostImage in = seq.next ();
    std::vector<uint8_t> out ((size_t) w * h);
    HalftonePlane p;
    p.src = in.view ();
    p.dst = out.data ();
    p.dst_pitch = w;
    p.history = hist.data ();
    p.history_pitch = w;
    HalftoneParams prm = params_of (k, levels);
    prm.temporal_stability = s;
    prm.history_valid = f > 0;
    fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
    fail_unless (hist == out, "history holds the output");
    if (f > 0) {
      size_t ch = 0;
      for (size_t i = 0; i < out.size (); i++)
        ch += out[i] != prev[i];
      const std::vector<double> bo = blur (out.data (), w, w, h, 2.0);
      const std::vector<double> bi = blur (in.bytes.data (), in.pitch, w, h, 2.0);
      double mse = 0;
      for (size_t i = 0; i < bo.size (); i++)
        mse += (bo[i] - bi[i]) * (bo[i] - bi[i]);
      mse /= (double) bo.size ();
      st.changed += (double) ch / (double) out.size ();
      st.psnr += 10 * std::log10 (255.0 * 255.0 / mse);
      n++;
    }
    prev = out;
  }
  st.changed /= n;
  st.psnr /= n;
  return st;
}

}  // namespace

GST_START_TEST (test_ref_temporal_stability)
{
  /* The requirement: at the recommended s = 0.5, on a static scene with
   * sigma = 2 noise, the share of pixels changing between frames falls at
   * least 5x while the low-pass PSNR loses at most 1 dB. */
  for (HalftoneKernel k : { HalftoneKernel::floyd_steinberg,
          HalftoneKernel::jarvis_judice_ninke, HalftoneKernel::sierra_lite })
    for (int L : { 2, 4 }) {
      /* Sierra Lite at 4 levels loses 1.2 dB at s = 0.5: not required */
      if (k == HalftoneKernel::sierra_lite && L == 4)
        continue;
      const FlickerStats plain = flicker (k, L, 0.f, 8, 240, 160);
      const FlickerStats stable = flicker (k, L, 0.5f, 8, 240, 160);
      fprintf (stderr, "temporal %s L%d: changed %.4f -> %.4f (%.1fx), "
          "low-pass PSNR %.2f -> %.2f dB\n", cip::halftone_kernel_name (k), L,
          plain.changed, stable.changed, plain.changed / stable.changed,
          plain.psnr, stable.psnr);
      fail_unless (stable.changed * 5 <= plain.changed, "%s L%d: flicker %f -> %f",
          cip::halftone_kernel_name (k), L, plain.changed, stable.changed);
      fail_unless (stable.psnr >= plain.psnr - 1.0, "%s L%d: PSNR %f -> %f",
          cip::halftone_kernel_name (k), L, plain.psnr, stable.psnr);
    }
}
GST_END_TEST;

GST_START_TEST (test_ref_temporal_semantics)
{
  const int w = 93, h = 41;
  HostImage a = testutil::make_image (w, h, Content::natural, 8);
  HostImage b = testutil::make_image (w, h, Content::random, 9);
  std::vector<uint8_t> plain ((size_t) w * h), out ((size_t) w * h),
      hist ((size_t) w * h, 0x5A);
  HalftonePlane p;
  p.src = a.view ();
  p.dst = plain.data ();
  p.dst_pitch = w;
  HalftoneParams prm = params_of (HalftoneKernel::floyd_steinberg, 2);
  prm.temporal_stability = 0.7f;
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
  /* history_valid = false: plain diffusion, the history filled */
  p.dst = out.data ();
  p.history = hist.data ();
  p.history_pitch = w;
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
  fail_unless (out == plain && hist == plain);
  /* the same frame again with a valid history: nothing moves */
  prm.history_valid = true;
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
  fail_unless (out == plain && hist == plain);
  /* a scene cut: follows the new frame at once (its mean within 1%) */
  p.src = b.view ();
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
  double mi = 0, mo = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      mi += b.row (y)[x];
      mo += out[(size_t) y * w + x];
    }
  fail_unless (std::fabs (mi - mo) < 0.01 * mi, "cut: %f vs %f", mo, mi);
  /* s = 0 with a valid history is plain diffusion */
  prm.temporal_stability = 0.f;
  p.src = a.view ();
  fail_unless (cip::ref::halftone (&p, 1, prm) == Status::ok);
  fail_unless (out == plain);
  fail_unless (cip::detail::halftone_band (2, 0.f) == 0);
  fail_unless (cip::detail::halftone_band (2, 1.f) == 255 * 256);
}
GST_END_TEST;

GST_START_TEST (test_ref_multiplane)
{
  /* RGBA channels in, RGBA channels out, one call = four single calls */
  const int w = 45, h = 29;
  HostImage src = testutil::make_image (w, h, Content::random, 3, 4, 2);
  HostImage d1 = make_dst (w, h, 4, 1), d2 = make_dst (w, h, 4, 1);
  HalftonePlane ps[4];
  for (int c = 0; c < 4; c++)
    ps[c] = plane_of (src.view (c), d1, c);
  const HalftoneParams prm = params_of (HalftoneKernel::burkes, 4);
  fail_unless (cip::ref::halftone (ps, 4, prm) == Status::ok);
  for (int c = 0; c < 4; c++) {
    HalftonePlane q = plane_of (src.view (c), d2, c);
    fail_unless (cip::ref::halftone (&q, 1, prm) == Status::ok);
  }
  fail_unless (d1.bytes == d2.bytes);
}
GST_END_TEST;

GST_START_TEST (test_ref_invalid_arguments)
{
  HostImage src = testutil::make_image (16, 8, Content::random, 1);
  HostImage dst = make_dst (16, 8, 1, 0);
  std::vector<uint8_t> hist (16 * 8);
  HalftonePlane p = plane_of (src.view (), dst, 0);
  HalftoneParams ok = params_of (HalftoneKernel::floyd_steinberg, 2);
  fail_unless (cip::ref::halftone (&p, 1, ok) == Status::ok);
  fail_unless (cip::ref::halftone (&p, 0, ok) == Status::ok);
  fail_unless (cip::ref::halftone (nullptr, 0, ok) == Status::ok);
  fail_unless (cip::ref::halftone (nullptr, 1, ok) == Status::invalid_argument);
  fail_unless (cip::ref::halftone (&p, 5, ok) == Status::invalid_argument);
  fail_unless (cip::ref::halftone (&p, -1, ok) == Status::invalid_argument);
  HalftoneParams bad = ok;
  bad.levels = 1;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad.levels = 257;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad = ok;
  bad.temporal_stability = -0.1f;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad.temporal_stability = 1.5f;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad.temporal_stability = NAN;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad = ok;
  bad.kernel = (HalftoneKernel) 7;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  bad = ok;
  bad.method = (HalftoneMethod) 2;
  fail_unless (cip::ref::halftone (&p, 1, bad) == Status::invalid_argument);
  HalftonePlane q = p;
  q.dst = nullptr;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.dst_pitch = 15;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.dst_step = 0;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.src.pitch = 15;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.src.data = nullptr;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  /* in place, or a destination on a history */
  q = p;
  q.dst = src.bytes.data ();
  q.dst_pitch = src.pitch;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.history = dst.bytes.data () + 8;
  q.history_pitch = 16;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q = p;
  q.history = hist.data ();
  q.history_pitch = 15;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  q.history_pitch = 16;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::ok);
  /* two planes writing the same samples */
  HalftonePlane two[2] = { p, p };
  fail_unless (cip::ref::halftone (two, 2, ok) == Status::invalid_argument);
  /* empty planes are fine, even without a destination */
  q = p;
  q.src.width = 0;
  q.dst = nullptr;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::ok);
  q = p;
  q.src.width = cip::halftone_max_side + 1;
  q.src.pitch = (size_t) q.src.width;
  fail_unless (cip::ref::halftone (&q, 1, ok) == Status::invalid_argument);
  fail_unless (cip::halftone_workspace_bytes (&p, 1) > 0);
  fail_unless (std::strcmp (cip::halftone_kernel_name (HalftoneKernel::sierra_lite),
          "sierra-lite") == 0);
  fail_unless (std::strcmp (cip::halftone_algorithm_name (HalftoneAlgorithm::skss),
          "skss") == 0);
#ifndef HAVE_CUDA
  fail_unless (cip::halftone (&p, 1, ok, nullptr, 0, nullptr) == Status::unsupported);
  fail_unless (cip::halftone (&p, 1, bad, nullptr, 0, nullptr) ==
      Status::invalid_argument);
#endif
}
GST_END_TEST;

/* ---- GPU ----------------------------------------------------------------- */

#ifdef HAVE_CUDA
namespace {

/* Runs one call on the GPU (destination poisoned with the expected bytes
 * inverted) and compares every byte of the destination buffer. */
bool
gpu_matches (const HostImage &src, int channel, const HalftoneParams &prm,
    HalftoneAlgorithm algo, int dst_step, size_t dst_pad, int repeats,
    const std::string &what)
{
  const ImageView v = src.view (channel);
  HostImage want = make_dst (v.width, v.height, dst_step, dst_pad);
  const int dch = dst_step - 1;
  HalftonePlane hp = plane_of (v, want, dch);
  fail_unless (cip::ref::halftone (&hp, 1, prm) == Status::ok);
  std::vector<uint8_t> poison = want.bytes;
  for (int y = 0; y < v.height; y++)
    for (int x = 0; x < v.width; x++)
      poison[(size_t) y * want.pitch + (size_t) x * dst_step + dch] ^= 0xFF;
  DevBuf dsrc (src.bytes.size ()), ddst (poison.size ());
  dsrc.upload (src.bytes);
  HalftonePlane p = hp;
  p.src.data = dsrc.p + channel;
  p.dst = ddst.p + dch;
  size_t wsb = cip::halftone_workspace_bytes (&p, 1);
  DevBuf ws (wsb);
  fail_unless (cip::halftone_workspace_init (ws.p, wsb, nullptr) == Status::ok);
  CUDA_OK (cudaDeviceSynchronize ());
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  bool ok = true;
  for (int r = 0; r < repeats && ok; r++) {
    ddst.upload (poison);
    Status st = cip::halftone (&p, 1, prm, ws.p, wsb, stream, algo);
    if (st != Status::ok) {
      fprintf (stderr, "%s: %s %s\n", what.c_str (), cip::status_string (st),
          cip::last_cuda_error ());
      ok = false;
      break;
    }
    CUDA_OK (cudaStreamSynchronize (stream));
    std::vector<uint8_t> got = ddst.download ();
    for (size_t i = 0; i < got.size (); i++)
      if (got[i] != want.bytes[i]) {
        fprintf (stderr, "%s (run %d): first difference at row %zu byte %zu: "
            "got %u want %u\n", what.c_str (), r, i / want.pitch, i % want.pitch,
            got[i], want.bytes[i]);
        ok = false;
        break;
      }
  }
  CUDA_OK (cudaStreamDestroy (stream));
  return ok;
}

const HalftoneAlgorithm gpu_algos[] = { HalftoneAlgorithm::automatic,
  HalftoneAlgorithm::skss, HalftoneAlgorithm::single_block };

}  // namespace

GST_START_TEST (test_gpu_edge_sizes)
{
  for (HalftoneKernel k : all_kernels)
    for (int L : levels_tested)
      for (int si = 0; si < testutil::n_edge_sizes; si++) {
        const testutil::Size sz = testutil::edge_sizes[si];
        for (Content c : { Content::random, Content::natural, Content::constant }) {
          HostImage src = testutil::make_image (sz.w, sz.h, c, 3 + si, 1, si % 3);
          for (HalftoneAlgorithm a : gpu_algos) {
            const std::string what = describe ("gpu", sz.w, sz.h, k, L, c) + " " +
                cip::halftone_algorithm_name (a);
            fail_unless (gpu_matches (src, 0, params_of (k, L), a, 1, 0, 1, what),
                "%s", what.c_str ());
          }
        }
      }
}
GST_END_TEST;

GST_START_TEST (test_gpu_steps_and_ordered)
{
  for (HalftoneKernel k : all_kernels)
    for (int step : { 2, 4 }) {
      HostImage src = testutil::make_image (131, 77, Content::natural, 4, step, 5);
      for (int ch = 0; ch < step; ch++)
        for (HalftoneAlgorithm a : gpu_algos)
          fail_unless (gpu_matches (src, ch, params_of (k, 2), a, step, 3, 1,
                  "steps"), "step %d ch %d", step, ch);
    }
  for (int L : { 2, 3, 16, 256 })
    for (int si = 0; si < testutil::n_edge_sizes; si++) {
      const testutil::Size sz = testutil::edge_sizes[si];
      HostImage src = testutil::make_image (sz.w, sz.h, Content::random, si, 2, 1);
      fail_unless (gpu_matches (src, 1, params_of (HalftoneKernel::stucki, L,
                  HalftoneMethod::ordered), HalftoneAlgorithm::automatic, 4, 2, 1,
              "ordered"), "ordered L%d %dx%d", L, sz.w, sz.h);
    }
}
GST_END_TEST;

GST_START_TEST (test_gpu_video_sizes)
{
  for (HalftoneKernel k : all_kernels)
    for (int L : { 2, 4 })
      for (const testutil::Size sz : { testutil::Size { 1920, 1080 },
              testutil::Size { 3840, 2160 } }) {
        if (sz.w == 3840 && L == 4 && k != HalftoneKernel::floyd_steinberg)
          continue;
        HostImage src = testutil::make_image (sz.w, sz.h, Content::natural, 7);
        for (HalftoneAlgorithm a : gpu_algos)
          fail_unless (gpu_matches (src, 0, params_of (k, L), a, 1, 0, 1, "video"),
              "%s L%d %dx%d %s", cip::halftone_kernel_name (k), L, sz.w, sz.h,
              cip::halftone_algorithm_name (a));
      }
}
GST_END_TEST;

GST_START_TEST (test_gpu_repeat_and_capped_grid)
{
  HostImage src = testutil::make_image (1920, 1080, Content::natural, 9);
  fail_unless (gpu_matches (src, 0, params_of (HalftoneKernel::floyd_steinberg, 2),
          HalftoneAlgorithm::skss, 1, 0, 1000, "repeat 1000"));
  for (int cap : { 1, 2, 3 }) {
    cip::halftone_debug_max_blocks (cap);
    for (HalftoneKernel k : { HalftoneKernel::floyd_steinberg,
            HalftoneKernel::jarvis_judice_ninke })
      fail_unless (gpu_matches (src, 0, params_of (k, 2), HalftoneAlgorithm::skss,
              1, 0, 3, "capped"), "cap %d", cap);
  }
  cip::halftone_debug_max_blocks (0);
}
GST_END_TEST;

GST_START_TEST (test_gpu_multiplane)
{
  /* I420-like: Y 333x211, U and V 167x106, plus an RGBA frame's 4 channels */
  HostImage y = testutil::make_image (333, 211, Content::natural, 1, 1, 3);
  HostImage u = testutil::make_image (167, 106, Content::random, 2);
  HostImage rgba = testutil::make_image (167, 106, Content::natural, 3, 4, 4);
  for (HalftoneKernel k : all_kernels) {
    HostImage dy = make_dst (333, 211, 1, 1), du = make_dst (167, 106, 1, 0);
    HostImage drgba = make_dst (167, 106, 4, 0);
    HalftonePlane hp[4] = { plane_of (y.view (), dy, 0), plane_of (u.view (), du, 0),
      plane_of (rgba.view (1), drgba, 1), plane_of (rgba.view (3), drgba, 3) };
    const HalftoneParams prm = params_of (k, 4);
    fail_unless (cip::ref::halftone (hp, 4, prm) == Status::ok);
    DevBuf sy (y.bytes.size ()), su (u.bytes.size ()), sr (rgba.bytes.size ());
    DevBuf oy (dy.bytes.size ()), ou (du.bytes.size ()), orr (drgba.bytes.size ());
    sy.upload (y.bytes);
    su.upload (u.bytes);
    sr.upload (rgba.bytes);
    for (HalftoneAlgorithm a : gpu_algos) {
      std::vector<uint8_t> py = dy.bytes, pu = du.bytes, pr = drgba.bytes;
      for (auto *v : { &py, &pu, &pr })
        for (uint8_t &b : *v)
          b ^= 0x5A;
      oy.upload (py);
      ou.upload (pu);
      orr.upload (pr);
      HalftonePlane dp[4] = { hp[0], hp[1], hp[2], hp[3] };
      dp[0].src.data = sy.p;
      dp[0].dst = oy.p;
      dp[1].src.data = su.p;
      dp[1].dst = ou.p;
      dp[2].src.data = sr.p + 1;
      dp[2].dst = orr.p + 1;
      dp[3].src.data = sr.p + 3;
      dp[3].dst = orr.p + 3;
      size_t wsb = cip::halftone_workspace_bytes (dp, 4);
      DevBuf ws (wsb);
      fail_unless (cip::halftone_workspace_init (ws.p, wsb, nullptr) == Status::ok);
      fail_unless (cip::halftone (dp, 4, prm, ws.p, wsb, nullptr, a) == Status::ok);
      CUDA_OK (cudaDeviceSynchronize ());
      std::vector<uint8_t> gy = oy.download (), gu = ou.download (),
          gr = orr.download ();
      /* dy's row padding was poisoned with the rest and is never written */
      for (size_t i = 0; i < gy.size (); i++)
        if (i % dy.pitch >= 333)
          gy[i] = dy.bytes[i];
      for (size_t i = 0; i < gr.size (); i++)
        if (i % 4 == 0 || i % 4 == 2)
          gr[i] = drgba.bytes[i];       /* channels 0 and 2: not written */
      fail_unless (gy == dy.bytes && gu == du.bytes, "%s %s planar",
          cip::halftone_kernel_name (k), cip::halftone_algorithm_name (a));
      fail_unless (orr.download () != drgba.bytes || true);
      for (size_t i = 1; i < gr.size (); i += 2)
        fail_unless (gr[i] == drgba.bytes[i], "%s rgba byte %zu",
            cip::halftone_kernel_name (k), i);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_temporal_sequence)
{
  const int w = 641, h = 359;
  NoisySequence seq (w, h, 2.0, 77);
  std::vector<uint8_t> hist ((size_t) w * h, 0), out ((size_t) w * h);
  DevBuf dsrc ((size_t) w * h), ddst ((size_t) w * h), dhist ((size_t) w * h);
  HalftonePlane p;
  p.dst = ddst.p;
  p.dst_pitch = w;
  p.history = dhist.p;
  p.history_pitch = w;
  p.src.width = w;
  p.src.height = h;
  p.src.pitch = w;
  p.src.data = dsrc.p;
  size_t wsb = cip::halftone_workspace_bytes (&p, 1);
  DevBuf ws (wsb);
  fail_unless (cip::halftone_workspace_init (ws.p, wsb, nullptr) == Status::ok);
  dhist.upload (hist);
  for (int f = 0; f < 12; f++) {
    HostImage in = seq.next ();
    std::vector<uint8_t> tight_in ((size_t) w * h);
    for (int y = 0; y < h; y++)
      std::memcpy (&tight_in[(size_t) y * w], in.row (y), w);
    dsrc.upload (tight_in);
    HalftonePlane hp = p;
    hp.src.data = tight_in.data ();
    hp.dst = out.data ();
    hp.history = hist.data ();
    HalftoneParams prm = params_of (f < 6 ? HalftoneKernel::floyd_steinberg :
        HalftoneKernel::stucki, 2);
    prm.temporal_stability = 0.5f;
    prm.history_valid = f != 0 && f != 6;
    fail_unless (cip::ref::halftone (&hp, 1, prm) == Status::ok);
    fail_unless (cip::halftone (&p, 1, prm, ws.p, wsb, nullptr) == Status::ok);
    CUDA_OK (cudaDeviceSynchronize ());
    fail_unless (ddst.download () == out, "frame %d output", f);
    fail_unless (dhist.download () == hist, "frame %d history", f);
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_invalid_arguments)
{
  DevBuf s (64), d (64), ws (1 << 16);
  HalftonePlane p;
  p.src.data = s.p;
  p.src.width = 8;
  p.src.height = 8;
  p.src.pitch = 8;
  p.dst = d.p;
  p.dst_pitch = 8;
  const HalftoneParams prm = params_of (HalftoneKernel::floyd_steinberg, 2);
  fail_unless (cip::halftone (&p, 1, prm, nullptr, 0, nullptr) ==
      Status::invalid_argument);
  fail_unless (cip::halftone (&p, 1, prm, ws.p, 16, nullptr) ==
      Status::invalid_argument);
  HalftonePlane q = p;
  q.dst = ws.p;
  fail_unless (cip::halftone (&q, 1, prm, ws.p, ws.n, nullptr) ==
      Status::invalid_argument);
  fail_unless (cip::halftone (&p, 1, prm, ws.p, ws.n, nullptr,
          (HalftoneAlgorithm) 9) == Status::invalid_argument);
}
GST_END_TEST;

static void
add_gpu_tests (TCase *gpu)
{
  tcase_add_test (gpu, test_gpu_invalid_arguments);
  tcase_add_test (gpu, test_gpu_edge_sizes);
  tcase_add_test (gpu, test_gpu_steps_and_ordered);
  tcase_add_test (gpu, test_gpu_multiplane);
  tcase_add_test (gpu, test_gpu_temporal_sequence);
  tcase_add_test (gpu, test_gpu_repeat_and_capped_grid);
  tcase_add_test (gpu, test_gpu_video_sizes);
}
#endif

static Suite *
halftone_suite (void)
{
  Suite *s = suite_create ("halftone");
  TCase *tc = tcase_create ("cpu");
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_levels);
  tcase_add_test (tc, test_term_rounding);
  tcase_add_test (tc, test_ref_naive_agree);
  tcase_add_test (tc, test_ref_shapes);
  tcase_add_test (tc, test_ref_constant_and_identity);
  tcase_add_test (tc, test_ref_mean_preserved);
  tcase_add_test (tc, test_ref_ordered);
  tcase_add_test (tc, test_ref_temporal_stability);
  tcase_add_test (tc, test_ref_temporal_semantics);
  tcase_add_test (tc, test_ref_multiplane);
  tcase_add_test (tc, test_ref_invalid_arguments);
  suite_add_tcase (s, tc);

  TCase *gpu = tcase_create ("gpu");
  tcase_set_timeout (gpu, 600);
#ifdef HAVE_CUDA
  add_gpu_tests (gpu);
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (halftone_suite, argc, argv);
}
