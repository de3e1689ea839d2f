/* Box filter benchmark (not a test): cip::boxfilter per algorithm against
 * NPP's nppiFilterBoxBorder_8u_C1R (mask (2r+1)^2, anchor at the centre,
 * NPP_BORDER_REPLICATE) on 8-bit planes.
 *
 *   bench_boxfilter [--runs N] [--json PATH] [--quick] [--radii 1,15,100]
 *       [--npp-max-radius R] [--fused-rows N]
 *       [--fused-warps N] [--fused-rotate N]
 *
 * Variants: auto (what the element runs), auto4f (auto on bench::kFrames
 * copies of the frame in turn, so that no call finds its input in L2 from
 * the call before, as in a pipeline), auto-unch and auto4f-unch (the same
 * with no PDL between calls, detail/launch.cuh), sat (SAT + gather, the SAT
 * recomputed every call), gather (sat with a precomputed SAT: the gather
 * kernel alone), direct (r <= 16), dtile (direct's shared-memory tile kernel
 * at r <= 5, where direct runs its registers kernel), sliding (no table), integral
 * (cip::integral u32 alone, once per size), npp (replicate only: NPP has no
 * clipped-window mean; radii up to --npp-max-radius, default 100: a 1001x1001
 * mask takes seconds a call), and nv12 (automatic on a whole NV12 frame: the
 * Y plane and the two channels of the UV plane at the halved radius, the one
 * call cudaboxfilter makes on such a frame with its default planes=all), and
 * rgba (the call it makes on an RGBA frame with planes=luma: R, G and B at
 * r, A copied) and rgba4 (with its default planes=all: all four at r); the
 * notes name each plane's algorithm, "packed" where the four channels run
 * as one plane of 4-byte pixels). After each radius a "fastest" line names the
 * quickest of direct, sliding, sat and fused by b2b time (what automatic should
 * pick without a table; boxfilter_pick's limits are in
 * kernels/host/boxfilter_host.cpp). Radii default to 1,3,7,15,31,100,500. Every
 * variant's output is checked against the CPU reference once per case before
 * it is timed (a mismatch is printed and makes the exit status 1); NPP's is
 * compared for information only: it truncates where we round to nearest, so
 * about half of its pixels are 1 lower. Each timing is the median of --runs
 * runs (default 100; --quick: 3840x2160 only, 20 runs) of one call between
 * two events, plus the per-call time of bench::kB2B calls back to back; NPP runs fewer
 * where one call is slow (large masks: 201x201 takes 0.64 s at 8K).
 *
 * Reference numbers, H200 (CUDA 13.0), 3840x2160, median ms single / b2b:
 *   r=1   auto (direct) 0.023 / 0.020   NPP 3x3 0.018 / 0.015
 *   r=15  auto (direct) 0.039 / 0.036   NPP 31x31 4.41
 *   r=100 auto (sat)    0.076 / 0.074   = integral 0.049 + gather 0.028
 *                                        NPP 201x201 170 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench.h"
#include "bench_npp.h"
#include "cip/boxfilter.h"
#include "cip/integral.h"
#include "detail/boxfilter_plan.h"
#include "detail/launch.cuh"

#ifdef HAVE_NPP
#include <npp.h>
#endif

namespace {

struct Size {
  int w, h;
};

bool g_mismatch = false;

void
check_status (cip::Status st, const char *what)
{
  if (st != cip::Status::ok) {
    fprintf (stderr, "%s: %s %s\n", what, cip::status_string (st),
        cip::last_cuda_error ());
    exit (2);
  }
}

/* Camera-like content: smooth shading plus noise (xorshift). */
std::vector<uint8_t>
make_frame (int w, int h, size_t pitch)
{
  std::vector<uint8_t> img (pitch * h, 0);
  uint32_t s = 2463534242u;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      int v = 128 + (int) (60 * std::sin (x / 97.0f) * std::cos (y / 71.0f)) +
          (int) (s >> 28) - 8;
      img[(size_t) y * pitch + x] = (uint8_t) std::min (255, std::max (0, v));
    }
  return img;
}

std::vector<int>
parse_radii (int argc, char **argv)
{
  std::vector<int> r;
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--radii")) {
      const char *p = argv[i + 1];
      while (*p) {
        r.push_back (atoi (p));
        while (*p && *p != ',')
          p++;
        if (*p == ',')
          p++;
      }
    }
  if (r.empty ())
    r = { 1, 3, 7, 15, 31, 100, 500 };
  return r;
}

int
parse_npp_max_radius (int argc, char **argv)
{
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp (argv[i], "--npp-max-radius"))
      return atoi (argv[i + 1]);
  return 100;
}

struct Result {
  std::string variant;
  bench::Timing t;              /* one call between two events */
  double b2b_ms;                /* per call, back to back (bench::b2b_ms); 0: not run */
  bool verified;
};

/* One output plane of a call: w x h bytes in rows of pitch bytes at dev,
 * and what the CPU reference wrote in the same layout. */
struct Output {
  const char *plane;
  uint8_t *dev;
  const std::vector<uint8_t> *want;
  size_t pitch;
  int w, h;
};

/* The check every timed row passes first: the outputs poisoned, one call,
 * each output compared with the CPU reference (the first difference goes to
 * stderr); then the call timed, single and back to back. */
template <typename Run>
Result
checked (const std::string &what, const char *variant,
    const std::vector<Output> &outs, Run run, cudaStream_t stream, int runs)
{
  for (const Output &o : outs)
    BENCH_CHECK (cudaMemsetAsync (o.dev, 0xA5, o.pitch * o.h, stream));
  run (stream);
  bool ok = true;
  for (const Output &o : outs) {
    std::vector<uint8_t> got (o.pitch * o.h);
    BENCH_CHECK (cudaMemcpyAsync (got.data (), o.dev, got.size (),
            cudaMemcpyDeviceToHost, stream));
    BENCH_CHECK (cudaStreamSynchronize (stream));
    for (int y = 0; ok && y < o.h; y++)
      for (int x = 0; x < o.w; x++) {
        const size_t i = (size_t) y * o.pitch + (size_t) x;
        if (got[i] != (*o.want)[i]) {
          g_mismatch = true;
          ok = false;
          fprintf (stderr, "MISMATCH %s %s: %s plane at (%d, %d): %u != %u\n",
              variant, what.c_str (), o.plane, x, y, got[i], (*o.want)[i]);
          break;
        }
      }
  }
  return Result { variant, bench::time_ms (stream, run, runs),
    bench::b2b_ms (stream, run, runs), ok };
}

/* One buffer of a whole frame: host bytes (the reference's input), and
 * the device copy and output the call runs on. */
struct FrameBuf {
  const char *name;
  std::vector<uint8_t> host;
  size_t pitch;
  int wbytes, rows;
  uint8_t *d_src = nullptr, *d_dst = nullptr;
};

/* The call cudaboxfilter makes on a whole frame, row `variant`: planes (src,
 * dst, r, p) fills the frame's n planes p[] over the buffers' sources src[]
 * and outputs dst[] (host copies for the reference, device buffers for the
 * call) at radius r; both borders, every radius, checked against the CPU
 * reference before it is timed. */
template <typename Planes, typename Report>
void
frame_call (const char *variant, int w, int h, std::vector<FrameBuf> &bufs,
    int n, Planes planes, const std::vector<int> &radii,
    const bench::Args &args, cudaStream_t stream, Report report)
{
  const size_t nb = bufs.size ();
  std::vector<const uint8_t *> src (nb), hsrc (nb);
  std::vector<uint8_t *> dst (nb), hdst (nb);
  std::vector<std::vector<uint8_t>> want (nb);
  for (size_t i = 0; i < nb; i++) {
    FrameBuf &b = bufs[i];
    const size_t bytes = b.pitch * b.rows;
    BENCH_CHECK (cudaMalloc (&b.d_src, bytes));
    BENCH_CHECK (cudaMalloc (&b.d_dst, bytes));
    BENCH_CHECK (cudaMemcpy (b.d_src, b.host.data (), bytes, cudaMemcpyHostToDevice));
    src[i] = b.d_src;
    dst[i] = b.d_dst;
    hsrc[i] = b.host.data ();
  }
  /* a copy from pageable memory may return before its DMA is done, and the
   * calls run on a non-blocking stream */
  BENCH_CHECK (cudaDeviceSynchronize ());
  std::vector<cip::BoxPlane> p (n), hp (n);
  planes (src.data (), dst.data (), 1, p.data ());
  const size_t ws_bytes = cip::boxfilter_workspace_bytes (p.data (), n);
  void *d_ws;
  BENCH_CHECK (cudaMalloc (&d_ws, ws_bytes));
  check_status (cip::boxfilter_workspace_init (d_ws, ws_bytes, stream), "init");
  for (cip::BoxBorder border : { cip::BoxBorder::clip, cip::BoxBorder::replicate }) {
    for (int r : radii) {
      std::vector<Output> outs;
      for (size_t i = 0; i < nb; i++) {
        want[i].assign (bufs[i].pitch * bufs[i].rows, 0);
        hdst[i] = want[i].data ();
        outs.push_back (Output { bufs[i].name, bufs[i].d_dst, &want[i],
              bufs[i].pitch, bufs[i].wbytes, bufs[i].rows });
      }
      planes (hsrc.data (), hdst.data (), r, hp.data ());
      check_status (cip::ref::boxfilter (hp.data (), n, border), "ref");
      planes (src.data (), dst.data (), r, p.data ());
      auto run = [&] (cudaStream_t s) {
        check_status (cip::boxfilter (p.data (), n, border, d_ws, ws_bytes, s),
            "boxfilter");
      };
      char what[64];
      snprintf (what, sizeof (what), "%dx%d %s r=%d", w, h,
          cip::box_border_name (border), r);
      const unsigned long packed = cip::detail::box_packed_launches ();
      const Result res = checked (what, variant, outs, run, stream, args.runs);
      /* what boxfilter() runs for each plane of the call */
      std::vector<cip::BoxAlgorithm> algs (n);
      cip::detail::box_resolve_call (p.data (), n, cip::BoxAlgorithm::automatic,
          algs.data (), border);
      std::string notes;
      for (int i = 0; i < n; i++)
        notes += std::string (i ? ", " : "") + cip::box_algorithm_name (algs[i]);
      if (cip::detail::box_packed_launches () != packed)
        notes += " (packed)";
      report (cip::box_border_name (border), r, res, notes);
    }
  }
  for (FrameBuf &b : bufs) {
    cudaFree (b.d_src);
    cudaFree (b.d_dst);
  }
  cudaFree (d_ws);
}

/* "nv12": the call cudaboxfilter makes on a w x h NV12 frame (planes=all):
 * the Y plane (y_host) at r and the U and V channels of a UV plane (h / 2
 * rows of w / 2 pairs) at (r + 1) / 2. */
template <typename Report>
void
nv12_frame (int w, int h, const std::vector<uint8_t> &y_host, size_t pitch,
    const std::vector<int> &radii, const bench::Args &args,
    cudaStream_t stream, Report report)
{
  const int cw = w / 2, ch = h / 2;
  /* different content from luma: the frame's rows from the middle down */
  std::vector<FrameBuf> bufs (2);
  bufs[0] = FrameBuf { "Y", y_host, pitch, w, h };
  bufs[1] = FrameBuf { "UV", std::vector<uint8_t> (y_host.begin () + pitch * (h / 4),
        y_host.begin () + pitch * (h / 4) + pitch * ch), pitch, 2 * cw, ch };
  frame_call ("nv12", w, h, bufs, 3, [&] (const uint8_t *const *src,
          uint8_t *const *dst, int r, cip::BoxPlane *p) {
        p[0] = cip::BoxPlane ();
        p[0].src = cip::ImageView { src[0], pitch, w, h, 1 };
        p[0].dst = dst[0];
        p[0].dst_pitch = pitch;
        p[0].rx = p[0].ry = r;
        for (int c = 0; c < 2; c++) {
          p[1 + c] = cip::BoxPlane ();
          p[1 + c].src = cip::ImageView { src[1] + c, pitch, cw, ch, 2 };
          p[1 + c].dst = dst[1] + c;
          p[1 + c].dst_pitch = pitch;
          p[1 + c].dst_step = 2;
          p[1 + c].rx = p[1 + c].ry = (r + 1) / 2;
        }
      }, radii, args, stream, report);
}

/* "rgba": the call cudaboxfilter makes on a w x h RGBA frame with
 * planes=luma: R, G and B, step-4 channels, at r, and A copied (radius 0);
 * "rgba4" (alpha true), with the default planes=all: all four at r. The
 * frame's bytes are the luma plane's rows, four a frame row. */
template <typename Report>
void
rgba_frame (int w, int h, const std::vector<uint8_t> &y_host, size_t pitch,
    const std::vector<int> &radii, const bench::Args &args,
    cudaStream_t stream, Report report, bool alpha)
{
  const size_t rp = 4 * (size_t) w;
  std::vector<FrameBuf> bufs (1);
  bufs[0] = FrameBuf { "RGBA", std::vector<uint8_t> (rp * h), rp, 4 * w, h };
  for (size_t i = 0; i < rp * h; i++)
    bufs[0].host[i] = y_host[(i / w) % h * pitch + i % w];
  frame_call (alpha ? "rgba4" : "rgba", w, h, bufs, 4, [&] (const uint8_t *const *src,
          uint8_t *const *dst, int r, cip::BoxPlane *p) {
        for (int c = 0; c < 4; c++) {
          p[c] = cip::BoxPlane ();
          p[c].src = cip::ImageView { src[0] + c, rp, w, h, 4 };
          p[c].dst = dst[0] + c;
          p[c].dst_pitch = rp;
          p[c].dst_step = 4;
          p[c].rx = p[c].ry = c < 3 || alpha ? r : 0;
        }
      }, radii, args, stream, report);
}

}  // namespace

int
main (int argc, char **argv)
{
  bench::Args args = bench::parse_args (argc, argv);
  const std::vector<int> radii = parse_radii (argc, argv);
  const int npp_max_radius = parse_npp_max_radius (argc, argv);
  /* --fused-rows N, --fused-warps N: rows and warps per block of the fused
   * kernel (0: automatic); --fused-rotate N: BoxTuning::fused_rotate */
  cip::detail::BoxTuning tune = cip::detail::box_get_tuning ();
  for (int i = 1; i + 1 < argc; i++) {
    if (!strcmp (argv[i], "--fused-rows"))
      tune.fused_rows = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--fused-warps"))
      tune.fused_warps = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--fused-rotate"))
      tune.fused_rotate = atoi (argv[i + 1]);
  }
  cip::detail::box_set_tuning (tune);
  std::vector<Size> sizes = { {1920, 1080}, {3840, 2160}, {7680, 4320} };
  if (args.quick) {
    sizes = { {3840, 2160} };
    args.runs = std::min (args.runs, 20);
  }
  bench::JsonLines json (args.json);
  const std::string dev = bench::device_name ();
  cudaStream_t stream;
  BENCH_CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  printf ("device: %s, runs %d%s\n", dev.c_str (), args.runs,
      args.quick ? " (quick)" : "");

#ifdef HAVE_NPP
  const NppStreamContext npp = bench::npp_stream_context (stream);
#else
  printf ("built without NPP: no library baseline\n");
#endif

  printf ("median: one call between two events (launch latency included); "
      "b2b: per call, %d calls back to back (not for slow NPP masks); "
      "Gpx/s from b2b when there\n", bench::kB2B);
  printf ("%-10s %-9s %5s  %-8s %10s %10s %10s %9s  %s\n", "size", "border", "r",
      "variant", "median ms", "b2b ms", "min ms", "Gpx/s", "notes");
  for (Size sz : sizes) {
    const int w = sz.w, h = sz.h;
    const size_t pitch = ((size_t) w + 255) / 256 * 256;
    const size_t bytes = pitch * h;
    std::vector<uint8_t> host = make_frame (w, h, pitch);
    uint8_t *d_src, *d_dst;
    BENCH_CHECK (cudaMalloc (&d_src, bytes));
    BENCH_CHECK (cudaMalloc (&d_dst, bytes));
    BENCH_CHECK (cudaMemcpy (d_src, host.data (), bytes, cudaMemcpyHostToDevice));
    BENCH_CHECK (cudaDeviceSynchronize ());   /* pageable copy vs non-blocking stream */
    cip::ImageView hv { host.data (), pitch, w, h, 1 };
    cip::ImageView dv { d_src, pitch, w, h, 1 };
    bench::FrameCopies copies (d_src, bytes);   /* for "auto4f" */

    /* workspace for the SAT path, and a precomputed SAT for "gather" */
    cip::BoxPlane proto;
    proto.src = dv;
    proto.dst = d_dst;
    proto.dst_pitch = pitch;
    const size_t ws_bytes = cip::boxfilter_workspace_bytes (&proto, 1);
    void *d_ws;
    BENCH_CHECK (cudaMalloc (&d_ws, ws_bytes));
    check_status (cip::boxfilter_workspace_init (d_ws, ws_bytes, stream), "init");
    const size_t sat_pitch = (((size_t) w + 1) * 4 + 127) / 128 * 128;
    const size_t iws_bytes = cip::integral_workspace_bytes (w, h, cip::SatType::u32, false);
    uint32_t *d_sat;
    void *d_iws;
    BENCH_CHECK (cudaMalloc (&d_sat, sat_pitch * (h + 1)));
    BENCH_CHECK (cudaMalloc (&d_iws, iws_bytes ? iws_bytes : 256));
    check_status (cip::integral_workspace_init (d_iws, iws_bytes, stream), "iinit");
    cip::SatDest sd;
    sd.sum = d_sat;
    sd.sum_pitch = sat_pitch;
    check_status (cip::integral (dv, cip::SatType::u32, sd, d_iws, iws_bytes, stream),
        "integral");
    BENCH_CHECK (cudaStreamSynchronize (stream));
    const double px = (double) w * h;

    auto report = [&] (const char *border, int r, const Result &res,
        const std::string &notes) {
      const double ref_ms = res.b2b_ms > 0 ? res.b2b_ms : res.t.median_ms;
      char b2b[32] = "         -";
      if (res.b2b_ms > 0)
        snprintf (b2b, sizeof (b2b), "%10.4f", res.b2b_ms);
      printf ("%4dx%-5d %-9s %5d  %-8s %10.4f %s %10.4f %9.1f  %s%s\n", w, h,
          border, r, res.variant.c_str (), res.t.median_ms, b2b, res.t.min_ms,
          px / (ref_ms * 1e6), res.verified ? "" : "MISMATCH ", notes.c_str ());
      json.write (bench::kv ("bench", "boxfilter") + ", " + bench::kv ("device", dev) +
          ", " + bench::kv ("width", w) + ", " + bench::kv ("height", h) + ", " +
          bench::kv ("border", border) + ", " + bench::kv ("radius", r) + ", " +
          bench::kv ("variant", res.variant) + ", " +
          bench::kv ("median_ms", res.t.median_ms) + ", " +
          bench::kv ("min_ms", res.t.min_ms) + ", " +
          bench::kv ("max_ms", res.t.max_ms) + ", " +
          bench::kv ("b2b_ms", res.b2b_ms) + ", " +
          bench::kv ("runs", res.t.runs) + ", " +
          bench::kv ("verified", res.verified ? "yes" : "no") +
          (notes.empty () ? "" : ", " + bench::kv ("notes", notes)));
    };

    /* SAT alone, radius-independent */
    {
      auto run = [&] (cudaStream_t s) {
        check_status (cip::integral (dv, cip::SatType::u32, sd, d_iws, iws_bytes,
                s), "integral");
      };
      Result res { "integral", bench::time_ms (stream, run, args.runs),
        bench::b2b_ms (stream, run, args.runs), true };
      report ("-", 0, res, cip::sat_algorithm_name (cip::integral_pick (w, h,
                  cip::SatType::u32)));
    }

    for (cip::BoxBorder border : { cip::BoxBorder::clip, cip::BoxBorder::replicate }) {
      const char *bname = cip::box_border_name (border);
      for (int r : radii) {
        /* reference output */
        std::vector<uint8_t> want (bytes, 0);
        cip::BoxPlane hp;
        hp.src = hv;
        hp.dst = want.data ();
        hp.dst_pitch = pitch;
        hp.rx = hp.ry = r;
        check_status (cip::ref::boxfilter (&hp, 1, border), "ref");

        struct Variant {
          const char *name;
          cip::BoxAlgorithm algo;
          bool presat;
          bool tile;            /* direct's shared-memory tile kernel */
          bool frames;          /* on bench::kFrames copies in turn */
          bool unchained = false; /* no PDL between calls (launch.cuh) */
        };
        const Variant variants[] = {
          {"auto", cip::BoxAlgorithm::automatic, false, false, false},
          {"auto4f", cip::BoxAlgorithm::automatic, false, false, true},
          {"auto-unch", cip::BoxAlgorithm::automatic, false, false, false, true},
          {"auto4f-unch", cip::BoxAlgorithm::automatic, false, false, true, true},
          {"sat", cip::BoxAlgorithm::sat, false, false, false},
          {"gather", cip::BoxAlgorithm::sat, true, false, false},
          {"direct", cip::BoxAlgorithm::direct, false, false, false},
          {"dtile", cip::BoxAlgorithm::direct, false, true, false},
          {"sliding", cip::BoxAlgorithm::sliding, false, false, false},
          {"fused", cip::BoxAlgorithm::fused, false, false, false} };
        std::string fastest;
        double fastest_ms = 0;
        for (const Variant &v : variants) {
          if (v.algo == cip::BoxAlgorithm::direct && r > cip::boxfilter_direct_max_radius)
            continue;
          if (v.tile && r > 5)
            continue;           /* the same kernel as "direct" there */
          cip::detail::BoxTuning vt = tune;
          vt.direct_tile = v.tile ? 1 : 0;
          cip::detail::box_set_tuning (vt);
          cip::detail::set_between_calls_pdl (!v.unchained);
          cip::BoxPlane p = proto;
          p.rx = p.ry = r;
          if (v.presat) {
            p.sat = d_sat;
            p.sat_pitch = sat_pitch;
          }
          auto run = [&] (cudaStream_t s) {
            if (v.frames)
              p.src.data = copies.next ();
            check_status (cip::boxfilter (&p, 1, border, d_ws, ws_bytes, s, v.algo),
                "boxfilter");
          };
          char what[64];
          snprintf (what, sizeof (what), "%dx%d %s r=%d", w, h, bname, r);
          const Result res = checked (what, v.name,
              { Output { "Y", d_dst, &want, pitch, w, h } }, run, stream,
              args.runs);
          std::string notes;
          if (v.algo == cip::BoxAlgorithm::automatic)
            notes = cip::box_algorithm_name (cip::boxfilter_pick (p, border));
          report (bname, r, res, notes);
          cip::detail::box_set_tuning (tune);
          cip::detail::set_between_calls_pdl (true);
          if (v.algo != cip::BoxAlgorithm::automatic && !v.presat && res.verified &&
              (fastest.empty () || res.b2b_ms < fastest_ms)) {
            fastest = v.name;
            fastest_ms = res.b2b_ms;
          }
        }
        printf ("%4dx%-5d %-9s %5d  fastest without a table: %s (%.4f ms b2b)\n",
            w, h, bname, r, fastest.c_str (), fastest_ms);

#ifdef HAVE_NPP
        if (border == cip::BoxBorder::replicate && r <= npp_max_radius) {
          const NppiSize size = { w, h }, mask = { 2 * r + 1, 2 * r + 1 };
          const NppiPoint off = { 0, 0 }, anchor = { r, r };
          NppStatus ns = NPP_SUCCESS;
          auto run = [&] (cudaStream_t) {
            NppStatus e = nppiFilterBoxBorder_8u_C1R_Ctx (d_src, (int) pitch, size,
                off, d_dst, (int) pitch, size, mask, anchor, NPP_BORDER_REPLICATE, npp);
            if (e != NPP_SUCCESS)
              ns = e;
          };
          BENCH_CHECK (cudaMemsetAsync (d_dst, 0xA5, bytes, stream));
          /* one call, timed, to size the number of runs */
          bench::Timing probe = bench::time_ms (stream, run, 1, 1);
          if (ns != NPP_SUCCESS) {
            printf ("%4dx%-5d %-9s %5d  %-8s NPP error %d\n", w, h, bname, r, "npp",
                (int) ns);
          } else {
            std::vector<uint8_t> got (bytes);
            BENCH_CHECK (cudaMemcpy (got.data (), d_dst, bytes, cudaMemcpyDeviceToHost));
            long long n_diff = 0, n_below = 0;
            int max_diff = 0;
            for (int y = 0; y < h; y++)
              for (int x = 0; x < w; x++) {
                const int d = (int) got[(size_t) y * pitch + x] -
                    (int) want[(size_t) y * pitch + x];
                n_diff += d != 0;
                n_below += d < 0;
                max_diff = std::max (max_diff, std::abs (d));
              }
            int runs = args.runs;
            if (probe.median_ms > 0)
              runs = std::max (5, std::min (args.runs, (int) (2000.0 / probe.median_ms)));
            Result res { "npp", bench::time_ms (stream, run, runs, 2),
              probe.median_ms < 1.0 ? bench::b2b_ms (stream, run, runs) : 0.0, true };
            char notes[160];
            snprintf (notes, sizeof (notes),
                "vs ours: %.2f%% of pixels differ (%.2f%% lower), max |diff| %d",
                100.0 * (double) n_diff / px, 100.0 * (double) n_below / px, max_diff);
            report (bname, r, res, notes);
          }
        }
#endif
      }
    }
    nv12_frame (sz.w, sz.h, host, pitch, radii, args, stream, report);
    rgba_frame (sz.w, sz.h, host, pitch, radii, args, stream, report, false);
    rgba_frame (sz.w, sz.h, host, pitch, radii, args, stream, report, true);
    cudaFree (d_src);
    cudaFree (d_dst);
    cudaFree (d_ws);
    cudaFree (d_sat);
    cudaFree (d_iws);
  }
  cudaStreamDestroy (stream);
  if (g_mismatch)
    fprintf (stderr, "some outputs differ from the CPU reference\n");
  return g_mismatch ? 1 : 0;
}
