/* Benchmark of the halftone family (not a test): error diffusion by SKSS and
 * by the single-block variant against the CPU reference, Floyd-Steinberg at
 * 1920x1080 and 3840x2160, Jarvis-Judice-Ninke at 3840x2160, 2 levels.
 *
 *   bench_halftone [--runs N] [--quick] [--json PATH]
 *
 * Every variant's output is checked against cip::ref::halftone before it is
 * timed; a mismatch aborts. us_per_step divides the median by the dependent
 * pixel steps of the schedule (W + shift * H). */
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bench.h"
#include "cip/halftone.h"
#include "detail/halftone_math.h"

namespace {

struct Case { int w, h; cip::HalftoneKernel k; };

}  // namespace

int
main (int argc, char **argv)
{
  bench::Args args = bench::parse_args (argc, argv);
  bench::JsonLines out (args.json);
  const std::string dev = bench::device_name ();
  cudaStream_t stream;
  BENCH_CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  const Case cases[] = { {1920, 1080, cip::HalftoneKernel::floyd_steinberg},
    {3840, 2160, cip::HalftoneKernel::floyd_steinberg},
    {3840, 2160, cip::HalftoneKernel::jarvis_judice_ninke} };
  for (const Case &c : cases) {
    const size_t n = (size_t) c.w * c.h;
    std::vector<uint8_t> src (n), want (n), got (n);
    for (int y = 0; y < c.h; y++)
      for (int x = 0; x < c.w; x++)
        src[(size_t) y * c.w + x] = (uint8_t) ((x * 255 / c.w + y * 7 % 31 +
              ((x * 131 + y * 71) % 13)) & 255);
    uint8_t *dsrc, *ddst;
    BENCH_CHECK (cudaMalloc (&dsrc, n));
    BENCH_CHECK (cudaMalloc (&ddst, n));
    BENCH_CHECK (cudaMemcpy (dsrc, src.data (), n, cudaMemcpyHostToDevice));
    cip::HalftonePlane hp;
    hp.src.data = src.data ();
    hp.src.width = c.w;
    hp.src.height = c.h;
    hp.src.pitch = c.w;
    hp.dst = want.data ();
    hp.dst_pitch = c.w;
    cip::HalftoneParams prm;
    prm.kernel = c.k;
    const auto t0 = std::chrono::steady_clock::now ();
    if (cip::ref::halftone (&hp, 1, prm) != cip::Status::ok)
      return 2;
    const double cpu_ms = std::chrono::duration<double, std::milli> (
        std::chrono::steady_clock::now () - t0).count ();
    const int shift = cip::detail::ht_shift (cip::detail::kHtKernels[(int) c.k]);
    const double steps = (double) c.w + (double) shift * c.h;
    auto emit = [&] (const char *algo, double ms) {
      out.write (bench::kv ("bench", std::string ("halftone")) + ", " +
          bench::kv ("device", dev) + ", " +
          bench::kv ("kernel", std::string (cip::halftone_kernel_name (c.k))) + ", " +
          bench::kv ("algo", std::string (algo)) + ", " +
          bench::kv ("width", (double) c.w) + ", " + bench::kv ("height", (double) c.h) +
          ", " + bench::kv ("median_ms", ms) + ", " +
          bench::kv ("us_per_step", ms * 1000.0 / steps));
    };
    emit ("cpu-ref", cpu_ms);
    cip::HalftonePlane dp = hp;
    dp.src.data = dsrc;
    dp.dst = ddst;
    const size_t wsb = cip::halftone_workspace_bytes (&dp, 1);
    void *ws;
    BENCH_CHECK (cudaMalloc (&ws, wsb));
    if (cip::halftone_workspace_init (ws, wsb, stream) != cip::Status::ok)
      return 2;
    for (cip::HalftoneAlgorithm a : { cip::HalftoneAlgorithm::skss,
            cip::HalftoneAlgorithm::single_block }) {
      BENCH_CHECK (cudaMemsetAsync (ddst, 0x5A, n, stream));
      if (cip::halftone (&dp, 1, prm, ws, wsb, stream, a) != cip::Status::ok) {
        fprintf (stderr, "halftone failed: %s\n", cip::last_cuda_error ());
        return 2;
      }
      BENCH_CHECK (cudaStreamSynchronize (stream));
      BENCH_CHECK (cudaMemcpy (got.data (), ddst, n, cudaMemcpyDeviceToHost));
      if (got != want) {
        fprintf (stderr, "%s: GPU != CPU reference\n", cip::halftone_algorithm_name (a));
        return 1;
      }
      const int runs = a == cip::HalftoneAlgorithm::single_block ?
          (args.quick ? 3 : 10) : (args.quick ? 10 : args.runs);
      bench::Timing t = bench::time_ms (stream, [&] (cudaStream_t s) {
        cip::halftone (&dp, 1, prm, ws, wsb, s, a);
      }, runs, 3);
      emit (cip::halftone_algorithm_name (a), t.median_ms);
    }
    cudaFree (ws);
    cudaFree (dsrc);
    cudaFree (ddst);
  }
  cudaStreamDestroy (stream);
  return 0;
}
