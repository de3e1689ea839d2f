/* Histogram: the CPU reference against a naive count (contents, bins, steps,
 * luma of RGB, ROIs, padded pitches, accumulate, argument checks); on a GPU,
 * every algorithm against the reference, exactly, with poisoned outputs,
 * several inputs per call and one workspace reused across calls. */
#include "cipcheck.h"
#include "testimage.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cip/histogram.h"

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
  for (int bins : { -2, 0, 1, 3, 6, 100, 255, 512 })
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
  const size_t most = cip::histogram_workspace_bytes (cip::kHistogramMaxInputs,
      cip::kHistogramMaxBins);
  for (int n = 1; n <= 4; n++)
    for (int bins : all_bins) {
      size_t b = cip::histogram_workspace_bytes (n, bins);
      fail_unless (b >= (size_t) n * bins * 4 && b <= most);
    }
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
  fail_unless (cip::histogram (&in, 1, 3, h, false, ws, sizeof (ws), nullptr)
      == Status::invalid_argument);
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
  Gpu () : ws (cip::histogram_workspace_bytes (cip::kHistogramMaxInputs,
          cip::kHistogramMaxBins)), out ((4 * 256 + 64) * 4) {
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

/* Every algorithm (overwrite; accumulate too when asked) on one call. */
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
  const struct { int w, h; size_t pad; } shapes[] = { {67, 19, 3}, {640, 480, 0},
    {1001, 67, 12} };
  for (auto sh : shapes)
    for (Content c : { Content::random, Content::natural, Content::constant,
            Content::all255, Content::checkerboard }) {
      HostImage q = testutil::make_image (sh.w, sh.h, c, 41, 4, sh.pad);
      HostImage uv = testutil::make_image (sh.w, sh.h, c, 42, 2, sh.pad);
      HostImage y = testutil::make_image (sh.w * 2, sh.h * 2, c, 43, 1, sh.pad);
      HostImage rgb = testutil::make_image (sh.w, sh.h, c, 44, 3, sh.pad);
      DevImage dq (q), duv (uv), dy (y), drgb (rgb);
      for (int bins : { 256, 16, 2 }) {
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
  HostImage uv = testutil::make_image (300, 41, Content::random, 53, 2, 1);
  DevImage dp (p), dq (q), duv (uv);
  for (const Crop &r : crops_of (300, 41))
    for (int bins : { 256, 8 }) {
      HistInput a = input (p.view ().crop (r.x, r.y, r.w, r.h));
      gpu_check1 (g, &a, dp, 1, bins, describe ("gpu roi", &a, 1, bins, Content::random));
      HistInput ch[4] = { input (q.view (0).crop (r.x, r.y, r.w, r.h)),
        input (q.view (1).crop (r.x, r.y, r.w, r.h)),
        input (q.view (2).crop (r.x, r.y, r.w, r.h)),
        input (q.view (0).crop (r.x, r.y, r.w, r.h), HistSource::luma_rgb) };
      gpu_check1 (g, ch, dq, 4, bins, describe ("gpu roi", ch, 4, bins, Content::natural));
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
  HostImage p = testutil::make_image (3840, 2160, Content::constant, 81, 1, 0);
  HostImage z = testutil::make_image (3840, 2160, Content::zeros, 82, 1, 0);
  HostImage f = testutil::make_image (3840, 2160, Content::all255, 83, 1, 0);
  HostImage n = testutil::make_image (3840, 2160, Content::natural, 84, 1, 0);
  HostImage k = testutil::make_image (1920, 1080, Content::checkerboard, 85, 4, 0);
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
  fail_unless (cip::histogram (&in, 1, 100, out, false, g.ws.p, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram (&in, 0, 256, out, false, g.ws.p, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram (nullptr, 1, 256, out, false, g.ws.p, g.ws.n, g.stream) == bad);
  fail_unless (cip::histogram_workspace_init (nullptr, 4096, g.stream) == bad);
  fail_unless (cip::histogram_workspace_init (g.ws.p, 4, g.stream) == bad);
  CUDA_OK (cudaStreamSynchronize (g.stream));
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
#endif
  cip_check_add_gpu_tcase (s, gpu, cip::gpu_available ());
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (histogram_suite, argc, argv);
}
