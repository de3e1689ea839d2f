/* Benchmark of the integral family (not a test): our single_pass, multi_pass,
 * tiled and automatic SATs against NPP's nppiIntegral_8u32s_C1R_Ctx and two
 * floors, at 1080p, UHD, 8K and 16384^2:
 * the copy bandwidth (the bytes at the device-to-device copy rate) and a
 * kernel that reads the input once and writes the table once with no sums
 * (what a one-pass SAT cannot beat, launch included).
 *
 *   bench_integral [--runs N] [--quick] [--json PATH]
 *                  [--sweep | --sweep-multi | --sweep-tiled] [--profile]
 *                  [--l2-sizes] [--size WxH ...]
 *
 * Every variant's output is checked against cip::ref::integral once per size
 * before it is timed; a mismatch aborts. Times: one call between two events,
 * and for the main rows also back to back (bench::b2b_ms: the GPU time a call
 * takes when the stream is kept busy, as in a pipeline). GB/s counts bytes
 * read (the 8-bit input) plus bytes written (the table(s)). --sweep also times the kernels'
 * tuning knobs (rows per strip, look-back bound, block size) at each size
 * up to 8K (--sweep-tiled: only tiled's rows per tile and store kind, up to
 * 16384^2); --profile only launches each algorithm a few times (for ncu;
 * tiled also with three launches where it runs grouped). Every size also
 * times tiled with its input kept in L2 between its passes, and not, on one
 * input and on 4 frames in turn; --l2-sizes adds 16384x2048 and 16384x4096.
 * Rows "unchained" time tiled with no PDL between calls (detail/launch.cuh);
 * "tables only" its first pass alone (GB/s: input bytes). --size WxH
 * (repeatable) runs those sizes instead. u64 and u32 + squares are timed
 * at UHD and 8K, and at every size with --all-types.
 * --wide: SATs of 16-bit planes (u32, u64, u32 + squares) at 1080p and UHD.
 * NPP has no 16-bit integral, so each is shown against our 8-bit time on a
 * plane of the same size scaled by the bytes moved (the 8-bit kernels'
 * efficiency): "8-bit scaled / 16-bit" above 1 means the 16-bit path moves
 * bytes faster than the 8-bit one. --wide --sweep also times the 16-bit
 * path's rows per strip and block size cap (u32, u64, u32 + squares). */
#include <algorithm>
#include <cinttypes>
#include <functional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench.h"
#include "bench_npp.h"
#include "cip/integral.h"
#include "detail/integral_internal.h"
#include "detail/launch.cuh"

#ifdef HAVE_NPP
#include <npp.h>
#endif

namespace {

bool sweep_multi_only = false;
bool sweep_tiled_only = false;

struct Size { int w, h; };

struct Image {
  int w = 0, h = 0;
  int bytes = 1;              /* per sample: 1, or 2 (16-bit values) */
  size_t pitch = 0;
  std::vector<uint8_t> host;
  uint8_t *dev = nullptr;
};

/* A plane of random (or constant) samples of `bytes` bytes: 8-bit values, or
 * 16-bit ones. */
Image
make_input (int w, int h, bool constant, int bytes = 1)
{
  Image im;
  im.w = w;
  im.h = h;
  im.bytes = bytes;
  im.pitch = ((size_t) w * bytes + 255) / 256 * 256;
  im.host.resize (im.pitch * h);
  uint32_t s = 0x9E3779B9u;
  for (auto &b : im.host) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    b = constant ? 117 : (uint8_t) (s >> 24);
  }
  BENCH_CHECK (cudaMalloc (&im.dev, im.host.size ()));
  BENCH_CHECK (cudaMemcpy (im.dev, im.host.data (), im.host.size (),
          cudaMemcpyHostToDevice));
  /* a pageable cudaMemcpy may return before its DMA is done, and the timed
   * work runs on a non-blocking stream */
  BENCH_CHECK (cudaDeviceSynchronize ());
  return im;
}

cip::ImageView
dev_view (const Image &im)
{
  cip::ImageView v;
  v.data = im.dev;
  v.pitch = im.pitch;
  v.width = im.w;
  v.height = im.h;
  v.step = v.bytes = im.bytes;
  v.depth = 8 * im.bytes;
  return v;
}

cip::ImageView
host_view (const Image &im)
{
  cip::ImageView v = dev_view (im);
  v.data = im.host.data ();
  return v;
}

/* A device table (W+1) x (H+1) with a 256-byte-aligned pitch. */
struct Table {
  size_t pitch = 0, bytes = 0;
  void *dev = nullptr;
  Table (int w, int h, size_t es) {
    pitch = (((size_t) w + 1) * es + 255) / 256 * 256;
    bytes = pitch * ((size_t) h + 1);
    BENCH_CHECK (cudaMalloc (&dev, bytes));
  }
  ~Table () { cudaFree (dev); }
  Table (const Table &) = delete;
  Table &operator= (const Table &) = delete;
};

/* Reference tables (u32 or u64, squares optional) on the host, compact. */
struct Ref {
  std::vector<uint8_t> sum;
  std::vector<uint64_t> sq;
  size_t sum_pitch = 0;
};

Ref
make_ref (const Image &im, cip::SatType type, bool squared)
{
  Ref r;
  const size_t es = type == cip::SatType::u32 ? 4 : 8;
  r.sum_pitch = ((size_t) im.w + 1) * es;
  r.sum.resize (r.sum_pitch * ((size_t) im.h + 1));
  cip::SatDest d;
  d.sum = r.sum.data ();
  d.sum_pitch = r.sum_pitch;
  if (squared) {
    r.sq.resize (((size_t) im.w + 1) * ((size_t) im.h + 1));
    d.sqsum = r.sq.data ();
    d.sqsum_pitch = ((size_t) im.w + 1) * 8;
  }
  if (cip::ref::integral (host_view (im), type, d) != cip::Status::ok) {
    fprintf (stderr, "reference failed\n");
    exit (2);
  }
  return r;
}

/* Compares a device table with a compact host one; returns the number of
 * differing rows (0 = identical) and prints the first difference. */
size_t
compare (const void *dev, size_t dev_pitch, const void *host, size_t row_bytes,
    int rows, const char *what)
{
  std::vector<uint8_t> buf (dev_pitch * rows);
  BENCH_CHECK (cudaMemcpy (buf.data (), dev, buf.size (),
          cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (int y = 0; y < rows; y++) {
    const uint8_t *a = buf.data () + (size_t) y * dev_pitch;
    const uint8_t *b = (const uint8_t *) host + (size_t) y * row_bytes;
    if (memcmp (a, b, row_bytes) != 0) {
      if (!bad) {
        size_t k = 0;
        while (a[k] == b[k])
          k++;
        fprintf (stderr, "%s: first difference in row %d near byte %zu\n", what,
            y, k);
      }
      bad++;
    }
  }
  return bad;
}

struct Row {
  std::string size, variant;
  double ms, gbs, pct_copy, speedup;  /* one call between two events */
  double b2b = 0;               /* ms a call back to back (bench::b2b_ms); 0: not run */
  double npp_b2b = 0;           /* NPP's, for the ratio */
};

struct Context {
  bench::Args args;
  bench::JsonLines *json;
  cudaStream_t stream;
  double copy_gbs;
  std::string device;
  int runs;
  bench::Workspace ws;
};

std::string
size_name (const Size &s)
{
  return std::to_string (s.w) + "x" + std::to_string (s.h);
}

void
print_row (const Row &r)
{
  char sp[32] = "-", b2b[32] = "-", pb[32] = "-", spb[32] = "-";
  if (r.speedup > 0)
    snprintf (sp, sizeof (sp), "%.1fx", r.speedup);
  if (r.b2b > 0) {
    snprintf (b2b, sizeof (b2b), "%.4f", r.b2b);
    snprintf (pb, sizeof (pb), "%.1f%%", r.pct_copy * r.ms / r.b2b);
    if (r.npp_b2b > 0)
      snprintf (spb, sizeof (spb), "%.1fx", r.npp_b2b / r.b2b);
  }
  printf ("%-12s %-34s %10.4f %9.0f %8.1f%% %9s %9s %9s %9s\n", r.size.c_str (),
      r.variant.c_str (), r.ms, r.gbs, r.pct_copy, sp, b2b, pb, spb);
  fflush (stdout);
}

void
emit (Context &cx, const Row &r, const std::string &input, double floor_ms,
    const std::string &extra = "")
{
  print_row (r);
  using bench::kv;
  std::string f = kv ("bench", std::string ("integral")) + ", " +
      kv ("device", cx.device) + ", " + kv ("size", r.size) + ", " +
      kv ("input", input) + ", " + kv ("variant", r.variant) + ", " +
      kv ("median_ms", r.ms) + ", " + kv ("gbs", r.gbs) + ", " +
      kv ("pct_copy", r.pct_copy) + ", " + kv ("floor_ms", floor_ms) + ", " +
      kv ("copy_gbs", cx.copy_gbs) + ", " + kv ("runs", (double) cx.runs);
  if (r.speedup > 0)
    f += ", " + kv ("speedup_vs_npp", r.speedup);
  if (r.b2b > 0) {
    f += ", " + kv ("b2b_ms", r.b2b) + ", " + kv ("b2b_calls",
        (double) bench::kB2B) + ", " + kv ("pct_copy_b2b",
        r.pct_copy * r.ms / r.b2b);
    if (r.npp_b2b > 0)
      f += ", " + kv ("speedup_vs_npp_b2b", r.npp_b2b / r.b2b);
  }
  if (!extra.empty ())
    f += ", " + extra;
  cx.json->write (f);
}

/* The floor of any one-pass SAT at this size: a kernel that reads the
 * 8-bit plane once and writes the (W+1) x (H+1) u32 table once, in the
 * table's layout (entry (x + 1, y + 1) = sample (x, y), row and column 0
 * zero), with nothing to sum. Four entries a thread, one table row a
 * grid row. */
__global__ void
expand_floor (const uint8_t *src, size_t src_pitch, int w, int h,
    uint32_t *dst, size_t dst_pitch)
{
  const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  const int y = blockIdx.y;
  if (x > w)
    return;
  uint32_t v[4];
  const uint8_t *r = src + (size_t) (y - 1) * src_pitch;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const int sx = x + i - 1;
    v[i] = y > 0 && sx >= 0 && sx < w ? __ldg (r + sx) : 0u;
  }
  uint32_t *o = reinterpret_cast<uint32_t *> (reinterpret_cast<uint8_t *> (dst) +
      (size_t) y * dst_pitch) + x;
  if (x + 3 <= w) {
    __stcs (reinterpret_cast<uint4 *> (o), make_uint4 (v[0], v[1], v[2], v[3]));
  } else {
    for (int i = 0; i < 4 && x + i <= w; i++)
      o[i] = v[i];
  }
}

/* Runs expand_floor once on a poisoned table and checks every entry (so
 * the floor is a kernel that really writes the whole table), then times
 * it. */
double
time_expand_floor (Context &cx, const Image &im, double *b2b)
{
  Table t (im.w, im.h, 4);
  const dim3 grid (((im.w + 1 + 3) / 4 + 255) / 256, im.h + 1);
  auto run = [&] (cudaStream_t st) {
    expand_floor<<<grid, 256, 0, st>>> (im.dev, im.pitch, im.w, im.h,
        static_cast<uint32_t *> (t.dev), t.pitch);
  };
  BENCH_CHECK (cudaMemsetAsync (t.dev, 0xAB, t.bytes, cx.stream));
  run (cx.stream);
  BENCH_CHECK (cudaGetLastError ());
  BENCH_CHECK (cudaStreamSynchronize (cx.stream));
  const size_t w1 = (size_t) im.w + 1;
  std::vector<uint32_t> want (w1 * ((size_t) im.h + 1), 0u);
  for (int y = 0; y < im.h; y++)
    for (int x = 0; x < im.w; x++)
      want[(size_t) (y + 1) * w1 + x + 1] = im.host[(size_t) y * im.pitch + x];
  const size_t bad = compare (t.dev, t.pitch, want.data (), w1 * 4, im.h + 1,
      "floor kernel");
  if (bad) {
    fprintf (stderr, "ABORT: the floor kernel's table differs in %zu rows\n",
        bad);
    exit (3);
  }
  const double ms = bench::time_ms (cx.stream, run, cx.runs, 10).median_ms;
  *b2b = bench::b2b_ms (cx.stream, run, cx.runs);
  BENCH_CHECK (cudaGetLastError ());
  return ms;
}

/* Runs cip::integral once and verifies it, then times it (and back to back
 * into *b2b when given). */
bench::Timing
time_ours (Context &cx, const Image &im, cip::SatType type, bool squared,
    cip::SatAlgorithm algo, const Ref &ref, const std::string &what,
    double *b2b = nullptr, int frames = 1)
{
  const size_t es = type == cip::SatType::u32 ? 4 : 8;
  Table sum (im.w, im.h, es);
  Table sq (squared ? im.w : 0, squared ? im.h : 0, 8);
  cx.ws.ensure (cip::integral_workspace_bytes (im.w, im.h, type, squared),
      cip::integral_workspace_init, cx.stream);
  cip::SatDest d;
  d.sum = sum.dev;
  d.sum_pitch = sum.pitch;
  if (squared) {
    d.sqsum = static_cast<uint64_t *> (sq.dev);
    d.sqsum_pitch = sq.pitch;
  }
  /* frames > 1: calls take the input's copies in turn */
  bench::FrameCopies copies (im.dev, im.pitch * im.h, frames);
  cip::ImageView v = dev_view (im);
  auto run = [&] (cudaStream_t st) {
    v.data = copies.next ();
    cip::Status s = cip::integral (v, type, d, cx.ws.p, cx.ws.n, st, algo);
    if (s != cip::Status::ok) {
      fprintf (stderr, "%s: %s (%s)\n", what.c_str (), cip::status_string (s),
          cip::last_cuda_error ());
      exit (2);
    }
  };
  /* verify, on poisoned outputs */
  BENCH_CHECK (cudaMemsetAsync (sum.dev, 0xAB, sum.bytes, cx.stream));
  if (squared)
    BENCH_CHECK (cudaMemsetAsync (sq.dev, 0xAB, sq.bytes, cx.stream));
  run (cx.stream);
  BENCH_CHECK (cudaStreamSynchronize (cx.stream));
  size_t bad = compare (sum.dev, sum.pitch, ref.sum.data (), ref.sum_pitch,
      im.h + 1, what.c_str ());
  if (!bad && squared)
    bad = compare (sq.dev, sq.pitch, ref.sq.data (), ((size_t) im.w + 1) * 8,
        im.h + 1, (what + " sqsum").c_str ());
  if (bad) {
    fprintf (stderr, "ABORT: %s differs from the reference in %zu rows\n",
        what.c_str (), bad);
    exit (3);
  }
  const bench::Timing t = bench::time_ms (cx.stream, run, cx.runs, 10);
  if (b2b)
    *b2b = bench::b2b_ms (cx.stream, run, cx.runs);
  return t;
}

#ifdef HAVE_NPP
/* NPP's 8u32s integral (same exclusive layout, nVal = 0); its output is
 * compared with our u32 reference bit for bit and a difference is reported,
 * not fatal. Returns the median ms or a negative value if NPP failed. */
double
time_npp (Context &cx, const Image &im, const Ref &ref32, const std::string &sz,
    double *b2b)
{
  Table t (im.w, im.h, 4);
  const NppStreamContext ctx = bench::npp_stream_context (cx.stream);
  const NppiSize roi = { im.w, im.h };
  NppStatus ns = nppiIntegral_8u32s_C1R_Ctx (im.dev, (int) im.pitch,
      static_cast<Npp32s *> (t.dev), (int) t.pitch, roi, 0, ctx);
  BENCH_CHECK (cudaStreamSynchronize (cx.stream));
  if (ns != NPP_SUCCESS) {
    printf ("%-12s NPP nppiIntegral_8u32s_C1R failed: status %d\n",
        sz.c_str (), (int) ns);
    return -1;
  }
  if (compare (t.dev, t.pitch, ref32.sum.data (), ref32.sum_pitch, im.h + 1,
          "npp"))
    printf ("%-12s note: NPP's output differs from the reference (see stderr)\n",
        sz.c_str ());
  auto run = [&] (cudaStream_t) {
    nppiIntegral_8u32s_C1R_Ctx (im.dev, (int) im.pitch,
        static_cast<Npp32s *> (t.dev), (int) t.pitch, roi, 0, ctx);
  };
  bench::Timing tm = bench::time_ms (cx.stream, run, cx.runs, 10);
  *b2b = bench::b2b_ms (cx.stream, run, cx.runs);
  return tm.median_ms;
}
#endif

double
bytes_moved (const Size &s, cip::SatType type, bool squared)
{
  const double px = (double) s.w * s.h;
  const double out = ((double) s.w + 1) * ((double) s.h + 1);
  return px + out * (type == cip::SatType::u32 ? 4 : 8) + (squared ? out * 8 : 0);
}

std::string
config_string (const Size &s, cip::SatType type, bool squared,
    cip::SatAlgorithm a)
{
  /* what integral() runs for a plane and a Table of this size */
  cip::ImageView v;
  v.width = s.w;
  v.height = s.h;
  v.pitch = (size_t) s.w;
  cip::SatDest d;
  d.sum = reinterpret_cast<void *> ((uintptr_t) 256);
  d.sum_pitch = (((size_t) s.w + 1) * (type == cip::SatType::u32 ? 4 : 8) + 255)
      / 256 * 256;
  if (squared) {
    d.sqsum = reinterpret_cast<uint64_t *> ((uintptr_t) 256);
    d.sqsum_pitch = (((size_t) s.w + 1) * 8 + 255) / 256 * 256;
  }
  const cip::SatAlgorithm r = cip::detail::sat_resolve (v, type, d, a);
  const cip::detail::SatConfig c = cip::detail::sat_config (s.w, s.h, type,
      squared, r);
  char buf[160];
  snprintf (buf, sizeof (buf), "%s%s TH=%d threads=%d strips=%d seg=%d K=%d",
      cip::sat_algorithm_name (r), c.grouped ? " (grouped)" : "", c.th,
      c.threads, c.strips, c.segments, c.lookback);
  return buf;
}

void
bench_size (Context &cx, const Size &s, bool constant, bool extra_types,
    bool sweep)
{
  const std::string sz = size_name (s);
  const std::string input = constant ? "constant" : "random";
  Image im = make_input (s.w, s.h, constant);
  const double floor32 = bytes_moved (s, cip::SatType::u32, false) /
      (cx.copy_gbs * 1e6);
  printf ("\n== %s, %s input: automatic picks %s; copy floor (u32) %.4f ms\n",
      sz.c_str (), input.c_str (), cip::sat_algorithm_name (
          cip::integral_pick (s.w, s.h, cip::SatType::u32)), floor32);
  printf ("   single_pass: %s\n   multi_pass:  %s\n",
      config_string (s, cip::SatType::u32, false,
          cip::SatAlgorithm::single_pass).c_str (),
      config_string (s, cip::SatType::u32, false,
          cip::SatAlgorithm::multi_pass).c_str ());
  cx.json->write (bench::kv ("bench", std::string ("integral")) + ", " +
      bench::kv ("size", sz) + ", " + bench::kv ("input", input) + ", " +
      bench::kv ("automatic_picks", std::string (cip::sat_algorithm_name (
                  cip::integral_pick (s.w, s.h, cip::SatType::u32)))));
  Ref ref32 = make_ref (im, cip::SatType::u32, false);

  double npp_ms = -1, npp_b2b = 0;
#ifdef HAVE_NPP
  npp_ms = time_npp (cx, im, ref32, sz, &npp_b2b);
  if (npp_ms > 0) {
    const double b = bytes_moved (s, cip::SatType::u32, false);
    Row r { sz, "npp 8u32s", npp_ms, b / (npp_ms * 1e6),
      100.0 * floor32 / npp_ms, 0, npp_b2b };
    emit (cx, r, input, floor32);
  }
#endif
  {
    Row r { sz, "floor (copy bandwidth), u32", floor32,
      bytes_moved (s, cip::SatType::u32, false) / (floor32 * 1e6), 100.0,
      npp_ms > 0 ? npp_ms / floor32 : 0 };
    emit (cx, r, input, floor32);
  }

  {
    double b2b = 0;
    const double ms = time_expand_floor (cx, im, &b2b);
    const double b = bytes_moved (s, cip::SatType::u32, false);
    Row r { sz, "floor (1R1W kernel, no sums), u32", ms, b / (ms * 1e6),
      100.0 * floor32 / ms, npp_ms > 0 ? npp_ms / ms : 0, b2b, npp_b2b };
    emit (cx, r, input, floor32);
  }

  struct V { cip::SatType type; bool sq; const char *name; };
  std::vector<V> vars = { {cip::SatType::u32, false, "u32"} };
  if (extra_types) {
    vars.push_back ({cip::SatType::u64, false, "u64"});
    vars.push_back ({cip::SatType::u32, true, "u32+sq"});
  }
  const cip::SatAlgorithm algos[] = { cip::SatAlgorithm::single_pass,
    cip::SatAlgorithm::multi_pass, cip::SatAlgorithm::tiled,
    cip::SatAlgorithm::automatic };
  for (const V &v : vars) {
    Ref ref = v.type == cip::SatType::u32 && !v.sq ? Ref () :
        make_ref (im, v.type, v.sq);
    const Ref &rr = v.type == cip::SatType::u32 && !v.sq ? ref32 : ref;
    const double b = bytes_moved (s, v.type, v.sq);
    const double fl = b / (cx.copy_gbs * 1e6);
    for (cip::SatAlgorithm a : algos) {
      const std::string name = std::string (cip::sat_algorithm_name (a)) + " " +
          v.name;
      double b2b = 0;
      bench::Timing t = time_ours (cx, im, v.type, v.sq, a, rr, sz + " " + name,
          &b2b);
      const bool vs_npp = npp_ms > 0 && v.type == cip::SatType::u32 && !v.sq;
      Row r { sz, name, t.median_ms, b / (t.median_ms * 1e6),
        100.0 * fl / t.median_ms, vs_npp ? npp_ms / t.median_ms : 0, b2b,
        vs_npp ? npp_b2b : 0 };
      emit (cx, r, input, fl, bench::kv ("config", config_string (s, v.type,
                  v.sq, a)) + ", " + bench::kv ("min_ms", t.min_ms));
    }
  }

  /* tiled u32 (verified, timed, a row `name`) with the tuning edited by
   * tune, on `frames` copies of the input in turn; the tuning restored */
  auto tuned_row = [&] (const std::string &name, int frames,
      const std::function<void (cip::detail::SatTuning &)> &tune,
      const std::string &extra) {
    const cip::detail::SatTuning before = cip::detail::sat_get_tuning ();
    cip::detail::SatTuning tu = before;
    tune (tu);
    cip::detail::sat_set_tuning (tu);
    /* the configuration this row runs (the tuning applied) */
    const std::string cfg = bench::kv ("config", config_string (s,
            cip::SatType::u32, false, cip::SatAlgorithm::tiled));
    const double b = bytes_moved (s, cip::SatType::u32, false);
    double b2b = 0;
    bench::Timing t = time_ours (cx, im, cip::SatType::u32, false,
        cip::SatAlgorithm::tiled, ref32, sz + " " + name, &b2b, frames);
    Row r { sz, name, t.median_ms, b / (t.median_ms * 1e6),
      100.0 * floor32 / t.median_ms, npp_ms > 0 ? npp_ms / t.median_ms : 0,
      b2b, npp_b2b };
    emit (cx, r, input, floor32, extra + ", " + cfg + ", " +
        bench::kv ("min_ms", t.min_ms));
    cip::detail::sat_set_tuning (before);
  };

  /* tiled with its input kept in L2 between the passes or not (the
   * automatic choice is above), on one input and on 4 frames in turn */
  for (int l2 : { 0, 1, 2 })
    for (int frames : { 1, bench::kFrames }) {
      if (sweep || (l2 == 0 && frames == 1))
        continue;               /* the tiled row above */
      tuned_row (std::string ("tiled u32") + (l2 == 0 ? "" : l2 == 1 ?
              ", L2 off" : ", L2 on") + (frames > 1 ? ", 4 frames" : ""),
          frames, [l2] (cip::detail::SatTuning &t) { t.tiled_l2 = l2; },
          bench::kv ("tiled_l2", (double) l2) + ", " + bench::kv ("frames",
              (double) frames));
    }

  /* tiled with no PDL between calls (detail/launch.cuh): each call's first
   * kernel launched once the call before has ended */
  if (!sweep)
    for (int frames : { 1, bench::kFrames }) {
      cip::detail::set_between_calls_pdl (false);
      tuned_row (std::string ("tiled u32, unchained") + (frames > 1 ?
              ", 4 frames" : ""), frames, [] (cip::detail::SatTuning &) {},
          bench::kv ("between_calls_pdl", 0.0) + ", " + bench::kv ("frames",
              (double) frames));
      cip::detail::set_between_calls_pdl (true);
    }

  /* tiled's tables alone (its first pass, as the box filter runs it: L2
   * policy off), to split a call's time between the passes; not verified
   * here (the tiled rows above check the table they lead to) */
  if (!sweep)
    for (int frames : { 1, bench::kFrames }) {
      cx.ws.ensure (cip::integral_workspace_bytes (s.w, s.h,
              cip::SatType::u32, false), cip::integral_workspace_init,
          cx.stream);
      bench::FrameCopies copies (im.dev, im.pitch * im.h, frames);
      cip::ImageView v = dev_view (im);
      auto run = [&] (cudaStream_t st) {
        v.data = copies.next ();
        cip::detail::SatTiles t;
        if (cip::detail::sat_tiled_tables (v, cx.ws.p, cx.ws.n, st, &t) !=
            cip::Status::ok) {
          fprintf (stderr, "sat_tiled_tables: %s\n", cip::last_cuda_error ());
          exit (2);
        }
      };
      const bench::Timing t = bench::time_ms (cx.stream, run, cx.runs, 10);
      const double b2b = bench::b2b_ms (cx.stream, run, cx.runs);
      Row r { sz, std::string ("tiled tables only") + (frames > 1 ?
            ", 4 frames" : ""), t.median_ms, (double) s.w * s.h /
          (t.median_ms * 1e6), 0, 0, b2b };
      emit (cx, r, input, floor32, bench::kv ("frames", (double) frames));
    }

  /* tiled's three launches where the grouped two serve, for comparison */
  if (cip::detail::sat_config (s.w, s.h, cip::SatType::u32, false,
          cip::SatAlgorithm::tiled).grouped)
    tuned_row ("tiled u32, 3 launches", 1,
        [] (cip::detail::SatTuning &t) { t.tiled_ungrouped = 1; },
        bench::kv ("three_launches", 1.0));

  if (sweep) {
    printf ("-- sweep at %s (u32): TH = rows per strip, K = look-back bound, "
        "NT = threads per block cap\n", sz.c_str ());
    const int ths_single[] = { 8, 16, 24, 32 };
    const int ths_multi[] = { 4, 8, 12, 16, 24, 32 };
    const int ks[] = { 8, 16, 32, 64 };
    const int nts[] = { 256, 512 };
    const double b = bytes_moved (s, cip::SatType::u32, false);
    auto one = [&] (const cip::detail::SatTuning &tu, cip::SatAlgorithm a,
        const std::string &name) {
      cip::detail::sat_set_tuning (tu);
      bench::Timing t = time_ours (cx, im, cip::SatType::u32, false, a, ref32,
          sz + " " + name);
      Row r { sz, name, t.median_ms, b / (t.median_ms * 1e6),
        100.0 * floor32 / t.median_ms, npp_ms > 0 ? npp_ms / t.median_ms : 0 };
      emit (cx, r, input, floor32, bench::kv ("sweep", 1.0) + ", " +
          bench::kv ("config", config_string (s, cip::SatType::u32, false, a)));
    };
    for (int th : { 16, 32 })
      for (int plain : { 0, 1 }) {
        cip::detail::SatTuning tu;
        tu.th_tiled = th;
        tu.tiled_plain = plain;
        one (tu, cip::SatAlgorithm::tiled, "sweep tiled TH=" +
            std::to_string (th) + (plain ? " plain st" : " st.cs"));
      }
    for (int nt : nts) {
      if (sweep_tiled_only)
        break;
      if (nt == 256 && s.w < 4096)
        continue;               /* same block either way */
      for (int th : ths_multi) {
        cip::detail::SatTuning tu;
        tu.th_multi = th;
        tu.max_threads = nt;
        one (tu, cip::SatAlgorithm::multi_pass, "sweep multi TH=" +
            std::to_string (th) + " NT<=" + std::to_string (nt));
      }
      for (int th : ths_single)
        for (int k : ks) {
          if (sweep_multi_only)
            break;
          cip::detail::SatTuning tu;
          tu.th_single = th;
          tu.lookback = k;
          tu.max_threads = nt;
          one (tu, cip::SatAlgorithm::single_pass, "sweep single TH=" +
              std::to_string (th) + " K=" + std::to_string (k) + " NT<=" +
              std::to_string (nt));
        }
    }
    cip::detail::sat_set_tuning (cip::detail::SatTuning ());
  }
  BENCH_CHECK (cudaFree (im.dev));
}

/* 16-bit planes against the 8-bit time scaled by the bytes moved; sweep:
 * then the 16-bit tuning knobs. */
void
bench_wide (Context &cx, const Size &s, bool sweep)
{
  const std::string sz = size_name (s);
  Image im16 = make_input (s.w, s.h, false, 2), im8 = make_input (s.w, s.h, false);
  struct V { cip::SatType type; bool sq; const char *name; };
  for (const V &v : { V { cip::SatType::u32, false, "u32" },
          V { cip::SatType::u64, false, "u64" },
          V { cip::SatType::u32, true, "u32+sq" } }) {
    const Ref r16 = make_ref (im16, v.type, v.sq), r8 = make_ref (im8, v.type, v.sq);
    const double t16 = time_ours (cx, im16, v.type, v.sq,
        cip::SatAlgorithm::automatic, r16, sz + " 16-bit " + v.name).median_ms;
    const double t8 = time_ours (cx, im8, v.type, v.sq,
        cip::SatAlgorithm::automatic, r8, sz + " 8-bit " + v.name).median_ms;
    const double b8 = bytes_moved (s, v.type, v.sq);
    const double b16 = b8 + (double) s.w * s.h;    /* the second input byte */
    const double scaled = t8 * b16 / b8;
    Row row { sz, std::string ("16-bit ") + v.name, t16, b16 / (t16 * 1e6),
        100.0 * (b16 / (cx.copy_gbs * 1e6)) / t16, 0 };
    printf ("%-12s %-34s %10.4f %9.0f %8.1f%%   8-bit %.4f ms, scaled %.4f ms: "
        "%.2fx\n", row.size.c_str (), row.variant.c_str (), row.ms, row.gbs,
        row.pct_copy, t8, scaled, scaled / t16);
    fflush (stdout);
    using bench::kv;
    cx.json->write (kv ("bench", std::string ("integral")) + ", " +
        kv ("device", cx.device) + ", " + kv ("size", sz) + ", " +
        kv ("input", std::string ("random16")) + ", " + kv ("variant", row.variant) +
        ", " + kv ("median_ms", t16) + ", " + kv ("gbs", row.gbs) + ", " +
        kv ("ms_8bit", t8) + ", " + kv ("ms_8bit_scaled", scaled) + ", " +
        kv ("scaled_8bit_over_16bit", scaled / t16) + ", " +
        kv ("runs", (double) cx.runs));
    if (!sweep)
      continue;
    const double b = b16, fl = b / (cx.copy_gbs * 1e6);
    for (int nt : { 256, 512 }) {
      if (nt == 256 && s.w < 4096)
        continue;               /* same block either way */
      for (int th : { 4, 8, 12, 16, 24, 32 }) {
        cip::detail::SatTuning tu;
        tu.th_multi = th;
        tu.max_threads = nt;
        cip::detail::sat_set_tuning (tu);
        const std::string name = "sweep 16-bit " + std::string (v.name) +
            " TH=" + std::to_string (th) + " NT<=" + std::to_string (nt);
        bench::Timing t = time_ours (cx, im16, v.type, v.sq,
            cip::SatAlgorithm::multi_pass, r16, sz + " " + name);
        Row r { sz, name, t.median_ms, b / (t.median_ms * 1e6),
          100.0 * fl / t.median_ms, 0 };
        emit (cx, r, "random16", fl, bench::kv ("sweep", 1.0) + ", " +
            bench::kv ("config", config_string (s, v.type, v.sq,
                    cip::SatAlgorithm::multi_pass)));
      }
    }
    cip::detail::sat_set_tuning (cip::detail::SatTuning ());
  }
  BENCH_CHECK (cudaFree (im16.dev));
  BENCH_CHECK (cudaFree (im8.dev));
}

}  // namespace

int
main (int argc, char **argv)
{
  Context cx;
  cx.args = bench::parse_args (argc, argv);
  bool sweep = false, profile = false, wide = false, l2_sizes = false,
      all_types = false;
  std::vector<Size> only;       /* --size WxH: these sizes alone */
  for (int i = 1; i < argc; i++) {
    int w = 0, h = 0;
    if (!strcmp (argv[i], "--size") && i + 1 < argc &&
        sscanf (argv[i + 1], "%dx%d", &w, &h) == 2 && w > 0 && h > 0) {
      only.push_back ({w, h});
      i++;
      continue;
    }
    if (!strcmp (argv[i], "--sweep"))
      sweep = true;
    else if (!strcmp (argv[i], "--wide"))
      wide = true;
    else if (!strcmp (argv[i], "--profile"))
      profile = true;
    else if (!strcmp (argv[i], "--sweep-multi"))
      sweep = sweep_multi_only = true;
    else if (!strcmp (argv[i], "--sweep-tiled"))
      sweep = sweep_tiled_only = true;
    else if (!strcmp (argv[i], "--l2-sizes"))
      l2_sizes = true;
    else if (!strcmp (argv[i], "--all-types"))
      all_types = true;
  }
  bench::JsonLines json (cx.args.json);
  cx.json = &json;
  cx.runs = cx.args.quick ? std::min (cx.args.runs, 20) :
      std::max (cx.args.runs, 50);
  BENCH_CHECK (cudaStreamCreateWithFlags (&cx.stream, cudaStreamNonBlocking));
  cx.device = bench::device_name ();
  cx.copy_gbs = bench::copy_bandwidth_gbs (cx.stream);
  printf ("integral bench on %s: device-to-device copy %.0f GB/s (read + write), "
      "median of %d runs\n", cx.device.c_str (), cx.copy_gbs, cx.runs);
#ifndef HAVE_NPP
  printf ("NPP not built in: no NPP baseline\n");
#endif
  printf ("b2b: per call, %d calls back to back between two events\n",
      bench::kB2B);
  /* off on a device before sm_90 or with code that is not sm_90's (PTX of
   * an older architecture, JIT-compiled): detail/launch.cuh */
  printf ("PDL between calls: %s\n", cip::detail::between_calls_pdl () ?
      "on" : "off");
  printf ("%-12s %-34s %10s %9s %9s %9s %9s %9s %9s\n", "size", "variant", "ms",
      "GB/s", "%copy", "vs NPP", "b2b ms", "%copy b2b", "NPP b2b");
  std::vector<Size> sizes = { {1920, 1080}, {3840, 2160} };
  if (wide) {
    for (const Size &s : sizes)
      bench_wide (cx, s, sweep);
    return 0;
  }
  if (!cx.args.quick) {
    sizes.push_back ({7680, 4320});
    if (!sweep || sweep_tiled_only)
      sizes.push_back ({16384, 16384});
  }
  if (l2_sizes) {
    /* about 2/3 and 4/3 of a 50 MB L2 */
    sizes.push_back ({16384, 2048});
    sizes.push_back ({16384, 4096});
  }
  if (!only.empty ())
    sizes = only;
  if (profile) {
    /* a few plain launches of each algorithm, for ncu / nsys */
    for (const Size &s : sizes) {
      Image im = make_input (s.w, s.h, false);
      Table sum (s.w, s.h, 4);
      cx.ws.ensure (cip::integral_workspace_bytes (s.w, s.h, cip::SatType::u32,
              false), cip::integral_workspace_init, cx.stream);
      cip::SatDest d;
      d.sum = sum.dev;
      d.sum_pitch = sum.pitch;
      for (cip::SatAlgorithm a : { cip::SatAlgorithm::single_pass,
              cip::SatAlgorithm::multi_pass, cip::SatAlgorithm::tiled })
        for (int k = 0; k < 3; k++)
          if (cip::integral (dev_view (im), cip::SatType::u32, d, cx.ws.p,
                  cx.ws.n, cx.stream, a) != cip::Status::ok)
            return 2;
      /* tiled's three launches where it runs grouped */
      const bool grouped = cip::detail::sat_config (s.w, s.h,
          cip::SatType::u32, false, cip::SatAlgorithm::tiled).grouped;
      const cip::detail::SatTuning before = cip::detail::sat_get_tuning ();
      cip::detail::SatTuning tu = before;
      tu.tiled_ungrouped = 1;
      cip::detail::sat_set_tuning (tu);
      for (int k = 0; k < 3 && grouped; k++)
        if (cip::integral (dev_view (im), cip::SatType::u32, d, cx.ws.p,
                cx.ws.n, cx.stream, cip::SatAlgorithm::tiled) != cip::Status::ok)
          return 2;
      cip::detail::sat_set_tuning (before);
      BENCH_CHECK (cudaStreamSynchronize (cx.stream));
      BENCH_CHECK (cudaFree (im.dev));
    }
    return 0;
  }
  for (const Size &s : sizes)
    bench_size (cx, s, false, (all_types || s.w == 3840 || s.w == 7680) &&
        !sweep, sweep);
  if (!sweep)
    bench_size (cx, {3840, 2160}, true, false, false);
  cudaStreamDestroy (cx.stream);
  return 0;
}
