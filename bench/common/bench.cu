#include "bench.h"

#include <algorithm>
#include <cstring>

namespace bench {

Timing
time_ms (cudaStream_t stream, const std::function<void (cudaStream_t)> &fn,
    int runs, int warmup)
{
  for (int i = 0; i < warmup; i++)
    fn (stream);
  BENCH_CHECK (cudaStreamSynchronize (stream));
  cudaEvent_t a, b;
  BENCH_CHECK (cudaEventCreate (&a));
  BENCH_CHECK (cudaEventCreate (&b));
  std::vector<double> t;
  for (int i = 0; i < runs; i++) {
    BENCH_CHECK (cudaEventRecord (a, stream));
    fn (stream);
    BENCH_CHECK (cudaEventRecord (b, stream));
    BENCH_CHECK (cudaEventSynchronize (b));
    float ms = 0;
    BENCH_CHECK (cudaEventElapsedTime (&ms, a, b));
    t.push_back (ms);
  }
  BENCH_CHECK (cudaGetLastError ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  std::sort (t.begin (), t.end ());
  Timing r;
  r.runs = runs;
  r.median_ms = t[t.size () / 2];
  r.min_ms = t.front ();
  r.max_ms = t.back ();
  return r;
}

FrameCopies::FrameCopies (const void *frame, size_t bytes, int n)
{
  p_.push_back (static_cast<uint8_t *> (const_cast<void *> (frame)));
  for (int i = 1; i < n; i++) {
    uint8_t *d;
    BENCH_CHECK (cudaMalloc (&d, bytes));
    BENCH_CHECK (cudaMemcpy (d, frame, bytes, cudaMemcpyDeviceToDevice));
    p_.push_back (d);
  }
  /* a device-to-device cudaMemcpy may return before the copy is done, and
   * the benches read on non-blocking streams */
  BENCH_CHECK (cudaDeviceSynchronize ());
  cur_ = p_[0];
}

FrameCopies::~FrameCopies ()
{
  for (size_t i = 1; i < p_.size (); i++)
    cudaFree (p_[i]);
}

uint8_t *
FrameCopies::next ()
{
  cur_ = p_[k_++ % p_.size ()];
  return cur_;
}

double
b2b_ms (cudaStream_t stream, const std::function<void (cudaStream_t)> &fn,
    int runs)
{
  const Timing t = time_ms (stream, [&] (cudaStream_t s) {
        for (int i = 0; i < kB2B; i++)
          fn (s);
      }, std::max (10, runs / 5), 2);
  return t.median_ms / kB2B;
}

double
copy_bandwidth_gbs (cudaStream_t stream, size_t bytes)
{
  void *s, *d;
  BENCH_CHECK (cudaMalloc (&s, bytes));
  BENCH_CHECK (cudaMalloc (&d, bytes));
  BENCH_CHECK (cudaMemsetAsync (s, 1, bytes, stream));
  Timing t = time_ms (stream, [&] (cudaStream_t st) {
        BENCH_CHECK (cudaMemcpyAsync (d, s, bytes, cudaMemcpyDeviceToDevice, st));
      }, 50, 5);
  cudaFree (s);
  cudaFree (d);
  return 2.0 * (double) bytes / (t.median_ms * 1e6);
}

std::string
device_name ()
{
  int dev = 0;
  cudaDeviceProp p;
  BENCH_CHECK (cudaGetDevice (&dev));
  BENCH_CHECK (cudaGetDeviceProperties (&p, dev));
  return p.name;
}

JsonLines::JsonLines (const char *path) : f_ (path ? fopen (path, "a") : nullptr) {}
JsonLines::~JsonLines () { if (f_) fclose (f_); }

void
JsonLines::write (const std::string &fields)
{
  std::string line = "{" + fields + "}";
  if (f_) {
    fprintf (f_, "%s\n", line.c_str ());
    fflush (f_);
  }
}

std::string
kv (const char *k, const std::string &v)
{
  return std::string ("\"") + k + "\": \"" + v + "\"";
}

std::string
kv (const char *k, double v)
{
  char buf[64];
  snprintf (buf, sizeof (buf), "%.6g", v);
  return std::string ("\"") + k + "\": " + buf;
}

Args
parse_args (int argc, char **argv)
{
  Args a;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--runs") && i + 1 < argc)
      a.runs = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--json") && i + 1 < argc)
      a.json = argv[++i];
    else if (!strcmp (argv[i], "--quick"))
      a.quick = true;
  }
  if (a.runs < 1)
    a.runs = 1;
  return a;
}

}  // namespace bench
