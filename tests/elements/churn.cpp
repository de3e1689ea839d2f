/* Pipeline churn: an application that builds and destroys a pipeline per
 * camera reconnect must not grow.
 * - every element: CIP_CHURN_CYCLES (default 1,000 with a GPU, 100 without)
 *   create / PLAYING / two frames / NULL / unref cycles in one process, on
 *   each path (the application hands each pipeline its CUDA context, as
 *   applications sharing one device do); the element is finalized after
 *   every cycle, host RSS and device memory (cudaMemGetInfo) are flat over
 *   the second half of the cycles (the leaks tracer is not used here: with
 *   GStreamer 1.22 it deadlocked under this churn; test_faults uses it);
 * - (GPU) CIP_CHURN_OWN_CONTEXT_CYCLES (default 20) cycles where each
 *   pipeline opens its own CUDA context: device memory back to where it
 *   was after every pipeline (a context kept alive shows at once);
 * - two elements in one pipeline share one GstCudaContext (the second finds
 *   the first's), also under churn;
 * - pipelines on different cuda-device-id: on a machine with two devices both
 *   run at once with right outputs; with one, the missing device is refused
 *   with an error that names it, leaving nothing behind, and device 0 still
 *   works. */
#include <gst/check/gstcheck.h>

#include <cstring>

#include <string>
#include <vector>

#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudacontext.h>
#endif

using namespace testutil;


static int
env_int (const char *name, int dflt)
{
  const char *v = g_getenv (name);
  return v && *v ? atoi (v) : dflt;
}

static void
set_flag (gpointer data, GObject *)
{
  g_atomic_int_set ((gint *) data, 1);
}

/* Waits (a moment: streaming threads drop their refs just after the join;
 * polled finely, as it costs every cycle) up to 1 s for `flag` to be set by
 * set_flag. */
static bool
finalized (gint * flag)
{
  for (int i = 0; i < 5000 && !g_atomic_int_get (flag); i++)
    g_usleep (200);
  return g_atomic_int_get (flag);
}

/* Two input frames, made once: making a natural frame costs more than a
 * cycle. Pushed as refs (elements that write copy them first). */
struct Inputs {
  GstBuffer *frame[2];
  explicit Inputs (FrameSource & src) {
    for (int i = 0; i < 2; i++)
      frame[i] = src.make (Content::natural, 7 + i);
  }
  ~Inputs () {
    for (GstBuffer *b : frame)
      gst_buffer_unref (b);
  }
  Inputs (const Inputs &) = delete;
  Inputs &operator= (const Inputs &) = delete;
};

/* One reconnect: a new pipeline, two frames, NULL, unref; the element must
 * be finalized then. */
static void
cycle (const std::string & line, FrameSource & src, const Inputs & in,
    bool share_context)
{
  gint gone = 0;
  {
    AppPipeline p (line, src.caps (), share_context);
    g_object_weak_ref (G_OBJECT (p.get ("e")), set_flag, &gone);
    fail_unless (p.play (), "%s: no PLAYING", line.c_str ());
    for (int i = 0; i < 2; i++) {
      GstBuffer *out = p.process (gst_buffer_ref (in.frame[i]));
      fail_unless (out != NULL, "%s: frame %d failed", line.c_str (), i);
      gst_buffer_unref (out);
    }
  }
  fail_unless (finalized (&gone), "%s: the element outlived its pipeline",
      line.c_str ());
}

GST_START_TEST (test_churn)
{
  const int cycles = env_int ("CIP_CHURN_CYCLES", gpu_works () ? 1000 : 100);
  const int warm = MIN (20, cycles / 4);
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 320, 240);
  /* the CUDA runtime's one-off start is not growth */
  memory_use ();
  for (const char *launch : element_launches)
    for_each_path ([&] (const Path & path) {
      const std::string line = std::string (launch) + " name=e compute=" +
          path.compute;
      const std::string what = line + " on " + path.name ();
      FrameSource src (&info, path.memory);
      Inputs in (src);
      const gint64 t0 = g_get_monotonic_time ();
      for (int i = 0; i < warm; i++)
        cycle (line, src, in, true);
      MemoryUse mid = { 0, 0 };
      for (int i = warm; i < cycles; i++) {
        if (i == warm + (cycles - warm) / 2)
          mid = memory_use ();
        cycle (line, src, in, true);
      }
      const double secs = (g_get_monotonic_time () - t0) / 1e6;
      const MemoryUse end = memory_use ();
      g_print ("%s: %d cycles in %.1f s (%.0f cycles/s), RSS %.1f -> %.1f "
          "MiB, device %.1f -> %.1f MiB over the second half\n",
          what.c_str (), cycles, secs, cycles / secs, mid.rss / 1048576.0,
          end.rss / 1048576.0, mid.device / 1048576.0,
          end.device / 1048576.0);
      /* flat: a leak of 4 KiB a cycle over 500 cycles passes 2 MiB */
      fail_unless (mid.rss < 0 || end.rss - mid.rss < 2 * 1048576,
          "%s: RSS grew by %" G_GINT64_FORMAT " bytes", what.c_str (),
          end.rss - mid.rss);
      fail_unless (end.device - mid.device <= 0, "%s: device memory grew by %"
          G_GINT64_FORMAT " bytes", what.c_str (), end.device - mid.device);
    });
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* Each pipeline opens (and must close) its own CUDA context. */
GST_START_TEST (test_churn_own_context)
{
  const int cycles = env_int ("CIP_CHURN_OWN_CONTEXT_CYCLES", 20);
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 320, 240);
  FrameSource src (&info, Memory::system);
  Inputs in (src);
  for (const char *launch : element_launches) {
    const std::string line = std::string (launch) + " name=e compute=gpu";
    cycle (line, src, in, false);
    const gint64 before = device_used_bytes ();
    const gint64 t0 = g_get_monotonic_time ();
    for (int i = 0; i < cycles; i++) {
      cycle (line, src, in, false);
      gint64 now = device_used_bytes ();
      fail_unless (now <= before, "%s: cycle %d left %" G_GINT64_FORMAT
          " bytes of device memory", line.c_str (), i, now - before);
    }
    const double secs = (g_get_monotonic_time () - t0) / 1e6;
    g_print ("%s: %d cycles with own contexts in %.1f s (%.1f cycles/s), "
        "device memory flat\n", line.c_str (), cycles, secs, cycles / secs);
  }
}
GST_END_TEST;

/* The GstCudaContext an element answers a context query with (a ref). */
static GstCudaContext *
context_of (GstElement * e)
{
  GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *ctx = NULL;
  if (gst_element_query (e, q)) {
    GstContext *c = NULL;
    gst_query_parse_context (q, &c);
    if (c)
      gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &ctx, NULL);
  }
  gst_query_unref (q);
  return ctx;
}

/* Two elements, no context given by the application: the second finds the
 * first's. */
GST_START_TEST (test_shared_context)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 320, 240);
  FrameSource src (&info, Memory::system);
  const int cycles = env_int ("CIP_CHURN_OWN_CONTEXT_CYCLES", 20);
  const gint64 before = device_used_bytes ();
  for (int i = 0; i < cycles; i++) {
    AppPipeline p ("cudaintegral compute=gpu name=a ! "
        "cudaboxfilter compute=gpu name=b", src.caps ());
    fail_unless (p.play ());
    GstBuffer *out = p.process (src.make (Content::natural, 3));
    fail_unless (out != NULL);
    gst_buffer_unref (out);
    GstCudaContext *a = context_of (p.get ("a"));
    GstCudaContext *b = context_of (p.get ("b"));
    fail_unless (a != NULL && a == b, "contexts %p and %p", a, b);
    gst_object_unref (a);
    gst_object_unref (b);
  }
  fail_unless (device_used_bytes () <= before);
}
GST_END_TEST;
#endif

/* cuda-device-id: every device there is runs, one past the last is refused
 * cleanly. */
GST_START_TEST (test_device_ids)
{
  int n_devices = 0;
#ifdef HAVE_GST_CUDA
  if (gpu_works () && cudaGetDeviceCount (&n_devices) != cudaSuccess)
    n_devices = 0;
#endif
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 320, 240);
  FrameSource src (&info, Memory::system);
  g_print ("%d CUDA device(s)\n", n_devices);

  /* one pipeline per device, all PLAYING at once, same outputs as the CPU */
  std::vector<uint8_t> want;
  {
    AppPipeline ref ("cudaboxfilter compute=cpu radius-x=4", src.caps ());
    fail_unless (ref.play ());
    GstBuffer *out = ref.process (src.make (Content::natural, 5));
    want = frame_digest (out, &info);
    gst_buffer_unref (out);
  }
  std::vector<AppPipeline *> pipes;
  for (int d = 0; d < n_devices; d++) {
    pipes.push_back (new AppPipeline ("cudaboxfilter compute=gpu radius-x=4 "
            "cuda-device-id=" + std::to_string (d), src.caps ()));
    fail_unless (pipes.back ()->play (), "device %d: no PLAYING", d);
  }
  for (int d = 0; d < n_devices; d++) {
    GstBuffer *out = pipes[d]->process (src.make (Content::natural, 5));
    fail_unless (out != NULL, "device %d: no output", d);
    fail_unless (frame_digest (out, &info) == want, "device %d: output", d);
    gst_buffer_unref (out);
  }
  for (AppPipeline *p : pipes)
    delete p;

  /* the device past the last: a clear error, nothing left behind */
  {
    const std::string id = std::to_string (n_devices);
    gint gone = 0;
    {
      AppPipeline p ("cudaboxfilter name=e compute=gpu cuda-device-id=" + id,
          src.caps ());
      g_object_weak_ref (G_OBJECT (p.get ("e")), set_flag, &gone);
      fail_if (p.play () && p.process (src.make (Content::natural, 5)),
          "cuda-device-id=%s ran", id.c_str ());
      GstBus *bus = gst_element_get_bus (p.pipe);
      GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      if (!m && !p.errors.empty ())
        m = gst_message_ref (p.errors[0]);
      gst_object_unref (bus);
      fail_unless (m != NULL, "no error for cuda-device-id=%s", id.c_str ());
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (m, &err, &dbg);
      g_print ("cuda-device-id=%s: %s (%s)\n", id.c_str (), err->message, dbg);
      fail_unless (err->domain == GST_RESOURCE_ERROR, "%s", err->message);
#ifdef HAVE_GST_CUDA
      fail_unless (strstr (dbg, ("device " + id).c_str ()) != NULL,
          "the error does not name device %s: %s", id.c_str (), dbg);
#endif
      g_error_free (err);
      g_free (dbg);
      gst_message_unref (m);
    }
    fail_unless (finalized (&gone), "the refused element outlived its "
        "pipeline");
  }
  if (n_devices > 0) {
    AppPipeline p ("cudaboxfilter compute=gpu radius-x=4 cuda-device-id=0",
        src.caps ());
    fail_unless (p.play ());
    GstBuffer *out = p.process (src.make (Content::natural, 5));
    fail_unless (out != NULL && frame_digest (out, &info) == want);
    gst_buffer_unref (out);
  }
}
GST_END_TEST;

static Suite *
churn_suite (void)
{
  ElementSuite s ("churn");
  tcase_set_timeout (s.cpu, 900);
  tcase_set_timeout (s.gpu, 900);
  tcase_add_test (s.cpu, test_churn);
  tcase_add_test (s.cpu, test_device_ids);
#ifdef HAVE_GST_CUDA
  tcase_add_test (s.gpu, test_churn_own_context);
  tcase_add_test (s.gpu, test_shared_context);
#endif
  return s.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (churn_suite, argc, argv);
}
