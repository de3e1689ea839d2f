/* What every element test repeats (tests/elements/<element>.cpp):
 * - the suite: a "cpu" test case run everywhere and a "gpu" one added only
 *   when a CUDA device works (required with CIP_REQUIRE_GPU=1), with the
 *   compute mode reset to "cpu" before every test;
 * - the paths a case runs on: system memory with compute=cpu, then, when a
 *   GPU works, system memory with compute=gpu and CUDA memory (a pool of the
 *   test's own context, which the element adopts) with compute=gpu;
 * - input frames in either memory, and a harness with a bus for messages.
 * Builds without the GPU path run the first path only. */
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cipcheck.h"
#include "testframe.h"

namespace testutil {

/* compute= of the elements a test launches: "cpu" (the default, reset before
 * every test), "gpu" in the GPU test cases, or "auto". */
extern const char *compute_mode;

/* The suite of an element test: add tests to `cpu` and `gpu`, then return
 * finish() from the suite function. */
struct ElementSuite {
  Suite *suite;
  TCase *cpu;
  TCase *gpu;

  explicit ElementSuite (const char *name);
  /* Adds the gpu test case when a device works (cip_check_add_gpu_tcase). */
  Suite *finish ();
};

/* Where a case's frames live. */
enum class Memory { system, cuda };

/* One way of running a case: where the frames live and compute=. */
struct Path {
  Memory memory;
  const char *compute;
  bool cuda () const { return memory == Memory::cuda; }
  /* e.g. "system/cpu", "cuda/gpu" */
  std::string name () const;
};

/* Runs `body` on system memory with compute_mode, then, when a CUDA device
 * works, on system memory with compute=gpu (unless compute_mode is already
 * gpu) and on CUDA memory with compute=gpu. */
void for_each_path (const std::function<void (const Path &)> &body);

/* CIP_TEST_SMALL=1 (compute-sanitizer runs) and a frame larger than
 * 640x480: the case is skipped. */
inline bool
too_large_for_small (int w, int h)
{
  return cip_test_small () && (gint64) w * h > 640 * 480;
}

/* True when a CUDA device works (probed once). */
bool gpu_works ();

#ifdef HAVE_GST_CUDA
/* The CUDA context of the test executable's CUDA frames (device 0, opened
 * once); elements given its memory adopt it. */
GstCudaContext *shared_context ();

/* Fills a CUDA buffer's memory, padding included, with 0xA5 on the device,
 * once per memory: a CPU map (fill_video_buffer) first downloads the whole
 * allocation, which nothing has written in a new pool buffer, and
 * compute-sanitizer's initcheck flags that copy. */
void poison_cuda_once (GstBuffer * buf);
#endif

/* Input frames of one format and size in one memory. System memory frames may
 * have padded strides; CUDA memory frames come from a CUDA buffer pool of a
 * context shared by the whole test executable (pad is ignored: the pool
 * picks the pitch). */
class FrameSource {
public:
  FrameSource (const GstVideoInfo * info, Memory memory);
  ~FrameSource ();
  FrameSource (const FrameSource &) = delete;
  FrameSource &operator= (const FrameSource &) = delete;

  /* A frame filled with content c (testframe.h's make_video_buffer). */
  GstBuffer *make (Content c, uint32_t seed, int pad = 0);
  /* Caps of the frames (a new reference). */
  GstCaps *caps () const;
  const GstVideoInfo *info () const { return &info_; }
  Memory memory () const { return memory_; }

private:
  GstVideoInfo info_;
  Memory memory_;
  GstBufferPool *pool_ = nullptr;
};

/* A GstHarness around a launch line, with a bus that collects the element
 * messages of its elements. With a GPU, the test's CUDA context (the one of
 * FrameSource's CUDA memory) is set on the elements before they start, as an
 * upstream CUDA element would provide it: each element opening a context of
 * its own cost ~0.2 s, most of the GPU run time of the element tests.
 * share_context = false leaves the elements to find or open one (a test of
 * how they adopt the context of their input). */
struct ElementHarness {
  GstHarness *h;
  GstBus *bus;

  /* launch: e.g. "cudahistogram compute=cpu bins=16" */
  explicit ElementHarness (const std::string & launch,
      const GstVideoInfo * info = nullptr, bool cuda = false,
      bool share_context = true);
  ~ElementHarness ();
  ElementHarness (const ElementHarness &) = delete;
  ElementHarness &operator= (const ElementHarness &) = delete;

  /* Sets the same caps on both ends (CUDA memory caps when cuda). */
  void caps (const GstVideoInfo * info, bool cuda = false);
  /* The element of the given factory inside the harness (no ref). */
  GstElement *find (const char *factory);
  /* Pushes a frame (taking it), requires GST_FLOW_OK, returns the output. */
  GstBuffer *push (GstBuffer * in);
  /* The next element message (NULL after `timeout`); fails on an error. */
  GstMessage *pop (GstClockTime timeout = GST_SECOND);
  /* Fails if an element message is queued. */
  void expect_no_message ();
};

/* appsrc ! <middle> ! appsink in one pipeline, frames pushed and pulled one
 * at a time, for tests that cycle states (NULL -> PLAYING) and watch errors.
 * appsrc and appsink are registered from libgstapp: no plugin needed. With
 * `share_context`, the test's CUDA context (the one of FrameSource's CUDA
 * memory) is set on the pipeline, so its elements need not open their own. */
class AppPipeline {
public:
  AppPipeline (const std::string & middle, GstCaps * caps,
      bool share_context = false);
  ~AppPipeline ();
  AppPipeline (const AppPipeline &) = delete;
  AppPipeline &operator= (const AppPipeline &) = delete;

  /* To PLAYING (prerolls with the first frame): FALSE on a failure. */
  bool play ();
  /* To NULL. */
  void stop ();
  /* Pushes `in` (taken) and returns its output (a new ref), or NULL when an
   * error came instead: the first error message (ours, not the source's
   * "streaming stopped") is then kept in `error`, and the second's debug
   * text in `source_debug` (it names the flow return). */
  GstBuffer *process (GstBuffer * in, GstClockTime timeout = 60 * GST_SECOND);
  /* A named element of the pipeline (no ref). */
  GstElement *get (const char *name);
  /* Error messages seen so far (unreffed by the destructor). */
  std::vector<GstMessage *> errors;

  GstElement *pipe = nullptr;
  GstElement *src = nullptr;
  GstElement *sink = nullptr;
};

/* GstObjects and GstMiniObjects made since construction and still alive,
 * according to the "leaks" tracer's activity tracking (GST_TRACERS=leaks
 * must be set before gst_init; the test fails without it). */
class LeakCheck {
public:
  LeakCheck ();
  ~LeakCheck ();
  LeakCheck (const LeakCheck &) = delete;
  LeakCheck &operator= (const LeakCheck &) = delete;
  /* "" when none, else "TypeName xN" lines. */
  std::string alive ();

private:
  GstTracer *tracer_ = nullptr;
  std::map<std::string, std::string> created_, removed_;  /* by address */
};

/* Resident set size of this process in bytes (-1 under AddressSanitizer:
 * its quarantine keeps freed memory resident). */
gint64 rss_bytes ();

/* Used device memory of device `dev` in bytes (cudaMemGetInfo), or -1 in
 * builds without the GPU path or without a device. */
gint64 device_used_bytes (int dev = 0);

/* Host and device memory in use, for flatness checks (long runs, churn). */
struct MemoryUse {
  gint64 rss;                   /* rss_bytes() after malloc_trim, or -1 */
  gint64 device;                /* device_used_bytes(), or -1 */
};

/* Samples device memory first, then RSS: the process's first CUDA runtime
 * call (cudaMemGetInfo here) creates the runtime's primary context, about
 * 90 MiB of host memory once; an RSS read before it would count that as
 * growth. Take a sample before the baseline one to warm up. */
MemoryUse memory_use ();

/* A digest of a video frame for equality checks: every component's samples
 * (no padding) plus the tables of the integral, histogram and equalization
 * metas attached to it. */
std::vector<uint8_t> frame_digest (GstBuffer * buf, const GstVideoInfo * info);
/* Where two digests first differ, said for a failure message: which byte,
 * and whether it lies in the pixels or in the metas after them. */
std::string digest_difference (const std::vector<uint8_t> & a,
    const std::vector<uint8_t> & b, const GstVideoInfo * info);

/* Every element with the options that make it use everything it can
 * (state, two tables, metas): the reliability tests' list. */
inline const char *const element_launches[] = {
  "cudaintegral squared=true",
  "cudahistogram bins=64",
  "cudaboxfilter radius-x=3 radius-y=2",
  "cudahistequalize smoothing=0.5",
  "cudahalftone temporal-stability=0.5",
};

}  // namespace testutil
