/* Histogram benchmark (not a test): 256-bin histograms of 8-bit frames.
 *
 * Cases, each at 1920x1080, 3840x2160, 7680x4320 and 16384x16384 (--quick:
 * the first two), contents random, constant (a black frame) and natural
 * (smooth shading plus mild noise):
 * - plane: one planar 8-bit frame. Our variants and automatic (and
 *   replicated with every launch shape of cip::histogram_debug_shape(),
 *   rows "replicated/<shape>", in every 8-bit case) against
 *   CUB DeviceHistogram::HistogramEven (pitched 2-D overload, 257 levels over
 *   [0, 256)) and, built with -DHAVE_NPP (bench/build-device.sh),
 *   nppiHistogramEven_8u_C1R_Ctx (257 levels); floors: an empty kernel, a
 *   read-only kernel and a streaming read (floor_read4<false, true>).
 * - rgba: R, G, B of a packed RGBA frame (plus luma in a fourth histogram)
 *   in one call, against CUB MultiHistogramEven<4, 3>.
 * - yuv420: Y, U, V planes (4:2:0) in one call, against three CUB calls.
 * - wide: a 16-bit plane (P016 / Y444_16LE / GRAY16_LE luma) at 1920x1080
 *   and 3840x2160 with 1024, 4096 and 65536 bins over 0..65535 (the general
 *   path: packed16 shared-memory copies, warp_aggregated global atomics)
 *   against CUB HistogramEven<unsigned short> with the same bins (bins + 1
 *   levels over [0, 65536)), which counts by the same formula. `--wide`
 *   runs only these cases.
 * Every variant is checked against the CPU reference once per case before it
 * is timed. Times: median of --runs (default 100) CUDA-event timings of one
 * call after warm-up, and b2b (bench::b2b_ms: bench::kB2B calls back to back per
 * event pair, per call); GB/s counts the input bytes read once (single
 * call). Planes and RGBA frames are also timed on 4 copies in turn (cases
 * plane4f and rgba4f: ours automatic, with and without PDL between calls
 * (detail/launch.cuh), CUB's, the read-only floor and one
 * with four 16-byte loads in flight a thread, plain and chained as ours), so
 * that no call finds its input in L2 from the call before;
 * --frames-shapes runs only these, up to 8K, with the other launch shapes
 * of replicated too. --json PATH
 * appends one JSON object per measurement. --profile:
 * only a few calls of ours and CUB's on 4K planes and RGBA frames (for ncu).
 */
#include "bench.h"
#include "bench_npp.h"

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#ifdef HAVE_NPP
#include <npp.h>
#endif

#include "cip/histogram.h"
#include "detail/launch.cuh"

namespace {

enum class Fill { random, constant, natural };

const char *
fill_name (Fill f)
{
  return f == Fill::random ? "random" : f == Fill::constant ? "constant" : "natural";
}

__device__ __forceinline__ uint32_t
hash32 (uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t) x;
}

/* Fills bytes [0, pitch * h) of a frame of `step`-byte pixels. */
__global__ void
fill_kernel (uint8_t *p, size_t pitch, int h, int step, int kind, uint32_t seed)
{
  const size_t n = pitch * (size_t) h;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    const size_t y = i / pitch, xb = i % pitch;
    const size_t x = xb / (size_t) step, c = xb % (size_t) step;
    uint8_t v = 0;
    if (kind == (int) Fill::random) {
      v = (uint8_t) (hash32 (i * 0x9E3779B97F4A7C15ull + seed) >> 24);
    } else if (kind == (int) Fill::natural) {
      const float fx = (float) x / 97.0f, fy = (float) y / 71.0f;
      const float base = 110.0f + 60.0f * sinf (fx) * cosf (fy * 0.7f) +
          40.0f * sinf ((fx + fy) * 0.3f) + 10.0f * (float) c;
      const float noise = (float) (hash32 (i + seed) >> 28) - 7.5f;
      const int iv = (int) lrintf (base + noise);
      v = (uint8_t) (iv < 0 ? 0 : iv > 255 ? 255 : iv);
    }
    p[i] = v;
  }
}

/* Fills a w x h plane of 16-bit values (pitch in bytes). */
__global__ void
fill16_kernel (uint16_t *p, size_t pitch, int w, int h, int kind, uint32_t seed)
{
  const size_t n = (size_t) w * h;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x) {
    const size_t y = i / (size_t) w, x = i % (size_t) w;
    uint32_t v = 12345;
    if (kind == (int) Fill::random) {
      v = hash32 (i * 0x9E3779B97F4A7C15ull + seed) >> 16;
    } else if (kind == (int) Fill::natural) {
      const float fx = (float) x / 97.0f, fy = (float) y / 71.0f;
      const float base = 110.0f + 60.0f * sinf (fx) * cosf (fy * 0.7f) +
          40.0f * sinf ((fx + fy) * 0.3f);
      const float noise = (float) (hash32 (i + seed) >> 24) / 16.0f - 8.0f;
      const int iv = (int) lrintf ((base + noise) * 257.0f);
      v = (uint32_t) (iv < 0 ? 0 : iv > 65535 ? 65535 : iv);
    }
    *(uint16_t *) ((uint8_t *) p + y * pitch + 2 * x) = (uint16_t) v;
  }
}

struct Frame {
  int w = 0, h = 0, step = 1;
  size_t pitch = 0;
  uint8_t *d = nullptr;
  std::vector<uint8_t> host;

  Frame (int w_, int h_, int step_, Fill f, uint32_t seed) : w (w_), h (h_), step (step_) {
    pitch = (size_t) w * step;
    BENCH_CHECK (cudaMalloc (&d, pitch * h));
    fill_kernel<<<1024, 256>>> (d, pitch, h, step, (int) f, seed);
    BENCH_CHECK (cudaGetLastError ());
    host.resize (pitch * h);
    BENCH_CHECK (cudaMemcpy (host.data (), d, host.size (), cudaMemcpyDeviceToHost));
  }
  ~Frame () { cudaFree (d); }
  Frame (const Frame &) = delete;
  Frame &operator= (const Frame &) = delete;

  cip::ImageView view (bool device, int channel = 0) const {
    cip::ImageView v;
    v.data = (device ? d : host.data ()) + channel;
    v.pitch = pitch;
    v.width = w;
    v.height = h;
    v.step = step;
    return v;
  }
  size_t bytes () const { return pitch * h; }
};

/* The same inputs on the host (for the reference) and on the device. */
struct Inputs {
  std::vector<cip::HistInput> host, dev;
  void add (const Frame &f, int channel, cip::HistSource s = cip::HistSource::plane) {
    cip::HistInput in;
    in.source = s;
    in.view = f.view (false, channel);
    host.push_back (in);
    in.view = f.view (true, channel);
    dev.push_back (in);
  }
  int n () const { return (int) host.size (); }
};

std::vector<uint32_t>
reference (const Inputs &in)
{
  std::vector<uint32_t> h ((size_t) in.n () * 256);
  if (cip::ref::histogram (in.host.data (), in.n (), 256, h.data (), false) != cip::Status::ok) {
    fprintf (stderr, "reference failed\n");
    exit (2);
  }
  return h;
}

/* Compares n_out counters at d_out (device, uint32 or int32) with want. */
bool
verify (const void *d_out, const std::vector<uint32_t> &want, const char *what)
{
  std::vector<uint32_t> got (want.size ());
  BENCH_CHECK (cudaDeviceSynchronize ());
  BENCH_CHECK (cudaMemcpy (got.data (), d_out, got.size () * 4, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < want.size (); i++)
    if (got[i] != want[i]) {
      fprintf (stderr, "MISMATCH %s: histogram %zu bin %zu: got %u want %u\n", what,
          i / 256, i % 256, got[i], want[i]);
      return false;
    }
  return true;
}

#ifdef HAVE_NPP
/* The buffer-size argument is int * in older NPP and size_t * in newer. */
template <typename T>
size_t
npp_buffer_size_of (NppStatus (*fn) (NppiSize, int, T *, NppStreamContext),
    NppiSize roi, NppStreamContext ctx)
{
  T n = 0;
  NppStatus st = fn (roi, 257, &n, ctx);
  if (st != NPP_SUCCESS) {
    fprintf (stderr, "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx: %d\n", (int) st);
    exit (2);
  }
  return (size_t) n;
}

size_t
npp_buffer_size (NppiSize roi, NppStreamContext ctx)
{
  return npp_buffer_size_of (nppiHistogramEvenGetBufferSize_8u_C1R_Ctx, roi, ctx);
}
#endif

struct Ctx {
  cudaStream_t stream = nullptr;
  bool frames_shapes = false;     /* --frames-shapes */
  bench::Args args;
  bench::JsonLines *json = nullptr;
  std::string device;
  void *ws = nullptr;
  size_t ws_bytes = 0;
  uint32_t *out = nullptr;        /* 4 x 256 */
  uint32_t *wide_out = nullptr;   /* 65536 */
  uint32_t *cub_wide = nullptr;   /* 65536 */
  uint32_t *cub_out[4] = {};       /* separate CUB outputs */
  void *cub_temp = nullptr;
  size_t cub_temp_bytes = 0;
#ifdef HAVE_NPP
  NppStreamContext npp {};
  Npp8u *npp_buf = nullptr;
  size_t npp_buf_bytes = 0;
#endif
};

void
ensure_cub_temp (Ctx &c, size_t bytes)
{
  if (bytes <= c.cub_temp_bytes)
    return;
  if (c.cub_temp)
    BENCH_CHECK (cudaFree (c.cub_temp));
  BENCH_CHECK (cudaMalloc (&c.cub_temp, bytes));
  c.cub_temp_bytes = bytes;
}

struct Row {
  std::string name;
  bench::Timing t;              /* one call between two events */
  double b2b_ms;                /* per call, back to back (bench::b2b_ms) */
  bool ok;
};

Row
timed (Ctx &c, const std::string &name,
    const std::function<void (cudaStream_t)> &fn, bool ok)
{
  const bench::Timing t = bench::time_ms (c.stream, fn, c.args.runs);
  return { name, t, bench::b2b_ms (c.stream, fn, c.args.runs), ok };
}

void
report (Ctx &c, const char *kase, int w, int h, Fill fill, size_t in_bytes,
    const std::vector<Row> &rows, int bins = 256)
{
  /* the fastest library row, by each timing */
  double best_lib = 0, best_lib_b2b = 0;
  for (const Row &r : rows)
    if (r.name.rfind ("cub", 0) == 0 || r.name.rfind ("npp", 0) == 0) {
      if (best_lib == 0 || r.t.median_ms < best_lib)
        best_lib = r.t.median_ms;
      if (best_lib_b2b == 0 || r.b2b_ms < best_lib_b2b)
        best_lib_b2b = r.b2b_ms;
    }
  for (const Row &r : rows) {
    const double gbs = (double) in_bytes / (r.t.median_ms * 1e6);
    char vs[32] = "", vsb[32] = "";
    if (best_lib > 0) {
      snprintf (vs, sizeof (vs), "%.2fx", best_lib / r.t.median_ms);
      snprintf (vsb, sizeof (vsb), "%.2fx", best_lib_b2b / r.b2b_ms);
    }
    printf ("%-7s %5dx%-5d %-8s %-32s %9.4f %9.4f %9.4f %8.1f %7s %7s%s\n", kase,
        w, h, fill_name (fill), r.name.c_str (), r.t.median_ms, r.t.min_ms,
        r.b2b_ms, gbs, vs, vsb, r.ok ? "" : "  WRONG");
    if (c.json)
      c.json->write (bench::kv ("bench", std::string ("histogram")) + ", " +
          bench::kv ("device", c.device) + ", " + bench::kv ("case", std::string (kase)) +
          ", " + bench::kv ("width", (double) w) + ", " + bench::kv ("height", (double) h) +
          ", " + bench::kv ("content", std::string (fill_name (fill))) + ", " +
          bench::kv ("variant", r.name) + ", " + bench::kv ("bins", (double) bins) + ", " +
          bench::kv ("median_ms", r.t.median_ms) + ", " + bench::kv ("min_ms", r.t.min_ms) +
          ", " + bench::kv ("max_ms", r.t.max_ms) + ", " + bench::kv ("runs", (double) r.t.runs) +
          ", " + bench::kv ("b2b_ms", r.b2b_ms) + ", " + bench::kv ("b2b_calls",
              (double) bench::kB2B) +
          ", " + bench::kv ("input_gbs", gbs) + ", " + bench::kv ("correct", r.ok ? 1.0 : 0.0));
  }
  fflush (stdout);
}

const cip::HistAlgorithm our_algos[] = { cip::HistAlgorithm::automatic,
  cip::HistAlgorithm::replicated, cip::HistAlgorithm::packed16,
  cip::HistAlgorithm::packed8, cip::HistAlgorithm::warp_aggregated };

/* Calls fn (suffix) with each launch shape but the first of replicated set
 * (cip::histogram_debug_shape(); suffix "/<shape>"), then restores the
 * pick. */
void
each_shape (const std::function<void (const std::string &)> &fn)
{
  for (int k = 1; k < cip::histogram_debug_shape_count (); k++) {
    cip::histogram_debug_shape (k);
    fn (std::string ("/") + cip::histogram_debug_shape_name (k));
  }
  cip::histogram_debug_shape (-1);
}

/* Times our histogram() on `in` with every algorithm (the shape automatic
 * picks), then replicated with every other launch shape (rows
 * "replicated/<shape>", each_shape). */
void
time_ours (Ctx &c, const Inputs &in, const std::vector<uint32_t> &want,
    const char *prefix, std::vector<Row> &rows)
{
  auto one = [&] (cip::HistAlgorithm a, const std::string &suffix) {
    auto fn = [&] (cudaStream_t s) {
      cip::Status st = cip::histogram (in.dev.data (), in.n (), 256, c.out, false,
          c.ws, c.ws_bytes, s, a);
      if (st != cip::Status::ok) {
        fprintf (stderr, "histogram: %s %s\n", cip::status_string (st),
            cip::last_cuda_error ());
        exit (2);
      }
    };
    const std::string name = std::string (prefix) +
        cip::hist_algorithm_name (a) + suffix;
    BENCH_CHECK (cudaMemset (c.out, 0xA5, 4 * 256 * 4));
    fn (c.stream);
    const bool ok = verify (c.out, want, name.c_str ());
    rows.push_back (timed (c, name, fn, ok));
  };
  for (cip::HistAlgorithm a : our_algos)
    one (a, "");
  each_shape ([&] (const std::string &suffix) {
        one (cip::HistAlgorithm::replicated, suffix);
      });
}

/* Floors of a one-launch histogram, timed like the rest: an empty kernel
 * (launch and event overhead) and a kernel that only reads the plane
 * (16-byte loads, grid-stride, as many blocks as the GPU holds at 32 warps
 * an SM) and writes one word only if the bytes sum to a value they never
 * reach, so the loads stay. */
__global__ void
floor_empty ()
{
}

__global__ void __launch_bounds__ (512)
floor_read (const uint4 *p, size_t n16, uint32_t *sink)
{
  uint32_t acc = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n16;
      i += (size_t) gridDim.x * blockDim.x) {
    const uint4 v = __ldg (p + i);
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0xFFFFFFFFu)
    *sink = acc;
}

/* The same with four 16-byte loads in flight a thread: a warp reads 2 KB
 * a step, each load 512 contiguous bytes (a tail under 2 KB is not read):
 * what reading alone takes when the loads, not their number in flight, set
 * the pace. CHAINED: launched as ours is between calls (PDL,
 * detail/launch.cuh). CS: streaming loads (ld.global.cs); with four
 * 512-thread blocks an SM, the fastest plain read of a 16384^2 plane found
 * on the H200 (round 30: 0.0613 ms b2b, against 0.0616-0.0655 for
 * __ldg at 1 to 8 blocks an SM). */
struct Read4 {
  const uint4 *p;
  size_t n2k;                   /* 2 KB steps */
  uint32_t *sink;
};

template <bool CHAINED, bool CS = false>
__global__ void __launch_bounds__ (512)
floor_read4 (const Read4 a)
{
  if constexpr (CHAINED)
    cip::detail::start_of_call ();
  const uint4 *const p = a.p;
  const size_t n2k = a.n2k;
  const int lane = threadIdx.x & 31;
  const size_t nwarps = (size_t) gridDim.x * blockDim.x / 32;
  uint32_t acc = 0;
  for (size_t c = (blockIdx.x * (size_t) blockDim.x + threadIdx.x) / 32;
      c < n2k; c += nwarps) {
    const uint4 *q = p + c * 128 + lane;
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; k++)
      v[k] = CS ? __ldcs (q + 32 * k) : __ldg (q + 32 * k);
#pragma unroll
    for (int k = 0; k < 4; k++)
      acc += v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  if (acc == 0xFFFFFFFFu)
    *a.sink = acc;
}

void
time_floors (Ctx &c, const Frame &f, std::vector<Row> &rows)
{
  int sms = 0;
  BENCH_CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t n16 = f.pitch * f.h / 16;    /* pitch = width: whole rows */
  auto empty_fn = [&] (cudaStream_t s) { floor_empty<<<1, 32, 0, s>>> (); };
  auto read_fn = [&] (cudaStream_t s) {
    floor_read<<<2 * sms, 512, 0, s>>> (reinterpret_cast<const uint4 *> (f.d),
        n16, c.out);
  };
  const Read4 a { reinterpret_cast<const uint4 *> (f.d), n16 / 128, c.out };
  auto stream_fn = [&] (cudaStream_t s) {
    floor_read4<false, true><<<4 * sms, 512, 0, s>>> (a);
  };
  rows.push_back (timed (c, "floor: empty kernel", empty_fn, true));
  rows.push_back (timed (c, "floor: read-only kernel", read_fn, true));
  rows.push_back (timed (c, "floor: streaming read, 4 blocks an SM", stream_fn,
          true));
  BENCH_CHECK (cudaGetLastError ());
}

/* CUB's histogram of a plane (257 levels over [0, 256) = one bin per
 * value) into c.cub_out[0], its temporary storage sized: what the bench
 * times and --profile launches. src: where each call finds the frame's
 * bytes (bench::FrameCopies::cur_ptr), f.d if null. */
std::function<void (cudaStream_t)>
cub_plane_fn (Ctx &c, const Frame &f, uint8_t *const *src = nullptr)
{
  size_t tb = 0;
  BENCH_CHECK (cub::DeviceHistogram::HistogramEven (nullptr, tb, f.d,
          c.cub_out[0], 257, 0, 256, f.w, f.h, f.pitch, c.stream));
  ensure_cub_temp (c, tb);
  if (!src)
    src = &f.d;
  return [&c, &f, src] (cudaStream_t s) {
    size_t bytes = c.cub_temp_bytes;
    BENCH_CHECK (cub::DeviceHistogram::HistogramEven (c.cub_temp, bytes,
            (const unsigned char *) *src, c.cub_out[0], 257, 0, 256, f.w, f.h,
            f.pitch, s));
  };
}

/* CUB's R, G, B histograms of packed RGBA into c.cub_out[0 .. 2]. */
std::function<void (cudaStream_t)>
cub_rgb_fn (Ctx &c, const Frame &f, uint8_t *const *src = nullptr)
{
  if (!src)
    src = &f.d;
  const ::cuda::std::array<unsigned int *, 3> outs { c.cub_out[0],
    c.cub_out[1], c.cub_out[2] };
  const ::cuda::std::array<int, 3> levels { 257, 257, 257 };
  const ::cuda::std::array<int, 3> lower { 0, 0, 0 }, upper { 256, 256, 256 };
  size_t tb = 0;
  BENCH_CHECK ((cub::DeviceHistogram::MultiHistogramEven<4, 3> (nullptr, tb,
              f.d, outs, levels, lower, upper, f.w, f.h, f.pitch,
              c.stream)));
  ensure_cub_temp (c, tb);
  return [&c, &f, src, outs, levels, lower, upper] (cudaStream_t s) {
    size_t bytes = c.cub_temp_bytes;
    BENCH_CHECK ((cub::DeviceHistogram::MultiHistogramEven<4, 3> (c.cub_temp,
                bytes, (const unsigned char *) *src, outs, levels, lower,
                upper, f.w, f.h, f.pitch, s)));
  };
}

/* Ours (automatic; channels 0 .. n - 1 of f, n 1: a plane, 3: R, G, B of
 * RGBA), CUB's (cub: cub_plane_fn or cub_rgb_fn) and the read-only floor
 * on bench::kFrames frames in turn (bench::FrameCopies), reported as case
 * `kase`. */
void
bench_frames (Ctx &c, const char *kase, const Frame &f, int n, Fill fill,
    const std::vector<uint32_t> &want,
    std::function<void (cudaStream_t)> (*cub) (Ctx &, const Frame &,
        uint8_t *const *))
{
  bench::FrameCopies cp (f.d, f.bytes ());
  std::vector<cip::HistInput> dev;
  for (int ch = 0; ch < n; ch++) {
    cip::HistInput in;
    in.view = f.view (true, ch);
    dev.push_back (in);
  }
  cip::HistAlgorithm algo = cip::HistAlgorithm::automatic;
  auto ours = [&] (cudaStream_t s) {
    const uint8_t *d = cp.next ();
    for (int ch = 0; ch < n; ch++)
      dev[ch].view.data = d + ch;
    if (cip::histogram (dev.data (), n, 256, c.out, false, c.ws, c.ws_bytes, s,
            algo) != cip::Status::ok) {
      fprintf (stderr, "histogram failed (%s)\n", cip::last_cuda_error ());
      exit (2);
    }
  };
  const auto cub_once = cub (c, f, cp.cur_ptr ());
  auto lib = [&] (cudaStream_t s) {
    cp.next ();
    cub_once (s);
  };
  int sms = 0;
  BENCH_CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  auto read_fn = [&] (cudaStream_t s) {
    floor_read<<<2 * sms, 512, 0, s>>> (reinterpret_cast<const uint4 *> (
            cp.next ()), f.bytes () / 16, c.out);
  };
  auto read4 = [&] (cudaStream_t s, bool chained) {
    const Read4 a { reinterpret_cast<const uint4 *> (cp.next ()),
      f.bytes () / 2048, c.out };
    if (cip::detail::launch_opted (chained ? floor_read4<true> :
            floor_read4<false>, 2 * sms, 512, 0, s, a, "floor",
            chained && cip::detail::pdl_supported ()) != cip::Status::ok) {
      fprintf (stderr, "floor: %s\n", cip::last_cuda_error ());
      exit (2);
    }
  };
  auto read4_fn = [&] (cudaStream_t s) { read4 (s, false); };
  auto read4c_fn = [&] (cudaStream_t s) { read4 (s, true); };
  /* each frame once, then the last output checked, then timed */
  std::vector<Row> rows;
  auto one = [&] (const std::string &name, bool is_ours) {
    for (int k = 0; k < n; k++)
      BENCH_CHECK (cudaMemsetAsync (is_ours ? c.out + 256 * k : c.cub_out[k],
              0xA5, 256 * 4, c.stream));
    for (int i = 0; i < bench::kFrames; i++)
      is_ours ? ours (c.stream) : lib (c.stream);
    bool ok = true;
    for (int k = 0; k < n; k++)
      ok = verify (is_ours ? c.out + 256 * k : c.cub_out[k],
          std::vector<uint32_t> (want.begin () + 256 * k,
              want.begin () + 256 * (k + 1)), kase) && ok;
    rows.push_back (timed (c, name, is_ours ?
            std::function<void (cudaStream_t)> (ours) : lib, ok));
  };
  one ("automatic, 4 frames", true);
  /* the same with no PDL between calls (detail/launch.cuh) */
  cip::detail::set_between_calls_pdl (false);
  one ("automatic, unchained, 4 frames", true);
  cip::detail::set_between_calls_pdl (true);
  one (n == 1 ? "cub HistogramEven, 4 frames" :
      "cub MultiHistogramEven<4,3>, 4 frames", false);
  /* --frames-shapes: replicated with the other launch shapes too */
  algo = cip::HistAlgorithm::replicated;
  if (c.frames_shapes)
    each_shape ([&] (const std::string &suffix) {
          one ("replicated" + suffix + ", 4 frames", true);
        });
  rows.push_back (timed (c, "floor: read-only kernel, 4 frames", read_fn, true));
  rows.push_back (timed (c, "floor: read x4 kernel, 4 frames", read4_fn, true));
  rows.push_back (timed (c, "floor: read x4 kernel, chained, 4 frames",
          read4c_fn, true));
  BENCH_CHECK (cudaGetLastError ());
  report (c, kase, f.w, f.h, fill, f.bytes (), rows);
}

void
bench_plane (Ctx &c, int w, int h, Fill fill)
{
  Frame f (w, h, 1, fill, 1);
  Inputs in;
  in.add (f, 0);
  const std::vector<uint32_t> want = reference (in);
  if (c.frames_shapes) {
    bench_frames (c, "plane4f", f, 1, fill, want, cub_plane_fn);
    return;
  }
  std::vector<Row> rows;
  time_ours (c, in, want, "", rows);

  const auto cub_fn = cub_plane_fn (c, f);
  BENCH_CHECK (cudaMemset (c.cub_out[0], 0xA5, 256 * 4));
  cub_fn (c.stream);
  bool ok = verify (c.cub_out[0], want, "cub");
  rows.push_back (timed (c, "cub HistogramEven", cub_fn, ok));

#ifdef HAVE_NPP
  NppiSize roi = { w, h };
  const size_t nb = npp_buffer_size (roi, c.npp);
  if (nb > c.npp_buf_bytes) {
    if (c.npp_buf)
      BENCH_CHECK (cudaFree (c.npp_buf));
    BENCH_CHECK (cudaMalloc (&c.npp_buf, nb));
    c.npp_buf_bytes = nb;
  }
  auto npp_fn = [&] (cudaStream_t s) {
    c.npp.hStream = s;
    NppStatus st = nppiHistogramEven_8u_C1R_Ctx (f.d, (int) f.pitch, roi,
        (Npp32s *) c.cub_out[1], 257, 0, 256, c.npp_buf, c.npp);
    if (st != NPP_SUCCESS) {
      fprintf (stderr, "nppiHistogramEven_8u_C1R_Ctx: %d\n", (int) st);
      exit (2);
    }
  };
  BENCH_CHECK (cudaMemset (c.cub_out[1], 0xA5, 256 * 4));
  npp_fn (c.stream);
  ok = verify (c.cub_out[1], want, "npp");
  rows.push_back (timed (c, "npp HistogramEven", npp_fn, ok));
#endif
  time_floors (c, f, rows);
  report (c, "plane", f.w, f.h, fill, f.bytes (), rows);
  bench_frames (c, "plane4f", f, 1, fill, want, cub_plane_fn);
}

void
bench_rgba (Ctx &c, int w, int h, Fill fill)
{
  Frame f (w, h, 4, fill, 2);
  Inputs rgb, rgbl;
  for (int ch = 0; ch < 3; ch++) {
    rgb.add (f, ch);
    rgbl.add (f, ch);
  }
  rgbl.add (f, 0, cip::HistSource::luma_rgb);
  const std::vector<uint32_t> want3 = reference (rgb);
  if (c.frames_shapes) {
    bench_frames (c, "rgba4f", f, 3, fill, want3, cub_rgb_fn);
    return;
  }
  const std::vector<uint32_t> want4 = reference (rgbl);
  std::vector<Row> rows;
  time_ours (c, rgb, want3, "rgb ", rows);
  time_ours (c, rgbl, want4, "rgb+luma ", rows);

  const auto cub_fn = cub_rgb_fn (c, f);
  for (int k = 0; k < 3; k++)
    BENCH_CHECK (cudaMemset (c.cub_out[k], 0xA5, 256 * 4));
  cub_fn (c.stream);
  bool ok = true;
  for (int k = 0; k < 3; k++)
    ok = verify (c.cub_out[k], std::vector<uint32_t> (want3.begin () + 256 * k,
            want3.begin () + 256 * (k + 1)), "cub rgb") && ok;
  rows.push_back (timed (c, "cub MultiHistogramEven<4,3>", cub_fn, ok));
  report (c, "rgba", f.w, f.h, fill, f.bytes (), rows);
  bench_frames (c, "rgba4f", f, 3, fill, want3, cub_rgb_fn);
}

void
bench_yuv (Ctx &c, int w, int h, Fill fill)
{
  Frame y (w, h, 1, fill, 3), u (w / 2, h / 2, 1, fill, 4), v (w / 2, h / 2, 1, fill, 5);
  Inputs in;
  in.add (y, 0);
  in.add (u, 0);
  in.add (v, 0);
  const std::vector<uint32_t> want = reference (in);
  std::vector<Row> rows;
  time_ours (c, in, want, "yuv ", rows);

  const Frame *planes[3] = { &y, &u, &v };
  size_t tb = 0;
  for (const Frame *p : planes) {
    size_t t = 0;
    BENCH_CHECK (cub::DeviceHistogram::HistogramEven (nullptr, t,
            (const unsigned char *) p->d, c.cub_out[0], 257, 0, 256, p->w, p->h,
            p->pitch, c.stream));
    tb = std::max (tb, t);
  }
  ensure_cub_temp (c, tb);
  auto cub_fn = [&] (cudaStream_t s) {
    for (int k = 0; k < 3; k++) {
      size_t bytes = c.cub_temp_bytes;
      BENCH_CHECK (cub::DeviceHistogram::HistogramEven (c.cub_temp, bytes,
              (const unsigned char *) planes[k]->d, c.cub_out[k], 257, 0, 256,
              planes[k]->w, planes[k]->h, planes[k]->pitch, s));
    }
  };
  cub_fn (c.stream);
  bool ok = true;
  for (int k = 0; k < 3; k++)
    ok = verify (c.cub_out[k], std::vector<uint32_t> (want.begin () + 256 * k,
            want.begin () + 256 * (k + 1)), "cub yuv") && ok;
  rows.push_back (timed (c, "cub HistogramEven x3", cub_fn, ok));
  report (c, "yuv420", y.w, y.h, fill, y.bytes () + u.bytes () + v.bytes (), rows);
}

/* A 16-bit plane with `bins` bins over 0..65535: our general path against
 * CUB HistogramEven on unsigned short samples. */
void
bench_wide (Ctx &c, int w, int h, Fill fill, int bins)
{
  const size_t pitch = (size_t) w * 2;
  uint16_t *d = nullptr;
  BENCH_CHECK (cudaMalloc (&d, pitch * h));
  fill16_kernel<<<1024, 256>>> (d, pitch, w, h, (int) fill, 7);
  BENCH_CHECK (cudaGetLastError ());
  std::vector<uint8_t> host (pitch * h);
  BENCH_CHECK (cudaMemcpy (host.data (), d, host.size (), cudaMemcpyDeviceToHost));
  cip::HistInput hin, din;
  hin.view.data = host.data ();
  hin.view.pitch = pitch;
  hin.view.width = w;
  hin.view.height = h;
  hin.view.step = 2;
  hin.view.bytes = 2;
  hin.view.depth = 16;
  din = hin;
  din.view.data = (const uint8_t *) d;
  std::vector<uint32_t> want ((size_t) bins);
  if (cip::ref::histogram (&hin, 1, bins, want.data (), false) != cip::Status::ok) {
    fprintf (stderr, "reference failed\n");
    exit (2);
  }
  std::vector<Row> rows;
  for (cip::HistAlgorithm a : { cip::HistAlgorithm::automatic,
          cip::HistAlgorithm::packed16, cip::HistAlgorithm::warp_aggregated }) {
    auto fn = [&] (cudaStream_t s) {
      cip::Status st = cip::histogram (&din, 1, bins, c.wide_out, false, c.ws,
          c.ws_bytes, s, a);
      if (st != cip::Status::ok) {
        fprintf (stderr, "histogram: %s %s\n", cip::status_string (st),
            cip::last_cuda_error ());
        exit (2);
      }
    };
    std::string name = cip::hist_algorithm_name (a);
    BENCH_CHECK (cudaMemset (c.wide_out, 0xA5, (size_t) bins * 4));
    fn (c.stream);
    const bool ok = verify (c.wide_out, want, name.c_str ());
    rows.push_back (timed (c, name, fn, ok));
  }

  const unsigned short *samples = d;
  size_t tb = 0;
  BENCH_CHECK (cub::DeviceHistogram::HistogramEven (nullptr, tb, samples, c.cub_wide,
          bins + 1, 0, 65536, w, h, pitch, c.stream));
  ensure_cub_temp (c, tb);
  auto cub_fn = [&] (cudaStream_t s) {
    size_t bytes = c.cub_temp_bytes;
    BENCH_CHECK (cub::DeviceHistogram::HistogramEven (c.cub_temp, bytes, samples,
            c.cub_wide, bins + 1, 0, 65536, w, h, pitch, s));
  };
  BENCH_CHECK (cudaMemset (c.cub_wide, 0xA5, (size_t) bins * 4));
  cub_fn (c.stream);
  const bool ok = verify (c.cub_wide, want, "cub wide");
  rows.push_back (timed (c, "cub HistogramEven", cub_fn, ok));
  char kase[16];
  snprintf (kase, sizeof (kase), "w%d", bins);
  report (c, kase, w, h, fill, pitch * h, rows, bins);
  BENCH_CHECK (cudaFree (d));
}

/* --profile: a few plain calls of ours (automatic) and of CUB, for ncu
 * (nothing timed): 4K planes and RGBA frames, random and natural, and the
 * plane cases that DRAM bandwidth bounds (RESULTS.md). */
void
profile_calls (Ctx &c)
{
  struct Case { int w, h, step; Fill f; };
  const Case cases[] = {
    { 3840, 2160, 1, Fill::random }, { 3840, 2160, 4, Fill::random },
    { 3840, 2160, 1, Fill::natural }, { 3840, 2160, 4, Fill::natural },
    { 7680, 4320, 1, Fill::constant }, { 7680, 4320, 1, Fill::natural },
    { 16384, 16384, 1, Fill::constant },
  };
  for (const Case &cs : cases) {
    Frame fr (cs.w, cs.h, cs.step, cs.f, 9);
    Inputs in;
    for (int ch = 0; ch < (cs.step == 4 ? 3 : 1); ch++)
      in.add (fr, ch);
    for (int k = 0; k < 2; k++)
      if (cip::histogram (in.dev.data (), in.n (), 256, c.out, false, c.ws,
              c.ws_bytes, c.stream) != cip::Status::ok)
        exit (2);
    const auto cub_fn = cs.step == 1 ? cub_plane_fn (c, fr) : cub_rgb_fn (c, fr);
    for (int k = 0; k < 2; k++)
      cub_fn (c.stream);
    BENCH_CHECK (cudaStreamSynchronize (c.stream));
  }
}

#ifdef CIP_HIST_TRACE
}  // namespace
namespace cip {
Status histogram_trace_reset ();
Status histogram_trace_take (unsigned long long *dst, int n);
}  // namespace cip
namespace {

/* --trace (CIP_HIST_TRACE builds): when each step of every block of one
 * warm automatic call on a plane ended, as spreads over the blocks. */
void
trace_plane (Ctx &c, int w, int h, Fill fill)
{
  Frame f (w, h, 1, fill, 1);
  Inputs in;
  in.add (f, 0);
  auto run = [&] () {
    if (cip::histogram (in.dev.data (), in.n (), 256, c.out, false, c.ws,
            c.ws_bytes, c.stream) != cip::Status::ok)
      exit (2);
  };
  for (int k = 0; k < 5; k++)
    run ();
  BENCH_CHECK (cudaStreamSynchronize (c.stream));
  if (cip::histogram_trace_reset () != cip::Status::ok)
    exit (2);
  run ();
  BENCH_CHECK (cudaStreamSynchronize (c.stream));
  std::vector<unsigned long long> t (4096 * 8);
  if (cip::histogram_trace_take (t.data (), 4096) != cip::Status::ok)
    exit (2);
  int n = 0;
  while (n < 4096 && t[n * 8] != 0)
    n++;
  unsigned long long t0 = ~0ull, t6 = 0;
  for (int i = 0; i < n; i++) {
    t0 = std::min (t0, t[i * 8]);
    t6 = std::max (t6, t[i * 8 + 6]);
  }
  printf ("trace plane %dx%d %s: %d blocks, span %.2f us\n", w, h,
      fill_name (fill), n, (t6 - t0) / 1e3);
  const char *names[] = { "start", "claimed", "outzero", "counted", "summed",
    "merged", "done" };
  for (int j = 0; j < 7; j++) {
    std::vector<double> at, dur;
    for (int i = 0; i < n; i++) {
      at.push_back ((t[i * 8 + j] - t0) / 1e3);
      if (j > 0)
        dur.push_back ((double) (t[i * 8 + j] - t[i * 8 + j - 1]) / 1e3);
    }
    std::sort (at.begin (), at.end ());
    std::sort (dur.begin (), dur.end ());
    auto q = [] (const std::vector<double> &v, double fr) {
      return v.empty () ? 0.0 : v[std::min (v.size () - 1, (size_t) (fr * v.size ()))];
    };
    printf ("  %-8s at us: min %5.2f med %5.2f max %5.2f", names[j], q (at, 0),
        q (at, 0.5), at.empty () ? 0.0 : at.back ());
    if (j > 0)
      printf ("  | step us: min %5.2f med %5.2f max %5.2f", q (dur, 0),
          q (dur, 0.5), dur.empty () ? 0.0 : dur.back ());
    printf ("\n");
  }
  /* slot 7: thread 0's part of the sums done, between "counted" and
   * "summed" */
  std::vector<double> sums;
  for (int i = 0; i < n; i++)
    if (t[i * 8 + 7])
      sums.push_back ((double) (t[i * 8 + 7] - t[i * 8 + 3]) / 1e3);
  std::sort (sums.begin (), sums.end ());
  if (!sums.empty ())
    printf ("  (thread 0's sums, after counted: min %5.2f med %5.2f max %5.2f us)\n",
        sums.front (), sums[sums.size () / 2], sums.back ());
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
  c.ws_bytes = cip::histogram_workspace_bytes (cip::kHistogramMaxInputs,
      cip::kHistogramMaxBins);
  BENCH_CHECK (cudaMalloc (&c.ws, c.ws_bytes));
  if (cip::histogram_workspace_init (c.ws, c.ws_bytes, c.stream) != cip::Status::ok)
    return 2;
  BENCH_CHECK (cudaMalloc (&c.out, 4 * 256 * 4));
  BENCH_CHECK (cudaMalloc (&c.wide_out, 65536 * 4));
  BENCH_CHECK (cudaMalloc (&c.cub_wide, 65536 * 4));
  for (int k = 0; k < 4; k++)
    BENCH_CHECK (cudaMalloc (&c.cub_out[k], 256 * 4));
#ifdef HAVE_NPP
  c.npp = bench::npp_stream_context (c.stream);
#endif

  printf ("histogram bench on %s, %d runs per timing, 256 bins\n", c.device.c_str (),
      c.args.runs);
  printf ("device-to-device copy: %.0f GB/s (read + write)\n",
      bench::copy_bandwidth_gbs (c.stream));
#ifndef HAVE_NPP
  printf ("(built without NPP: NPP baselines skipped; use bench/build-device.sh)\n");
#endif
  printf ("b2b: per call, %d calls back to back; lib/this: the fastest library "
      "row over this row, single call and b2b\n", bench::kB2B);
  printf ("%-7s %-11s %-8s %-32s %9s %9s %9s %8s %7s %7s\n", "case", "size",
      "content", "variant", "median ms", "min ms", "b2b ms", "GB/s", "lib/this",
      "b2b");

#ifdef CIP_HIST_TRACE
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--trace") == 0) {
      for (Fill f : { Fill::random, Fill::constant, Fill::natural }) {
        trace_plane (c, 1920, 1080, f);
        trace_plane (c, 3840, 2160, f);
        trace_plane (c, 7680, 4320, f);
      }
      return 0;
    }
#endif
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--profile") == 0) {
      profile_calls (c);
      return 0;
    }
  struct Size { int w, h; };
  std::vector<Size> sizes = { {1920, 1080}, {3840, 2160}, {7680, 4320}, {16384, 16384} };
  if (c.args.quick)
    sizes.resize (2);
  const Fill fills[] = { Fill::random, Fill::constant, Fill::natural };
  bool wide_only = false, frames_only = false;
  for (int i = 1; i < argc; i++) {
    wide_only = wide_only || strcmp (argv[i], "--wide") == 0;
    if (strcmp (argv[i], "--frames-shapes") == 0)
      c.frames_shapes = frames_only = true;
  }
  if (frames_only) {
    /* only the frames-in-turn cases, with the launch shapes */
    for (Size s : sizes)
      for (Fill f : fills)
        if (s.w <= 7680) {
          bench_plane (c, s.w, s.h, f);
          bench_rgba (c, s.w, s.h, f);
        }
    return 0;
  }
  for (Size s : { Size { 1920, 1080 }, Size { 3840, 2160 } })
    for (int bins : { 1024, 4096, 65536 })
      for (Fill f : fills)
        bench_wide (c, s.w, s.h, f, bins);
  if (wide_only)
    return 0;
  for (Size s : sizes)
    for (Fill f : fills)
      bench_plane (c, s.w, s.h, f);
  for (Size s : sizes) {
    if (s.w > 7680)
      continue;       /* 1 GB of RGBA and its CPU reference: skipped */
    for (Fill f : fills)
      bench_rgba (c, s.w, s.h, f);
  }
  for (Size s : sizes)
    for (Fill f : fills)
      bench_yuv (c, s.w, s.h, f);
  return 0;
}
