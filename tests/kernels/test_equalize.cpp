/* Equalize: the CPU reference against independent re-statements of OpenCV's
 * equalizeHist and CLAHE (padding, clipping, interpolation), smoothing,
 * strength, ROI, upstream histograms, RGB modes and argument checks; on a
 * GPU, the kernels against the reference, exactly (frames, LUTs and smoothing
 * state), with poisoned outputs. */
#include "cipcheck.h"
#include "testimage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cip/equalize.h"
#include "cip/histogram.h"
#include "detail/equalize_math.h"

#ifdef HAVE_CUDA
#include "testcuda.h"
#endif

using cip::EqConfig;
using cip::EqFrame;
using cip::EqLayout;
using cip::EqMode;
using cip::EqRgbMode;
using cip::EqState;
using cip::Status;
using testutil::Content;
using testutil::HostImage;

namespace {

const uint8_t kPoison = 0xA7;

/* ---- independent re-statements of OpenCV ----------------------------------- */

int
sat_round (float v)
{
  int r = (int) std::lrint (v);   /* cvRound: nearest, ties to even */
  return r < 0 ? 0 : r > 255 ? 255 : r;
}

/* cv::equalizeHist's LUT (modules/imgproc/src/histogram.cpp); the constant
 * case returns the identity (OpenCV sets every pixel to i0: the same output). */
std::vector<uint8_t>
opencv_eq_lut (const std::vector<uint32_t> &hist)
{
  std::vector<uint8_t> lut (256);
  int total = 0;
  for (uint32_t h : hist)
    total += (int) h;
  int i = 0;
  while (i < 256 && !hist[i])
    ++i;
  if (total == 0 || (int) hist[i] == total) {
    for (int v = 0; v < 256; v++)
      lut[v] = (uint8_t) v;
    return lut;
  }
  float scale = (256 - 1.f) / (total - (int) hist[i]);
  int sum = 0;
  for (int v = 0; v <= i; v++)
    lut[v] = 0;
  for (i++; i < 256; ++i) {
    sum += (int) hist[i];
    volatile float prod = sum * scale;
    lut[i] = (uint8_t) sat_round (prod);
  }
  return lut;
}

std::vector<uint32_t>
plane_hist (const uint8_t *d, size_t pitch, int x0, int y0, int w, int h, int step)
{
  std::vector<uint32_t> hist (256, 0);
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++)
      hist[d[(size_t) y * pitch + (size_t) x * step]]++;
  return hist;
}

/* OpenCV borderInterpolate, BORDER_REFLECT_101 */
int
border101 (int p, int len)
{
  if (len == 1)
    return 0;
  do {
    if (p < 0)
      p = -p - 1 + 1;
    else
      p = len - 1 - (p - len) - 1;
  } while ((unsigned) p >= (unsigned) len);
  return p;
}

/* cv::createCLAHE(clip, Size(tilesX, tilesY))->apply on a W x H plane of
 * values 0..histSize-1 (src[y * W + x]): copyMakeBorder, CLAHE_CalcLut_Body,
 * CLAHE_Interpolation_Body with OpenCV's histSize (256 for CV_8U, 65536 for
 * CV_16U) as a parameter. strength (0..256, ours) is blended into each tile
 * LUT before interpolation; *luts gets the tile LUTs when given. */
std::vector<int>
opencv_clahe_n (const std::vector<int> &src, int W, int H, double clipLimit,
    int tilesX, int tilesY, int histSize, int strength = 256,
    std::vector<int> *luts = nullptr)
{
  const int maxv = histSize - 1;
  auto sat = [maxv] (float v) {
    long r = std::lrint (v);   /* cvRound, then saturate_cast */
    return (int) (r < 0 ? 0 : r > maxv ? maxv : r);
  };
  int EW = W, EH = H;
  if (W % tilesX != 0 || H % tilesY != 0) {
    EW = W + tilesX - (W % tilesX);
    EH = H + tilesY - (H % tilesY);
  }
  std::vector<int> ext ((size_t) EW * EH);
  for (int y = 0; y < EH; y++)
    for (int x = 0; x < EW; x++)
      ext[(size_t) y * EW + x] = src[(size_t) border101 (y, H) * W + border101 (x, W)];
  const int tw = EW / tilesX, th = EH / tilesY;
  const int tileSizeTotal = tw * th;
  const float lutScale = static_cast<float> (histSize - 1) / tileSizeTotal;
  int clip = 0;
  if (clipLimit > 0.0) {
    clip = static_cast<int> (clipLimit * tileSizeTotal / histSize);
    clip = std::max (clip, 1);
  }
  std::vector<int> lut ((size_t) tilesX * tilesY * histSize);
  std::vector<int> hist ((size_t) histSize);
  for (int k = 0; k < tilesX * tilesY; k++) {
    const int ty = k / tilesX, tx = k % tilesX;
    std::fill (hist.begin (), hist.end (), 0);
    for (int y = 0; y < th; y++)
      for (int x = 0; x < tw; x++)
        hist[ext[(size_t) (ty * th + y) * EW + tx * tw + x]]++;
    if (clip > 0) {
      int clipped = 0;
      for (int i = 0; i < histSize; ++i)
        if (hist[i] > clip) {
          clipped += hist[i] - clip;
          hist[i] = clip;
        }
      int redistBatch = clipped / histSize;
      int residual = clipped - redistBatch * histSize;
      for (int i = 0; i < histSize; ++i)
        hist[i] += redistBatch;
      if (residual != 0) {
        int residualStep = std::max (histSize / residual, 1);
        for (int i = 0; i < histSize && residual > 0; i += residualStep, residual--)
          hist[i]++;
      }
    }
    int sum = 0;
    for (int i = 0; i < histSize; ++i) {
      sum += hist[i];
      volatile float prod = sum * lutScale;
      const int l = sat (prod);
      lut[(size_t) k * histSize + i] = (i * (256 - strength) + l * strength + 128) >> 8;
    }
  }
  if (luts)
    *luts = lut;
  std::vector<int> ind1 (W), ind2 (W);
  std::vector<float> xa_p (W), xa1_p (W);
  const float inv_tw = 1.0f / tw;
  for (int x = 0; x < W; ++x) {
    volatile float t = x * inv_tw;
    float txf = t - 0.5f;
    int tx1 = (int) std::floor (txf);
    int tx2 = tx1 + 1;
    xa_p[x] = txf - tx1;
    xa1_p[x] = 1.0f - xa_p[x];
    tx1 = std::max (tx1, 0);
    tx2 = std::min (tx2, tilesX - 1);
    ind1[x] = tx1 * histSize;
    ind2[x] = tx2 * histSize;
  }
  std::vector<int> dst ((size_t) W * H);
  const float inv_th = 1.0f / th;
  for (int y = 0; y < H; ++y) {
    volatile float t = y * inv_th;
    float tyf = t - 0.5f;
    int ty1 = (int) std::floor (tyf);
    int ty2 = ty1 + 1;
    float ya = tyf - ty1, ya1 = 1.0f - ya;
    ty1 = std::max (ty1, 0);
    ty2 = std::min (ty2, tilesY - 1);
    const int *lp1 = lut.data () + (size_t) ty1 * tilesX * histSize;
    const int *lp2 = lut.data () + (size_t) ty2 * tilesX * histSize;
    for (int x = 0; x < W; ++x) {
      int v = src[(size_t) y * W + x];
      volatile float a = lp1[ind1[x] + v] * xa1_p[x];
      volatile float b = lp1[ind2[x] + v] * xa_p[x];
      volatile float r1 = a + b;
      volatile float c = lp2[ind1[x] + v] * xa1_p[x];
      volatile float d = lp2[ind2[x] + v] * xa_p[x];
      volatile float r2 = c + d;
      volatile float u1 = r1 * ya1;
      volatile float u2 = r2 * ya;
      float res = u1 + u2;
      dst[(size_t) y * W + x] = sat (res);
    }
  }
  return dst;
}

/* The 8-bit form on a byte plane of pitch `pitch`. */
std::vector<uint8_t>
opencv_clahe (const uint8_t *src, size_t pitch, int W, int H, double clipLimit,
    int tilesX, int tilesY)
{
  std::vector<int> v ((size_t) W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      v[(size_t) y * W + x] = src[(size_t) y * pitch + x];
  const std::vector<int> d = opencv_clahe_n (v, W, H, clipLimit, tilesX, tilesY, 256);
  return std::vector<uint8_t> (d.begin (), d.end ());
}

/* ---- frames ------------------------------------------------------------------ */

/* A packed RGBx image whose channels 0..3 hold c with different seeds. */
HostImage
make_rgb (int w, int h, Content c, uint32_t seed, size_t pad = 0)
{
  HostImage img = testutil::make_image (w, h, c, seed, 4, pad);
  for (int ch = 1; ch < 4; ch++)
    testutil::fill (img, c, seed + 17u * (uint32_t) ch, ch);
  return img;
}

/* A destination like src (pitch + dpad bytes), every byte poisoned. */
HostImage
poisoned_like (const HostImage &src, size_t dpad)
{
  HostImage d;
  d.width = src.width;
  d.height = src.height;
  d.step = src.step;
  d.pitch = src.pitch + dpad;
  d.bytes.assign (d.pitch * (size_t) std::max (1, src.height), kPoison);
  return d;
}

EqFrame
frame_of (const HostImage &src, HostImage &dst)
{
  EqFrame f;
  f.src = src.bytes.data ();
  f.src_pitch = src.pitch;
  f.dst = dst.bytes.data ();
  f.dst_pitch = dst.pitch;
  f.width = src.width;
  f.height = src.height;
  return f;
}

/* The reference's output (dst pitch = src pitch + 8). */
HostImage
ref_run (const HostImage &src, const EqConfig &cfg, EqState *st = nullptr,
    std::vector<uint8_t> *lut = nullptr)
{
  HostImage dst = poisoned_like (src, 8);
  EqFrame f = frame_of (src, dst);
  if (lut)
    lut->assign (cip::equalize_lut_bytes (cfg), kPoison);
  Status s = cip::ref::equalize (f, cfg, st, lut ? lut->data () : nullptr);
  fail_unless (s == Status::ok, "ref::equalize: %s", cip::status_string (s));
  return dst;
}

/* Every pixel of dst equals want(x, y, channel byte), padding untouched. */
template <typename F>
bool
check_pixels (const HostImage &dst, int bpp, F want, const std::string &what)
{
  for (int y = 0; y < dst.height; y++) {
    const uint8_t *r = dst.bytes.data () + (size_t) y * dst.pitch;
    for (int x = 0; x < dst.width; x++)
      for (int b = 0; b < bpp; b++) {
        const int w = want (x, y, b);
        if (r[x * bpp + b] != w) {
          fprintf (stderr, "%s: (x=%d, y=%d, byte %d): got %d want %d\n", what.c_str (),
              x, y, b, r[x * bpp + b], w);
          return false;
        }
      }
    for (size_t i = (size_t) dst.width * bpp; i < dst.pitch && y + 1 < dst.height; i++)
      if (r[i] != kPoison) {
        fprintf (stderr, "%s: padding written at row %d\n", what.c_str (), y);
        return false;
      }
  }
  return true;
}

std::string
name (const char *what, int w, int h, Content c)
{
  char buf[200];
  snprintf (buf, sizeof (buf), "%s %dx%d %s", what, w, h, testutil::content_name (c));
  return buf;
}

EqConfig
clahe_cfg (int tx, int ty, double clip)
{
  EqConfig c;
  c.mode = EqMode::clahe;
  c.tiles_x = tx;
  c.tiles_y = ty;
  c.clip_limit = clip;
  return c;
}

struct TileCase {
  int tx, ty;
  double clip;
};
const TileCase tile_cases[] = { {8, 8, 40.0}, {1, 1, 40.0}, {3, 5, 2.5},
  {16, 2, 1.0}, {2, 16, 0.0}, {8, 8, 0.01}, {7, 3, 4.0} };

const testutil::Size clahe_sizes[] = { {1, 1}, {2, 1}, {1, 7}, {37, 23},
  {31, 17}, {64, 64}, {129, 32}, {257, 3}, {5, 300} };

const EqLayout rgb_layouts[] = { EqLayout::rgbx, EqLayout::bgrx, EqLayout::xrgb,
  EqLayout::xbgr };

void
offsets (EqLayout l, int o[3])
{
  static const int t[4][3] = { {0, 1, 2}, {2, 1, 0}, {1, 2, 3}, {3, 2, 1} };
  const int i = l == EqLayout::rgbx ? 0 : l == EqLayout::bgrx ? 1 : l == EqLayout::xrgb ? 2 : 3;
  o[0] = t[i][0];
  o[1] = t[i][1];
  o[2] = t[i][2];
}

/* The luma plane of a packed image (13933, 46871, 4732 / 65536, rounded). */
std::vector<uint8_t>
luma_plane (const HostImage &img, EqLayout l)
{
  int o[3];
  offsets (l, o);
  std::vector<uint8_t> y ((size_t) img.width * img.height);
  for (int j = 0; j < img.height; j++)
    for (int i = 0; i < img.width; i++) {
      const uint8_t *p = img.bytes.data () + (size_t) j * img.pitch + (size_t) i * 4;
      y[(size_t) j * img.width + i] =
          (uint8_t) ((13933u * p[o[0]] + 46871u * p[o[1]] + 4732u * p[o[2]] + 32768u) >> 16);
    }
  return y;
}

/* One channel of a packed image as a plane. */
std::vector<uint8_t>
channel_plane (const HostImage &img, int b)
{
  std::vector<uint8_t> v ((size_t) img.width * img.height);
  for (int j = 0; j < img.height; j++)
    for (int i = 0; i < img.width; i++)
      v[(size_t) j * img.width + i] = img.bytes[(size_t) j * img.pitch + (size_t) i * 4 + b];
  return v;
}

int
clamp255 (int v)
{
  return v < 0 ? 0 : v > 255 ? 255 : v;
}

}  // namespace

/* ---- CPU ------------------------------------------------------------------------ */

GST_START_TEST (test_global_matches_opencv)
{
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (Content c : testutil::all_contents)
      for (size_t pad : { (size_t) 0, (size_t) 5 }) {
        HostImage src = testutil::make_image (sz.w, sz.h, c, 3 + si, 1, pad);
        std::vector<uint8_t> lut;
        HostImage dst = ref_run (src, EqConfig (), nullptr, &lut);
        std::vector<uint8_t> want = opencv_eq_lut (plane_hist (src.bytes.data (),
                src.pitch, 0, 0, sz.w, sz.h, 1));
        std::string what = name ("global", sz.w, sz.h, c);
        fail_unless (check_pixels (dst, 1, [&] (int x, int y, int) {
              return (int) want[src.bytes[(size_t) y * src.pitch + x]]; }, what), "%s",
            what.c_str ());
        fail_unless (lut == want, "%s: LUT", what.c_str ());
      }
  }
  /* a frame of two values: one goes to 0, the other to 255 */
  HostImage two = testutil::make_image (40, 30, Content::checkerboard, 1);
  HostImage d = ref_run (two, EqConfig ());
  for (int y = 0; y < 30; y++)
    for (int x = 0; x < 40; x++)
      fail_unless (d.bytes[(size_t) y * d.pitch + x] == (two.bytes[(size_t) y * two.pitch + x] == 16 ? 0 : 255));
  /* constants keep their value (no division by zero) */
  for (int v : { 0, 1, 128, 254, 255 }) {
    HostImage k = testutil::make_image (33, 9, Content::zeros, 1);
    std::fill (k.bytes.begin (), k.bytes.end (), (uint8_t) v);
    HostImage o = ref_run (k, EqConfig ());
    fail_unless (check_pixels (o, 1, [&] (int, int, int) { return v; }, "constant"));
  }
}
GST_END_TEST;

GST_START_TEST (test_clahe_matches_opencv)
{
  int n = 0;
  for (const testutil::Size &sz : clahe_sizes)
    for (const TileCase &tc : tile_cases)
      for (Content c : { Content::natural, Content::random, Content::gradient,
               Content::constant, Content::checkerboard }) {
        n++;
        HostImage src = testutil::make_image (sz.w, sz.h, c, (uint32_t) n, 1, n % 3 ? 0 : 7);
        std::vector<uint8_t> want = opencv_clahe (src.bytes.data (), src.pitch, sz.w,
            sz.h, tc.clip, tc.tx, tc.ty);
        HostImage dst = ref_run (src, clahe_cfg (tc.tx, tc.ty, tc.clip));
        char what[160];
        snprintf (what, sizeof (what), "clahe %dx%d %s tiles %dx%d clip %g", sz.w, sz.h,
            testutil::content_name (c), tc.tx, tc.ty, tc.clip);
        fail_unless (check_pixels (dst, 1, [&] (int x, int y, int) {
              return (int) want[(size_t) y * sz.w + x]; }, what), "%s", what);
      }
  /* a video size and a size that needs padding in one direction only */
  for (testutil::Size sz : { testutil::Size { 640, 480 }, testutil::Size { 641, 479 },
           testutil::Size { 648, 479 } }) {
    HostImage src = testutil::make_image (sz.w, sz.h, Content::natural, 9);
    std::vector<uint8_t> want = opencv_clahe (src.bytes.data (), src.pitch, sz.w, sz.h,
        40.0, 8, 8);
    HostImage dst = ref_run (src, clahe_cfg (8, 8, 40.0));
    fail_unless (check_pixels (dst, 1, [&] (int x, int y, int) {
          return (int) want[(size_t) y * sz.w + x]; }, name ("clahe", sz.w, sz.h,
              Content::natural)));
  }
}
GST_END_TEST;

GST_START_TEST (test_smoothing)
{
  for (EqMode m : { EqMode::global, EqMode::clahe }) {
    EqConfig cfg = m == EqMode::clahe ? clahe_cfg (4, 3, 3.0) : EqConfig ();
    cfg.smoothing = 0.75;
    HostImage a = testutil::make_image (97, 61, Content::natural, 1);
    HostImage b = testutil::make_image (97, 61, Content::random, 2);
    EqConfig per = cfg;
    per.smoothing = 0.0;
    HostImage want_a = ref_run (a, per), want_b = ref_run (b, per);
    std::vector<uint64_t> mem (cip::equalize_state_bytes (cfg) / 8, 0x5555u);
    EqState st;
    st.data = mem.data ();
    st.valid = false;
    /* first frame: its own histogram */
    fail_unless (ref_run (a, cfg, &st).bytes == want_a.bytes);
    fail_unless (st.valid);
    /* a scene change fades in and then equals the per-frame result */
    int frames = 0;
    bool differed = false, converged = false;
    for (frames = 1; frames <= 300 && !converged; frames++) {
      HostImage o = ref_run (b, cfg, &st);
      if (o.bytes != want_b.bytes)
        differed = true;
      else
        converged = true;
    }
    fail_unless (differed, "smoothing had no effect");
    fail_unless (converged, "no convergence in 300 frames");
    for (int i = 0; i < 5; i++)
      fail_unless (ref_run (b, cfg, &st).bytes == want_b.bytes, "left the fixed point");
    /* reset: the frame's own histogram again */
    st.valid = false;
    fail_unless (ref_run (a, cfg, &st).bytes == want_a.bytes);
    /* smoothing 0 with a state: per frame */
    fail_unless (ref_run (b, per, &st).bytes == want_b.bytes);
    /* smoothing 1 freezes nearly: the output stays close to a's */
    (void) frames;
  }
  /* the EMA step: exact and never overshooting */
  for (uint32_t h : { 0u, 1u, 7u, 1000u, 4000000u })
    for (uint64_t s : { (uint64_t) 0, (uint64_t) 5, (uint64_t) 1 << 30 })
      for (uint32_t a : { 1u, 100u, 16384u, 65535u, 65536u }) {
        uint64_t t = s;
        const uint64_t goal = (uint64_t) h << 8;
        for (int i = 0; i < 2000000 && t != goal; i++) {
          uint64_t n = cip::detail::eq_ema (t, h, a);
          fail_unless ((t < goal && n > t && n <= goal) || (t > goal && n < t && n >= goal));
          t = n;
          if (a == 1 && i > 10)
            break;
        }
        if (a >= 100)
          fail_unless (t == goal);
        if (a == 65536)
          fail_unless (cip::detail::eq_ema (s, h, a) == goal);
      }
}
GST_END_TEST;

GST_START_TEST (test_strength)
{
  HostImage src = testutil::make_image (131, 37, Content::natural, 4, 1, 3);
  for (EqMode m : { EqMode::global, EqMode::clahe }) {
    EqConfig full = m == EqMode::clahe ? clahe_cfg (8, 8, 40.0) : EqConfig ();
    std::vector<uint8_t> lfull, lhalf;
    HostImage want = ref_run (src, full, nullptr, &lfull);
    EqConfig c = full;
    c.strength = 0.0;
    HostImage id = ref_run (src, c);
    fail_unless (check_pixels (id, 1, [&] (int x, int y, int) {
          return (int) src.bytes[(size_t) y * src.pitch + x]; }, "strength 0"));
    c.strength = 1.0;
    fail_unless (ref_run (src, c).bytes == want.bytes);
    c.strength = 0.5;
    HostImage half = ref_run (src, c, nullptr, &lhalf);
    for (size_t i = 0; i < lfull.size (); i++) {
      const int v = (int) (i % 256);
      fail_unless (lhalf[i] == ((v * 128 + lfull[i] * 128 + 128) >> 8), "LUT %zu", i);
    }
    if (m == EqMode::global)
      fail_unless (check_pixels (half, 1, [&] (int x, int y, int) {
            return (int) lhalf[src.bytes[(size_t) y * src.pitch + x]]; }, "strength .5"));
  }
}
GST_END_TEST;

GST_START_TEST (test_roi)
{
  HostImage src = testutil::make_image (203, 101, Content::natural, 5, 1, 9);
  struct R { int x, y, w, h; };
  for (R r : { R {0, 0, 203, 101}, R {10, 20, 50, 30}, R {202, 100, 1, 1},
           R {0, 50, 203, 1}, R {101, 0, 1, 101} }) {
    EqConfig c;
    c.roi_x = r.x;
    c.roi_y = r.y;
    c.roi_width = r.w;
    c.roi_height = r.h;
    std::vector<uint8_t> lut;
    HostImage dst = ref_run (src, c, nullptr, &lut);
    std::vector<uint8_t> want = opencv_eq_lut (plane_hist (src.bytes.data (), src.pitch,
            r.x, r.y, r.w, r.h, 1));
    fail_unless (lut == want, "roi LUT %d,%d %dx%d", r.x, r.y, r.w, r.h);
    fail_unless (check_pixels (dst, 1, [&] (int x, int y, int) {
          return (int) want[src.bytes[(size_t) y * src.pitch + x]]; }, "roi"));
  }
}
GST_END_TEST;

GST_START_TEST (test_from_histogram)
{
  HostImage src = testutil::make_image (77, 45, Content::natural, 6, 1, 2);
  HostImage other = testutil::make_image (50, 50, Content::gradient, 1);
  for (EqLayout l : { EqLayout::gray, EqLayout::rgbx }) {
    for (EqRgbMode rm : { EqRgbMode::luma, EqRgbMode::per_channel }) {
      EqConfig c;
      c.layout = l;
      c.rgb_mode = rm;
      c.strength = 0.8;
      HostImage img = l == EqLayout::gray ? src : make_rgb (77, 45, Content::natural, 6);
      /* the histogram an upstream cip::histogram call would give */
      const int nch = cip::equalize_channels (c);
      std::vector<uint32_t> hist ((size_t) nch * 256);
      cip::HistInput in[3];
      for (int i = 0; i < nch; i++) {
        in[i].view = img.view (l == EqLayout::gray ? 0 : i);
        in[i].source = l == EqLayout::gray || rm == EqRgbMode::per_channel ?
            cip::HistSource::plane : cip::HistSource::luma_rgb;
        if (l != EqLayout::gray && rm == EqRgbMode::luma)
          in[i].view = img.view (0);
      }
      fail_unless (cip::ref::histogram (in, nch, 256, hist.data (), false) == Status::ok);
      std::vector<uint8_t> lut1, lut2 (cip::equalize_lut_bytes (c));
      HostImage want = ref_run (img, c, nullptr, &lut1);
      HostImage got = poisoned_like (img, 8);
      EqFrame f = frame_of (img, got);
      fail_unless (cip::ref::equalize_from_histogram (f, c, hist.data (), nullptr,
              lut2.data ()) == Status::ok);
      fail_unless (got.bytes == want.bytes && lut1 == lut2);
    }
  }
  /* any histogram drives the LUT */
  std::vector<uint32_t> h = plane_hist (other.bytes.data (), other.pitch, 0, 0, 50, 50, 1);
  std::vector<uint8_t> want = opencv_eq_lut (h);
  HostImage got = poisoned_like (src, 0);
  EqFrame f = frame_of (src, got);
  EqConfig c;
  fail_unless (cip::ref::equalize_from_histogram (f, c, h.data (), nullptr, nullptr) == Status::ok);
  fail_unless (check_pixels (got, 1, [&] (int x, int y, int) {
        return (int) want[src.bytes[(size_t) y * src.pitch + x]]; }, "given hist"));
  c.mode = EqMode::clahe;
  fail_unless (cip::ref::equalize_from_histogram (f, c, h.data (), nullptr, nullptr) ==
      Status::invalid_argument);
  c.mode = EqMode::global;
  fail_unless (cip::ref::equalize_from_histogram (f, c, nullptr, nullptr, nullptr) ==
      Status::invalid_argument);
}
GST_END_TEST;

GST_START_TEST (test_rgb)
{
  for (EqLayout l : rgb_layouts)
    for (EqMode m : { EqMode::global, EqMode::clahe }) {
      int o[3];
      offsets (l, o);
      const int x_byte = 6 - o[0] - o[1] - o[2];
      HostImage src = make_rgb (67, 41, Content::natural, 7, 8);
      EqConfig c = m == EqMode::clahe ? clahe_cfg (4, 4, 2.0) : EqConfig ();
      c.layout = l;
      /* luma: every colour byte moves by Y' - Y */
      std::vector<uint8_t> y = luma_plane (src, l);
      std::vector<uint8_t> y2;
      if (m == EqMode::global) {
        std::vector<uint8_t> lut = opencv_eq_lut (plane_hist (y.data (), 67, 0, 0, 67, 41, 1));
        for (uint8_t v : y)
          y2.push_back (lut[v]);
      } else {
        y2 = opencv_clahe (y.data (), 67, 67, 41, 2.0, 4, 4);
      }
      HostImage d = ref_run (src, c);
      fail_unless (check_pixels (d, 4, [&] (int x, int yy, int b) {
            const int s = src.bytes[(size_t) yy * src.pitch + (size_t) x * 4 + b];
            if (b == x_byte)
              return s;
            const size_t i = (size_t) yy * 67 + x;
            return clamp255 (s + (int) y2[i] - (int) y[i]); }, "rgb luma"));
      /* per channel: each channel on its own */
      c.rgb_mode = EqRgbMode::per_channel;
      std::vector<uint8_t> want[4];
      for (int b = 0; b < 4; b++) {
        std::vector<uint8_t> pl = channel_plane (src, b);
        if (m == EqMode::global) {
          std::vector<uint8_t> lut = opencv_eq_lut (plane_hist (pl.data (), 67, 0, 0, 67, 41, 1));
          for (uint8_t v : pl)
            want[b].push_back (lut[v]);
        } else {
          want[b] = opencv_clahe (pl.data (), 67, 67, 41, 2.0, 4, 4);
        }
      }
      HostImage e = ref_run (src, c);
      fail_unless (check_pixels (e, 4, [&] (int x, int yy, int b) {
            if (b == x_byte)
              return (int) src.bytes[(size_t) yy * src.pitch + (size_t) x * 4 + b];
            return (int) want[b][(size_t) yy * 67 + x]; }, "rgb per channel"));
    }
  /* grey pixels stay grey in luma mode */
  HostImage g = testutil::make_image (53, 29, Content::natural, 3, 4);
  for (int yy = 0; yy < 29; yy++)
    for (int x = 0; x < 53; x++) {
      uint8_t *p = g.bytes.data () + (size_t) yy * g.pitch + (size_t) x * 4;
      p[1] = p[2] = p[0];
    }
  for (EqMode m : { EqMode::global, EqMode::clahe }) {
    EqConfig c = m == EqMode::clahe ? clahe_cfg (8, 8, 40.0) : EqConfig ();
    c.layout = EqLayout::rgbx;
    HostImage d = ref_run (g, c);
    for (int yy = 0; yy < 29; yy++)
      for (int x = 0; x < 53; x++) {
        const uint8_t *p = d.bytes.data () + (size_t) yy * d.pitch + (size_t) x * 4;
        fail_unless (p[0] == p[1] && p[1] == p[2], "grey turned colour at %d,%d", x, yy);
      }
  }
}
GST_END_TEST;

GST_START_TEST (test_in_place)
{
  for (EqMode m : { EqMode::global, EqMode::clahe }) {
    EqConfig c = m == EqMode::clahe ? clahe_cfg (8, 8, 40.0) : EqConfig ();
    HostImage src = testutil::make_image (99, 51, Content::natural, 2, 1, 4);
    HostImage want = ref_run (src, c);
    HostImage io = src;
    EqFrame f;
    f.src = f.dst = io.bytes.data ();
    f.src_pitch = f.dst_pitch = io.pitch;
    f.width = 99;
    f.height = 51;
    fail_unless (cip::ref::equalize (f, c, nullptr, nullptr) == Status::ok);
    for (int y = 0; y < 51; y++)
      fail_unless (memcmp (io.bytes.data () + (size_t) y * io.pitch,
              want.bytes.data () + (size_t) y * want.pitch, 99) == 0);
  }
}
GST_END_TEST;

GST_START_TEST (test_invalid_arguments)
{
  HostImage src = testutil::make_image (40, 20, Content::random, 1, 4, 0);
  HostImage dst = poisoned_like (src, 0);
  const Status bad = Status::invalid_argument;
  auto run = [&] (EqFrame f, EqConfig c, EqState *st = nullptr) {
    return cip::ref::equalize (f, c, st, nullptr);
  };
  EqFrame f = frame_of (src, dst);
  f.width = 160;        /* a gray view of the packed bytes */
  EqConfig c;
  fail_unless (run (f, c) == Status::ok);
  EqFrame g = f;
  g.src = nullptr;
  fail_unless (run (g, c) == bad);
  g = f;
  g.dst_pitch = 100;
  fail_unless (run (g, c) == bad);
  g = f;
  g.dst = dst.bytes.data () + 0;
  g.src = dst.bytes.data () + 1;   /* overlapping, not in place */
  fail_unless (run (g, c) == bad);
  g = f;
  g.width = -1;
  fail_unless (run (g, c) == bad);
  for (auto mod : { +[] (EqConfig &x) { x.tiles_x = 0; },
           +[] (EqConfig &x) { x.tiles_y = cip::kEqMaxTiles + 1; },
           +[] (EqConfig &x) { x.smoothing = 1.5; },
           +[] (EqConfig &x) { x.smoothing = NAN; },
           +[] (EqConfig &x) { x.strength = -0.1; },
           +[] (EqConfig &x) { x.clip_limit = NAN; },
           +[] (EqConfig &x) { x.mode = (EqMode) 7; },
           +[] (EqConfig &x) { x.layout = (EqLayout) 9; },
           +[] (EqConfig &x) { x.roi_x = 1; x.roi_width = 160; x.roi_height = 1; },
           +[] (EqConfig &x) { x.roi_y = 20; x.roi_width = 1; x.roi_height = 1; },
           +[] (EqConfig &x) { x.roi_width = -1; x.roi_height = 3; },
           +[] (EqConfig &x) { x.mode = EqMode::clahe; x.roi_width = 3; x.roi_height = 3; },
           +[] (EqConfig &x) { x.smoothing = 0.5; } }) {
    EqConfig b = c;
    mod (b);
    fail_unless (run (f, b) == bad);
  }
  /* smoothing needs an 8-byte aligned state */
  std::vector<uint64_t> mem (cip::equalize_state_bytes (c) / 8 + 1);
  EqState st;
  st.data = (uint8_t *) mem.data () + 4;
  EqConfig s = c;
  s.smoothing = 0.5;
  fail_unless (run (f, s, &st) == bad);
  st.data = mem.data ();
  fail_unless (run (f, s, &st) == Status::ok && st.valid);
  /* packed layouts: 4-byte aligned pointers and pitches */
  EqFrame r = frame_of (src, dst);
  c.layout = EqLayout::bgrx;
  fail_unless (run (r, c) == Status::ok);
  EqFrame u = r;
  u.src = src.bytes.data () + 1;
  u.width = 39;
  fail_unless (run (u, c) == bad);
  u = r;
  u.dst_pitch = r.dst_pitch - 2;
  u.width = 39;
  fail_unless (run (u, c) == bad);
  /* empty frames are valid and touch nothing */
  EqFrame e;
  fail_unless (run (e, EqConfig ()) == Status::ok);
  /* sizes */
  EqConfig k = clahe_cfg (8, 4, 40.0);
  fail_unless (cip::equalize_tiles (k) == 32);
  fail_unless (cip::equalize_lut_bytes (k) == 32 * 256);
  k.layout = EqLayout::rgbx;
  k.rgb_mode = EqRgbMode::per_channel;
  fail_unless (cip::equalize_channels (k) == 3);
  fail_unless (cip::equalize_lut_bytes (k) == 3 * 32 * 256);
  fail_unless (cip::equalize_state_bytes (k) == 8 * 3 * 32 * 256);
  fail_unless (cip::equalize_workspace_bytes (k) >= 5 * 3 * 32 * 256);
}
GST_END_TEST;

#ifndef HAVE_CUDA
GST_START_TEST (test_cpu_only_unsupported)
{
  HostImage src = testutil::make_image (16, 16, Content::random, 1);
  HostImage dst = poisoned_like (src, 0);
  EqFrame f = frame_of (src, dst);
  EqConfig c;
  std::vector<uint8_t> ws (cip::equalize_workspace_bytes (c));
  fail_unless (cip::equalize (f, c, nullptr, nullptr, ws.data (), ws.size (), nullptr) ==
      Status::unsupported);
  f.src = nullptr;
  fail_unless (cip::equalize (f, c, nullptr, nullptr, ws.data (), ws.size (), nullptr) ==
      Status::invalid_argument);
  uint32_t h[256] = { 0 };
  f.src = src.bytes.data ();
  fail_unless (cip::equalize_from_histogram (f, c, h, false, nullptr, nullptr, ws.data (),
          ws.size (), nullptr) == Status::unsupported);
}
GST_END_TEST;
#endif


/* ---- depth > 8 (gray, global) ----------------------------------------------- */

namespace {

struct Layout16 { int depth, shift; const char *name; };
const Layout16 layouts16[] = { {10, 6, "p010"}, {10, 0, "i420_10"}, {16, 0, "16bit"},
  {12, 4, "12at4"} };

EqConfig
cfg16 (const Layout16 &l)
{
  EqConfig c;
  c.depth = l.depth;
  c.shift = l.shift;
  return c;
}

/* equalizeHist restated for 2^depth bins (OpenCV's 16-bit form): scale =
 * (float) max / (float) (total - h[i0]), entries rounded to nearest even and
 * saturated to 0..max; then the strength blend. */
std::vector<uint32_t>
opencv_eq_lut16 (const std::vector<uint32_t> &hist, int maxv, int strength)
{
  const int nb = (int) hist.size ();
  std::vector<uint32_t> lut ((size_t) nb);
  uint32_t total = 0;
  for (uint32_t h : hist)
    total += h;
  int i = 0;
  while (i < nb && !hist[i])
    ++i;
  if (total == 0 || hist[i] == total) {
    for (int v = 0; v < nb; v++)
      lut[v] = (uint32_t) v;
  } else {
    volatile float scale = (float) maxv / (float) (total - hist[i]);
    uint32_t sum = 0;
    for (int v = 0; v <= i; v++)
      lut[v] = 0;
    for (i++; i < nb; ++i) {
      sum += hist[i];
      volatile float prod = (float) sum * scale;
      long r = std::lrint (prod);
      lut[i] = (uint32_t) (r < 0 ? 0 : r > maxv ? maxv : r);
    }
  }
  for (int v = 0; v < nb; v++)
    lut[v] = (uint32_t) ((v * (256 - strength) + (int) lut[v] * strength + 128) >> 8);
  return lut;
}

/* The values of a 16-bit image's region. */
std::vector<uint32_t>
hist16 (const HostImage &img, int x0, int y0, int w, int h)
{
  std::vector<uint32_t> c ((size_t) 1 << img.depth, 0);
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++)
      c[img.value (x, y)]++;
  return c;
}

/* dst = want (x, y) << shift, the other bits zero; padding untouched. */
template <typename F>
bool
check16_by (const HostImage &src, const HostImage &dst, F want_of,
    const std::string &what)
{
  for (int y = 0; y < src.height; y++) {
    const uint8_t *r = dst.bytes.data () + (size_t) y * dst.pitch;
    for (int x = 0; x < src.width; x++) {
      const uint32_t want = (uint32_t) want_of (x, y) << src.shift;
      const uint32_t got = (uint32_t) r[2 * x] | ((uint32_t) r[2 * x + 1] << 8);
      if (got != want) {
        fprintf (stderr, "%s: (x=%d, y=%d): got %u want %u\n", what.c_str (), x, y,
            got, want);
        return false;
      }
    }
    for (size_t i = (size_t) src.width * 2; i < dst.pitch && y + 1 < src.height; i++)
      if (r[i] != kPoison) {
        fprintf (stderr, "%s: padding written at row %d\n", what.c_str (), y);
        return false;
      }
  }
  return true;
}

/* dst = lut[value] << shift */
bool
check16 (const HostImage &src, const HostImage &dst,
    const std::vector<uint32_t> &lut, const std::string &what)
{
  return check16_by (src, dst, [&] (int x, int y) { return lut[src.value (x, y)]; },
      what);
}

/* The values of a 16-bit image, tight (y * width + x). */
std::vector<int>
values16 (const HostImage &img)
{
  std::vector<int> v ((size_t) img.width * img.height);
  for (int y = 0; y < img.height; y++)
    for (int x = 0; x < img.width; x++)
      v[(size_t) y * img.width + x] = (int) img.value (x, y);
  return v;
}

/* CLAHE grids and clip limits at high depth (clip 4000: little clipping at
 * 16 bits, where 40 clips every bin to 1 on small tiles, as in OpenCV). */
const TileCase tile_cases16[] = { {8, 8, 40.0}, {3, 5, 2.5}, {1, 1, 40.0},
  {7, 3, 0.0}, {2, 16, 0.01}, {4, 4, 4000.0} };

EqConfig
clahe16_cfg (const Layout16 &l, const TileCase &tc)
{
  EqConfig c = cfg16 (l);
  c.mode = EqMode::clahe;
  c.tiles_x = tc.tx;
  c.tiles_y = tc.ty;
  c.clip_limit = tc.clip;
  return c;
}

const Content contents16[] = { Content::random, Content::natural,
  Content::gradient, Content::constant, Content::zeros, Content::all255 };

}  // namespace

/* 10/12/16-bit gray frames (garbage in the unused bits): the reference equals
 * equalizeHist restated for 2^depth bins, whole frame and ROI, strengths;
 * the LUT output holds uint16 entries; in place. */
GST_START_TEST (test_high_bit_depth)
{
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (auto sz : { std::pair<int, int> {1, 1}, {67, 23}, {300, 200} }) {
        HostImage src = testutil::make_image16 (sz.first, sz.second, c, l.depth,
            l.shift, 21, 1, 6, true);
        for (double strength : { 1.0, 0.5, 0.0 })
          for (bool roi : { false, true }) {
            EqConfig cfg = cfg16 (l);
            cfg.strength = strength;
            int rx = 0, ry = 0, rw = src.width, rh = src.height;
            if (roi && src.width > 4) {
              rx = 3; ry = 2; rw = src.width / 2; rh = src.height / 2;
              cfg.roi_x = rx; cfg.roi_y = ry; cfg.roi_width = rw; cfg.roi_height = rh;
            }
            std::vector<uint8_t> lut;
            HostImage dst = ref_run (src, cfg, nullptr, &lut);
            const std::vector<uint32_t> want = opencv_eq_lut16 (hist16 (src, rx, ry,
                    rw, rh), (1 << l.depth) - 1, (int) std::lround (strength * 256));
            const std::string what = name ((std::string ("hbd ") + l.name).c_str (),
                src.width, src.height, c) + " strength " + std::to_string (strength) +
                (roi ? " roi" : "");
            fail_unless (check16 (src, dst, want, what), "%s", what.c_str ());
            fail_unless (lut.size () == want.size () * 2);
            for (size_t v = 0; v < want.size (); v++)
              fail_unless (lut[2 * v] + 256u * lut[2 * v + 1] == want[v],
                  "%s: LUT entry %zu", what.c_str (), v);
          }
        /* in place */
        HostImage io = src;
        EqFrame f = frame_of (io, io);
        fail_unless (cip::ref::equalize (f, cfg16 (l), nullptr, nullptr) == Status::ok);
        HostImage want = ref_run (src, cfg16 (l));
        for (int y = 0; y < src.height; y++)
          fail_unless (memcmp (io.bytes.data () + y * io.pitch, want.bytes.data () +
                  y * want.pitch, (size_t) src.width * 2) == 0);
      }
  /* from a histogram: the LUT of that histogram; smoothing converges */
  const Layout16 &l = layouts16[0];
  HostImage a = testutil::make_image16 (64, 32, Content::natural, l.depth, l.shift, 3);
  HostImage b = testutil::make_image16 (64, 32, Content::random, l.depth, l.shift, 4);
  std::vector<uint32_t> hb = hist16 (b, 0, 0, 64, 32);
  HostImage da = poisoned_like (a, 8);
  EqFrame f = frame_of (a, da);
  fail_unless (cip::ref::equalize_from_histogram (f, cfg16 (l), hb.data (), nullptr,
          nullptr) == Status::ok);
  fail_unless (check16 (a, da, opencv_eq_lut16 (hb, 1023, 256), "from histogram"));
  EqConfig sm = cfg16 (l);
  sm.smoothing = 0.75;
  std::vector<uint64_t> mem (cip::equalize_state_bytes (sm) / 8, 0x5555u);
  fail_unless (mem.size () == 1024);
  EqState st;
  st.data = mem.data ();
  const HostImage want_b = ref_run (b, cfg16 (l));
  fail_unless (ref_run (a, sm, &st).bytes == ref_run (a, cfg16 (l)).bytes);
  bool differed = false, converged = false;
  for (int i = 0; i < 300 && !converged; i++) {
    HostImage o = ref_run (b, sm, &st);
    differed = differed || o.bytes != want_b.bytes;
    converged = o.bytes == want_b.bytes;
  }
  fail_unless (differed && converged);
  /* invalid */
  EqConfig bad = cfg16 (l);
  HostImage d2 = poisoned_like (a, 8);
  EqFrame g = frame_of (a, d2);
  for (auto ds : { std::pair<int, int> {17, 0}, {10, 7}, {7, 0}, {8, 1} }) {
    bad = cfg16 (l);
    bad.depth = ds.first;
    bad.shift = ds.second;
    fail_unless (cip::ref::equalize (g, bad, nullptr, nullptr) == Status::invalid_argument,
        "depth %d shift %d", ds.first, ds.second);
  }
  bad = cfg16 (l);
  bad.layout = EqLayout::rgbx;
  fail_unless (cip::ref::equalize (g, bad, nullptr, nullptr) == Status::invalid_argument);
  g.src += 1;           /* odd: not a 16-bit word */
  fail_unless (cip::ref::equalize (g, cfg16 (l), nullptr, nullptr) ==
      Status::invalid_argument);
  EqConfig c16 = cfg16 (layouts16[2]);
  fail_unless (cip::equalize_bins (c16) == 65536);
  fail_unless (cip::equalize_lut_bytes (c16) == 65536 * 2);
  fail_unless (cip::equalize_bins (EqConfig ()) == 256);
}
GST_END_TEST;

/* CLAHE on 10/12/16-bit gray frames (garbage in the unused bits, padded
 * rows): the reference equals OpenCV's CLAHE restated with histSize =
 * 2^depth (frames and tile LUTs), with strength; in place; smoothing starts
 * at the per-frame result and converges to it on a static input. */
GST_START_TEST (test_clahe_high_bit_depth)
{
  int n = 0;
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (auto sz : { std::pair<int, int> {1, 1}, {5, 3}, {67, 23}, {300, 200} })
        for (size_t k = 0; k < G_N_ELEMENTS (tile_cases16); k++) {
          const TileCase &tc = tile_cases16[k];
          n++;
          /* time: two grids at the large size, one at 16 bits (65536-entry
           * tables per tile); no all-zero frames at 16 bits */
          if ((sz.first == 300 && k > (l.depth == 16 ? 0u : 1u)) ||
              (l.depth == 16 && c == Content::zeros))
            continue;
          HostImage src = testutil::make_image16 (sz.first, sz.second, c, l.depth,
              l.shift, (uint32_t) n, 1, (size_t) (n % 3) * 6, true);
          EqConfig cfg = clahe16_cfg (l, tc);
          cfg.strength = n % 4 == 0 ? 0.5 : 1.0;
          const int s = (int) std::lround (cfg.strength * 256);
          std::vector<uint8_t> lut;
          HostImage dst = ref_run (src, cfg, nullptr, &lut);
          std::vector<int> want_luts;
          const std::vector<int> want = opencv_clahe_n (values16 (src), src.width,
              src.height, tc.clip, tc.tx, tc.ty, 1 << l.depth, s, &want_luts);
          char what[200];
          snprintf (what, sizeof (what), "clahe %s %dx%d %s tiles %dx%d clip %g strength %d",
              l.name, src.width, src.height, testutil::content_name (c), tc.tx, tc.ty,
              tc.clip, s);
          fail_unless (check16_by (src, dst, [&] (int x, int y) {
                return want[(size_t) y * src.width + x]; }, what), "%s", what);
          fail_unless (lut.size () == want_luts.size () * 2, "%s: LUT size", what);
          size_t bad = 0;
          while (bad < want_luts.size () &&
              lut[2 * bad] + 256 * lut[2 * bad + 1] == want_luts[bad])
            bad++;
          fail_unless (bad == want_luts.size (), "%s: LUT entry %zu", what, bad);
          if (sz.first == 67 && k == 0) {
            HostImage io = src;
            EqFrame f = frame_of (io, io);
            fail_unless (cip::ref::equalize (f, cfg, nullptr, nullptr) == Status::ok);
            for (int y = 0; y < src.height; y++)
              fail_unless (memcmp (io.bytes.data () + y * io.pitch, dst.bytes.data () +
                      y * dst.pitch, (size_t) src.width * 2) == 0, "%s in place", what);
          }
        }
  /* smoothing, per tile */
  for (const Layout16 &l : { layouts16[0], layouts16[2] }) {
    HostImage a = testutil::make_image16 (61, 37, Content::natural, l.depth, l.shift, 3);
    HostImage b = testutil::make_image16 (61, 37, Content::random, l.depth, l.shift, 4);
    const EqConfig plain = clahe16_cfg (l, tile_cases16[1]);
    EqConfig sm = plain;
    sm.smoothing = 0.75;
    std::vector<uint64_t> mem (cip::equalize_state_bytes (sm) / 8, 0x5555u);
    fail_unless (mem.size () == (size_t) 15 << l.depth);
    EqState st;
    st.data = mem.data ();
    const HostImage want_b = ref_run (b, plain);
    fail_unless (ref_run (a, sm, &st).bytes == ref_run (a, plain).bytes);
    bool differed = false, converged = false;
    for (int i = 0; i < 300 && !converged; i++) {
      HostImage o = ref_run (b, sm, &st);
      differed = differed || o.bytes != want_b.bytes;
      converged = o.bytes == want_b.bytes;
    }
    fail_unless (differed && converged, "%s smoothing", l.name);
  }
  fail_unless (cip::equalize_lut_bytes (clahe16_cfg (layouts16[2], tile_cases16[0])) ==
      (size_t) 64 * 65536 * 2);
}
GST_END_TEST;

/* ---- GPU ------------------------------------------------------------------------- */
#ifdef HAVE_CUDA
namespace {

using testutil::DevBuf;

/* Runs a sequence of frames through the GPU and the reference with one
 * config (and one smoothing state each when `smooth`); frames, LUTs and
 * states must be identical. Outputs are poisoned before every frame. */
bool
gpu_sequence (const std::vector<const HostImage *> &frames, const EqConfig &cfg,
    bool smooth, bool in_place, const std::string &what,
    const std::vector<uint32_t> *given = nullptr, bool given_on_device = false)
{
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  DevBuf ws (cip::equalize_workspace_bytes (cfg));
  fail_unless (cip::equalize_workspace_init (ws.p, ws.n, stream) == Status::ok);
  const size_t lbytes = cip::equalize_lut_bytes (cfg);
  const size_t sbytes = cip::equalize_state_bytes (cfg);
  DevBuf dlut (lbytes + 64), dstate (sbytes), dhist (given ? given->size () * 4 : 4);
  if (given)
    dhist.upload (given->data (), given->size () * 4);
  std::vector<uint64_t> hstate (sbytes / 8, 0);
  EqState hst, dst_state;
  hst.data = hstate.data ();
  dst_state.data = dstate.p;
  bool ok = true;
  for (size_t i = 0; i < frames.size () && ok; i++) {
    const HostImage &src = *frames[i];
    /* reference */
    HostImage want = in_place ? src : poisoned_like (src, 16);
    EqFrame hf = frame_of (src, want);
    if (in_place)
      hf.src = hf.dst = want.bytes.data ();
    std::vector<uint8_t> want_lut (lbytes, kPoison);
    Status st = given ? cip::ref::equalize_from_histogram (hf, cfg, given->data (),
        smooth ? &hst : nullptr, want_lut.data ()) :
        cip::ref::equalize (hf, cfg, smooth ? &hst : nullptr, want_lut.data ());
    fail_unless (st == Status::ok, "%s: ref %s", what.c_str (), cip::status_string (st));
    /* GPU */
    DevBuf dsrc (src.bytes.size ());
    dsrc.upload (src.bytes);
    HostImage poison = in_place ? src : poisoned_like (src, 16);
    DevBuf ddst (poison.bytes.size ());
    ddst.upload (poison.bytes);
    std::vector<uint8_t> lpoison (lbytes + 64, kPoison);
    dlut.upload (lpoison);
    EqFrame f;
    f.src = in_place ? ddst.p : dsrc.p;
    f.src_pitch = src.pitch;
    f.dst = ddst.p;
    f.dst_pitch = poison.pitch;
    f.width = src.width;
    f.height = src.height;
    st = given ? cip::equalize_from_histogram (f, cfg, given_on_device ?
        (const uint32_t *) dhist.p : given->data (), given_on_device,
        smooth ? &dst_state : nullptr, dlut.p, ws.p, ws.n, stream) :
        cip::equalize (f, cfg, smooth ? &dst_state : nullptr, dlut.p, ws.p, ws.n, stream);
    fail_unless (st == Status::ok, "%s: gpu %s (%s)", what.c_str (),
        cip::status_string (st), cip::last_cuda_error ());
    CUDA_OK (cudaStreamSynchronize (stream));
    std::vector<uint8_t> got = ddst.download ();
    std::vector<uint8_t> got_lut = dlut.download ();
    std::string w = what + " frame " + std::to_string (i);
    for (size_t k = 0; k < got.size () && ok; k++)
      if (got[k] != want.bytes[k]) {
        const size_t pitch = poison.pitch;
        fprintf (stderr, "%s: byte %zu (row %zu col %zu): gpu %d ref %d\n", w.c_str (), k,
            k / pitch, k % pitch, got[k], want.bytes[k]);
        ok = false;
      }
    for (size_t k = 0; k < lbytes + 64 && ok; k++)
      if (got_lut[k] != (k < lbytes ? want_lut[k] : kPoison)) {
        fprintf (stderr, "%s: LUT byte %zu: gpu %d ref %d\n", w.c_str (), k, got_lut[k],
            k < lbytes ? want_lut[k] : kPoison);
        ok = false;
      }
    if (smooth && ok) {
      std::vector<uint8_t> gs = dstate.download ();
      if (memcmp (gs.data (), hstate.data (), sbytes) != 0) {
        fprintf (stderr, "%s: smoothing state differs\n", w.c_str ());
        ok = false;
      }
      fail_unless (dst_state.valid && hst.valid);
    }
  }
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaStreamDestroy (stream));
  return ok;
}

bool
gpu_one (const HostImage &src, const EqConfig &cfg, const std::string &what)
{
  return gpu_sequence ({ &src }, cfg, false, false, what);
}

std::vector<EqConfig>
gpu_configs (bool rgb)
{
  std::vector<EqConfig> v;
  std::vector<EqLayout> ls = rgb ? std::vector<EqLayout> (std::begin (rgb_layouts),
      std::end (rgb_layouts)) : std::vector<EqLayout> { EqLayout::gray };
  for (EqLayout l : ls)
    for (EqRgbMode rm : { EqRgbMode::luma, EqRgbMode::per_channel }) {
      if (!rgb && rm == EqRgbMode::per_channel)
        continue;
      EqConfig g;
      g.layout = l;
      g.rgb_mode = rm;
      v.push_back (g);
      for (const TileCase &tc : tile_cases) {
        EqConfig c = clahe_cfg (tc.tx, tc.ty, tc.clip);
        c.layout = l;
        c.rgb_mode = rm;
        v.push_back (c);
      }
    }
  return v;
}

std::string
cfg_name (const char *what, const HostImage &img, const EqConfig &c)
{
  char buf[240];
  snprintf (buf, sizeof (buf), "%s %dx%d pitch %zu layout %d rgb %d mode %d tiles %dx%d clip %g",
      what, img.width, img.height, img.pitch, (int) c.layout, (int) c.rgb_mode,
      (int) c.mode, c.tiles_x, c.tiles_y, c.clip_limit);
  return buf;
}

}  // namespace

GST_START_TEST (test_gpu_gray)
{
  int n = 0;
  for (const EqConfig &c : gpu_configs (false)) {
    for (int si = 0; si < testutil::n_edge_sizes; si++) {
      const testutil::Size sz = testutil::edge_sizes[si];
      for (Content ct : testutil::all_contents) {
        n++;
        /* small mode (compute-sanitizer): sizes up to 40,000 pixels, random
         * and all-255 */
        if (cip_test_small () && ((long) sz.w * sz.h > 40000 ||
                (ct != Content::random && ct != Content::all255)))
          continue;
        HostImage src = testutil::make_image (sz.w, sz.h, ct, (uint32_t) n, 1,
            (size_t) (n % 4) * 5);
        fail_unless (gpu_one (src, c, cfg_name (testutil::content_name (ct), src, c)));
      }
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_rgb)
{
  int n = 0;
  for (const EqConfig &c : gpu_configs (true))
    for (testutil::Size sz : { testutil::Size { 1, 1 }, testutil::Size { 3, 2 },
             testutil::Size { 37, 23 }, testutil::Size { 129, 33 },
             testutil::Size { 640, 480 } })
      for (Content ct : { Content::natural, Content::random, Content::constant }) {
        n++;
        if (cip_test_small () && ((long) sz.w * sz.h > 40000 ||
                ct != Content::random))
          continue;             /* small mode: random content */
        HostImage src = make_rgb (sz.w, sz.h, ct, (uint32_t) n, (size_t) (n % 3) * 4);
        fail_unless (gpu_one (src, c, cfg_name (testutil::content_name (ct), src, c)));
      }
}
GST_END_TEST;

GST_START_TEST (test_gpu_video_sizes)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  for (testutil::Size sz : { testutil::Size { 1920, 1080 }, testutil::Size { 3840, 2160 },
           testutil::Size { 1918, 1081 } }) {
    HostImage src = testutil::make_image (sz.w, sz.h, Content::natural, 3);
    HostImage rgb = make_rgb (sz.w, sz.h, Content::natural, 4);
    for (EqMode m : { EqMode::global, EqMode::clahe }) {
      EqConfig c = m == EqMode::clahe ? clahe_cfg (8, 8, 40.0) : EqConfig ();
      fail_unless (gpu_one (src, c, cfg_name ("video", src, c)));
      c.layout = EqLayout::bgrx;
      fail_unless (gpu_one (rgb, c, cfg_name ("video", rgb, c)));
      c.strength = 0.6;
      c.rgb_mode = EqRgbMode::per_channel;
      fail_unless (gpu_one (rgb, c, cfg_name ("video", rgb, c)));
    }
    /* in place, ROI */
    EqConfig r;
    r.roi_x = 100;
    r.roi_y = 50;
    r.roi_width = 701;
    r.roi_height = 333;
    fail_unless (gpu_sequence ({ &src }, r, false, true, "video roi in place"));
    fail_unless (gpu_sequence ({ &src }, clahe_cfg (8, 8, 40.0), false, true,
            "video clahe in place"));
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_options)
{
  HostImage a = testutil::make_image (333, 257, Content::natural, 1, 1, 3);
  HostImage b = testutil::make_image (333, 257, Content::random, 2, 1, 3);
  HostImage k = testutil::make_image (333, 257, Content::constant, 2, 1, 3);
  std::vector<const HostImage *> seq = { &a, &a, &b, &b, &b, &k, &a, &b };
  /* the smoothing's settling; small mode (compute-sanitizer): 8 frames */
  for (int i = 0; i < (cip_test_small () ? 8 : 40); i++)
    seq.push_back (&b);
  for (EqMode m : { EqMode::global, EqMode::clahe })
    for (double s : { 0.0, 0.5, 0.9, 1.0 }) {
      EqConfig c = m == EqMode::clahe ? clahe_cfg (5, 3, 3.0) : EqConfig ();
      c.smoothing = s;
      c.strength = s == 0.5 ? 0.3 : 1.0;
      fail_unless (gpu_sequence (seq, c, true, false, cfg_name ("smoothing", a, c)));
    }
  HostImage rgb = make_rgb (211, 97, Content::natural, 5, 12);
  for (EqRgbMode rm : { EqRgbMode::luma, EqRgbMode::per_channel }) {
    EqConfig c;
    c.layout = EqLayout::xbgr;
    c.rgb_mode = rm;
    c.smoothing = 0.7;
    fail_unless (gpu_sequence ({ &rgb, &rgb, &rgb }, c, true, false, "rgb smoothing"));
  }
  /* ROIs */
  struct R { int x, y, w, h; };
  for (R r : { R {0, 0, 1, 1}, R {332, 256, 1, 1}, R {1, 1, 331, 255}, R {17, 3, 100, 200} }) {
    EqConfig c;
    c.roi_x = r.x;
    c.roi_y = r.y;
    c.roi_width = r.w;
    c.roi_height = r.h;
    fail_unless (gpu_one (a, c, "roi"));
  }
  /* upstream histograms, host and device, with smoothing */
  for (EqRgbMode rm : { EqRgbMode::luma, EqRgbMode::per_channel }) {
    EqConfig c;
    c.layout = EqLayout::rgbx;
    c.rgb_mode = rm;
    c.smoothing = 0.5;
    std::vector<uint32_t> h ((size_t) cip::equalize_channels (c) * 256);
    for (size_t i = 0; i < h.size (); i++)
      h[i] = (uint32_t) ((i * 2654435761u) >> 20) % 1000u;
    for (bool dev : { false, true })
      fail_unless (gpu_sequence ({ &rgb, &rgb }, c, true, false, "given histogram", &h, dev));
  }
}
GST_END_TEST;


/* Depth > 8 on the GPU: frames, LUTs and smoothing states identical to the
 * reference; ROI, strength, in place, given histograms (host and device),
 * video sizes. */
GST_START_TEST (test_gpu_high_bit_depth)
{
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (auto sz : { std::pair<int, int> {1, 1}, {67, 23}, {1920, 1080} }) {
        if ((sz.first > 100 && c != Content::random && c != Content::natural) ||
            (cip_test_small () && sz.first > 100))
          continue;
        HostImage a = testutil::make_image16 (sz.first, sz.second, c, l.depth,
            l.shift, 31, 1, 6, true);
        HostImage b = testutil::make_image16 (sz.first, sz.second,
            Content::random, l.depth, l.shift, 32, 1, 6, true);
        const std::string what = name ((std::string ("gpu hbd ") + l.name).c_str (),
            a.width, a.height, c);
        EqConfig cfg = cfg16 (l);
        fail_unless (gpu_sequence ({ &a }, cfg, false, false, what), "%s", what.c_str ());
        fail_unless (gpu_sequence ({ &a }, cfg, false, true, what + " in place"),
            "%s", what.c_str ());
        EqConfig r = cfg;
        r.strength = 0.5;
        if (a.width > 4) {
          r.roi_x = 3;
          r.roi_y = 2;
          r.roi_width = a.width / 2;
          r.roi_height = a.height / 2;
        }
        fail_unless (gpu_sequence ({ &a }, r, false, false, what + " roi"), "%s",
            what.c_str ());
        EqConfig sm = cfg;
        sm.smoothing = 0.75;
        fail_unless (gpu_sequence ({ &a, &b, &b, &a }, sm, true, false,
                what + " smoothing"), "%s", what.c_str ());
        const std::vector<uint32_t> hb = hist16 (b, 0, 0, b.width, b.height);
        for (bool dev : { false, true })
          fail_unless (gpu_sequence ({ &a }, cfg, false, false, what + " given",
                  &hb, dev), "%s", what.c_str ());
      }
}
GST_END_TEST;

/* CLAHE at depth > 8 on the GPU: frames, tile LUTs and smoothing states
 * identical to the reference; grids that do not divide the size, 1x1, odd
 * sizes, padded pitches, every content, P010's shift, strength, in place,
 * consecutive frames on one workspace (the tile counts restart at zero),
 * video sizes. */
GST_START_TEST (test_gpu_clahe_high_bit_depth)
{
  const bool sm = cip_test_small ();
  int n = 0;
  for (const Layout16 &l : layouts16)
    for (Content c : contents16)
      for (auto sz : { std::pair<int, int> {1, 1}, {5, 3}, {67, 23}, {333, 257},
               {1918, 1081} })
        for (size_t k = 0; k < G_N_ELEMENTS (tile_cases16); k++) {
          n++;
          const bool large = sz.first > 1000;
          if (large && sm)
            continue;
          /* small mode (racecheck): P010's shift and 16 bits; random content
           * (all-max on 67x23); every grid on 67x23 only, two elsewhere and
           * one on 333x257 */
          if (sm && (&l == &layouts16[1] || &l == &layouts16[3] ||
                  (c != Content::random && (c != Content::all255 ||
                      sz.first != 67)) ||
                  (sz.first != 67 && k > 1) || (sz.first == 333 && k > 0)))
            continue;
          if ((large && (k > 1 || (c != Content::random && c != Content::natural &&
                          c != Content::gradient))) || (sz.first == 333 && k > 2))
            continue;
          HostImage a = testutil::make_image16 (sz.first, sz.second, c, l.depth,
              l.shift, (uint32_t) n, 1, (size_t) (n % 3) * 6, true);
          HostImage b = testutil::make_image16 (sz.first, sz.second, Content::random,
              l.depth, l.shift, (uint32_t) n + 1, 1, (size_t) (n % 3) * 6, true);
          EqConfig cfg = clahe16_cfg (l, tile_cases16[k]);
          cfg.strength = n % 4 == 0 ? 0.5 : 1.0;
          const std::string what = cfg_name ((std::string ("gpu clahe ") + l.name +
                  " " + testutil::content_name (c)).c_str (), a, cfg) + " depth " +
              std::to_string (l.depth);
          fail_unless (gpu_sequence ({ &a, &b }, cfg, false, false, what), "%s",
              what.c_str ());
          if (k == 0)
            fail_unless (gpu_sequence ({ &a }, cfg, false, true, what + " in place"),
                "%s", what.c_str ());
        }
  /* smoothing over a sequence (small mode: P010 only) */
  for (const Layout16 &l : layouts16) {
    if (sm && &l != &layouts16[0])
      continue;
    HostImage a = testutil::make_image16 (333, 257, Content::natural, l.depth, l.shift,
        1, 1, 6, true);
    HostImage b = testutil::make_image16 (333, 257, Content::random, l.depth, l.shift,
        2, 1, 6, true);
    HostImage k = testutil::make_image16 (333, 257, Content::constant, l.depth, l.shift,
        3, 1, 6, true);
    std::vector<const HostImage *> seq = { &a, &a, &b, &b, &k, &a, &b };
    for (double s : { 0.0, 0.5, 0.9 }) {
      EqConfig c = clahe16_cfg (l, tile_cases16[1]);
      c.smoothing = s;
      c.strength = s == 0.5 ? 0.3 : 1.0;
      fail_unless (gpu_sequence (seq, c, true, false, cfg_name ("clahe16 smoothing", a,
                  c) + " " + l.name));
    }
  }
  CIP_SKIP_IF_SMALL ();       /* large frames */
  for (const Layout16 &l : { layouts16[0], layouts16[2] }) {
    HostImage v = testutil::make_image16 (3840, 2160, Content::natural, l.depth,
        l.shift, 5, 1, 0, true);
    fail_unless (gpu_one (v, clahe16_cfg (l, tile_cases16[0]), std::string ("clahe16 4K ")
            + l.name));
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_invalid_arguments)
{
  EqConfig c;
  DevBuf ws (cip::equalize_workspace_bytes (c)), img (64 * 64);
  EqFrame f;
  f.src = f.dst = img.p;
  f.src_pitch = f.dst_pitch = 64;
  f.width = f.height = 64;
  const Status bad = Status::invalid_argument;
  fail_unless (cip::equalize_workspace_init (ws.p, ws.n, nullptr) == Status::ok);
  fail_unless (cip::equalize (f, c, nullptr, nullptr, nullptr, ws.n, nullptr) == bad);
  fail_unless (cip::equalize (f, c, nullptr, nullptr, ws.p, ws.n - 1, nullptr) == bad);
  fail_unless (cip::equalize (f, c, nullptr, nullptr, ws.p + 16, ws.n - 16, nullptr) == bad);
  EqConfig k = clahe_cfg (8, 8, 40.0);
  fail_unless (cip::equalize (f, k, nullptr, nullptr, ws.p, ws.n, nullptr) == bad);
  fail_unless (cip::equalize_from_histogram (f, c, nullptr, true, nullptr, nullptr, ws.p,
          ws.n, nullptr) == bad);
  fail_unless (cip::equalize_workspace_init (nullptr, 16, nullptr) == bad);
  CUDA_OK (cudaDeviceSynchronize ());
}
GST_END_TEST;
#endif

static Suite *
equalize_suite (void)
{
  Suite *s = suite_create ("equalize");
  TCase *tc = tcase_create ("cpu");
  tcase_add_test (tc, test_global_matches_opencv);
  tcase_add_test (tc, test_clahe_matches_opencv);
  tcase_add_test (tc, test_smoothing);
  tcase_add_test (tc, test_strength);
  tcase_add_test (tc, test_roi);
  tcase_add_test (tc, test_from_histogram);
  tcase_add_test (tc, test_rgb);
  tcase_add_test (tc, test_in_place);
  tcase_add_test (tc, test_invalid_arguments);
  tcase_add_test (tc, test_high_bit_depth);
  tcase_add_test (tc, test_clahe_high_bit_depth);
#ifndef HAVE_CUDA
  tcase_add_test (tc, test_cpu_only_unsupported);
#endif
  suite_add_tcase (s, tc);

  TCase *gpu = tcase_create ("gpu");
#ifdef HAVE_CUDA
  tcase_add_test (gpu, test_gpu_invalid_arguments);
  tcase_add_test (gpu, test_gpu_gray);
  tcase_add_test (gpu, test_gpu_rgb);
  tcase_add_test (gpu, test_gpu_video_sizes);
  tcase_add_test (gpu, test_gpu_options);
  tcase_add_test (gpu, test_gpu_high_bit_depth);
  tcase_add_test (gpu, test_gpu_clahe_high_bit_depth);
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (equalize_suite, argc, argv);
}
