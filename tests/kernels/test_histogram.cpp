/* Histogram: the CPU reference against a naive count (contents, bins, steps,
 * luma of RGB, ROIs, padded pitches, accumulate, argument checks); on a GPU,
 * every algorithm (and, on the 8-bit path, the per-lane ones with every
 * launch shape of histogram_debug_shape()) against the reference, exactly,
 * with poisoned outputs, several inputs per call and one workspace reused
 * across calls. Drawing:
 * the reference against a naive chart (sizes, bands, bins, steps, alphas,
 * counts up to 2^32 - 1), and on a GPU the kernel against the reference,
 * every byte of the image compared. */
#include "cipcheck.h"
#include "testimage.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cip/histogram.h"
#include "detail/histogram_internal.h"

#ifdef HAVE_CUDA
#include "testcuda.h"
#endif

using cip::HistAlgorithm;
using cip::HistInput;
using cip::HistSource;
using cip::ImageView;
using cip::Status;
using testutil::Content;
using testutil::HostImage;
#ifdef HAVE_CUDA
using testutil::DevBuf;
#endif

namespace {

const int all_bins[] = { 2, 4, 8, 16, 32, 64, 128, 256 };
const uint32_t kPoison = 0xA5A5A5A5u;

/* ---- the definition ------------------------------------------------------ */

/* Value counted for the pixel at p, written out independently of the
 * library: BT.709 luma with weights 13933, 46871, 4732 (/ 65536), rounded. */
uint32_t
naive_value (const uint8_t *p, HistSource s)
{
  switch (s) {
    case HistSource::plane:
      return p[0];
    case HistSource::luma_rgb:
      return (13933u * p[0] + 46871u * p[1] + 4732u * p[2] + 32768u) / 65536u;
    case HistSource::luma_bgr:
      return (13933u * p[2] + 46871u * p[1] + 4732u * p[0] + 32768u) / 65536u;
  }
  return 0;
}

std::vector<uint32_t>
naive_hist (const ImageView &v, HistSource s, int bins)
{
  std::vector<uint32_t> h ((size_t) bins, 0);
  for (int y = 0; y < v.height; y++)
    for (int x = 0; x < v.width; x++) {
      uint32_t val = naive_value (v.data + (size_t) y * v.pitch + (size_t) x * v.step, s);
      h[val * (uint32_t) bins / 256u]++;
    }
  return h;
}

HistInput
input (const ImageView &v, HistSource s = HistSource::plane)
{
  HistInput in;
  in.view = v;
  in.source = s;
  return in;
}

const char *
source_name (HistSource s)
{
  return s == HistSource::plane ? "plane" : s == HistSource::luma_rgb ? "luma_rgb" : "luma_bgr";
}

std::string
describe (const char *what, const HistInput *in, int n, int bins, Content c)
{
  std::string s = what;
  char buf[160];
  snprintf (buf, sizeof (buf), " %s bins %d:", testutil::content_name (c), bins);
  s += buf;
  for (int i = 0; i < n; i++) {
    const ImageView &v = in[i].view;
    snprintf (buf, sizeof (buf), " [%dx%d step %d pitch %zu %s]", v.width, v.height,
        v.step, v.pitch, source_name (in[i].source));
    s += buf;
  }
  return s;
}

bool
equal_counts (const uint32_t *got, const std::vector<uint32_t> &want,
    const std::string &what)
{
  for (size_t b = 0; b < want.size (); b++)
    if (got[b] != want[b]) {
      fprintf (stderr, "%s: bin %zu: got %u want %u\n", what.c_str (), b, got[b],
          want[b]);
      return false;
    }
  return true;
}

/* The reference over n inputs in one call (output poisoned first) equals the
 * naive count of each, and every histogram sums to the pixel count. */
bool
ref_matches_naive (const HistInput *in, int n, int bins, const std::string &what)
{
  std::vector<uint32_t> out ((size_t) n * bins, kPoison);
  Status st = cip::ref::histogram (in, n, bins, out.data (), false);
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s\n", what.c_str (), cip::status_string (st));
    return false;
  }
  for (int i = 0; i < n; i++) {
    std::vector<uint32_t> want = naive_hist (in[i].view, in[i].source, bins);
    std::string w = what + " input " + std::to_string (i);
    if (!equal_counts (out.data () + (size_t) i * bins, want, w))
      return false;
    uint64_t sum = 0;
    for (int b = 0; b < bins; b++)
      sum += out[(size_t) i * bins + b];
    if (sum != (uint64_t) in[i].view.width * (uint64_t) in[i].view.height) {
      fprintf (stderr, "%s: sum %llu != pixels\n", w.c_str (), (unsigned long long) sum);
      return false;
    }
  }
  return true;
}

struct Crop {
  int x, y, w, h;
};

/* Crops of a W x H image: corners, edges, odd offsets, tiny and 129 wide. */
std::vector<Crop>
crops_of (int W, int H)
{
  std::vector<Crop> c = { {0, 0, 1, 1}, {W - 1, H - 1, 1, 1}, {0, H - 1, 1, 1},
    {W - 1, 0, 1, 1}, {1, 1, 1, 1}, {0, 0, W, H}, {1, 0, W - 1, H},
    {0, 1, W, H - 1}, {3, 2, W - 3, H - 2}, {1, 0, 129, H}, {W - 129, H - 9, 129, 9},
    {13, 5, 129, 17}, {5, 0, 3, H}, {W - 3, 0, 3, H} };
  for (int w = 1; w <= 4; w++)
    for (int x : { 0, 1, 3, 5, 7, W - w })
      c.push_back ({ x, H / 3, w, H - H / 3 });
  return c;
}

}  // namespace

/* ---- CPU ------------------------------------------------------------------ */

GST_START_TEST (test_luma_formula)
{
  for (int v = 0; v < 256; v++)
    fail_unless (cip::luma709 ((uint8_t) v, (uint8_t) v, (uint8_t) v) == v,
        "grey %d", v);
  fail_unless (cip::kLuma709R + cip::kLuma709G + cip::kLuma709B == 65536u);
  int max_err = 0;
  for (int r = 0; r < 256; r += 3)
    for (int g = 0; g < 256; g += 5)
      for (int b = 0; b < 256; b += 7) {
        uint8_t px[3] = { (uint8_t) r, (uint8_t) g, (uint8_t) b };
        int y = cip::luma709 (px[0], px[1], px[2]);
        fail_unless ((uint32_t) y == naive_value (px, HistSource::luma_rgb));
        double yf = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        int e = std::abs (y - (int) std::lround (yf));
        max_err = std::max (max_err, e);
      }
  fail_unless (max_err <= 1, "luma differs from BT.709 by %d", max_err);
}
GST_END_TEST;

GST_START_TEST (test_ref_contents_bins)
{
  for (Content c : testutil::all_contents) {
    HostImage p = testutil::make_image (257, 33, c, 5, 1, 5);
    HostImage q = testutil::make_image (67, 19, c, 6, 4, 3);
    for (int bins : all_bins) {
      HistInput one = input (p.view ());
      fail_unless (ref_matches_naive (&one, 1, bins, describe ("ref", &one, 1, bins, c)));
      HistInput ch[4];
      for (int k = 0; k < 4; k++)
        ch[k] = input (q.view (k));
      fail_unless (ref_matches_naive (ch, 4, bins, describe ("ref", ch, 4, bins, c)));
      for (int k = 0; k < 4; k++)
        fail_unless (ref_matches_naive (&ch[k], 1, bins, describe ("ref", &ch[k], 1, bins, c)));
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_luma)
{
  for (Content c : { Content::random, Content::natural, Content::gradient,
          Content::all255, Content::zeros, Content::checkerboard }) {
    HostImage rgba = testutil::make_image (61, 23, c, 8, 4, 7);
    HostImage rgb = testutil::make_image (45, 9, c, 9, 3, 2);
    for (int bins : { 256, 64, 2 }) {
      HistInput in[4] = { input (rgba.view (0), HistSource::luma_rgb),
        input (rgba.view (0), HistSource::luma_bgr),
        input (rgba.view (1), HistSource::luma_rgb),   /* xRGB */
        input (rgba.view (1), HistSource::luma_bgr) }; /* xBGR */
      fail_unless (ref_matches_naive (in, 4, bins, describe ("ref luma", in, 4, bins, c)));
      HistInput in3[2] = { input (rgb.view (0), HistSource::luma_rgb),
        input (rgb.view (0), HistSource::luma_bgr) };
      fail_unless (ref_matches_naive (in3, 2, bins, describe ("ref luma", in3, 2, bins, c)));
    }
  }
  /* grey pixels: luma is the grey level */
  HostImage g = testutil::make_image (16, 16, Content::zeros, 1, 4, 0);
  for (int y = 0; y < 16; y++)
    for (int x = 0; x < 16; x++)
      for (int k = 0; k < 3; k++)
        g.row (y)[x * 4 + k] = (uint8_t) (y * 16 + x);
  HistInput in = input (g.view (0), HistSource::luma_rgb);
  uint32_t h[256];
  fail_unless (cip::ref::histogram (&in, 1, 256, h, false) == Status::ok);
  for (int b = 0; b < 256; b++)
    fail_unless (h[b] == 1, "grey %d counted %u times", b, h[b]);
}
GST_END_TEST;

GST_START_TEST (test_ref_rois)
{
  HostImage p = testutil::make_image (300, 41, Content::random, 11, 1, 9);
  HostImage q = testutil::make_image (300, 41, Content::natural, 12, 4, 5);
  for (const Crop &r : crops_of (300, 41)) {
    for (int bins : { 256, 8 }) {
      HistInput a = input (p.view ().crop (r.x, r.y, r.w, r.h));
      fail_unless (ref_matches_naive (&a, 1, bins, describe ("ref roi", &a, 1, bins, Content::random)));
      HistInput ch[4] = { input (q.view (0).crop (r.x, r.y, r.w, r.h)),
        input (q.view (1).crop (r.x, r.y, r.w, r.h)),
        input (q.view (2).crop (r.x, r.y, r.w, r.h)),
        input (q.view (0).crop (r.x, r.y, r.w, r.h), HistSource::luma_rgb) };
      fail_unless (ref_matches_naive (ch, 4, bins, describe ("ref roi", ch, 4, bins, Content::natural)));
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_edge_sizes)
{
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (size_t pad : { (size_t) 0, (size_t) 3, (size_t) 64 })
      for (Content c : { Content::random, Content::constant, Content::natural }) {
        HostImage p = testutil::make_image (sz.w, sz.h, c, 13 + si, 1, pad);
        HostImage q = testutil::make_image (sz.w, sz.h, c, 14 + si, 4, pad);
        HistInput in[4] = { input (p.view ()), input (q.view (1)), input (q.view (3)),
          input (q.view (0), HistSource::luma_bgr) };
        fail_unless (ref_matches_naive (in, 4, 256, describe ("ref edge", in, 4, 256, c)));
        fail_unless (ref_matches_naive (in, 2, 32, describe ("ref edge", in, 2, 32, c)));
      }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_accumulate)
{
  HostImage a = testutil::make_image (100, 30, Content::random, 21, 1, 3);
  HostImage b = testutil::make_image (100, 30, Content::natural, 22, 1, 0);
  HistInput ia = input (a.view ()), ib = input (b.view ());
  for (int bins : { 256, 16 }) {
    std::vector<uint32_t> want_a = naive_hist (a.view (), HistSource::plane, bins);
    std::vector<uint32_t> want_b = naive_hist (b.view (), HistSource::plane, bins);
    std::vector<uint32_t> h ((size_t) bins);
    for (int k = 0; k < bins; k++)
      h[k] = 1000u * k + 7u;
    std::vector<uint32_t> init = h;
    fail_unless (cip::ref::histogram (&ia, 1, bins, h.data (), true) == Status::ok);
    fail_unless (cip::ref::histogram (&ib, 1, bins, h.data (), true) == Status::ok);
    for (int k = 0; k < bins; k++)
      fail_unless (h[k] == init[k] + want_a[k] + want_b[k], "bin %d", k);
    /* wraps modulo 2^32 */
    std::fill (h.begin (), h.end (), 0xFFFFFFFFu);
    fail_unless (cip::ref::histogram (&ia, 1, bins, h.data (), true) == Status::ok);
    for (int k = 0; k < bins; k++)
      fail_unless (h[k] == want_a[k] - 1u, "bin %d", k);
    /* overwrite resets */
    fail_unless (cip::ref::histogram (&ib, 1, bins, h.data (), false) == Status::ok);
    fail_unless (equal_counts (h.data (), want_b, "overwrite"));
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_empty)
{
  HostImage a = testutil::make_image (10, 10, Content::random, 1, 1, 0);
  HistInput in[2] = { input (a.view ().crop (3, 3, 0, 5)), input (a.view ()) };
  in[0].view.data = nullptr;        /* an empty view may have no data */
  std::vector<uint32_t> h (2 * 64, kPoison);
  fail_unless (cip::ref::histogram (in, 2, 64, h.data (), false) == Status::ok);
  for (int b = 0; b < 64; b++)
    fail_unless (h[b] == 0);
  fail_unless (equal_counts (h.data () + 64, naive_hist (a.view (), HistSource::plane, 64), "empty+full"));
  std::vector<uint32_t> h2 = h;
  fail_unless (cip::ref::histogram (in, 1, 64, h2.data (), true) == Status::ok);
  fail_unless (h2 == h);
}
GST_END_TEST;

GST_START_TEST (test_ref_invalid_arguments)
{
  HostImage a = testutil::make_image (16, 8, Content::random, 1, 4, 4);
  HistInput ok = input (a.view (0));
  uint32_t h[4 * 256 + 1];
  const Status bad = Status::invalid_argument;
  fail_unless (cip::ref::histogram (&ok, 1, 256, h, false) == Status::ok);
  fail_unless (cip::ref::histogram (nullptr, 1, 256, h, false) == bad);
  fail_unless (cip::ref::histogram (&ok, 0, 256, h, false) == bad);
  HistInput five[5] = { ok, ok, ok, ok, ok };
  fail_unless (cip::ref::histogram (five, 4, 256, h, false) == Status::ok);
  fail_unless (cip::ref::histogram (five, 5, 256, h, false) == bad);
  fail_unless (cip::ref::histogram (&ok, 1, 256, nullptr, false) == bad);
  fail_unless (cip::ref::histogram (&ok, 1, 256, (uint32_t *) ((uint8_t *) h + 2), false) == bad);
  for (int bins : { -2, 0, 1, 65537 })
    fail_unless (cip::ref::histogram (&ok, 1, bins, h, false) == bad, "bins %d", bins);
  HistInput v = ok;
  v.view.width = -1;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v = ok;
  v.view.step = 0;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v = ok;
  v.view.data = nullptr;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v = ok;
  v.view.pitch = 16 * 4 - 4;        /* shorter than a row */
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v = ok;
  v.source = (HistSource) 7;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  /* luma needs three bytes per pixel and rows that hold them */
  v = ok;
  v.source = HistSource::luma_rgb;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == Status::ok);
  v.view.step = 2;
  v.view.width = 8;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v = ok;
  v.source = HistSource::luma_bgr;
  v.view.pitch = (size_t) (v.view.width - 1) * 4 + 2;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  v.view.pitch += 1;
  v.view.height = 2;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == Status::ok);
  /* more than 2^32 - 1 pixels in one input (never read: checked first) */
  v = ok;
  v.view.width = 65536;
  v.view.height = 65536;
  v.view.step = 1;
  v.view.pitch = 65536;
  fail_unless (cip::ref::histogram (&v, 1, 256, h, false) == bad);
  /* nothing written on failure */
  HistInput two[2] = { ok, v };
  for (uint32_t &x : h)
    x = kPoison;
  fail_unless (cip::ref::histogram (two, 2, 256, h, false) == bad);
  for (uint32_t x : h)
    fail_unless (x == kPoison);
}
GST_END_TEST;

GST_START_TEST (test_api_misc)
{
  const HistAlgorithm algos[] = { HistAlgorithm::automatic, HistAlgorithm::replicated,
    HistAlgorithm::packed16, HistAlgorithm::packed8, HistAlgorithm::warp_aggregated };
  for (HistAlgorithm a : algos)
    for (HistAlgorithm b : algos)
      fail_unless ((a == b) == (strcmp (cip::hist_algorithm_name (a),
                  cip::hist_algorithm_name (b)) == 0));
  HostImage a = testutil::make_image (64, 64, Content::random, 1, 1, 0);
  for (int bins : all_bins)
    fail_unless (cip::histogram_pick (input (a.view ()), bins) != HistAlgorithm::automatic);
  /* launch shapes: named, distinct, "base" first; the pick is one of them */
  const int ns = cip::histogram_debug_shape_count ();
  fail_unless (ns >= 1 && strcmp (cip::histogram_debug_shape_name (0), "base") == 0);
  fail_unless (cip::histogram_debug_shape_name (-1) == nullptr);
  fail_unless (cip::histogram_debug_shape_name (ns) == nullptr);
  for (int i = 0; i < ns; i++) {
    const cip::detail::HistShape &sh = cip::detail::kHistShapes[i];
    fail_unless (sh.threads == 0 || sh.threads == 256 || sh.threads == 512 ||
        sh.threads == 1024, "%s", sh.name);
    fail_unless (sh.items_per_warp >= 1 && sh.max_per_sm >= 0, "%s", sh.name);
    for (int j = 0; j < ns; j++)
      fail_unless ((i == j) == (strcmp (cip::histogram_debug_shape_name (i),
                  cip::histogram_debug_shape_name (j)) == 0));
  }
  for (uint64_t px : { (uint64_t) 0, (uint64_t) 1, (uint64_t) 1920 * 1080,
          (uint64_t) 16384 * 16384, (uint64_t) cip::kHistogramMaxPixels })
    for (int members = 1; members <= cip::kHistogramMaxInputs; members++)
      for (int groups = 1; groups <= cip::kHistogramMaxInputs; groups++) {
        const int k = cip::detail::histogram_pick_shape (px, members, groups);
        fail_unless (k >= 0 && k < ns);
      }
  /* the picks measured in RESULTS.md round 16 */
  auto pick = [] (uint64_t px, int members, int groups) {
    return std::string (cip::histogram_debug_shape_name (
            cip::detail::histogram_pick_shape (px, members, groups)));
  };
  fail_unless (pick (1920 * 1080, 1, 1) == "t256+b8+direct");
  fail_unless (pick (3840 * 2160, 1, 1) == "b8+direct");
  fail_unless (pick (1920 * 1080, 1, 3) == "b8+direct");     /* Y, U, V */
  fail_unless (pick (1920 * 1080, 3, 1) == "t1024+pf+b8+direct");
  fail_unless (pick (3840 * 2160, 3, 1) == "t1024+pf+b8+direct");
  fail_unless (pick (7680 * 4320, 3, 1) == "b8+direct");
  fail_unless (pick (3840 * 2160, 4, 1) == "b8+direct");     /* with luma */
  fail_unless (pick (3840 * 2160, 3, 2) == "b8+direct");     /* and a plane */
  fail_unless (pick (2500000, 1, 1) == "t256+b8+direct");
  fail_unless (pick (2500001, 1, 1) == "b8+direct");
  fail_unless (pick (9000000, 3, 1) == "t1024+pf+b8+direct");
  fail_unless (pick (9000001, 3, 1) == "b8+direct");
  /* round 25: planes of 8K and above */
  fail_unless (pick (16000000, 1, 1) == "b8+direct");
  fail_unless (pick (16000001, 1, 1) == "ipw4+b8+direct");
  fail_unless (pick (7680 * 4320, 1, 1) == "ipw4+b8+direct");
  fail_unless (pick (7680 * 4320, 1, 3) == "b8+direct");     /* Y, U, V */
  const size_t most = cip::histogram_workspace_bytes (cip::kHistogramMaxInputs,
      cip::kHistogramMaxBins);
  for (int n = 1; n <= 4; n++)
    for (int bins : all_bins) {
      size_t b = cip::histogram_workspace_bytes (n, bins);
      fail_unless (b >= (size_t) n * bins * 4 && b <= most);
    }
}
GST_END_TEST;

/* ---- drawing ---------------------------------------------------------------- */

namespace {

using cip::HistDrawPlane;

enum class Counts { random, zeros, spike, flat, huge, sparse };
const Counts all_counts[] = { Counts::random, Counts::zeros, Counts::spike,
  Counts::flat, Counts::huge, Counts::sparse };

/* count * bins counts of a kind; seed varies them. */
std::vector<uint32_t>
make_counts (Counts k, int count, int bins, uint32_t seed)
{
  std::vector<uint32_t> h ((size_t) count * bins, 0);
  uint32_t r = seed * 2654435761u + 1u;
  auto next = [&r] { r ^= r << 13; r ^= r >> 17; r ^= r << 5; return r; };
  for (int i = 0; i < count; i++)
    for (int b = 0; b < bins; b++) {
      uint32_t &c = h[(size_t) i * bins + b];
      switch (k) {
        case Counts::random: c = next () % 5000; break;
        case Counts::zeros: c = 0; break;
        case Counts::spike: c = b == (int) ((seed + i) % bins) ? 1000000u : 0; break;
        case Counts::flat: c = 77; break;
        /* 64-bit products: counts near 2^32 */
        case Counts::huge: c = b == i % bins ? 0xFFFFFFFFu : 0xFFFFFFFFu - next () % 1000000u; break;
        /* small counts under a huge maximum: still at least one row */
        case Counts::sparse: c = b == 0 ? 0xFFFFFFF0u : (next () % 3 == 0 ? 1u : 0u); break;
      }
    }
  return h;
}

const char *
counts_name (Counts k)
{
  switch (k) {
    case Counts::random: return "random";
    case Counts::zeros: return "zeros";
    case Counts::spike: return "spike";
    case Counts::flat: return "flat";
    case Counts::huge: return "huge";
    case Counts::sparse: return "sparse";
  }
  return "?";
}

/* A chart plane on rectangle (x, y, w, h) of channel ch of img. */
HistDrawPlane
draw_plane (HostImage &img, int ch, int x, int y, int w, int h, uint8_t bg,
    uint8_t bar0)
{
  ImageView v = img.view (ch).crop (x, y, w, h);
  HistDrawPlane p;
  p.data = const_cast<uint8_t *> (v.data);
  p.pitch = v.pitch;
  p.width = v.width;
  p.height = v.height;
  p.step = v.step;
  p.background = bg;
  for (int i = 0; i < cip::kHistogramMaxInputs; i++)
    p.bar[i] = (uint8_t) (bar0 + 61 * i);
  return p;
}

/* The chart written out independently of the library: per band, bar heights
 * ceil(count * Hb / max) rows from the bottom; the rest blended. `base`
 * relocates the planes (they point into `from`) into `bytes`. */
void
naive_draw (std::vector<uint8_t> &bytes, const uint8_t *from,
    const HistDrawPlane *planes, int n, const uint32_t *hist, int count,
    int bins, int alpha)
{
  for (int k = 0; k < n; k++) {
    const HistDrawPlane &p = planes[k];
    uint8_t *data = bytes.data () + (p.data - from);
    for (int i = 0; i < count; i++) {
      const int top = i * p.height / count, bot = (i + 1) * p.height / count;
      const uint64_t hb = (uint64_t) (bot - top);
      uint64_t m = 0;
      for (int b = 0; b < bins; b++)
        m = std::max<uint64_t> (m, hist[i * bins + b]);
      for (int x = 0; x < p.width; x++) {
        const uint64_t c = hist[i * bins + x * bins / p.width];
        const uint64_t height = m ? (c * hb + m - 1) / m : 0;
        for (int y = top; y < bot; y++) {
          uint8_t &s = data[(size_t) y * p.pitch + (size_t) x * p.step];
          if ((uint64_t) (bot - y) <= height)
            s = p.bar[i];
          else
            s = (uint8_t) ((s * (256 - alpha) + p.background * alpha + 128) / 256);
        }
      }
    }
  }
}

/* The reference on img (in place) equals the naive chart on a copy, every
 * byte of the image compared (outside the rectangles, padding included). */
bool
ref_draw_matches (HostImage &img, const HistDrawPlane *planes, int n,
    const std::vector<uint32_t> &hist, int count, int bins, int alpha,
    const std::string &what)
{
  std::vector<uint8_t> want = img.bytes;
  naive_draw (want, img.bytes.data (), planes, n, hist.data (), count, bins,
      alpha);
  Status st = cip::ref::histogram_draw (hist.data (), count, bins, planes, n,
      alpha);
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s\n", what.c_str (), cip::status_string (st));
    return false;
  }
  return testutil::equal_2d (img.bytes.data (), img.pitch, want.data (),
      img.pitch, (int) img.pitch, img.height, what);
}

std::string
draw_what (const char *what, int w, int h, int step, int count, int bins,
    int alpha, Counts k)
{
  char buf[160];
  snprintf (buf, sizeof (buf), "%s %dx%d step %d: %d x %d bins alpha %d %s",
      what, w, h, step, count, bins, alpha, counts_name (k));
  return buf;
}

const int draw_alphas[] = { 0, 77, 128, 256 };

/* The cases of the reference and GPU tests: every edge size, 1 to 4
 * histograms, 2 to 256 bins, a planar image with padded rows and the three
 * colour channels of a packed one; charts covering the whole image and a
 * rectangle inside it. check (img, planes, n, hist, count, bins, alpha, what)
 * returns whether the chart came out right. */
template <typename Check>
void
for_each_draw_case (const char *who, Check && check)
{
  int n_case = 0;
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (int count = 1; count <= 4; count++)
      for (int bins : { 2, 3, 16, 100, 256 }) {
        const Counts k = all_counts[n_case % 6];
        const int alpha = draw_alphas[n_case % 4];
        n_case++;
        std::vector<uint32_t> hist = make_counts (k, count, bins, n_case);
        HostImage p = testutil::make_image (sz.w, sz.h, Content::natural, si, 1, 3);
        HistDrawPlane pl = draw_plane (p, 0, 0, 0, sz.w, sz.h, 16, 235);
        fail_unless (check (p, &pl, 1, hist, count, bins, alpha,
                draw_what (who, sz.w, sz.h, 1, count, bins, alpha, k)));
        HostImage q = testutil::make_image (sz.w, sz.h, Content::random, si, 4, 5);
        const int x = sz.w / 3, y = sz.h / 4;
        HistDrawPlane ch[3];
        for (int c = 0; c < 3; c++)
          ch[c] = draw_plane (q, c, x, y, sz.w - x, sz.h - y, (uint8_t) (c * 9),
              (uint8_t) (255 - c * 40));
        fail_unless (check (q, ch, 3, hist, count, bins, alpha,
                draw_what (who, sz.w - x, sz.h - y, 4, count, bins, alpha, k)));
      }
  }
}

}  // namespace

/* A hand-checked chart: 4 bins of counts 0, 1, 50, 100 in an 8 x 10 plane:
 * two columns per bin, bars of 0, 1, 5 and 10 rows; a solid background. */
GST_START_TEST (test_ref_draw_shape)
{
  HostImage img = testutil::make_image (8, 10, Content::constant, 1, 1, 2);
  const uint8_t v = img.row (0)[0];
  HistDrawPlane p = draw_plane (img, 0, 0, 0, 8, 10, 3, 200);
  const uint32_t h[4] = { 0, 1, 50, 100 };
  const int rows[4] = { 0, 1, 5, 10 };
  fail_unless (cip::ref::histogram_draw (h, 1, 4, &p, 1, 256) == Status::ok);
  for (int y = 0; y < 10; y++)
    for (int x = 0; x < 8; x++)
      fail_unless (img.row (y)[x] == (10 - y <= rows[x / 2] ? 200 : 3),
          "(%d, %d) = %u", x, y, img.row (y)[x]);
  /* alpha 0: the background shows the frame; 128: halfway */
  for (int alpha : { 0, 128 }) {
    HostImage f = testutil::make_image (8, 10, Content::constant, 1, 1, 2);
    HistDrawPlane q = draw_plane (f, 0, 0, 0, 8, 10, 3, 200);
    fail_unless (cip::ref::histogram_draw (h, 1, 4, &q, 1, alpha) == Status::ok);
    fail_unless (f.row (0)[0] == (alpha ? (v * 128 + 3 * 128 + 128) >> 8 : v));
    fail_unless (f.row (9)[7] == 200);
  }
}
GST_END_TEST;

/* The draw cases (for_each_draw_case), then every kind of counts with every
 * alpha. */
GST_START_TEST (test_ref_draw)
{
  for_each_draw_case ("ref", ref_draw_matches);
  for (Counts k : all_counts)
    for (int alpha : draw_alphas)
      for (int count : { 1, 3 }) {
        std::vector<uint32_t> hist = make_counts (k, count, 64, 5);
        HostImage p = testutil::make_image (37, 23, Content::gradient, 3, 1, 0);
        HistDrawPlane pl = draw_plane (p, 0, 2, 1, 33, 21, 0, 255);
        fail_unless (ref_draw_matches (p, &pl, 1, hist, count, 64, alpha,
                draw_what ("ref", 33, 21, 1, count, 64, alpha, k)));
      }
}
GST_END_TEST;

GST_START_TEST (test_ref_draw_invalid_arguments)
{
  HostImage a = testutil::make_image (16, 8, Content::random, 1, 4, 4);
  HistDrawPlane ok = draw_plane (a, 0, 0, 0, 16, 8, 0, 255);
  uint32_t h[4 * 256] = {};
  const Status bad = Status::invalid_argument;
  HistDrawPlane five[5] = { ok, ok, ok, ok, ok };
  fail_unless (cip::ref::histogram_draw (h, 4, 256, five, 4, 256) == Status::ok);
  fail_unless (cip::ref::histogram_draw (h, 1, 256, five, 0, 256) == Status::ok);
  fail_unless (cip::ref::histogram_draw (h, 1, 256, five, 5, 256) == bad);
  fail_unless (cip::ref::histogram_draw (h, 1, 256, nullptr, 1, 256) == bad);
  fail_unless (cip::ref::histogram_draw (nullptr, 1, 256, &ok, 1, 256) == bad);
  fail_unless (cip::ref::histogram_draw ((uint32_t *) ((uint8_t *) h + 2), 1,
          256, &ok, 1, 256) == bad);
  for (int count : { -1, 0, 5 })
    fail_unless (cip::ref::histogram_draw (h, count, 256, &ok, 1, 256) == bad);
  for (int bins : { 0, 1, 257, 512 })
    fail_unless (cip::ref::histogram_draw (h, 1, bins, &ok, 1, 256) == bad);
  /* bins need not be a power of two (columns x * bins / width) */
  for (int bins : { 3, 100, 255 })
    fail_unless (cip::ref::histogram_draw (h, 1, bins, &ok, 1, 256) == Status::ok);
  for (int alpha : { -1, 257 })
    fail_unless (cip::ref::histogram_draw (h, 1, 256, &ok, 1, alpha) == bad);
  HistDrawPlane v = ok;
  v.data = nullptr;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, &v, 1, 256) == bad);
  v = ok;
  v.step = 0;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, &v, 1, 256) == bad);
  v = ok;
  v.pitch = 16 * 4 - 4;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, &v, 1, 256) == bad);
  v = ok;
  v.width = -1;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, &v, 1, 256) == bad);
  /* an empty plane may have no data */
  v = ok;
  v.data = nullptr;
  v.height = 0;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, &v, 1, 256) == Status::ok);
  /* nothing written on failure (the bad plane comes last) */
  HostImage b = testutil::make_image (16, 8, Content::random, 2, 1, 0);
  std::vector<uint8_t> before = b.bytes;
  HistDrawPlane two[2] = { draw_plane (b, 0, 0, 0, 16, 8, 0, 255), ok };
  two[1].step = 0;
  fail_unless (cip::ref::histogram_draw (h, 1, 256, two, 2, 256) == bad);
  fail_unless (b.bytes == before);
}
GST_END_TEST;

/* ---- high bit depth, ranges, any bin count (CPU) -------------------------- */

namespace {

/* A 16-bit sample layout: P010 (10 bits high), I420_10LE (10 bits low),
 * 16-bit formats; and a 12-bit one at bit 2, for good measure. */
struct Layout { int depth, shift; const char *name; };
const Layout layouts16[] = { {10, 6, "p010"}, {10, 0, "i420_10"}, {16, 0, "16bit"},
  {12, 2, "12at2"} };

/* The histogram from the bin-edge definition of histogram.h, independent of
 * the division formula: bin b starts at value lo + ceil(b * span / bins). */
std::vector<uint32_t>
naive_hist_range (const HostImage &img, int channel, int bins, uint32_t lo,
    uint32_t hi)
{
  const uint64_t span = (uint64_t) hi - lo + 1;
  std::vector<int32_t> bin_of ((size_t) span, -1);
  for (int b = bins - 1; b >= 0; b--) {
    const uint64_t start = ((uint64_t) b * span + bins - 1) / bins;
    for (uint64_t x = start; x < span && bin_of[x] < 0; x++)
      bin_of[x] = b;
  }
  std::vector<uint32_t> h ((size_t) bins, 0);
  for (int y = 0; y < img.height; y++)
    for (int x = 0; x < img.width; x++) {
      const uint32_t v = img.value (x, y, channel);
      if (v >= lo && v <= hi)
        h[(size_t) bin_of[v - lo]]++;
    }
  return h;
}

HistInput
input_range (const ImageView &v, int32_t lo, int32_t hi)
{
  HistInput in = input (v);
  in.range_min = lo;
  in.range_max = hi;
  return in;
}

const Content hbd_contents[] = { Content::random, Content::constant,
  Content::zeros, Content::all255, Content::gradient, Content::natural };

}  // namespace

/* 10-, 12- and 16-bit planes and channels: the reference against the
 * bin-edge definition, default range and sub-ranges, bins dividing the range
 * or not. */
GST_START_TEST (test_ref_hbd)
{
  for (const Layout &l : layouts16) {
    const uint32_t max = (1u << l.depth) - 1;
    for (Content c : hbd_contents) {
      HostImage img = testutil::make_image16 (67, 23, c, l.depth, l.shift, 5, 2, 6);
      for (int bins : { 2, 3, 7, 256, 1000, 1024, 4096, 65536 }) {
        const uint32_t ranges[][2] = { {0, max}, {64, 940 < max ? 940 : max},
          {max / 3, max / 3}, {1, max - 1} };
        for (auto r : ranges) {
          for (int ch = 0; ch < 2; ch++) {
            HistInput in = input_range (img.view (2 * ch), (int32_t) r[0],
                r[0] == 0 && r[1] == max ? -1 : (int32_t) r[1]);
            std::vector<uint32_t> got ((size_t) bins, kPoison);
            fail_unless (cip::ref::histogram (&in, 1, bins, got.data (), false) ==
                Status::ok);
            std::string w = std::string ("ref ") + l.name + " " +
                testutil::content_name (c) + " bins " + std::to_string (bins) +
                " range " + std::to_string (r[0]) + ".." + std::to_string (r[1]);
            fail_unless (equal_counts (got.data (), naive_hist_range (img, ch, bins,
                        r[0], r[1]), w), "%s", w.c_str ());
          }
        }
      }
    }
  }
}
GST_END_TEST;

/* Bins that do not divide the range, worked by hand: 3 bins over 0..9 are
 * {0..3}, {4..6}, {7..9}; 4 bins over 10..19 of an 8-bit plane are {10..12},
 * {13..14}, {15..17}, {18..19}, values outside not counted; 8 bins over 0..2
 * leave gaps. And 8-bit non-power-of-two bins against the definition. */
GST_START_TEST (test_ref_uneven_bins)
{
  HostImage a = testutil::make_image (32, 1, Content::zeros, 1, 1, 0);
  for (int x = 0; x < 32; x++)
    a.row (0)[x] = (uint8_t) x;
  uint32_t h[8];
  HistInput in = input_range (a.view (), 0, 9);
  fail_unless (cip::ref::histogram (&in, 1, 3, h, false) == Status::ok);
  fail_unless (h[0] == 4 && h[1] == 3 && h[2] == 3, "%u %u %u", h[0], h[1], h[2]);
  in = input_range (a.view (), 10, 19);
  fail_unless (cip::ref::histogram (&in, 1, 4, h, false) == Status::ok);
  fail_unless (h[0] == 3 && h[1] == 2 && h[2] == 3 && h[3] == 2,
      "%u %u %u %u", h[0], h[1], h[2], h[3]);
  in = input_range (a.view (), 0, 2);
  fail_unless (cip::ref::histogram (&in, 1, 8, h, false) == Status::ok);
  const uint32_t gaps[8] = { 1, 0, 1, 0, 0, 1, 0, 0 };   /* 0 -> 0, 1 -> 8/3, 2 -> 16/3 */
  for (int b = 0; b < 8; b++)
    fail_unless (h[b] == gaps[b], "bin %d: %u", b, h[b]);
  /* 16-bit: 3 bins over the full range */
  HostImage w = testutil::make_image16 (4, 1, Content::zeros, 16, 0, 1, 1, 0);
  const uint32_t vals[4] = { 21845, 21846, 43690, 43691 };  /* 65536 / 3 = 21845.3 */
  for (int x = 0; x < 4; x++) {
    w.row (0)[2 * x] = (uint8_t) vals[x];
    w.row (0)[2 * x + 1] = (uint8_t) (vals[x] >> 8);
  }
  in = input (w.view ());
  fail_unless (cip::ref::histogram (&in, 1, 3, h, false) == Status::ok);
  fail_unless (h[0] == 1 && h[1] == 2 && h[2] == 1, "%u %u %u", h[0], h[1], h[2]);
  /* 8-bit planes with any bins and ranges */
  for (Content c : testutil::all_contents) {
    HostImage img = testutil::make_image (45, 19, c, 3, 1, 2);
    for (int bins : { 3, 5, 100, 255, 257, 1024 })
      for (auto r : { std::pair<int, int> {0, 255}, {16, 235}, {100, 100} }) {
        HistInput i8 = input_range (img.view (), r.first, r.second);
        std::vector<uint32_t> got ((size_t) bins);
        fail_unless (cip::ref::histogram (&i8, 1, bins, got.data (), false) == Status::ok);
        fail_unless (equal_counts (got.data (), naive_hist_range (img, 0, bins,
                    (uint32_t) r.first, (uint32_t) r.second), "ref 8-bit uneven"),
            "bins %d", bins);
      }
  }
  /* the 8-bit fast-path formula is the general one: explicit 0..255 */
  HostImage r8 = testutil::make_image (64, 9, Content::random, 7, 1, 0);
  for (int bins : all_bins) {
    std::vector<uint32_t> x ((size_t) bins), y ((size_t) bins);
    HistInput d = input (r8.view ()), e = input_range (r8.view (), 0, 255);
    fail_unless (cip::histogram_is_8bit_path (&d, 1, bins));
    fail_unless (cip::ref::histogram (&d, 1, bins, x.data (), false) == Status::ok);
    fail_unless (cip::ref::histogram (&e, 1, bins, y.data (), false) == Status::ok);
    fail_unless (x == y && x == naive_hist_range (r8, 0, bins, 0, 255));
  }
}
GST_END_TEST;

/* P010 keeps its 10 bits high: garbage in the low six bits (and, for
 * I420_10LE, in the high six) changes nothing. */
GST_START_TEST (test_ref_hbd_ignored_bits)
{
  for (const Layout &l : layouts16) {
    if (l.depth == 16)
      continue;
    for (Content c : hbd_contents) {
      HostImage clean = testutil::make_image16 (33, 17, c, l.depth, l.shift, 9, 1, 0, false);
      HostImage junk = testutil::make_image16 (33, 17, c, l.depth, l.shift, 9, 1, 0, true);
      fail_unless (clean.bytes != junk.bytes);
      for (int bins : { 1024, 100, 4 }) {
        std::vector<uint32_t> a ((size_t) bins), b ((size_t) bins);
        HistInput ia = input (clean.view ()), ib = input (junk.view ());
        fail_unless (cip::ref::histogram (&ia, 1, bins, a.data (), false) == Status::ok);
        fail_unless (cip::ref::histogram (&ib, 1, bins, b.data (), false) == Status::ok);
        fail_unless (a == b, "%s %s bins %d", l.name, testutil::content_name (c), bins);
      }
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_ref_hbd_invalid_arguments)
{
  HostImage img = testutil::make_image16 (16, 4, Content::random, 10, 6, 1, 2, 4);
  uint32_t h[1024];
  const Status bad = Status::invalid_argument;
  HistInput ok = input (img.view (0));
  fail_unless (cip::ref::histogram (&ok, 1, 1024, h, false) == Status::ok);
  HistInput v = ok;
  v.range_min = -1;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = input_range (ok.view, 10, 9);
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = input_range (ok.view, 0, 1024);               /* above 10 bits */
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = input_range (ok.view, 1023, 1023);
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == Status::ok);
  v = input_range (ok.view, 1024, -1);              /* min above the max value */
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  /* misaligned 16-bit views, impossible layouts */
  v = ok;
  v.view.data += 1;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.pitch += 1;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.step = 3;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.step = 1;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.depth = 11;                                /* 11 + 6 > 16 */
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.bytes = 3;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  v = ok;
  v.view.depth = 0;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == bad);
  /* luma of RGB is 8-bit only */
  v = ok;
  v.source = HistSource::luma_rgb;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == Status::unsupported);
  /* a 1-byte view of fewer bits is fine */
  HostImage b = testutil::make_image (8, 8, Content::random, 1, 1, 0);
  v = input (b.view ());
  v.view.depth = 4;
  v.view.shift = 2;
  fail_unless (cip::ref::histogram (&v, 1, 16, h, false) == Status::ok);
  fail_unless (!cip::histogram_is_8bit_path (&v, 1, 16));
  fail_unless (cip::histogram_pick (ok, 1024) == HistAlgorithm::packed16);
}
GST_END_TEST;

#ifndef HAVE_CUDA
GST_START_TEST (test_cpu_only_unsupported)
{
  HostImage a = testutil::make_image (8, 8, Content::random, 1, 1, 0);
  HistInput in = input (a.view ());
  uint32_t h[256];
  uint32_t ws[64];
  fail_unless (cip::histogram (&in, 1, 256, h, false, ws, sizeof (ws), nullptr)
      == Status::unsupported);
  fail_unless (cip::histogram_workspace_init (ws, sizeof (ws), nullptr) ==
      Status::unsupported);
  fail_unless (cip::histogram (&in, 1, 1, h, false, ws, sizeof (ws), nullptr)
      == Status::invalid_argument);
  HistDrawPlane p = draw_plane (a, 0, 0, 0, 8, 8, 0, 255);
  fail_unless (cip::histogram_draw (h, 1, 256, &p, 1, 128, nullptr) ==
      Status::unsupported);
  fail_unless (cip::histogram_draw (h, 1, 1, &p, 1, 128, nullptr) ==
      Status::invalid_argument);
  cip::RowCopy c = { h, 4, ws, 4, 4, 1 };
  fail_unless (cip::copy_rows (&c, 1, nullptr) == Status::unsupported);
}
GST_END_TEST;
#endif

/* ---- GPU ------------------------------------------------------------------ */

#ifdef HAVE_CUDA
namespace {


const HistAlgorithm gpu_algos[] = { HistAlgorithm::automatic,
  HistAlgorithm::replicated, HistAlgorithm::packed16, HistAlgorithm::packed8,
  HistAlgorithm::warp_aggregated };

/* A host image and its device copy (same pitch and layout). */
struct DevImage {
  const HostImage &h;
  DevBuf d;
  explicit DevImage (const HostImage &img) : h (img), d (img.bytes.size ()) {
    d.upload (img.bytes);
  }
  /* the device view of a view into h */
  ImageView map (const ImageView &hv) const {
    ImageView v = hv;
    if (hv.data)
      v.data = d.p + (hv.data - h.bytes.data ());
    return v;
  }
};

/* Stream, output buffer and one workspace shared by every call of a test. */
struct Gpu {
  cudaStream_t stream = nullptr;
  DevBuf ws;
  DevBuf out;
  explicit Gpu (size_t out_entries = 4 * 256 + 64) :
      ws (cip::histogram_workspace_bytes (cip::kHistogramMaxInputs,
          cip::kHistogramMaxBins)), out (out_entries * 4) {
    CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
    fail_unless (cip::histogram_workspace_init (ws.p, ws.n, stream) == Status::ok);
  }
  ~Gpu () {
    cudaStreamSynchronize (stream);
    cudaStreamDestroy (stream);
  }
};

/* One GPU call on the device copies of `in` (imgs[i] holds in[i]) against the
 * reference. The whole output buffer is poisoned first (or, when accumulating,
 * holds `init` values); entries past n * bins must stay poisoned. */
bool
gpu_matches (Gpu &g, const HistInput *in, const DevImage *const *imgs, int n,
    int bins, HistAlgorithm algo, bool accumulate,
    const std::vector<uint32_t> &want_overwrite, const std::string &what)
{
  const size_t total = g.out.n / 4, used = (size_t) n * bins;
  std::vector<uint32_t> before (total, kPoison);
  std::vector<uint32_t> want = want_overwrite;
  if (accumulate)
    for (size_t i = 0; i < used; i++) {
      before[i] = (uint32_t) (i * 2654435761u + 12345u);
      want[i] += before[i];
    }
  CUDA_OK (cudaMemcpyAsync (g.out.p, before.data (), total * 4,
          cudaMemcpyHostToDevice, g.stream));
  HistInput din[cip::kHistogramMaxInputs];
  for (int i = 0; i < n; i++) {
    din[i] = in[i];
    din[i].view = imgs[i]->map (in[i].view);
  }
  Status st = cip::histogram (din, n, bins, (uint32_t *) g.out.p, accumulate,
      g.ws.p, g.ws.n, g.stream, algo);
  std::string w = what + " " + cip::hist_algorithm_name (algo) +
      (accumulate ? " accumulate" : "");
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s %s\n", w.c_str (), cip::status_string (st),
        cip::last_cuda_error ());
    return false;
  }
  std::vector<uint32_t> got (total);
  CUDA_OK (cudaMemcpyAsync (got.data (), g.out.p, total * 4,
          cudaMemcpyDeviceToHost, g.stream));
  CUDA_OK (cudaStreamSynchronize (g.stream));
  if (!equal_counts (got.data (), want, w))
    return false;
  for (size_t i = used; i < total; i++)
    if (got[i] != kPoison) {
      fprintf (stderr, "%s: wrote past the output (entry %zu)\n", w.c_str (), i);
      return false;
    }
  return true;
}

/* Every algorithm (overwrite; accumulate too when asked) on one call; then,
 * with every other launch shape of the 8-bit path forced, the per-lane
 * algorithms (replicated runs the shape's code variants). */
void
gpu_check (Gpu &g, const HistInput *in, const DevImage *const *imgs, int n,
    int bins, const std::string &what, bool with_accumulate = false)
{
  std::vector<uint32_t> want ((size_t) n * bins);
  fail_unless (cip::ref::histogram (in, n, bins, want.data (), false) == Status::ok,
      "%s", what.c_str ());
  for (HistAlgorithm a : gpu_algos) {
    fail_unless (gpu_matches (g, in, imgs, n, bins, a, false, want, what), "%s",
        what.c_str ());
    if (with_accumulate)
      fail_unless (gpu_matches (g, in, imgs, n, bins, a, true, want, what), "%s",
          what.c_str ());
  }
  if (!cip::histogram_is_8bit_path (in, n, bins))
    return;
  /* small mode (compute-sanitizer): every launch shape at 256 bins */
  if (cip_test_small () && bins != 256)
    return;
  for (int k = 1; k < cip::histogram_debug_shape_count (); k++) {
    cip::histogram_debug_shape (k);
    const std::string w = what + " shape " + cip::histogram_debug_shape_name (k);
    for (HistAlgorithm a : { HistAlgorithm::replicated, HistAlgorithm::packed16,
            HistAlgorithm::packed8 }) {
      const bool ok = gpu_matches (g, in, imgs, n, bins, a, false, want, w) &&
          (!with_accumulate || a != HistAlgorithm::replicated ||
              gpu_matches (g, in, imgs, n, bins, a, true, want, w));
      if (!ok)
        cip::histogram_debug_shape (-1);
      fail_unless (ok, "%s", w.c_str ());
    }
  }
  cip::histogram_debug_shape (-1);
}

/* n inputs all from one image */
void
gpu_check1 (Gpu &g, const HistInput *in, const DevImage &img, int n, int bins,
    const std::string &what, bool with_accumulate = false)
{
  const DevImage *imgs[4] = { &img, &img, &img, &img };
  gpu_check (g, in, imgs, n, bins, what, with_accumulate);
}

}  // namespace

GST_START_TEST (test_gpu_contents_bins)
{
  Gpu g;
  const struct { int w, h; size_t pad; } shapes[] = { {257, 33, 5}, {640, 480, 0},
    {1001, 67, 3} };
  for (auto sh : shapes)
    for (Content c : testutil::all_contents) {
      if (cip_test_small () && (sh.w * sh.h > 100000 || (c != Content::random &&
                  c != Content::constant && c != Content::natural)))
        continue;             /* small mode: two shapes, three contents */
      HostImage p = testutil::make_image (sh.w, sh.h, c, 31, 1, sh.pad);
      DevImage dp (p);
      for (int bins : all_bins) {
        HistInput in = input (p.view ());
        gpu_check1 (g, &in, dp, 1, bins, describe ("gpu", &in, 1, bins, c),
            bins == 256 || bins == 2);
      }
    }
}
GST_END_TEST;

GST_START_TEST (test_gpu_channels)
{
  Gpu g;
  /* 131x9 pad 4: whole-word pitch with a gap after each row, so the
   * vector paths (and rgb3) meet chunks cut by row ends, in small mode too */
  const struct { int w, h; size_t pad; } shapes[] = { {67, 19, 3}, {640, 480, 0},
    {1001, 67, 12}, {131, 9, 4} };
  for (auto sh : shapes)
    for (Content c : { Content::random, Content::natural, Content::constant,
            Content::all255, Content::checkerboard }) {
      if (cip_test_small () && (sh.w * sh.h > 40000 || c != Content::random))
        continue;             /* small mode: the small shapes, random content */
      HostImage q = testutil::make_image (sh.w, sh.h, c, 41, 4, sh.pad);
      HostImage uv = testutil::make_image (sh.w, sh.h, c, 42, 2, sh.pad);
      HostImage y = testutil::make_image (sh.w * 2, sh.h * 2, c, 43, 1, sh.pad);
      HostImage rgb = testutil::make_image (sh.w, sh.h, c, 44, 3, sh.pad);
      DevImage dq (q), duv (uv), dy (y), drgb (rgb);
      for (int bins : { 256, 16, 2 }) {
        if (cip_test_small () && bins != 256)
          continue;
        const HistSource L = HistSource::luma_rgb, B = HistSource::luma_bgr;
        /* packed 4-byte pixels: channels and luma read together */
        const HistInput sets[][4] = {
          { input (q.view (0)), input (q.view (1)), input (q.view (2)), input (q.view (3)) },
          { input (q.view (0)), input (q.view (1)), input (q.view (2)), input (q.view (0), L) },
          { input (q.view (0), B), input (q.view (2)), input (q.view (1)), input (q.view (0)) },
          { input (q.view (1)), input (q.view (2)), input (q.view (3)), input (q.view (1), L) },
          { input (q.view (3)), input (q.view (1), B), input (q.view (0)), input (q.view (2)) },
          { input (q.view (2), L), input (q.view (3), B), input (q.view (2)), input (q.view (0)) },
          { input (rgb.view (0)), input (rgb.view (1)), input (rgb.view (2)), input (rgb.view (0), L) },
        };
        for (size_t si = 0; si < sizeof (sets) / sizeof (sets[0]); si++) {
          const HistInput *s = sets[si];
          if (si == 5 && sh.pad < 2)
            continue;       /* luma from byte 2 or 3 reads 2 bytes past the last pixel */
          const DevImage &d = s[0].view.step == 4 ? dq : drgb;
          gpu_check1 (g, s, d, 4, bins, describe ("gpu channels", s, 4, bins, c));
          for (int k = 0; k < 4; k++)
            gpu_check1 (g, &s[k], d, 1, bins, describe ("gpu channel", &s[k], 1, bins, c));
        }
        /* three colour bytes without luma (at 256 bins the kernel counts
         * these with fixed selectors: vec_count_item_rgb3) */
        const HistInput sets3[][3] = {
          { input (q.view (0)), input (q.view (1)), input (q.view (2)) },
          { input (q.view (2)), input (q.view (1)), input (q.view (0)) },
          { input (q.view (1)), input (q.view (2)), input (q.view (3)) },
          { input (q.view (3)), input (q.view (3)), input (q.view (1)) },
        };
        for (const auto &s3 : sets3)
          gpu_check1 (g, s3, dq, 3, bins, describe ("gpu channels", s3, 3, bins, c));
        /* two-byte pixels (UV) and a planar Y of another size in one call */
        HistInput yuv[3] = { input (y.view ()), input (uv.view (0)), input (uv.view (1)) };
        const DevImage *imgs[3] = { &dy, &duv, &duv };
        gpu_check (g, yuv, imgs, 3, bins, describe ("gpu yuv", yuv, 3, bins, c), true);
        HistInput vu[2] = { input (uv.view (1)), input (uv.view (0)) };
        gpu_check1 (g, vu, duv, 2, bins, describe ("gpu vu", vu, 2, bins, c));
      }
    }
}
GST_END_TEST;

GST_START_TEST (test_gpu_rois)
{
  Gpu g;
  HostImage p = testutil::make_image (300, 41, Content::random, 51, 1, 9);
  HostImage q = testutil::make_image (300, 41, Content::natural, 52, 4, 5);
  HostImage q4 = testutil::make_image (300, 41, Content::natural, 54, 4, 8);
  HostImage uv = testutil::make_image (300, 41, Content::random, 53, 2, 1);
  DevImage dp (p), dq (q), dq4 (q4), duv (uv);
  int ci = 0;
  for (const Crop &r : crops_of (300, 41))
    for (int bins : { 256, 8 }) {
      /* small mode: every fourth crop, 256 bins */
      if (cip_test_small () && (bins != 256 || ci++ % 4))
        continue;
      HistInput a = input (p.view ().crop (r.x, r.y, r.w, r.h));
      gpu_check1 (g, &a, dp, 1, bins, describe ("gpu roi", &a, 1, bins, Content::random));
      HistInput ch[4] = { input (q.view (0).crop (r.x, r.y, r.w, r.h)),
        input (q.view (1).crop (r.x, r.y, r.w, r.h)),
        input (q.view (2).crop (r.x, r.y, r.w, r.h)),
        input (q.view (0).crop (r.x, r.y, r.w, r.h), HistSource::luma_rgb) };
      gpu_check1 (g, ch, dq, 4, bins, describe ("gpu roi", ch, 4, bins, Content::natural));
      /* q4: a whole-word pitch, so crops of several rows take the vector
       * path (q's 1205-byte pitch sends them to the generic one) */
      HistInput bgr[3] = { input (q4.view (2).crop (r.x, r.y, r.w, r.h)),
        input (q4.view (1).crop (r.x, r.y, r.w, r.h)),
        input (q4.view (0).crop (r.x, r.y, r.w, r.h)) };
      gpu_check1 (g, bgr, dq4, 3, bins, describe ("gpu roi", bgr, 3, bins, Content::natural));
      HistInput l = input (q.view (1).crop (r.x, r.y, r.w, r.h), HistSource::luma_bgr);
      gpu_check1 (g, &l, dq, 1, bins, describe ("gpu roi", &l, 1, bins, Content::natural));
      HistInput c2[2] = { input (uv.view (0).crop (r.x, r.y, r.w, r.h)),
        input (uv.view (1).crop (r.x, r.y, r.w, r.h)) };
      gpu_check1 (g, c2, duv, 2, bins, describe ("gpu roi", c2, 2, bins, Content::random));
    }
}
GST_END_TEST;

GST_START_TEST (test_gpu_edge_sizes)
{
  Gpu g;
  for (int si = 0; si < testutil::n_edge_sizes; si++) {
    const testutil::Size sz = testutil::edge_sizes[si];
    for (size_t pad : { (size_t) 0, (size_t) 13 })
      for (Content c : testutil::all_contents) {
        /* small mode: sizes up to 40,000 pixels, random (padded rows) and
         * all-255 (tight ones) */
        if (cip_test_small () && ((long) sz.w * sz.h > 40000 ||
                (c != Content::random && c != Content::all255) ||
                (c == Content::random) != (pad != 0)))
          continue;
        HostImage p = testutil::make_image (sz.w, sz.h, c, 61 + si, 1, pad);
        HostImage q = testutil::make_image (sz.w, sz.h, c, 62 + si, 4, pad);
        DevImage dp (p), dq (q);
        for (int bins : { 256, 4 }) {
          HistInput a = input (p.view ());
          gpu_check1 (g, &a, dp, 1, bins, describe ("gpu edge", &a, 1, bins, c));
          HistInput ch[3] = { input (q.view (2)), input (q.view (0), HistSource::luma_rgb),
            input (q.view (1)) };
          gpu_check1 (g, ch, dq, 3, bins, describe ("gpu edge", ch, 3, bins, c));
        }
      }
  }
}
GST_END_TEST;

GST_START_TEST (test_gpu_video_sizes)
{
  CIP_SKIP_IF_SMALL ();       /* large frames */
  Gpu g;
  const testutil::Size sizes[] = { {1920, 1080}, {3840, 2160}, {7680, 4320} };
  for (testutil::Size sz : sizes)
    for (Content c : { Content::random, Content::constant, Content::natural }) {
      for (size_t pad : { (size_t) 0, (size_t) 128 }) {
        HostImage p = testutil::make_image (sz.w, sz.h, c, 71, 1, pad);
        DevImage dp (p);
        HistInput a = input (p.view ());
        gpu_check1 (g, &a, dp, 1, 256, describe ("gpu video", &a, 1, 256, c), pad == 0);
        if (pad == 0)
          gpu_check1 (g, &a, dp, 1, 64, describe ("gpu video", &a, 1, 64, c));
      }
      if (sz.w <= 3840) {
        HostImage q = testutil::make_image (sz.w, sz.h, c, 72, 4, 0);
        DevImage dq (q);
        HistInput ch[4] = { input (q.view (0)), input (q.view (1)), input (q.view (2)),
          input (q.view (0), HistSource::luma_rgb) };
        gpu_check1 (g, ch, dq, 4, 256, describe ("gpu video rgba", ch, 4, 256, c), true);
        gpu_check1 (g, ch, dq, 3, 256, describe ("gpu video rgb", ch, 3, 256, c));
      }
    }
}
GST_END_TEST;

/* Few blocks: the packed sub-counters overflow (8-bit after 255, 16-bit after
 * 65535 additions to one lane copy), also in the top sub-counter of a word
 * (bin 255: carry out of bit 31) and with unused sub-counters (2 bins). */
GST_START_TEST (test_gpu_carry)
{
  Gpu g;
  /* small mode (compute-sanitizer): 640x480 still puts 307,200 pixels of
   * one value into one block's counters (carries past 16 bits) */
  const bool sm = cip_test_small ();
  const int W = sm ? 640 : 3840, H = sm ? 480 : 2160;
  HostImage p = testutil::make_image (W, H, Content::constant, 81, 1, 0);
  HostImage z = testutil::make_image (W, H, Content::zeros, 82, 1, 0);
  HostImage f = testutil::make_image (W, H, Content::all255, 83, 1, 0);
  HostImage n = testutil::make_image (W, H, Content::natural, 84, 1, 0);
  HostImage k = testutil::make_image (W / 2, H / 2, Content::checkerboard, 85, 4, 0);
  DevImage dp (p), dz (z), df (f), dn (n), dk (k);
  const struct { const DevImage *d; Content c; } planes[] = { {&dp, Content::constant},
    {&dz, Content::zeros}, {&df, Content::all255}, {&dn, Content::natural} };
  for (int blocks : { 1, 2, 3 }) {
    cip::histogram_debug_max_blocks (blocks);
    for (int bins : { 256, 4, 2 }) {
      for (auto pl : planes) {
        HistInput a = input (pl.d->h.view ());
        gpu_check1 (g, &a, *pl.d, 1, bins, describe ("gpu carry", &a, 1, bins,
                pl.c) + " blocks " + std::to_string (blocks), true);
      }
      HistInput ch[4] = { input (k.view (0)), input (k.view (1)), input (k.view (3)),
        input (k.view (0), HistSource::luma_rgb) };
      gpu_check1 (g, ch, dk, 4, bins, describe ("gpu carry", ch, 4, bins,
              Content::checkerboard) + " blocks " + std::to_string (blocks), true);
      HistInput ab[2] = { input (f.view ()), input (z.view ()) };
      const DevImage *imgs[2] = { &df, &dz };
      gpu_check (g, ab, imgs, 2, bins, describe ("gpu carry", ab, 2, bins,
              Content::all255) + " blocks " + std::to_string (blocks));
    }
  }
  cip::histogram_debug_max_blocks (0);
}
GST_END_TEST;

/* ---- high bit depth, ranges, any bin count (GPU) -------------------------- */

namespace {

const HistAlgorithm general_algos[] = { HistAlgorithm::automatic,
  HistAlgorithm::packed16, HistAlgorithm::warp_aggregated };

/* The general-path algorithms on one call against the reference (the
 * 8-bit-path-only variants must say unsupported). */
void
gpu_check_general (Gpu &g, const HistInput *in, const DevImage *const *imgs,
    int n, int bins, const std::string &what, bool with_accumulate = false)
{
  fail_unless (!cip::histogram_is_8bit_path (in, n, bins));
  std::vector<uint32_t> want ((size_t) n * bins);
  fail_unless (cip::ref::histogram (in, n, bins, want.data (), false) == Status::ok,
      "%s", what.c_str ());
  for (HistAlgorithm a : general_algos) {
    fail_unless (gpu_matches (g, in, imgs, n, bins, a, false, want, what), "%s",
        what.c_str ());
    if (with_accumulate)
      fail_unless (gpu_matches (g, in, imgs, n, bins, a, true, want, what), "%s",
          what.c_str ());
  }
  HistInput din[cip::kHistogramMaxInputs];
  for (int i = 0; i < n; i++) {
    din[i] = in[i];
    din[i].view = imgs[i]->map (in[i].view);
  }
  for (HistAlgorithm a : { HistAlgorithm::replicated, HistAlgorithm::packed8 })
    fail_unless (cip::histogram (din, n, bins, (uint32_t *) g.out.p, false, g.ws.p,
            g.ws.n, g.stream, a) == Status::unsupported);
}

}  // namespace

/* 10/12/16-bit planes (step 2) and interleaved channels (P010's UV, step 4),
 * several per call, bins dividing the range or not, sub-ranges, padded
 * pitches and crops at odd offsets. */
GST_START_TEST (test_gpu_hbd)
{
  Gpu g (4 * 65536 + 64);
  const struct { int w, h; size_t pad; } shapes[] = { {1, 1, 0}, {67, 23, 6},
    {257, 33, 2}, {640, 480, 0}, {1001, 67, 10} };
  for (const Layout &l : layouts16) {
    const uint32_t max = (1u << l.depth) - 1;
    for (auto sh : shapes) {
      for (Content c : hbd_contents) {
        HostImage y = testutil::make_image16 (sh.w, sh.h, c, l.depth, l.shift, 11,
            1, sh.pad, true);
        HostImage uv = testutil::make_image16 ((sh.w + 1) / 2, (sh.h + 1) / 2, c,
            l.depth, l.shift, 12, 2, sh.pad, true);
        DevImage dy (y), duv (uv);
        const DevImage *imgs[4] = { &dy, &duv, &duv, &dy };
        for (int bins : { 2, 3, 256, 1000, 1024, 4096, 65536 }) {
          HistInput in[4] = { input (y.view ()), input (uv.view (0)),
            input (uv.view (2)), input_range (y.view (), 64, (int32_t) (max - 83)) };
          std::string w = std::string ("gpu ") + l.name + " " +
              std::to_string (sh.w) + "x" + std::to_string (sh.h) + " " +
              testutil::content_name (c) + " bins " + std::to_string (bins);
          gpu_check_general (g, in, imgs, 4, bins, w, sh.w == 67);
          gpu_check_general (g, in + 1, imgs + 1, 1, bins, w + " uv only");
        }
        /* crops: odd offsets and widths, one row, one column */
        if (sh.w >= 257 && c == Content::random) {
          for (auto cr : crops_of (sh.w, sh.h)) {
            HistInput in = input (y.view ().crop (cr.x, cr.y, cr.w, cr.h));
            HistInput inu = input (uv.view (2).crop (cr.x / 2, cr.y / 2,
                    (cr.w + 1) / 2, (cr.h + 1) / 2));
            const DevImage *im2[2] = { &dy, &duv };
            HistInput both[2] = { in, inu };
            gpu_check_general (g, both, im2, 2, 1000, std::string ("gpu crop ") +
                l.name);
          }
        }
      }
    }
  }
}
GST_END_TEST;

/* 8-bit views on the general path: ranges and bins that are not a power of
 * two or above 256, planes, RGBA channels and luma. */
GST_START_TEST (test_gpu_general_8bit)
{
  Gpu g (4 * 4096 + 64);
  for (Content c : testutil::all_contents) {
    HostImage p = testutil::make_image (1001, 67, c, 21, 1, 3);
    HostImage k = testutil::make_image (333, 41, c, 22, 4, 8);
    DevImage dp (p), dk (k);
    const DevImage *imgs[4] = { &dp, &dk, &dk, &dk };
    for (int bins : { 3, 100, 255, 512, 4096 }) {
      HistInput in[4] = { input_range (p.view (), 16, 235), input (k.view (1)),
        input (k.view (3)), input (k.view (0), HistSource::luma_bgr) };
      gpu_check_general (g, in, imgs, 4, bins, std::string ("gpu 8-bit general ") +
          testutil::content_name (c) + " bins " + std::to_string (bins), true);
    }
    HistInput r = input_range (p.view (), 0, 127);
    const DevImage *one[1] = { &dp };
    gpu_check_general (g, &r, one, 1, 128, "gpu 8-bit half range");
  }
}
GST_END_TEST;

/* The packed sub-counters' overflow carried into the output: few blocks,
 * large flat frames (every count of a copy in one bin), 4K random and
 * natural 16-bit planes, and P010 garbage bits ignored on the GPU too. */
GST_START_TEST (test_gpu_hbd_carry)
{
  Gpu g (2 * 65536 + 64);
  const Content cs[] = { Content::constant, Content::all255, Content::zeros,
    Content::natural, Content::random };
  for (Content c : cs) {
    HostImage a = testutil::make_image16 (3840, 2160, c, 16, 0, 31, 1, 0);
    HostImage p = testutil::make_image16 (1920, 1080, c, 10, 6, 32, 1, 64, true);
    HostImage pc = testutil::make_image16 (1920, 1080, c, 10, 6, 32, 1, 64, false);
    DevImage da (a), dp (p), dpc (pc);
    for (int blocks : { 1, 2, 3, 0 }) {
      cip::histogram_debug_max_blocks (blocks);
      for (int bins : { 65536, 4096, 1024, 2, 3 }) {
        HistInput ia = input (a.view ());
        const DevImage *ima[1] = { &da };
        std::string w = std::string ("gpu carry ") + testutil::content_name (c) +
            " bins " + std::to_string (bins) + " blocks " + std::to_string (blocks);
        gpu_check_general (g, &ia, ima, 1, bins, w, blocks == 1);
        HistInput ip[2] = { input (p.view ()), input (pc.view ()) };
        const DevImage *imp[2] = { &dp, &dpc };
        std::vector<uint32_t> want (2 * (size_t) bins);
        fail_unless (cip::ref::histogram (ip, 2, bins, want.data (), false) == Status::ok);
        fail_unless (std::equal (want.begin (), want.begin () + bins,
                want.begin () + bins), "%s", w.c_str ());
        gpu_check_general (g, ip, imp, 2, bins, w + " p010");
      }
    }
  }
  cip::histogram_debug_max_blocks (0);
}
GST_END_TEST;

GST_START_TEST (test_gpu_accumulate_frames)
{
  Gpu g;
  HostImage a = testutil::make_image (1280, 720, Content::random, 91, 1, 0);
  HostImage b = testutil::make_image (1280, 720, Content::natural, 92, 1, 32);
  DevImage da (a), db (b);
  for (HistAlgorithm algo : gpu_algos) {
    std::vector<uint32_t> want (256, 0), got (256);
    uint32_t *out = (uint32_t *) g.out.p;
    HistInput in[2] = { input (da.map (a.view ())), input (db.map (b.view ())) };
    CUDA_OK (cudaMemsetAsync (out, 0xA5, 256 * 4, g.stream));
    for (int frame = 0; frame < 5; frame++) {
      const HistInput &x = in[frame & 1];
      std::vector<uint32_t> h = naive_hist ((frame & 1) ? b.view () : a.view (),
          HistSource::plane, 256);
      for (int k = 0; k < 256; k++)
        want[k] = frame == 0 ? h[k] : want[k] + h[k];
      fail_unless (cip::histogram (&x, 1, 256, out, frame > 0, g.ws.p, g.ws.n,
              g.stream, algo) == Status::ok);
    }
    CUDA_OK (cudaMemcpyAsync (got.data (), out, 256 * 4, cudaMemcpyDeviceToHost, g.stream));
    CUDA_OK (cudaStreamSynchronize (g.stream));
    fail_unless (got == want, "%s", cip::hist_algorithm_name (algo));
  }
}
GST_END_TEST;

/* One workspace across calls of every shape; a second, separately initialized
 * workspace gives the same answers; an empty call writes zeros. */
GST_START_TEST (test_gpu_workspace_reuse)
{
  Gpu g;
  HostImage a = testutil::make_image (333, 77, Content::natural, 101, 4, 6);
  DevImage da (a);
  HistInput ch[4] = { input (a.view (0)), input (a.view (1)), input (a.view (2)),
    input (a.view (1), HistSource::luma_rgb) };
  for (int round = 0; round < 3; round++)
    for (int n = 1; n <= 4; n++)
      for (int bins : { 256, 2, 64, 128 }) {
        std::vector<uint32_t> want ((size_t) n * bins);
        fail_unless (cip::ref::histogram (ch, n, bins, want.data (), false) == Status::ok);
        const DevImage *imgs[4] = { &da, &da, &da, &da };
        HistAlgorithm algo = gpu_algos[(round + n + bins) % 5];
        fail_unless (gpu_matches (g, ch, imgs, n, bins, algo, false, want, "reuse"));
        /* a failing call launches nothing and leaves the workspace usable */
        HistInput bad = ch[0];
        bad.view.step = 0;
        fail_unless (cip::histogram (&bad, 1, bins, (uint32_t *) g.out.p, false,
                g.ws.p, g.ws.n, g.stream) == Status::invalid_argument);
      }
  /* a minimal workspace for one input of two bins */
  DevBuf small (cip::histogram_workspace_bytes (1, 2));
  fail_unless (cip::histogram_workspace_init (small.p, small.n, g.stream) == Status::ok);
  HistInput one = input (da.map (a.view (2)));
  std::vector<uint32_t> want (2), got (2);
  fail_unless (cip::ref::histogram (&ch[2], 1, 2, want.data (), false) == Status::ok);
  for (int i = 0; i < 3; i++)
    fail_unless (cip::histogram (&one, 1, 2, (uint32_t *) g.out.p, false, small.p,
            small.n, g.stream) == Status::ok);
  CUDA_OK (cudaMemcpyAsync (got.data (), g.out.p, 8, cudaMemcpyDeviceToHost, g.stream));
  CUDA_OK (cudaStreamSynchronize (g.stream));
  fail_unless (got == want);

  /* empty inputs: overwrite writes zeros, accumulate changes nothing */
  HistInput empty[2] = { input (da.map (a.view (0).crop (0, 0, 0, 3))),
    input (da.map (a.view (0).crop (5, 5, 7, 0))) };
  std::vector<uint32_t> h (2 * 256, kPoison);
  CUDA_OK (cudaMemcpyAsync (g.out.p, h.data (), h.size () * 4, cudaMemcpyHostToDevice, g.stream));
  fail_unless (cip::histogram (empty, 2, 256, (uint32_t *) g.out.p, true, g.ws.p,
          g.ws.n, g.stream) == Status::ok);
  CUDA_OK (cudaMemcpyAsync (h.data (), g.out.p, h.size () * 4, cudaMemcpyDeviceToHost, g.stream));
  CUDA_OK (cudaStreamSynchronize (g.stream));
  for (uint32_t x : h)
    fail_unless (x == kPoison);
  fail_unless (cip::histogram (empty, 2, 256, (uint32_t *) g.out.p, false, g.ws.p,
          g.ws.n, g.stream) == Status::ok);
  CUDA_OK (cudaMemcpyAsync (h.data (), g.out.p, h.size () * 4, cudaMemcpyDeviceToHost, g.stream));
  CUDA_OK (cudaStreamSynchronize (g.stream));
  for (uint32_t x : h)
    fail_unless (x == 0);
}
GST_END_TEST;

/* PDL between calls (kernels/detail/launch.cuh): the kernel may be
 * scheduled before the one ahead of it ends and must wait for it before it
 * touches memory. Ahead of call A a kernel that lets the next be scheduled
 * at once writes A's frame late (testutil::late_copy: other bytes there
 * until then); call B, on another frame and output, follows with no sync
 * through the same workspace. A plane and R, G, B of RGBA, every launch
 * shape and the automatic pick. */
GST_START_TEST (test_gpu_late_input)
{
  Gpu g;
  const bool sm = cip_test_small ();
  const int W = sm ? 301 : 1920, H = sm ? 77 : 1080;
  for (int step : { 1, 4 }) {
    const HostImage a = testutil::make_image (W, H, Content::natural, 121, step, 0);
    const HostImage b = testutil::make_image (W, H, Content::random, 122, step, 0);
    const HostImage junk = testutil::make_image (W, H, Content::constant, 123, step, 0);
    const int n = step == 1 ? 1 : 3;
    DevImage da (a), db (b);
    DevBuf stage (a.bytes.size ()), out_b (256 * 3 * 4);
    stage.upload (a.bytes);
    HistInput ia[3], ib[3];
    std::vector<uint32_t> want_a, want_b;
    for (int c = 0; c < n; c++) {
      ia[c] = input (da.map (a.view (c)));
      ib[c] = input (db.map (b.view (c)));
      const std::vector<uint32_t> ha = naive_hist (a.view (c), HistSource::plane, 256),
          hb = naive_hist (b.view (c), HistSource::plane, 256);
      want_a.insert (want_a.end (), ha.begin (), ha.end ());
      want_b.insert (want_b.end (), hb.begin (), hb.end ());
    }
    uint32_t *out = (uint32_t *) g.out.p;
    const std::vector<uint32_t> poison (256 * 3, kPoison);
    for (int k = -1; k < cip::histogram_debug_shape_count (); k++) {
      cip::histogram_debug_shape (k);
      const char *name = k < 0 ? "automatic" : cip::histogram_debug_shape_name (k);
      CUDA_OK (cudaStreamSynchronize (g.stream));
      da.d.upload (junk.bytes);
      CUDA_OK (cudaMemcpyAsync (out, poison.data (), n * 256 * 4,
              cudaMemcpyHostToDevice, g.stream));
      CUDA_OK (cudaMemcpyAsync (out_b.p, poison.data (), n * 256 * 4,
              cudaMemcpyHostToDevice, g.stream));
      CUDA_OK (testutil::late_copy (da.d.p, stage.p, a.bytes.size (), 40,
              g.stream));
      const Status s1 = cip::histogram (ia, n, 256, out, false, g.ws.p, g.ws.n,
          g.stream);
      const Status s2 = cip::histogram (ib, n, 256, (uint32_t *) out_b.p, false,
          g.ws.p, g.ws.n, g.stream);
      std::vector<uint32_t> got_a (n * 256), got_b (n * 256);
      CUDA_OK (cudaMemcpyAsync (got_a.data (), out, n * 256 * 4,
              cudaMemcpyDeviceToHost, g.stream));
      CUDA_OK (cudaMemcpyAsync (got_b.data (), out_b.p, n * 256 * 4,
              cudaMemcpyDeviceToHost, g.stream));
      CUDA_OK (cudaStreamSynchronize (g.stream));
      const bool ok = s1 == Status::ok && s2 == Status::ok && got_a == want_a &&
          got_b == want_b;
      if (!ok)
        cip::histogram_debug_shape (-1);
      fail_unless (ok, "late input, %d channel(s), %s: A %s, B %s", n, name,
          got_a == want_a ? "ok" : "differs", got_b == want_b ? "ok" : "differs");
    }
  }
  cip::histogram_debug_shape (-1);
}
GST_END_TEST;

/* A call captured in a CUDA graph and replayed on new frames, with every
 * launch shape (and the automatic pick): each replay overwrites its output
 * (poisoned before it), so the direct merge's zeroing may take nothing from
 * the host; an accumulating call between replays keeps the workspace in
 * step with them. */
GST_START_TEST (test_gpu_graph_replay)
{
  Gpu g;
  const int W = 643, H = 361;
  const HostImage frames[3] = {
    testutil::make_image (W, H, Content::random, 111, 1, 0),
    testutil::make_image (W, H, Content::natural, 112, 1, 0),
    testutil::make_image (W, H, Content::constant, 113, 1, 0) };
  DevImage d (frames[0]);
  const HistInput in = input (d.map (frames[0].view ()));
  uint32_t *out = (uint32_t *) g.out.p;
  const std::vector<uint32_t> poison (256, kPoison);
  for (int k = -1; k < cip::histogram_debug_shape_count (); k++) {
    cip::histogram_debug_shape (k);
    const char *name = k < 0 ? "automatic" : cip::histogram_debug_shape_name (k);
    /* once outside the capture, so that what the call caches is there */
    fail_unless (cip::histogram (&in, 1, 256, out, false, g.ws.p, g.ws.n,
            g.stream) == Status::ok);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_OK (cudaStreamBeginCapture (g.stream, cudaStreamCaptureModeRelaxed));
    const Status st = cip::histogram (&in, 1, 256, out, false, g.ws.p, g.ws.n,
        g.stream);
    CUDA_OK (cudaStreamEndCapture (g.stream, &graph));
    fail_unless (st == Status::ok, "%s", name);
    CUDA_OK (cudaGraphInstantiate (&exec, graph, 0));
    for (int r = 0; r < 7; r++) {
      const HostImage &f = frames[r % 3];
      CUDA_OK (cudaStreamSynchronize (g.stream));
      d.d.upload (f.bytes);
      CUDA_OK (cudaMemcpyAsync (out, poison.data (), 256 * 4,
              cudaMemcpyHostToDevice, g.stream));
      CUDA_OK (cudaGraphLaunch (exec, g.stream));
      std::vector<uint32_t> want = naive_hist (f.view (), HistSource::plane, 256);
      if (r == 4) {
        fail_unless (cip::histogram (&in, 1, 256, out, true, g.ws.p, g.ws.n,
                g.stream) == Status::ok);
        for (uint32_t &x : want)
          x *= 2;
      }
      std::vector<uint32_t> got (256);
      CUDA_OK (cudaMemcpyAsync (got.data (), out, 256 * 4,
              cudaMemcpyDeviceToHost, g.stream));
      CUDA_OK (cudaStreamSynchronize (g.stream));
      const bool ok = got == want;
      if (!ok)
        cip::histogram_debug_shape (-1);
      fail_unless (ok, "%s: replay %d differs", name, r);
    }
    CUDA_OK (cudaGraphExecDestroy (exec));
    CUDA_OK (cudaGraphDestroy (graph));
  }
  cip::histogram_debug_shape (-1);
}
GST_END_TEST;

GST_START_TEST (test_gpu_invalid_arguments)
{
  Gpu g;
  HostImage a = testutil::make_image (64, 8, Content::random, 1, 1, 0);
  DevImage da (a);
  HistInput in = input (da.map (a.view ()));
  uint32_t *out = (uint32_t *) g.out.p;
  const Status bad = Status::invalid_argument;
  fail_unless (cip::histogram (&in, 1, 256, out, false, g.ws.p, g.ws.n, g.stream) == Status::ok);
  fail_unless (cip::histogram (&in, 1, 256, out, false, nullptr, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram (&in, 1, 256, out, false, g.ws.p,
          cip::histogram_workspace_bytes (1, 256) - 1, g.stream) == bad);
  fail_unless (cip::histogram (&in, 1, 256, out, false, g.ws.p + 4, g.ws.n - 4,
          g.stream) == bad);
  fail_unless (cip::histogram (&in, 1, 256, out, false, g.ws.p, g.ws.n, g.stream,
          (HistAlgorithm) 9) == bad);
  fail_unless (cip::histogram (&in, 1, 256, out + 0, false, g.ws.p, g.ws.n,
          g.stream) == Status::ok);
  fail_unless (cip::histogram (&in, 1, 256, (uint32_t *) ((uint8_t *) out + 1),
          false, g.ws.p, g.ws.n, g.stream) == bad);
  for (int bins : { 1, 65537 })     /* any count in 2 .. 65536 is valid */
    fail_unless (cip::histogram (&in, 1, bins, out, false, g.ws.p, g.ws.n,
            g.stream) == bad, "bins %d", bins);
  fail_unless (cip::histogram (&in, 0, 256, out, false, g.ws.p, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram (nullptr, 1, 256, out, false, g.ws.p, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram_workspace_init (nullptr, 4096, g.stream) == bad);
  fail_unless (cip::histogram_workspace_init (g.ws.p, 4, g.stream) == bad);
  CUDA_OK (cudaStreamSynchronize (g.stream));
}
GST_END_TEST;

/* ---- GPU drawing ---------------------------------------------------------- */

namespace {

/* The GPU chart of planes (into h) on a device copy of h equals the
 * reference's, every byte of the image compared (padding included); the
 * counts are device memory. */
bool
gpu_draw_matches (Gpu &g, const HostImage &h, const HistDrawPlane *planes,
    int n, const std::vector<uint32_t> &hist, int count, int bins, int alpha,
    const std::string &what)
{
  HostImage want = h;
  HistDrawPlane hp[cip::kHistDrawMaxPlanes], dp[cip::kHistDrawMaxPlanes];
  DevImage d (h);
  DevBuf dh (hist.size () * 4);
  dh.upload (hist.data (), hist.size () * 4);
  for (int k = 0; k < n; k++) {
    hp[k] = dp[k] = planes[k];
    hp[k].data = want.bytes.data () + (planes[k].data - h.bytes.data ());
    dp[k].data = d.d.p + (planes[k].data - h.bytes.data ());
  }
  fail_unless (cip::ref::histogram_draw (hist.data (), count, bins, hp, n,
          alpha) == Status::ok, "%s", what.c_str ());
  Status st = cip::histogram_draw ((const uint32_t *) dh.p, count, bins, dp, n,
      alpha, g.stream);
  if (st != Status::ok) {
    fprintf (stderr, "%s: %s %s\n", what.c_str (), cip::status_string (st),
        cip::last_cuda_error ());
    return false;
  }
  CUDA_OK (cudaStreamSynchronize (g.stream));
  std::vector<uint8_t> got = d.d.download ();
  return testutil::equal_2d (got.data (), h.pitch, want.bytes.data (), h.pitch,
      (int) h.pitch, h.height, what + " gpu");
}

}  // namespace

GST_START_TEST (test_gpu_draw)
{
  Gpu g;
  for_each_draw_case ("gpu", [&g] (HostImage &img, const HistDrawPlane *pl,
          int n, const std::vector<uint32_t> &hist, int count, int bins,
          int alpha, const std::string &what) {
        return gpu_draw_matches (g, img, pl, n, hist, count, bins, alpha, what);
      });
  for (Counts k : all_counts)
    for (int alpha : draw_alphas) {
      std::vector<uint32_t> hist = make_counts (k, 2, 256, 9);
      /* a chart in the corner of a 4K frame, and one plane of planes of
       * different sizes (NV12-like: luma and a half-size interleaved pair) */
      HostImage f = testutil::make_image (3840, 2160, Content::natural, 4, 1, 64);
      HistDrawPlane c = draw_plane (f, 0, 0, 1620, 1280, 540, 16, 235);
      fail_unless (gpu_draw_matches (g, f, &c, 1, hist, 2, 256, alpha,
              draw_what ("gpu 4k", 1280, 540, 1, 2, 256, alpha, k)));
      HostImage y = testutil::make_image (641, 361, Content::random, 5, 1, 0);
      HostImage uv = testutil::make_image (321, 181, Content::random, 6, 2, 0);
      HistDrawPlane three[3] = { draw_plane (y, 0, 1, 181, 213, 180, 16, 235),
        draw_plane (uv, 0, 0, 90, 107, 91, 128, 128),
        draw_plane (uv, 1, 0, 90, 107, 91, 128, 128) };
      fail_unless (gpu_draw_matches (g, y, three, 1, hist, 2, 256, alpha,
              draw_what ("gpu nv12 luma", 213, 180, 1, 2, 256, alpha, k)));
      fail_unless (gpu_draw_matches (g, uv, three + 1, 2, hist, 2, 256, alpha,
              draw_what ("gpu nv12 chroma", 107, 91, 2, 2, 256, alpha, k)));
    }
  /* taller than one grid (65535 blocks of 8 rows): the grid-stride rows */
  std::vector<uint32_t> hist = make_counts (Counts::random, 4, 16, 3);
  HostImage tall = testutil::make_image (3, 600001, Content::random, 7, 1, 1);
  HistDrawPlane t = draw_plane (tall, 0, 0, 0, 3, 600001, 9, 250);
  fail_unless (gpu_draw_matches (g, tall, &t, 1, hist, 4, 16, 128,
          draw_what ("gpu tall", 3, 600001, 1, 4, 16, 128, Counts::random)));
}
GST_END_TEST;

GST_START_TEST (test_gpu_draw_invalid_arguments)
{
  Gpu g;
  HostImage a = testutil::make_image (64, 8, Content::random, 1, 1, 0);
  DevImage da (a);
  DevBuf dh (4 * 256 * 4 + 4);
  HistDrawPlane p = draw_plane (a, 0, 0, 0, 64, 8, 0, 255);
  p.data = da.d.p;
  const uint32_t *h = (const uint32_t *) dh.p;
  const Status bad = Status::invalid_argument;
  CUDA_OK (cudaMemsetAsync (dh.p, 0, dh.n, g.stream));
  fail_unless (cip::histogram_draw (h, 4, 256, &p, 1, 256, g.stream) == Status::ok);
  fail_unless (cip::histogram_draw ((const uint32_t *) (dh.p + 2), 1, 256, &p,
          1, 256, g.stream) == bad);
  fail_unless (cip::histogram_draw (nullptr, 1, 256, &p, 1, 256, g.stream) == bad);
  fail_unless (cip::histogram_draw (h, 5, 256, &p, 1, 256, g.stream) == bad);
  fail_unless (cip::histogram_draw (h, 1, 257, &p, 1, 256, g.stream) == bad);
  fail_unless (cip::histogram_draw (h, 1, 256, &p, 1, 300, g.stream) == bad);
  fail_unless (cip::histogram_draw (h, 1, 256, &p, 5, 256, g.stream) == bad);
  HistDrawPlane e = p;
  e.width = 0;
  fail_unless (cip::histogram_draw (h, 1, 256, &e, 1, 256, g.stream) == Status::ok);
  CUDA_OK (cudaStreamSynchronize (g.stream));
}
GST_END_TEST;
#endif

#ifdef HAVE_CUDA
/* cip::copy_rows, how the elements read results such as these histograms
 * back (into pinned staging, at its host address): each alignment class,
 * several copies in one launch, padding between rows left alone. */
GST_START_TEST (test_gpu_copy_rows)
{
  int dev = 0, unified = 0;
  CUDA_OK (cudaGetDevice (&dev));
  CUDA_OK (cudaDeviceGetAttribute (&unified, cudaDevAttrUnifiedAddressing, dev));
  fail_unless (unified, "the elements need unified addressing for this path");
  cudaStream_t stream;
  CUDA_OK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  struct Case {
    size_t src_off, src_pitch, dst_off, dst_pitch, row_bytes, rows;
  };
  /* 16-byte, 4-byte and byte elements; a 1 KiB histogram row; one byte;
   * an empty copy among the others; aligned rows whose length is not a
   * multiple of 16 or 4 (a small frame's rows); a byte copy long enough
   * for the grid to stride */
  const Case cases[] = { { 0, 1024, 0, 1024, 1024, 1 }, { 0, 4112, 16, 1040, 1024, 5 },
    { 4, 20, 8, 28, 12, 9 }, { 3, 13, 1, 11, 7, 17 }, { 0, 0, 0, 0, 1, 1 },
    { 0, 64, 0, 64, 0, 3 }, { 0, 64, 0, 64, 24, 3 }, { 0, 64, 0, 64, 7, 3 },
    { 1, 0, 3, 0, 8000, 1 } };
  const int n = (int) G_N_ELEMENTS (cases);
  std::vector<uint8_t> src_host (128 << 10);
  for (size_t i = 0; i < src_host.size (); i++)
    src_host[i] = (uint8_t) (i * 2654435761u >> 13);
  DevBuf src (src_host.size ());
  src.upload (src_host);
  uint8_t *pinned = nullptr;
  const size_t dst_bytes = 128 << 10;
  CUDA_OK (cudaHostAlloc ((void **) &pinned, dst_bytes, cudaHostAllocDefault));
  DevBuf dev_dst (dst_bytes);
  for (int to_device = 0; to_device < 2; to_device++) {
    uint8_t *dst = to_device ? dev_dst.p : pinned;
    std::vector<uint8_t> want (dst_bytes, 0xA5);
    if (to_device)
      CUDA_OK (cudaMemset (dev_dst.p, 0xA5, dst_bytes));
    else
      memset (pinned, 0xA5, dst_bytes);
    cip::RowCopy c[G_N_ELEMENTS (cases)];
    size_t src_base = 0, dst_base = 0;
    for (int k = 0; k < n; k++) {
      const Case &x = cases[k];
      c[k] = cip::RowCopy { dst + dst_base + x.dst_off, x.dst_pitch,
        src.p + src_base + x.src_off, x.src_pitch, x.row_bytes, x.rows };
      for (size_t y = 0; y < x.rows; y++)
        memcpy (want.data () + dst_base + x.dst_off + y * x.dst_pitch,
            src_host.data () + src_base + x.src_off + y * x.src_pitch, x.row_bytes);
      src_base += 8192;
      dst_base += 8192;
    }
    CUDA_OK (cudaDeviceSynchronize ());
    fail_unless (cip::copy_rows (c, n, stream) == Status::ok);
    CUDA_OK (cudaStreamSynchronize (stream));
    std::vector<uint8_t> got (pinned, pinned + dst_bytes);
    if (to_device)
      got = dev_dst.download ();
    for (size_t i = 0; i < dst_bytes; i++)
      fail_unless (got[i] == want[i], "%s: byte %zu is %u, not %u",
          to_device ? "device" : "pinned host", i, got[i], want[i]);
  }
  /* arguments */
  cip::RowCopy one = { pinned, 16, src.p, 16, 16, 2 };
  fail_unless (cip::copy_rows (&one, cip::kMaxRowCopies + 1, stream) ==
      Status::invalid_argument);
  fail_unless (cip::copy_rows (nullptr, 1, stream) == Status::invalid_argument);
  fail_unless (cip::copy_rows (nullptr, 0, stream) == Status::ok);
  cip::RowCopy bad = one;
  bad.dst = nullptr;
  fail_unless (cip::copy_rows (&bad, 1, stream) == Status::invalid_argument);
  bad = one;
  bad.src_pitch = 8;
  fail_unless (cip::copy_rows (&bad, 1, stream) == Status::invalid_argument);
  CUDA_OK (cudaStreamSynchronize (stream));
  CUDA_OK (cudaFreeHost (pinned));
  CUDA_OK (cudaStreamDestroy (stream));
}
GST_END_TEST;
#endif

static Suite *
histogram_suite (void)
{
  Suite *s = suite_create ("histogram");
  TCase *tc = tcase_create ("cpu");
  tcase_add_test (tc, test_luma_formula);
  tcase_add_test (tc, test_ref_contents_bins);
  tcase_add_test (tc, test_ref_luma);
  tcase_add_test (tc, test_ref_rois);
  tcase_add_test (tc, test_ref_edge_sizes);
  tcase_add_test (tc, test_ref_accumulate);
  tcase_add_test (tc, test_ref_empty);
  tcase_add_test (tc, test_ref_invalid_arguments);
  tcase_add_test (tc, test_api_misc);
  tcase_add_test (tc, test_ref_draw_shape);
  tcase_add_test (tc, test_ref_draw);
  tcase_add_test (tc, test_ref_draw_invalid_arguments);
  tcase_add_test (tc, test_ref_hbd);
  tcase_add_test (tc, test_ref_uneven_bins);
  tcase_add_test (tc, test_ref_hbd_ignored_bits);
  tcase_add_test (tc, test_ref_hbd_invalid_arguments);
#ifndef HAVE_CUDA
  tcase_add_test (tc, test_cpu_only_unsupported);
#endif
  suite_add_tcase (s, tc);

  TCase *gpu = tcase_create ("gpu");
#ifdef HAVE_CUDA
  tcase_add_test (gpu, test_gpu_invalid_arguments);
  tcase_add_test (gpu, test_gpu_contents_bins);
  tcase_add_test (gpu, test_gpu_channels);
  tcase_add_test (gpu, test_gpu_rois);
  tcase_add_test (gpu, test_gpu_edge_sizes);
  tcase_add_test (gpu, test_gpu_video_sizes);
  tcase_add_test (gpu, test_gpu_carry);
  tcase_add_test (gpu, test_gpu_accumulate_frames);
  tcase_add_test (gpu, test_gpu_workspace_reuse);
  tcase_add_test (gpu, test_gpu_graph_replay);
  tcase_add_test (gpu, test_gpu_late_input);
  tcase_add_test (gpu, test_gpu_draw);
  tcase_add_test (gpu, test_gpu_draw_invalid_arguments);
  tcase_add_test (gpu, test_gpu_hbd);
  tcase_add_test (gpu, test_gpu_general_8bit);
  tcase_add_test (gpu, test_gpu_hbd_carry);
  tcase_add_test (gpu, test_gpu_copy_rows);
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (histogram_suite, argc, argv);
}
