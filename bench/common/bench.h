/* Shared benchmark helpers: warm-up, median of N CUDA-event timings on a
 * non-default stream, the device-to-device copy bandwidth floor, and JSON
 * lines. Benchmarks are not tests: they never decide pass/fail. */
#pragma once

#include <cuda_runtime.h>

#include "cip/cip.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace bench {

#define BENCH_CHECK(call)                                                   \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess) {                                                \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,        \
          cudaGetErrorString (e_));                                         \
      exit (2);                                                             \
    }                                                                       \
  } while (0)

/* A kernel family's device workspace, grown on demand and prepared with the
 * family's *_workspace_init (exits on failure, as BENCH_CHECK does). */
struct Workspace {
  void *p = nullptr;
  size_t n = 0;
  void ensure (size_t bytes, cip::Status (*init) (void *, size_t, cip::Stream),
      cudaStream_t stream)
  {
    if (bytes <= n)
      return;
    if (p)
      BENCH_CHECK (cudaFree (p));
    BENCH_CHECK (cudaMalloc (&p, bytes));
    n = bytes;
    if (init (p, bytes, stream) != cip::Status::ok) {
      fprintf (stderr, "workspace init failed\n");
      exit (2);
    }
  }
  ~Workspace () { if (p) cudaFree (p); }
};

/* n device copies of the `bytes` bytes at `frame` (the first is the frame
 * itself; the copies are identical, so a check of the output checks the
 * path, not which copy was read). Calls that take next() in turn find less
 * of their input in L2 from the call before, as a pipeline's frames do:
 * back-to-back calls on one input find much of a 33 MB 8K plane there (the
 * H100's L2 is 50 MB). Only where n times the bytes a call touches exceeds
 * L2 is nothing left (not so for 4 copies of a 4K plane, 8.3 MB). */
constexpr int kFrames = 4;
class FrameCopies {
 public:
  FrameCopies (const void *frame, size_t bytes, int n = kFrames);
  ~FrameCopies ();
  FrameCopies (const FrameCopies &) = delete;
  FrameCopies &operator= (const FrameCopies &) = delete;
  /* the next copy, in turn; also what cur() and *cur_ptr() give after */
  uint8_t *next ();
  uint8_t *cur () const { return cur_; }
  uint8_t *const *cur_ptr () const { return &cur_; }
 private:
  std::vector<uint8_t *> p_;
  uint8_t *cur_ = nullptr;
  size_t k_ = 0;
};

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

/* Runs fn(stream) `warmup` times, then `runs` times each between two events;
 * returns the median. fn must only enqueue work on the stream. */
Timing time_ms (cudaStream_t stream, const std::function<void (cudaStream_t)> &fn,
    int runs = 100, int warmup = 10);

/* Calls per sample of the back-to-back timing. */
constexpr int kB2B = 10;

/* Per-call time of kB2B calls of fn back to back between two events, median
 * of max(10, runs / 5) such samples after 2 warm-up ones: it hides the launch
 * and event latency that one call between two events includes (as in a
 * pipeline that does not wait for each frame), and so is the GPU time a call
 * takes from a stream that others keep busy. */
double b2b_ms (cudaStream_t stream, const std::function<void (cudaStream_t)> &fn,
    int runs);

/* Device-to-device copy of `bytes` bytes: GB/s counting bytes read + written. */
double copy_bandwidth_gbs (cudaStream_t stream, size_t bytes = 256u << 20);

std::string device_name ();

/* Appends one JSON object per line to `path` (and echoes it to stdout). */
class JsonLines {
 public:
  explicit JsonLines (const char *path);
  ~JsonLines ();
  /* fields: already formatted "key": value pairs, joined with commas */
  void write (const std::string &fields);
 private:
  FILE *f_;
};

std::string kv (const char *k, const std::string &v);   /* "k": "v" */
std::string kv (const char *k, double v);               /* "k": v */

/* Parses --runs N, --json PATH, --quick from argv (defaults 100, NULL, off). */
struct Args {
  int runs = 100;
  const char *json = nullptr;
  bool quick = false;
};
Args parse_args (int argc, char **argv);

}  // namespace bench
