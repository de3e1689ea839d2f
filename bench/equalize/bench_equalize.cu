/* Equalize benchmark: 8-bit luma at 1920x1080 and 3840x2160 (natural-looking
 * content): global equalization, CLAHE 8x8 (clip 40), the LUT build + apply
 * from an upstream device histogram, and RGBA luma mode; global and CLAHE 8x8
 * of 16-bit words (P010: 10 bits at shift 6; 16-bit gray); built with -DHAVE_NPP
 * (bench/build-device.sh) also the NPP chain nppiHistogramEven -> host LUT
 * (cv::equalizeHist's formula) -> nppiLUT_Linear, which needs one host sync per
 * frame. Every variant's output is checked against the CPU reference once.
 * Times: median of --runs CUDA-event timings after warm-up; --json PATH
 * appends one JSON object per line. */
#include "bench.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "cip/equalize.h"
#include "cip/histogram.h"

#ifdef HAVE_NPP
#include <npp.h>

#include "bench_npp.h"
#endif

namespace {

std::vector<uint8_t>
natural (int w, int h, int bpp, uint32_t seed)
{
  std::vector<uint8_t> v ((size_t) w * h * bpp);
  uint32_t s = seed * 2654435761u + 1u;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      for (int c = 0; c < bpp; c++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        const double fx = x / 97.0, fy = y / 71.0;
        const double b = 90 + 50 * std::sin (fx + c) * std::cos (fy * 0.7) +
            30 * std::sin ((fx + fy) * 0.3);
        const int iv = (int) std::lround (b + (double) (s >> 28) - 7.5);
        v[((size_t) y * w + x) * bpp + c] = (uint8_t) (iv < 0 ? 0 : iv > 255 ? 255 : iv);
      }
  return v;
}

/* 16-bit words of natural content: the 8-bit picture in the high bits of a
 * depth-bit value, noise below, at bit `shift`. */
std::vector<uint8_t>
natural16 (int w, int h, int depth, int shift, uint32_t seed)
{
  const std::vector<uint8_t> v8 = natural (w, h, 1, seed);
  std::vector<uint8_t> v ((size_t) w * h * 2);
  uint32_t s = seed * 2246822519u + 3u;
  for (size_t i = 0; i < v8.size (); i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    const uint32_t val = ((uint32_t) v8[i] << (depth - 8)) |
        (s & ((1u << (depth - 8)) - 1u));
    const uint32_t word = val << shift;
    v[2 * i] = (uint8_t) word;
    v[2 * i + 1] = (uint8_t) (word >> 8);
  }
  return v;
}

struct Ctx {
  cudaStream_t stream = nullptr;
  bench::Args args;
  bench::JsonLines *json = nullptr;
  std::string device;
};

void
report (Ctx &c, const char *variant, int w, int h, const bench::Timing &t,
    size_t bytes, bool ok)
{
  const double gbs = (double) bytes / (t.median_ms * 1e6);
  printf ("%-22s %5dx%-5d %9.4f %9.4f %8.0f %s\n", variant, w, h, t.median_ms, t.min_ms,
      gbs, ok ? "" : "MISMATCH");
  if (c.json)
    c.json->write (bench::kv ("bench", std::string ("equalize")) + ", " +
        bench::kv ("device", c.device) + ", " + bench::kv ("variant", std::string (variant)) +
        ", " + bench::kv ("width", (double) w) + ", " + bench::kv ("height", (double) h) +
        ", " + bench::kv ("median_ms", t.median_ms) + ", " + bench::kv ("min_ms", t.min_ms) +
        ", " + bench::kv ("gbs", gbs) + ", " + bench::kv ("matches_ref", ok ? 1.0 : 0.0));
}

bool
same (const std::vector<uint8_t> &want, uint8_t *d, size_t n, const char *what)
{
  std::vector<uint8_t> got (n);
  BENCH_CHECK (cudaMemcpy (got.data (), d, n, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      fprintf (stderr, "MISMATCH %s at byte %zu: got %d want %d\n", what, i, got[i], want[i]);
      return false;
    }
  return true;
}

/* One cip variant: cfg on a w x h frame of bpp bytes per pixel. */
void
bench_cip (Ctx &c, const char *variant, const cip::EqConfig &cfg, int w, int h,
    bool from_hist)
{
  const int bpp = cfg.layout != cip::EqLayout::gray ? 4 : cfg.depth > 8 ? 2 : 1;
  const size_t n = (size_t) w * h * bpp;
  std::vector<uint8_t> src = bpp == 2 ? natural16 (w, h, cfg.depth, cfg.shift, 7) :
      natural (w, h, bpp, 7), want (n);
  uint8_t *ds, *dd;
  uint32_t *dh;
  void *ws;
  const size_t wsb = cip::equalize_workspace_bytes (cfg);
  BENCH_CHECK (cudaMalloc (&ds, n));
  BENCH_CHECK (cudaMalloc (&dd, n));
  BENCH_CHECK (cudaMalloc (&dh, 3 * 256 * 4));
  BENCH_CHECK (cudaMalloc (&ws, wsb));
  BENCH_CHECK (cudaMemcpy (ds, src.data (), n, cudaMemcpyHostToDevice));
  if (cip::equalize_workspace_init (ws, wsb, c.stream) != cip::Status::ok)
    exit (2);
  cip::EqFrame hf { src.data (), (size_t) w * bpp, want.data (), (size_t) w * bpp, w, h };
  cip::EqFrame f { ds, (size_t) w * bpp, dd, (size_t) w * bpp, w, h };
  std::vector<uint32_t> hist (256);
  if (from_hist) {
    cip::HistInput in;
    in.view.data = src.data ();
    in.view.pitch = (size_t) w * bpp;
    in.view.width = w;
    in.view.height = h;
    cip::ref::histogram (&in, 1, 256, hist.data (), false);
    BENCH_CHECK (cudaMemcpy (dh, hist.data (), 1024, cudaMemcpyHostToDevice));
    cip::ref::equalize_from_histogram (hf, cfg, hist.data (), nullptr, nullptr);
  } else {
    cip::ref::equalize (hf, cfg, nullptr, nullptr);
  }
  auto run = [&] (cudaStream_t s) {
    cip::Status st = from_hist ?
        cip::equalize_from_histogram (f, cfg, dh, true, nullptr, nullptr, ws, wsb, s) :
        cip::equalize (f, cfg, nullptr, nullptr, ws, wsb, s);
    if (st != cip::Status::ok) {
      fprintf (stderr, "%s: %s %s\n", variant, cip::status_string (st), cip::last_cuda_error ());
      exit (2);
    }
  };
  run (c.stream);
  BENCH_CHECK (cudaStreamSynchronize (c.stream));
  const bool ok = same (want, dd, n, variant);
  bench::Timing t = bench::time_ms (c.stream, run, c.args.runs);
  report (c, variant, w, h, t, 2 * n, ok);
  cudaFree (ds);
  cudaFree (dd);
  cudaFree (dh);
  cudaFree (ws);
}

#ifdef HAVE_NPP
/* The buffer-size argument is int * in older NPP and size_t * in newer. */
template <typename T>
NppStatus
npp_buffer_size_of (NppStatus (*fn) (NppiSize, int, T *, NppStreamContext),
    NppiSize roi, NppStreamContext ctx, size_t *out)
{
  T n = 0;
  NppStatus st = fn (roi, 257, &n, ctx);
  *out = (size_t) n;
  return st;
}

void
bench_npp (Ctx &c, int w, int h)
{
  const size_t n = (size_t) w * h;
  std::vector<uint8_t> src = natural (w, h, 1, 7), want (n);
  cip::EqFrame hf { src.data (), (size_t) w, want.data (), (size_t) w, w, h };
  cip::ref::equalize (hf, cip::EqConfig (), nullptr, nullptr);
  NppStreamContext ctx = bench::npp_stream_context (c.stream);
  NppiSize roi { w, h };
  size_t bufsz = 0;
  if (npp_buffer_size_of (nppiHistogramEvenGetBufferSize_8u_C1R_Ctx, roi, ctx, &bufsz) !=
      NPP_SUCCESS)
    exit (2);
  Npp8u *ds, *dd, *buf;
  Npp32s *dhist, *dvals, *dlevels, *hhist, *hvals;
  BENCH_CHECK (cudaMalloc (&ds, n));
  BENCH_CHECK (cudaMalloc (&dd, n));
  BENCH_CHECK (cudaMalloc (&buf, bufsz ? bufsz : 1));
  BENCH_CHECK (cudaMalloc (&dhist, 256 * 4));
  BENCH_CHECK (cudaMalloc (&dvals, 256 * 4));
  BENCH_CHECK (cudaMalloc (&dlevels, 256 * 4));
  BENCH_CHECK (cudaMallocHost (&hhist, 256 * 4));
  BENCH_CHECK (cudaMallocHost (&hvals, 256 * 4));
  BENCH_CHECK (cudaMemcpy (ds, src.data (), n, cudaMemcpyHostToDevice));
  std::vector<Npp32s> levels (256);
  for (int i = 0; i < 256; i++)
    levels[i] = i;
  BENCH_CHECK (cudaMemcpy (dlevels, levels.data (), 1024, cudaMemcpyHostToDevice));
  auto run = [&] (cudaStream_t s) {
    if (nppiHistogramEven_8u_C1R_Ctx (ds, w, roi, dhist, 257, 0, 256, buf, ctx) != NPP_SUCCESS)
      exit (2);
    BENCH_CHECK (cudaMemcpyAsync (hhist, dhist, 1024, cudaMemcpyDeviceToHost, s));
    BENCH_CHECK (cudaStreamSynchronize (s));
    /* cv::equalizeHist's LUT */
    int i = 0, total = w * h;
    while (!hhist[i])
      ++i;
    if (hhist[i] == total) {
      for (int v = 0; v < 256; v++)
        hvals[v] = v;
    } else {
      float scale = 255.f / (total - hhist[i]);
      int sum = 0;
      for (int v = 0; v <= i; v++)
        hvals[v] = 0;
      for (i++; i < 256; ++i) {
        sum += hhist[i];
        int r = (int) std::lrint (sum * scale);
        hvals[i] = r < 0 ? 0 : r > 255 ? 255 : r;
      }
    }
    BENCH_CHECK (cudaMemcpyAsync (dvals, hvals, 1024, cudaMemcpyHostToDevice, s));
    if (nppiLUT_Linear_8u_C1R_Ctx (ds, w, dd, w, roi, dvals, dlevels, 256, ctx) != NPP_SUCCESS)
      exit (2);
  };
  run (c.stream);
  BENCH_CHECK (cudaStreamSynchronize (c.stream));
  const bool ok = same (want, dd, n, "npp");
  bench::Timing t = bench::time_ms (c.stream, run, c.args.runs);
  report (c, "npp_hist_hostlut_lut", w, h, t, 2 * n, ok);
  cudaFree (ds);
  cudaFree (dd);
  cudaFree (buf);
  cudaFree (dhist);
  cudaFree (dvals);
  cudaFree (dlevels);
  cudaFreeHost (hhist);
  cudaFreeHost (hvals);
}
#endif

}  // namespace

int
main (int argc, char **argv)
{
  Ctx c;
  c.args = bench::parse_args (argc, argv);
  if (c.args.quick)
    c.args.runs = std::min (c.args.runs, 20);
  bench::JsonLines json (c.args.json);
  c.json = c.args.json ? &json : nullptr;
  c.device = bench::device_name ();
  BENCH_CHECK (cudaStreamCreateWithFlags (&c.stream, cudaStreamNonBlocking));
  printf ("equalize bench on %s, %d runs per timing\n", c.device.c_str (), c.args.runs);
#ifndef HAVE_NPP
  printf ("(built without NPP: NPP baseline skipped; use bench/build-device.sh)\n");
#endif
  printf ("%-22s %-11s %9s %9s %8s\n", "variant", "size", "median ms", "min ms", "GB/s");
  struct Size { int w, h; };
  for (Size s : { Size { 1920, 1080 }, Size { 3840, 2160 } }) {
    cip::EqConfig g;
    bench_cip (c, "cip_global", g, s.w, s.h, false);
    cip::EqConfig k;
    k.mode = cip::EqMode::clahe;
    bench_cip (c, "cip_clahe_8x8", k, s.w, s.h, false);
    bench_cip (c, "cip_lut_from_hist", g, s.w, s.h, true);
    cip::EqConfig r;
    r.layout = cip::EqLayout::rgbx;
    bench_cip (c, "cip_global_rgba_luma", r, s.w, s.h, false);
    k.layout = cip::EqLayout::rgbx;
    bench_cip (c, "cip_clahe_rgba_luma", k, s.w, s.h, false);
    /* high bit depth: P010's luma and 16-bit gray */
    struct Depth { int depth, shift; const char *global, *clahe; };
    for (Depth d : { Depth { 10, 6, "cip_global_p010", "cip_clahe_8x8_p010" },
             Depth { 16, 0, "cip_global_16bit", "cip_clahe_8x8_16bit" } }) {
      cip::EqConfig hg;
      hg.depth = d.depth;
      hg.shift = d.shift;
      bench_cip (c, d.global, hg, s.w, s.h, false);
      cip::EqConfig hk = hg;
      hk.mode = cip::EqMode::clahe;
      bench_cip (c, d.clahe, hk, s.w, s.h, false);
    }
#ifdef HAVE_NPP
    bench_npp (c, s.w, s.h);
#endif
  }
  return 0;
}
