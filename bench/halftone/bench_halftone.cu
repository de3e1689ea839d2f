/* Benchmark of the halftone family (not a test): error diffusion by skss
 * (single kernel), one launch per wavefront, and a single thread block (mpv's
 * way), against the CPU reference; ordered dithering for scale.
 *
 *   bench_halftone [--runs N] [--quick] [--json PATH] [--profile] [--probe]
 *
 * Cases: Floyd-Steinberg at 1920x1080 and 3840x2160 and Jarvis-Judice-Ninke at
 * 3840x2160, 2 levels (targets 0.3, 0.6 and 1.5 ms); without --quick also 4
 * levels, temporal stability 0.5 with a history, and a whole I420 frame in one
 * call, and 16-bit planes (P016-like 16 bits, P010-like 10 bits at bit 6: skss
 * only; "fs-3840x2160-p016" also with --quick). Every variant's output is
 * checked against cip::ref::halftone before it
 * is timed; a mismatch aborts. The input is a smooth "natural" picture with
 * noise. Columns: median ms; chain = dependent pixel steps of the variant's
 * schedule (W + shear * (H - 1): skss's shear is 2 for Floyd-Steinberg,
 * Sierra Lite and Atkinson, 4 for the others; the kernel's least shear for
 * wavefront and single_block); ns/step; us per tile step (32 pixel steps,
 * skss's chunk); us per task of the paper's 32x32-parallelogram chain
 * ((W/32 + 2) + 3 (H/32 - 1) tasks; 4.3 us on a Titan X in Funasaka et
 * al.); Gpx/s.
 * --profile only launches skss a few times per case (for ncu). --probe times
 * skss alone on planes of one strip up to 4K and on narrow tall planes, to
 * tell the cost of a compute step from that of the hand-off between strips. */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench.h"
#include "cip/halftone.h"
#include "detail/halftone_internal.h"

#ifdef CIP_HT_TRACE
namespace cip {
namespace detail {
cudaError_t ht_trace_take (unsigned long long *host, size_t bytes);
}
}
#endif

namespace {

/* Sample layout of a case's planes: 8-bit, or 16-bit words. */
struct Layout {
  int bytes = 1, depth = 8, shift = 0;
};

struct Plane {
  int w = 0, h = 0;
  Layout l;
  size_t pitch = 0;
  std::vector<uint8_t> host, want, hist_host;
  uint8_t *src = nullptr, *dst = nullptr, *hist = nullptr;
};

void
fill_natural (Plane &p, uint32_t seed)
{
  uint32_t s = seed * 2654435761u + 1;
  for (int y = 0; y < p.h; y++)
    for (int x = 0; x < p.w; x++) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      const double fx = x / 97.0, fy = y / 71.0;
      const double v = 110 + 60 * std::sin (fx) * std::cos (fy * 0.7) +
          40 * std::sin ((fx + fy) * 0.3) + (double) (s >> 28) - 7.5;
      if (p.l.bytes == 1) {
        p.host[(size_t) y * p.pitch + x] = (uint8_t) std::clamp ((int) std::lround (v), 0, 255);
        continue;
      }
      /* the same picture at the layout's depth, noise in the low bits too */
      const int m = (1 << p.l.depth) - 1;
      const int w = std::clamp ((int) std::lround (v * m / 255.0 + (double) (s & 15) - 7.5),
          0, m) << p.l.shift;
      uint8_t *q = p.host.data () + (size_t) y * p.pitch + (size_t) x * 2;
      q[0] = (uint8_t) w;
      q[1] = (uint8_t) (w >> 8);
    }
}

Plane
make_plane (int w, int h, uint32_t seed, Layout l)
{
  Plane p;
  p.w = w;
  p.h = h;
  p.l = l;
  p.pitch = ((size_t) w * l.bytes + 255) / 256 * 256;
  p.host.assign (p.pitch * h, 0);
  fill_natural (p, seed);
  p.hist_host.assign ((size_t) w * h * l.bytes, 0);
  BENCH_CHECK (cudaMalloc (&p.src, p.host.size ()));
  BENCH_CHECK (cudaMalloc (&p.dst, p.host.size ()));
  BENCH_CHECK (cudaMalloc (&p.hist, p.hist_host.size ()));
  BENCH_CHECK (cudaMemcpy (p.src, p.host.data (), p.host.size (),
          cudaMemcpyHostToDevice));
  BENCH_CHECK (cudaDeviceSynchronize ());
  return p;
}

void
free_plane (Plane &p)
{
  cudaFree (p.src);
  cudaFree (p.dst);
  cudaFree (p.hist);
}

/* The plane of src/dst/hist (device or host copies) in p's layout. */
cip::HalftonePlane
plane_of (const Plane &p, const uint8_t *src, uint8_t *dst, uint8_t *hist)
{
  cip::HalftonePlane hp;
  hp.src.data = src;
  hp.src.pitch = p.pitch;
  hp.src.width = p.w;
  hp.src.height = p.h;
  hp.src.step = hp.src.bytes = p.l.bytes;
  hp.src.depth = p.l.depth;
  hp.src.shift = p.l.shift;
  hp.dst = dst;
  hp.dst_pitch = p.pitch;
  hp.dst_step = p.l.bytes;
  if (hist) {
    hp.history = hist;
    hp.history_pitch = (size_t) p.w * p.l.bytes;
  }
  return hp;
}

cip::HalftonePlane
dev_plane (const Plane &p, bool with_hist)
{
  return plane_of (p, p.src, p.dst, with_hist ? p.hist : nullptr);
}

struct Case {
  std::string name;
  cip::HalftoneKernel kernel;
  int levels;
  double stability;       /* > 0: a valid history (the previous output) */
  std::vector<Plane> planes;
};

struct Context {
  bench::Args args;
  bench::JsonLines *json;
  cudaStream_t stream;
  std::string device;
  int runs;
  bench::Workspace ws;
};

cip::HalftoneOptions
options_of (const Case &c, cip::HalftoneMethod m = cip::HalftoneMethod::error_diffusion)
{
  cip::HalftoneOptions o;
  o.method = m;
  o.kernel = c.kernel;
  o.levels = c.levels;
  o.temporal_stability = c.stability;
  o.history_valid = c.stability > 0;
  return o;
}

/* The reference output of every plane. With temporal stability the history
 * it starts from is the reference's output of a first (history-invalid)
 * frame of the same input, kept in hist_host; every verified run starts
 * from a device copy of it (restore_history). Returns the median ms of the
 * reference's timed runs. */
double
make_reference (Case &c, const cip::HalftoneOptions &o)
{
  std::vector<cip::HalftonePlane> hp;
  std::vector<std::vector<uint8_t>> hist (c.planes.size ());
  for (size_t i = 0; i < c.planes.size (); i++) {
    Plane &p = c.planes[i];
    p.want.assign (p.host.size (), 0);
    hp.push_back (plane_of (p, p.host.data (), p.want.data (),
            c.stability > 0 ? p.hist_host.data () : nullptr));
  }
  if (c.stability > 0) {
    cip::HalftoneOptions first = o;
    first.history_valid = false;
    if (cip::ref::halftone (hp.data (), (int) hp.size (), first) != cip::Status::ok)
      exit (2);
  }
  std::vector<double> t;
  for (int k = 0; k < 3; k++) {
    /* each timed frame starts from the first frame's history */
    for (size_t i = 0; i < c.planes.size (); i++) {
      hist[i] = c.planes[i].hist_host;
      if (c.stability > 0)
        hp[i].history = hist[i].data ();
    }
    const auto a = std::chrono::steady_clock::now ();
    if (cip::ref::halftone (hp.data (), (int) hp.size (), o) != cip::Status::ok) {
      fprintf (stderr, "reference failed\n");
      exit (2);
    }
    const auto b = std::chrono::steady_clock::now ();
    t.push_back (std::chrono::duration<double, std::milli> (b - a).count ());
  }
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}

void
restore_history (const Case &c, cudaStream_t stream)
{
  if (c.stability > 0)
    for (const Plane &p : c.planes)
      BENCH_CHECK (cudaMemcpyAsync (p.hist, p.hist_host.data (), p.hist_host.size (),
              cudaMemcpyHostToDevice, stream));
  BENCH_CHECK (cudaStreamSynchronize (stream));
}

bool
verify (const Case &c, const std::string &what)
{
  for (const Plane &p : c.planes) {
    std::vector<uint8_t> got (p.host.size ());
    BENCH_CHECK (cudaMemcpy (got.data (), p.dst, got.size (), cudaMemcpyDeviceToHost));
    for (int y = 0; y < p.h; y++)
      if (memcmp (got.data () + (size_t) y * p.pitch, p.want.data () + (size_t) y * p.pitch,
              (size_t) p.w * p.l.bytes) != 0) {
        fprintf (stderr, "ABORT: %s differs from the reference in row %d\n",
            what.c_str (), y);
        return false;
      }
  }
  return true;
}

void
emit (Context &cx, const Case &c, const std::string &variant, double ms,
    int shear)
{
  const Plane &p0 = c.planes[0];
  double px = 0;
  for (const Plane &p : c.planes)
    px += (double) p.w * p.h;
  const double chain = shear > 0 ? (double) p0.w + (double) shear * (p0.h - 1) : 0;
  const double tasks = (p0.w / 32.0 + 2) + 3 * (std::ceil (p0.h / 32.0) - 1);
  const double ns_step = chain > 0 ? ms * 1e6 / chain : 0;
  printf ("%-30s %-13s %10.4f %8.0f %8.1f %9.3f %9.3f %8.2f\n", c.name.c_str (),
      variant.c_str (), ms, chain, ns_step, ns_step * 32 / 1000, ms * 1000 / tasks,
      px / (ms * 1e6));
  fflush (stdout);
  using bench::kv;
  std::string f = kv ("bench", std::string ("halftone")) + ", " +
      kv ("device", cx.device) + ", " + kv ("case", c.name) + ", " +
      kv ("size", std::to_string (p0.w) + "x" + std::to_string (p0.h)) + ", " +
      kv ("kernel", std::string (cip::halftone_kernel_name (c.kernel))) + ", " +
      kv ("levels", (double) c.levels) + ", " + kv ("stability", c.stability) + ", " +
      kv ("planes", (double) c.planes.size ()) + ", " + kv ("variant", variant) + ", " +
      kv ("median_ms", ms) + ", " + kv ("chain_steps", chain) + ", " +
      kv ("ns_per_step", ns_step) + ", " + kv ("us_per_tile_step", ns_step * 32 / 1000) +
      ", " + kv ("us_per_paper_task", ms * 1000 / tasks) + ", " +
      kv ("gpx_per_s", px / (ms * 1e6)) + ", " + kv ("runs", (double) cx.runs);
  cx.json->write (f);
}

/* The case's planes as the kernels see them, with a workspace for them. */
std::vector<cip::HalftonePlane>
prepare (Context &cx, const Case &c)
{
  std::vector<cip::HalftonePlane> dp;
  for (const Plane &p : c.planes)
    dp.push_back (dev_plane (p, c.stability > 0));
  cx.ws.ensure (cip::halftone_workspace_bytes (dp.data (), (int) dp.size ()),
      cip::halftone_workspace_init, cx.stream);
  return dp;
}

void
bench_case (Context &cx, Case &c, bool profile, bool probe)
{
  const std::vector<cip::HalftonePlane> dp = prepare (cx, c);
  const cip::HalftoneOptions o = options_of (c);
  if (profile) {
    for (int k = 0; k < 3; k++)
      if (cip::halftone (dp.data (), (int) dp.size (), o, cx.ws.p, cx.ws.n, cx.stream,
              cip::HalftoneAlgorithm::skss) != cip::Status::ok)
        exit (2);
    BENCH_CHECK (cudaStreamSynchronize (cx.stream));
    return;
  }
  const double cpu_ms = make_reference (c, o);
  const cip::detail::HtFootprint f = cip::detail::ht_footprint (c.kernel);
  struct V { cip::HalftoneAlgorithm a; int runs; };
  const V variants[] = { { cip::HalftoneAlgorithm::skss, cx.runs },
    { cip::HalftoneAlgorithm::single_block, std::min (cx.runs, 20) },
    { cip::HalftoneAlgorithm::wavefront, std::min (cx.runs, 5) } };
  for (const V &v : variants) {
    /* the comparison variants take 8-bit planes only */
    if ((probe || c.planes[0].l.bytes != 1) && v.a != cip::HalftoneAlgorithm::skss)
      continue;
    const int shear = v.a == cip::HalftoneAlgorithm::skss ?
        cip::detail::ht_skss_shift (c.kernel) : f.min_shift;
    const std::string name = cip::halftone_algorithm_name (v.a);
    const std::string what = c.name + " " + name;
    auto run = [&] (cudaStream_t st) {
      cip::Status s = cip::halftone (dp.data (), (int) dp.size (), o, cx.ws.p, cx.ws.n,
          st, v.a);
      if (s != cip::Status::ok) {
        fprintf (stderr, "%s: %s (%s)\n", what.c_str (), cip::status_string (s),
            cip::last_cuda_error ());
        exit (2);
      }
    };
    for (const Plane &p : c.planes)
      BENCH_CHECK (cudaMemsetAsync (p.dst, 0xA5, p.host.size (), cx.stream));
    if (v.a == cip::HalftoneAlgorithm::single_block) {
      int hmax = 0;
      for (const Plane &p : c.planes)
        hmax = std::max (hmax, p.h);
      if (hmax > cip::halftone_single_block_max_rows)
        continue;
    }
    restore_history (c, cx.stream);
    run (cx.stream);
    BENCH_CHECK (cudaStreamSynchronize (cx.stream));
    if (!verify (c, what))
      exit (3);
    const bench::Timing t = bench::time_ms (cx.stream, run, v.runs, v.runs > 5 ? 5 : 1);
    emit (cx, c, name, t.median_ms, shear);
  }
  if (probe)
    return;
  emit (cx, c, "cpu_reference", cpu_ms, 1);
  /* ordered dithering of the same planes, for scale */
  const cip::HalftoneOptions od = options_of (c, cip::HalftoneMethod::ordered);
  const bench::Timing t = bench::time_ms (cx.stream, [&] (cudaStream_t st) {
        if (cip::halftone (dp.data (), (int) dp.size (), od, cx.ws.p, cx.ws.n, st)
            != cip::Status::ok)
          exit (2);
      }, cx.runs, 10);
  emit (cx, c, "ordered", t.median_ms, 0);
}

#ifdef CIP_HT_TRACE
/* --trace (bench/halftone/build-trace.sh): one skss run of each case with
 * the kernel's stamps (halftone.cu, CIP_HT_TRACE), summarized per strip:
 * when each strip's compute warp starts (and the gap to the strip above),
 * what its first chunks cost and how long it waited for the strip above
 * in them, the interior chunk cost, and the hand-off latency from the strip
 * above publishing a chunk to this strip's up mover seeing it. */
constexpr int kS_ = 64, kK_ = 12, kN_ = 160;
using Trace = unsigned long long[kS_][kK_][kN_];

void trace_report (Context &cx, const Case &c, const Trace &tr);

void
trace_case (Context &cx, Case &c)
{
  const std::vector<cip::HalftonePlane> dp = prepare (cx, c);
  const cip::HalftoneOptions o = options_of (c);
  static Trace tr;
  /* the last of a few warm runs */
  for (int k = 0; k < 6; k++) {
    if (cip::halftone (dp.data (), (int) dp.size (), o, cx.ws.p, cx.ws.n, cx.stream,
            cip::HalftoneAlgorithm::skss) != cip::Status::ok)
      exit (2);
    BENCH_CHECK (cudaStreamSynchronize (cx.stream));
    BENCH_CHECK (cip::detail::ht_trace_take (&tr[0][0][0], sizeof (tr)));
  }
  trace_report (cx, c, tr);
  /* the raw stamps, for a closer look: CIP_HT_TRACE_DUMP=DIR */
  if (const char *dir = getenv ("CIP_HT_TRACE_DUMP")) {
    const std::string path = std::string (dir) + "/" + c.name + ".bin";
    if (FILE *f = fopen (path.c_str (), "wb")) {
      fwrite (&tr[0][0][0], sizeof (tr), 1, f);
      fclose (f);
    }
  }
}

void
trace_report (Context &cx, const Case &c, const Trace &tr)
{
  const int strips = std::min (kS_, (c.planes[0].h + 63) / 64);
  unsigned long long t0 = ~0ull, tend = 0;
  for (int s = 0; s < strips; s++) {
    t0 = std::min (t0, tr[s][4][0]);
    tend = std::max (tend, tr[s][4][1]);
  }
  auto us = [] (unsigned long long a, unsigned long long b) {
    return (double) ((long long) a - (long long) b) / 1000.0;
  };
  printf ("trace %s: %d strips, %.1f us from the first claim to the last end\n",
      c.name.c_str (), strips, us (tend, t0));
  printf ("%5s %8s %8s %8s %9s %9s %9s %9s %8s %8s\n", "strip", "claim", "go0", "gap",
      "c0-8 us", "w0-8 us", "c9-23 us", "w9-23 us", "int us", "hand us");
  std::vector<double> gaps, c08, w08, c923, w923, hands, ints;
  for (int s = 0; s < strips; s++) {
    double cc = 0, ww = 0, cc2 = 0, ww2 = 0;
    for (int n = 0; n < 24; n++) {
      const double w = us (tr[s][1][n], tr[s][0][n]);
      const double k = us (tr[s][0][n + 1], tr[s][1][n]);
      (n <= 8 ? ww : ww2) += w;
      (n <= 8 ? cc : cc2) += k;
    }
    const double in = tr[s][4][3] && tr[s][4][2] ? us (tr[s][4][3], tr[s][4][2]) / 32 : 0;
    std::vector<double> h;
    for (int m = 0; s > 0 && m < kN_; m++) {
      if (!tr[s][2][m])
        continue;
      unsigned long long best = 0;
      for (int k = 0; k < kN_; k++)
        if (tr[s - 1][3][k] && tr[s - 1][3][k] <= tr[s][2][m])
          best = std::max (best, tr[s - 1][3][k]);
      if (best)
        h.push_back (us (tr[s][2][m], best));
    }
    std::sort (h.begin (), h.end ());
    const double hand = h.empty () ? 0 : h[h.size () / 2];
    const double gap = s ? us (tr[s][1][0], tr[s - 1][1][0]) : 0;
    if (s) {
      gaps.push_back (gap);
      hands.push_back (hand);
      w08.push_back (ww);
    }
    c08.push_back (cc / 9);
    c923.push_back (cc2 / 15);
    w923.push_back (ww2);
    if (in > 0)
      ints.push_back (in);
    if (s < 12 || s == strips - 1)
      printf ("%5d %8.1f %8.1f %8.1f %9.2f %9.1f %9.2f %9.1f %8.2f %8.2f\n", s,
          us (tr[s][4][0], t0), us (tr[s][1][0], t0), gap, cc / 9, ww, cc2 / 15, ww2,
          in, hand);
  }
  auto med = [] (std::vector<double> v) {
    if (v.empty ())
      return 0.0;
    std::sort (v.begin (), v.end ());
    return v[v.size () / 2];
  };
  printf ("medians: gap %.2f us, chunk 0-8 %.2f us (waits %.1f us in all), chunk 9-23 "
      "%.2f us (waits %.1f), interior chunk %.2f us, hand-off %.2f us\n", med (gaps),
      med (c08), med (w08), med (c923), med (w923), med (ints), med (hands));
  /* every traced chunk of a strip: where the compute warp's time goes
   * (computing, waiting for the up ring, waiting for the down ring), and for
   * the chunks it waited on the up ring, whether the data was late from the
   * strip above (its down mover published the chunk this one needs after the
   * wait began) or late in the hand-off (published before the wait began) */
  const int S = cip::detail::ht_skss_shift (c.kernel);
  printf ("%5s %7s %7s %5s %8s %8s %8s %9s %9s %9s %8s\n", "strip", "go0", "end", "ch",
      "comp us", "upw us", "dnw us", "above us", "hand us", "pubdl us", "us/ch");
  for (int s = 0; s < strips; s++) {
    int n_ch = 0;
    double comp = 0, upw = 0, dnw = 0, above = 0, handw = 0;
    std::vector<double> pubdl;
    for (int n = 0; n + 1 < kN_ && tr[s][0][n + 1]; n++) {
      n_ch++;
      comp += us (tr[s][0][n + 1], tr[s][1][n]);
      const double uw = us (tr[s][5][n], tr[s][0][n]);
      upw += uw;
      dnw += us (tr[s][1][n], tr[s][5][n]);
      if (tr[s][3][n] && n + 1 < kN_ && tr[s][0][n + 1])
        pubdl.push_back (us (tr[s][3][n], tr[s][0][n + 1]));
      const int need = n + 2 * S;
      if (s > 0 && uw > 0.05 && need < kN_ && tr[s - 1][3][need]) {
        /* the wait [Wait(n), Up(n)]: the part before the strip above
         * published, and the part after */
        const double pre = std::max (0.0, std::min (uw, us (tr[s - 1][3][need], tr[s][0][n])));
        above += pre;
        handw += uw - pre;
      }
    }
    const double span = n_ch ? us (tr[s][0][n_ch], tr[s][1][0]) : 0;
    if (s < 12 || s % 4 == 0 || s == strips - 1)
      printf ("%5d %7.1f %7.1f %5d %8.1f %8.1f %8.1f %9.1f %9.1f %9.2f %8.2f\n", s,
          us (tr[s][1][0], t0), us (tr[s][4][1], t0), n_ch, comp, upw, dnw, above,
          handw, med (pubdl), n_ch ? span / n_ch : 0);
  }
  using bench::kv;
  if (cx.json)
    cx.json->write (kv ("bench", std::string ("halftone_trace")) + ", " +
        kv ("case", c.name) + ", " + kv ("device", cx.device) + ", " +
        kv ("total_us", us (tend, t0)) + ", " + kv ("gap_us", med (gaps)) + ", " +
        kv ("chunk_edge_us", med (c08)) + ", " + kv ("chunk_us", med (ints)) + ", " +
        kv ("handoff_us", med (hands)));
}
#endif

}  // namespace

int
main (int argc, char **argv)
{
  Context cx;
  cx.args = bench::parse_args (argc, argv);
  bool profile = false, probe = false;
  [[maybe_unused]] bool trace = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--trace"))
      trace = true;
    if (!strcmp (argv[i], "--profile"))
      profile = true;
    if (!strcmp (argv[i], "--probe"))
      probe = true;
  }
  bench::JsonLines json (cx.args.json);
  cx.json = &json;
  cx.runs = cx.args.quick ? std::min (cx.args.runs, 20) : std::max (cx.args.runs, 50);
  BENCH_CHECK (cudaStreamCreateWithFlags (&cx.stream, cudaStreamNonBlocking));
  cx.device = bench::device_name ();
  printf ("halftone bench on %s, median of %d runs (single_block 20, wavefront 5)\n",
      cx.device.c_str (), cx.runs);
  printf ("%-30s %-13s %10s %8s %8s %9s %9s %8s\n", "case", "variant", "ms", "chain",
      "ns/step", "us/tile", "us/task", "Gpx/s");
  using K = cip::HalftoneKernel;
  std::vector<Case> cases;
  auto add = [&] (const char *name, K k, int levels, double s,
      std::vector<std::pair<int, int>> sizes, Layout l = Layout ()) {
    Case c;
    c.name = name;
    c.kernel = k;
    c.levels = levels;
    c.stability = s;
    uint32_t seed = 1;
    for (auto &wh : sizes)
      c.planes.push_back (make_plane (wh.first, wh.second, seed++, l));
    cases.push_back (std::move (c));
  };
  const Layout p016 = { 2, 16, 0 }, p010 = { 2, 10, 6 };
  if (probe) {
    add ("fs-1920x1080", K::floyd_steinberg, 2, 0, { {1920, 1080} });
    for (int h : { 64, 128, 256, 640, 2160 })
      add (("fs-3840x" + std::to_string (h)).c_str (), K::floyd_steinberg, 2, 0,
          { {3840, h} });
    for (int w : { 16384, 1024 })
      add (("fs-" + std::to_string (w) + "x64").c_str (), K::floyd_steinberg, 2, 0,
          { {w, 64} });
    for (int w : { 1024, 256 })
      add (("fs-" + std::to_string (w) + "x2160").c_str (), K::floyd_steinberg, 2, 0,
          { {w, 2160} });
  } else {
    add ("fs-1920x1080", K::floyd_steinberg, 2, 0, { {1920, 1080} });
    add ("fs-3840x2160", K::floyd_steinberg, 2, 0, { {3840, 2160} });
    add ("jjn-3840x2160", K::jarvis_judice_ninke, 2, 0, { {3840, 2160} });
    add ("fs-3840x2160-p016", K::floyd_steinberg, 2, 0, { {3840, 2160} }, p016);
  }
  if (!cx.args.quick && !probe) {
    add ("fs-3840x2160-4levels", K::floyd_steinberg, 4, 0, { {3840, 2160} });
    add ("fs-3840x2160-stable0.5", K::floyd_steinberg, 2, 0.5, { {3840, 2160} });
    add ("fs-3840x2160-i420", K::floyd_steinberg, 2, 0,
        { {3840, 2160}, {1920, 1080}, {1920, 1080} });
    add ("sierra-lite-1920x1080", K::sierra_lite, 2, 0, { {1920, 1080} });
    add ("fs-1920x1080-p016", K::floyd_steinberg, 2, 0, { {1920, 1080} }, p016);
    add ("fs-3840x2160-p010", K::floyd_steinberg, 2, 0, { {3840, 2160} }, p010);
    add ("fs-3840x2160-p016-4levels", K::floyd_steinberg, 4, 0, { {3840, 2160} }, p016);
    add ("jjn-3840x2160-p016", K::jarvis_judice_ninke, 2, 0, { {3840, 2160} }, p016);
    add ("fs-3840x2160-p016-stable0.5", K::floyd_steinberg, 2, 0.5, { {3840, 2160} },
        p016);
  }
  for (Case &c : cases) {
#ifdef CIP_HT_TRACE
    if (trace) {
      trace_case (cx, c);
      for (Plane &p : c.planes)
        free_plane (p);
      continue;
    }
#endif
    bench_case (cx, c, profile, probe);
    for (Plane &p : c.planes)
      free_plane (p);
  }
  cudaStreamDestroy (cx.stream);
  return 0;
}
