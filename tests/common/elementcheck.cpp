#include "elementcheck.h"

#include <gst/app/app.h>
#include <gst/cudaimgproc/gstequalizationmeta.h>
#include <gst/cudaimgproc/gsthistogrammeta.h>
#include <gst/cudaimgproc/gstintegralmeta.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#ifdef HAVE_GST_CUDA
#include <cuda_runtime_api.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

namespace testutil {

const char *compute_mode = "cpu";

static void
reset_compute_mode (void)
{
  /* a failed test leaves the test by longjmp, past any restoring code */
  compute_mode = "cpu";
}

/* AppPipelines alive: a failed check leaves the test by longjmp, past their
 * destructors, and a pipeline left PLAYING blocks the task cleanup after
 * the test (which then never reports its failure). */
static std::vector<AppPipeline *> live_pipelines;

static void
stop_leftover_pipelines (void)
{
  for (AppPipeline *p : live_pipelines)
    gst_element_set_state (p->pipe, GST_STATE_NULL);
  live_pipelines.clear ();
}

ElementSuite::ElementSuite (const char *name)
{
  suite = suite_create (name);
  cpu = tcase_create ("cpu");
  gpu = tcase_create ("gpu");
  tcase_add_checked_fixture (cpu, reset_compute_mode, stop_leftover_pipelines);
  tcase_add_checked_fixture (gpu, reset_compute_mode, stop_leftover_pipelines);
  suite_add_tcase (suite, cpu);
}

Suite *
ElementSuite::finish ()
{
  cip_check_add_gpu_tcase (suite, gpu, gpu_works ());
  return suite;
}

bool
gpu_works ()
{
  static int works = -1;
  if (works < 0)
    works = cuda_device_works () ? 1 : 0;
  return works == 1;
}

std::string
Path::name () const
{
  return std::string (memory == Memory::cuda ? "cuda/" : "system/") + compute;
}

void
for_each_path (const std::function<void (const Path &)> &body)
{
  body (Path { Memory::system, compute_mode });
  if (!gpu_works ())
    return;
  if (std::string (compute_mode) != "gpu")
    body (Path { Memory::system, "gpu" });
  body (Path { Memory::cuda, "gpu" });
}

#ifdef HAVE_GST_CUDA
static GstCudaContext *the_shared_context = nullptr;

/* At exit, before gst-check's gst_deinit (registered earlier, so it runs
 * later): a context still alive there is a leak to the leaks tracer, whose
 * report then fails the process (test_faults' children). */
static void
release_shared_context (void)
{
  gst_clear_object (&the_shared_context);
}

/* One context for the whole executable: opening one per case is slow. */
GstCudaContext *
shared_context ()
{
  if (!the_shared_context) {
    the_shared_context = gst_cuda_context_new (0);
    if (the_shared_context)
      atexit (release_shared_context);
  }
  fail_unless (the_shared_context != NULL, "no CUDA context on device 0");
  return the_shared_context;
}
#endif

FrameSource::FrameSource (const GstVideoInfo * info, Memory memory)
    : info_ (*info), memory_ (memory)
{
  if (memory_ == Memory::system)
    return;
#ifdef HAVE_GST_CUDA
  GstCaps *c = caps ();
  pool_ = make_cuda_pool (shared_context (), c, &info_);
  gst_caps_unref (c);
#else
  fail ("CUDA memory in a build without the GPU path");
#endif
}

FrameSource::~FrameSource ()
{
  if (pool_) {
    gst_buffer_pool_set_active (pool_, FALSE);
    gst_object_unref (pool_);
  }
}

GstCaps *
FrameSource::caps () const
{
  return video_caps (&info_, memory_ == Memory::cuda);
}

GstBuffer *
FrameSource::make (Content c, uint32_t seed, int pad)
{
  if (memory_ == Memory::system)
    return make_video_buffer (&info_, c, seed, pad);
  GstBuffer *buf = NULL;
  fail_unless (gst_buffer_pool_acquire_buffer (pool_, &buf, NULL) ==
      GST_FLOW_OK);
#ifdef HAVE_GST_CUDA
  poison_cuda_once (buf);
#endif
  fill_video_buffer (buf, &info_, c, seed);
  return buf;
}

#ifdef HAVE_GST_CUDA
void
poison_cuda_once (GstBuffer * buf)
{
  static const GQuark poisoned = g_quark_from_static_string ("cip-poisoned");
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), poisoned))
    return;
  GstMapInfo m;
  fail_unless (gst_memory_map (mem, &m, (GstMapFlags) (GST_MAP_WRITE |
              GST_MAP_CUDA)));
  fail_unless (gst_cuda_context_push (GST_CUDA_MEMORY_CAST (mem)->context));
  const cudaError_t e = cudaMemset (m.data, 0xA5, m.size);
  const cudaError_t s = cudaDeviceSynchronize ();
  gst_cuda_context_pop (NULL);
  gst_memory_unmap (mem, &m);
  fail_unless (e == cudaSuccess && s == cudaSuccess, "poisoning a CUDA "
      "buffer: %s", cudaGetErrorString (e != cudaSuccess ? e : s));
  gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), poisoned,
      GINT_TO_POINTER (1), NULL);
}
#endif

ElementHarness::ElementHarness (const std::string & launch,
    const GstVideoInfo * info, bool cuda, bool share_context)
{
  /* what gst_harness_new_parse does, with the context set in between */
  GError *err = NULL;
  GstElement *bin = gst_parse_bin_from_description_full (launch.c_str (),
      TRUE, NULL, GST_PARSE_FLAG_FATAL_ERRORS, &err);
  fail_unless (bin != NULL && err == NULL, "cannot launch %s: %s",
      launch.c_str (), err ? err->message : "?");
  gst_object_ref_sink (bin);
#ifdef HAVE_GST_CUDA
  if (share_context && gpu_works ()) {
    GstContext *ctx = gst_context_new_cuda_context (shared_context ());
    gst_element_set_context (bin, ctx);
    gst_context_unref (ctx);
  }
#else
  (void) share_context;
#endif
  h = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);
  fail_unless (h != NULL, "cannot launch %s", launch.c_str ());
  bus = gst_bus_new ();
  gst_element_set_bus (h->element, bus);
  if (info)
    caps (info, cuda);
}

ElementHarness::~ElementHarness ()
{
  gst_harness_teardown (h);
  /* queued messages hold refs to the elements, which hold the bus */
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

void
ElementHarness::caps (const GstVideoInfo * info, bool cuda)
{
  gst_harness_set_caps (h, video_caps (info, cuda), video_caps (info, cuda));
}

GstElement *
ElementHarness::find (const char *factory)
{
  GstElement *e = gst_harness_find_element (h, factory);
  fail_unless (e != NULL, "no %s in the harness", factory);
  gst_object_unref (e);
  return e;
}

GstBuffer *
ElementHarness::push (GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL);
  return out;
}

GstMessage *
ElementHarness::pop (GstClockTime timeout)
{
  GstMessage *m = gst_bus_timed_pop_filtered (bus, timeout,
      (GstMessageType) (GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR));
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail ("error message: %s", err->message);
  }
  return m;
}

void
ElementHarness::expect_no_message ()
{
  GstMessage *m = pop (0);
  if (m)
    fail ("unexpected message %s",
        gst_structure_to_string (gst_message_get_structure (m)));
}

/* ---- AppPipeline ----------------------------------------------------------- */

AppPipeline::AppPipeline (const std::string & middle, GstCaps * caps,
    bool share_context)
{
  static gsize registered = 0;
  if (g_once_init_enter (&registered)) {
    gst_element_register (NULL, "appsrc", GST_RANK_NONE, GST_TYPE_APP_SRC);
    gst_element_register (NULL, "appsink", GST_RANK_NONE, GST_TYPE_APP_SINK);
    g_once_init_leave (&registered, 1);
  }
  std::string launch = "appsrc name=src format=time ! " + middle +
      " ! appsink name=sink sync=false enable-last-sample=false";
  GError *err = NULL;
  pipe = gst_parse_launch (launch.c_str (), &err);
  fail_unless (pipe != NULL && err == NULL, "cannot launch %s: %s",
      launch.c_str (), err ? err->message : "?");
  src = get ("src");
  sink = get ("sink");
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  live_pipelines.push_back (this);
#ifdef HAVE_GST_CUDA
  /* without a device there is no context to share (and opening one asserts) */
  if (share_context && gpu_works ()) {
    GstContext *ctx = gst_context_new_cuda_context (shared_context ());
    gst_element_set_context (pipe, ctx);
    gst_context_unref (ctx);
  }
#else
  (void) share_context;
#endif
}

AppPipeline::~AppPipeline ()
{
  live_pipelines.erase (std::remove (live_pipelines.begin (),
          live_pipelines.end (), this), live_pipelines.end ());
  gst_element_set_state (pipe, GST_STATE_NULL);
  /* queued messages hold refs to their sources, the pipeline among them */
  GstBus *bus = gst_element_get_bus (pipe);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  for (GstMessage *m : errors)
    gst_message_unref (m);
}

GstElement *
AppPipeline::get (const char *name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
  fail_unless (e != NULL, "no element %s", name);
  gst_object_unref (e);         /* the pipeline holds it */
  return e;
}

bool
AppPipeline::play ()
{
  return gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE;
}

void
AppPipeline::stop ()
{
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL) ==
      GST_STATE_CHANGE_SUCCESS);
  /* messages of the old run hold refs to the elements: drop them */
  GstBus *bus = gst_element_get_bus (pipe);
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  gst_object_unref (bus);
}

GstBuffer *
AppPipeline::process (GstBuffer * in, GstClockTime timeout)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstBuffer *out = NULL;
  const size_t n_errors = errors.size ();

  fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), in),
      GST_FLOW_OK);
  GstClockTime end = gst_util_get_timestamp () + timeout;
  while (!out && errors.size () == n_errors) {
    fail_unless (gst_util_get_timestamp () < end, "no output and no error");
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        10 * GST_MSECOND);
    if (sample) {
      out = gst_buffer_ref (gst_sample_get_buffer (sample));
      gst_sample_unref (sample);
    }
    GstMessage *m;
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
      errors.push_back (m);
  }
  if (!out && errors.size () < n_errors + 2) {
    /* the source's own error follows ours */
    GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_SECOND,
        GST_MESSAGE_ERROR);
    if (m)
      errors.push_back (m);
  }
  gst_object_unref (bus);
  return out;
}

/* ---- leaks and memory ----------------------------------------------------- */

LeakCheck::LeakCheck ()
{
  GList *tracers = gst_tracing_get_active_tracers ();
  for (GList *l = tracers; l; l = l->next)
    if (!tracer_ && g_str_equal (G_OBJECT_TYPE_NAME (l->data),
            "GstLeaksTracer"))
      tracer_ = GST_TRACER (gst_object_ref (l->data));
  g_list_free_full (tracers, gst_object_unref);
  const gchar *path = g_getenv ("GST_PLUGIN_SYSTEM_PATH_1_0") ?
      g_getenv ("GST_PLUGIN_SYSTEM_PATH_1_0") :
      g_getenv ("GST_PLUGIN_SYSTEM_PATH");
  fail_unless (tracer_ != NULL, "the leaks tracer is not active: set "
      "GST_TRACERS=leaks before gst_init, with libgstcoretracers.so in the "
      "plugin system path (GST_PLUGIN_SYSTEM_PATH=%s; the GPU bundles get it "
      "from tests/stage-gpu.sh and tests/stage-gpu-126.sh)",
      path ? path : "(unset: the system's)");
  g_signal_emit_by_name (tracer_, "activity-start-tracking");
}

LeakCheck::~LeakCheck ()
{
  g_signal_emit_by_name (tracer_, "activity-stop-tracking");
  gst_object_unref (tracer_);
}

/* The objects of a checkpoint list, by address. */
static std::map<std::string, std::string>
checkpoint_objects (const GstStructure * cp, const char *field)
{
  std::map<std::string, std::string> r;
  const GValue *list = gst_structure_get_value (cp, field);
  fail_unless (list != NULL && GST_VALUE_HOLDS_LIST (list),
      "unexpected leaks tracer checkpoint %" GST_PTR_FORMAT, cp);
  for (guint i = 0; i < gst_value_list_get_size (list); i++) {
    const GstStructure *o = gst_value_get_structure (
        gst_value_list_get_value (list, i));
    const gchar *t = gst_structure_get_string (o, "type-name");
    const gchar *a = gst_structure_get_string (o, "address");
    fail_unless (a != NULL, "unexpected checkpoint entry %" GST_PTR_FORMAT, o);
    r[a] = t ? t : "?";
  }
  return r;
}

std::string
LeakCheck::alive ()
{
  std::map<std::string, int> count;
  /* threads of a thread pool drop their last refs (GstTask) just after
   * they were joined: give them a moment */
  for (int tries = 0; tries < 50; tries++) {
    GstStructure *cp = NULL;
    /* made and destroyed since the previous checkpoint */
    g_signal_emit_by_name (tracer_, "activity-get-checkpoint", &cp);
    fail_unless (cp != NULL);
    for (auto & c : checkpoint_objects (cp, "objects-created-list"))
      created_[c.first] = c.second;
    for (auto & c : checkpoint_objects (cp, "objects-removed-list"))
      removed_[c.first] = c.second;
    gst_structure_free (cp);
    count.clear ();
    for (auto & c : created_)
      if (!removed_.count (c.first))
        count[c.second]++;
    if (count.empty ())
      break;
    g_usleep (20000);
  }
  std::string r;
  for (auto & c : count)
    r += c.first + " x" + std::to_string (c.second) + "\n";
  return r;
}

gint64
rss_bytes ()
{
#ifdef __SANITIZE_ADDRESS__
  /* AddressSanitizer's quarantine holds freed memory: RSS says nothing */
  return -1;
#endif
  long pages = 0, resident = 0;
  FILE *f = fopen ("/proc/self/statm", "r");
  if (f) {
    if (fscanf (f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose (f);
  }
  return (gint64) resident * sysconf (_SC_PAGESIZE);
}

gint64
device_used_bytes (int dev)
{
#ifdef HAVE_GST_CUDA
  if (!gpu_works ())
    return -1;
  size_t free_b = 0, total = 0;
  int prev = 0;
  cudaGetDevice (&prev);
  if (cudaSetDevice (dev) != cudaSuccess ||
      cudaMemGetInfo (&free_b, &total) != cudaSuccess) {
    cudaGetLastError ();
    cudaSetDevice (prev);
    return -1;
  }
  cudaSetDevice (prev);
  return (gint64) (total - free_b);
#else
  (void) dev;
  return -1;
#endif
}

MemoryUse
memory_use ()
{
  MemoryUse u;
  u.device = device_used_bytes ();
  malloc_trim (0);
  u.rss = rss_bytes ();
  return u;
}

/* ---- frame digests -------------------------------------------------------- */

static void
append_rows (std::vector<uint8_t> & d, GstBuffer * buf, gsize row_bytes,
    guint rows, gsize stride)
{
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless (rows == 0 || (rows - 1) * stride + row_bytes <= map.size);
  for (guint y = 0; y < rows; y++)
    d.insert (d.end (), map.data + y * stride, map.data + y * stride +
        row_bytes);
  gst_buffer_unmap (buf, &map);
}

std::vector<uint8_t>
frame_digest (GstBuffer * buf, const GstVideoInfo * info)
{
  std::vector<uint8_t> d;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    std::vector<uint8_t> px = read_component (buf, info, c);
    d.insert (d.end (), px.begin (), px.end ());
  }
  if (GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (buf)) {
    gsize elem = m->type == GST_INTEGRAL_IMAGE_TYPE_U64 ? 8 : 4;
    append_rows (d, m->sum, m->width * elem, m->height, m->stride);
    if (m->sqsum)
      append_rows (d, m->sqsum, m->width * 8, m->height, m->sq_stride);
  }
  if (GstHistogramMeta *m = gst_buffer_get_histogram_meta (buf)) {
    const uint8_t *c = (const uint8_t *) m->counts;
    d.insert (d.end (), c, c + (gsize) m->bins * m->n_histograms * 8);
  }
  if (GstEqualizationMeta *m = gst_buffer_get_equalization_meta (buf))
    append_rows (d, m->luts, gst_buffer_get_size (m->luts), 1, 0);
  return d;
}

std::string
digest_difference (const std::vector<uint8_t> & a,
    const std::vector<uint8_t> & b, const GstVideoInfo * info)
{
  gsize pixels = 0;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    pixels += (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
        GST_VIDEO_INFO_COMP_HEIGHT (info, c) *
        (GST_VIDEO_INFO_COMP_DEPTH (info, c) > 8 ? 2 : 1);
  gsize i = 0, n = MIN (a.size (), b.size ());
  while (i < n && a[i] == b[i])
    i++;
  if (i == n && a.size () == b.size ())
    return "equal";
  return "first difference at byte " + std::to_string (i) + " of " +
      std::to_string (a.size ()) + "/" + std::to_string (b.size ()) +
      (i < pixels ? " (pixels)" : " (metas: the pixels are the first " +
          std::to_string (pixels) + " bytes)");
}

}  // namespace testutil
