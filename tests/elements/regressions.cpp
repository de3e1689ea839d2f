/* Regression tests of issue 10, each reproduction as the issue wrote it (real
 * pipelines of stock elements around ours) with what the fixed elements must
 * do:
 * 1. a GRAY8 32768x16384 frame through cudaintegral sat-type=u64 (a 4.3 GB
 *    table, past 4 GiB) ends in EOS with a right table;
 * 2. GstVideoCropMeta: cudahistogram and cudaintegral after videocrop give
 *    the crop's results whether the sink accepts crop metas (fakevideosink)
 *    or not (fakesink);
 * 3. an integral table made stale by timeoverlay in between is not reused by
 *    cudaboxfilter, and one is still reused (proven by overwriting it) when
 *    nothing, or a queue, sits in between;
 * 4. tightly packed input (GstVideoMeta, I420 321x241, strides 321/161/161)
 *    through cudaboxfilter, from a harness and from rawvideoparse;
 * 5. negotiation follows the properties: videoconvert gives RGB to
 *    cudahistogram mode=rgb and alpha to cudaintegral plane=3, a change of
 *    mode while PLAYING renegotiates, a fixed upstream gets a warning;
 * 6. (GPU) CUDA memory of another GstCudaContext mid-stream: cudaboxfilter
 *    switches to it and the output stays right.
 * Issue 7 needs fault injection and issue 8 is in cudahistogram.cpp. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/cudaimgproc/gstintegralmeta.h>
#include <gst/cudaimgproc/gsthistogrammeta.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "boxref.h"
#include "elementcheck.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#endif

using namespace testutil;

/* ---- a pipeline run to EOS ------------------------------------------------ */

/* A launch line run to EOS (or an error), collecting the element messages and
 * warnings and the buffers of the element named "sink" (signal-handoffs);
 * each buffer goes to on_buffer once the pipeline has stopped, on the test's
 * thread (a check failing in a streaming thread cannot unwind the test),
 * with `caps` its caps. */
struct PipelineRun {
  GstElement *pipe = nullptr;
  std::function<void (GstBuffer *)> on_buffer;
  GstCaps *caps = nullptr;              /* of the buffer given to on_buffer */
  GMutex lock;
  std::vector<std::pair<GstBuffer *, GstCaps *>> received;
  std::vector<GstMessage *> elements;   /* element messages, in order */
  std::vector<std::string> warnings;
  std::string error;                    /* empty when none */
  bool eos = false;

  explicit PipelineRun (const std::string & launch)
  {
    GError *err = NULL;
    pipe = gst_parse_launch (launch.c_str (), &err);
    fail_unless (pipe != NULL && err == NULL, "cannot launch %s: %s",
        launch.c_str (), err ? err->message : "?");
    g_mutex_init (&lock);
  }
  ~PipelineRun ()
  {
    for (GstMessage *m : elements)
      gst_message_unref (m);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    drop_received ();
    g_mutex_clear (&lock);
  }

  void drop_received ()
  {
    for (auto & r : received) {
      gst_buffer_unref (r.first);
      gst_clear_caps (&r.second);
    }
    received.clear ();
  }
  PipelineRun (const PipelineRun &) = delete;
  PipelineRun &operator= (const PipelineRun &) = delete;

  GstElement *get (const char *name)
  {
    GstElement *e = gst_bin_get_by_name (GST_BIN (pipe), name);
    fail_unless (e != NULL, "no element %s", name);
    gst_object_unref (e);       /* the pipeline holds it */
    return e;
  }

  static void handoff (GstElement *, GstBuffer * buf, GstPad * pad,
      gpointer data)
  {
    PipelineRun *self = (PipelineRun *) data;
    g_mutex_lock (&self->lock);
    self->received.push_back ({ gst_buffer_ref (buf),
        gst_pad_get_current_caps (pad) });
    g_mutex_unlock (&self->lock);
  }

  /* Runs to EOS or an error, at most `timeout`. */
  void run (GstClockTime timeout = 120 * GST_SECOND)
  {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
    if (sink) {
      g_object_set (sink, "signal-handoffs", TRUE, NULL);
      g_signal_connect (sink, "handoff", G_CALLBACK (handoff), this);
      gst_object_unref (sink);
    }
    GstBus *bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    GstClockTime end = gst_util_get_timestamp () + timeout;
    while (!eos && error.empty ()) {
      GstClockTime now = gst_util_get_timestamp ();
      fail_unless (now < end, "pipeline did not finish in time");
      GstMessage *m = gst_bus_timed_pop_filtered (bus, end - now,
          (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING | GST_MESSAGE_ELEMENT));
      if (!m)
        continue;
      GError *err = NULL;
      switch (GST_MESSAGE_TYPE (m)) {
        case GST_MESSAGE_EOS:
          eos = true;
          break;
        case GST_MESSAGE_ERROR:
          gst_message_parse_error (m, &err, NULL);
          error = err->message;
          g_error_free (err);
          break;
        case GST_MESSAGE_WARNING:
          gst_message_parse_warning (m, &err, NULL);
          warnings.push_back (err->message);
          g_error_free (err);
          break;
        default:
          elements.push_back (gst_message_ref (m));
          break;
      }
      gst_message_unref (m);
    }
    gst_object_unref (bus);
    gst_element_set_state (pipe, GST_STATE_NULL);
    for (auto & r : received) {
      caps = r.second;
      if (on_buffer)
        on_buffer (r.first);
    }
    caps = nullptr;
    drop_received ();
  }

  void run_ok (GstClockTime timeout = 120 * GST_SECOND)
  {
    run (timeout);
    fail_unless (error.empty (), "error: %s", error.c_str ());
    fail_unless (eos);
  }
};

/* Component `comp` (tight W x H bytes) of the first frame at the sink of
 * `launch` (which names its sink "sink"). */
static std::vector<uint8_t>
first_frame_component (const std::string & launch, guint comp,
    GstVideoInfo * info_out = nullptr)
{
  PipelineRun run (launch);
  std::vector<uint8_t> px;
  run.on_buffer = [&] (GstBuffer * buf) {
    if (!px.empty ())
      return;
    GstVideoInfo info;
    fail_unless (run.caps && gst_video_info_from_caps (&info, run.caps));
    px = read_component (buf, &info, comp);
    if (info_out)
      *info_out = info;
  };
  run.run_ok ();
  fail_unless (!px.empty (), "no frame from %s", launch.c_str ());
  return px;
}

/* ---- 1. huge frames --------------------------------------------------------- */

/* The pipeline: 32768 x 16384 GRAY8, a u64 table of 32769 x 16385
 * elements (4.3 GB, past what a guint size holds). compute=auto: the CPU
 * here, the GPU on the GPU machine. */
static void
huge_frame (const char *compute)
{
  const guint64 W = 32768, H = 16384;
  PipelineRun run (std::string ("videotestsrc pattern=white num-buffers=1 ! "
          "video/x-raw,format=GRAY8,width=32768,height=16384 ! "
          "cudaintegral sat-type=u64 compute=") + compute +
      " ! fakesink name=sink");
  int frames = 0;
  run.on_buffer = [&] (GstBuffer * buf) {
    frames++;
    GstMapInfo px;
    fail_unless (gst_buffer_map (buf, &px, GST_MAP_READ));
    fail_unless (px.size >= W * H);
    /* a constant frame (videotestsrc's white), whatever its value */
    const guint64 v = px.data[0];
    fail_unless (v > 0);
    for (gsize i = 0; i < W * H; i++)
      if (px.data[i] != v)
        fail ("frame not constant at %" G_GSIZE_FORMAT, i);
    gst_buffer_unmap (buf, &px);

    GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (buf);
    fail_unless (m != NULL, "no integral meta");
    fail_unless_equals_int (m->width, W + 1);
    fail_unless_equals_int (m->height, H + 1);
    fail_unless_equals_int (m->type, GST_INTEGRAL_IMAGE_TYPE_U64);
    GstMapInfo map;
    fail_unless (gst_buffer_map (m->sum, &map, GST_MAP_READ));
    fail_unless ((guint64) m->stride * m->height <= map.size,
        "table buffer of %" G_GSIZE_FORMAT " bytes for %" G_GSIZE_FORMAT
        " x %u", map.size, m->stride, m->height);
    const guint64 xs[] = { 0, 1, 4097, 32767, W };
    const guint64 ys[] = { 0, 1, 8191, 16383, H };
    for (guint64 y : ys)
      for (guint64 x : xs) {
        guint64 got = ((const guint64 *) (map.data + y * m->stride))[x];
        if (got != v * x * y)
          fail ("sum(%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT ") = %"
              G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, x, y, got,
              v * x * y);
      }
    /* every element of the last row (past 4 GiB into the table) */
    const guint64 *last = (const guint64 *) (map.data + H * m->stride);
    for (guint64 x = 0; x <= W; x++)
      if (last[x] != v * x * H)
        fail ("last row: sum(%" G_GUINT64_FORMAT ", H) = %" G_GUINT64_FORMAT,
            x, last[x]);
    gst_buffer_unmap (m->sum, &map);
  };
  run.run_ok (300 * GST_SECOND);
  fail_unless_equals_int (frames, 1);
}

GST_START_TEST (test_huge_frame)
{
  huge_frame ("auto");
}
GST_END_TEST;

/* ---- 2. crop metadata ----------------------------------------------------- */

static const char *crop_src = "videotestsrc num-buffers=1 ! "
    "video/x-raw,format=GRAY8,width=320,height=240";
static const int CROP_X = 160, CROP_Y = 120, CROP_W = 160, CROP_H = 120;

/* The full 320 x 240 frame videotestsrc gives (its default pattern). */
static std::vector<uint8_t>
uncropped_frame ()
{
  return first_frame_component (std::string (crop_src) +
      " ! fakesink name=sink", 0);
}

static std::vector<guint64>
counts_of (const std::vector<uint8_t> & px, int stride, int x0, int y0, int w,
    int h, guint bins)
{
  std::vector<guint64> c (bins, 0);
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++)
      c[px[(size_t) y * stride + x] * bins / 256]++;
  return c;
}

static std::vector<guint64>
message_counts (GstMessage * m, const char *name)
{
  const GstStructure *s = gst_message_get_structure (m);
  fail_unless (gst_structure_has_name (s, "histogram"));
  const GValue *arr = gst_structure_get_value (s, name);
  fail_unless (arr != NULL, "message has no %s", name);
  std::vector<guint64> c;
  for (guint b = 0; b < gst_value_array_get_size (arr); b++)
    c.push_back (g_value_get_uint64 (gst_value_array_get_value (arr, b)));
  return c;
}

/* Whether buffers at the sink hold a crop meta (fakevideosink: they do). */
static void
check_crop_meta (GstBuffer * buf, const std::string & sink)
{
  bool has = gst_buffer_get_video_crop_meta (buf) != NULL;
  fail_unless (has == (sink == "fakevideosink"), "%s: crop meta %s", 
      sink.c_str (), has ? "present" : "absent");
}

static void
crop_histogram (const char *compute)
{
  const guint bins = 4;
  std::vector<uint8_t> full = uncropped_frame ();
  std::vector<guint64> want = counts_of (full, 320, CROP_X, CROP_Y, CROP_W,
      CROP_H, bins);
  std::vector<guint64> whole = counts_of (full, 320, 0, 0, 320, 240, bins);
  /* the whole frame's counts scaled to the crop's area differ: the crop is
   * not a sample of the whole */
  bool differ = false;
  for (guint b = 0; b < bins; b++)
    differ |= whole[b] != want[b] * 4;
  fail_unless (differ, "the crop looks like the whole frame");

  for (std::string sink : { "fakevideosink", "fakesink" }) {
    PipelineRun run (std::string (crop_src) + " ! videocrop left=160 top=120"
        " ! cudahistogram bins=4 compute=" + compute + " ! " + sink +
        " name=sink");
    int frames = 0;
    run.on_buffer = [&] (GstBuffer * buf) {
      frames++;
      check_crop_meta (buf, sink);
      GstHistogramMeta *m = gst_buffer_get_histogram_meta (buf);
      fail_unless (m != NULL);
      std::vector<guint64> got (m->counts, m->counts + bins);
      fail_unless (got == want, "%s: meta counts of the crop expected",
          sink.c_str ());
    };
    run.run_ok ();
    fail_unless_equals_int (frames, 1);
    fail_unless_equals_int (run.elements.size (), 1);
    std::vector<guint64> got = message_counts (run.elements[0], "luma");
    for (guint b = 0; b < bins; b++)
      if (got[b] != want[b])
        fail ("%s: bin %u: %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT
            " (the crop's)", sink.c_str (), b, got[b], want[b]);
  }
}

GST_START_TEST (test_crop_histogram)
{
  crop_histogram (compute_mode);
}
GST_END_TEST;

static void
crop_integral (const char *compute)
{
  std::vector<uint8_t> full = uncropped_frame ();
  for (std::string sink : { "fakevideosink", "fakesink" }) {
    PipelineRun run (std::string (crop_src) + " ! videocrop left=160 top=120"
        " ! cudaintegral sat-type=u64 compute=" + compute + " ! " + sink +
        " name=sink");
    int frames = 0;
    run.on_buffer = [&] (GstBuffer * buf) {
      frames++;
      check_crop_meta (buf, sink);
      GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (buf);
      fail_unless (m != NULL);
      fail_unless_equals_int (m->width, CROP_W + 1);
      fail_unless_equals_int (m->height, CROP_H + 1);
      GstMapInfo map;
      fail_unless (gst_buffer_map (m->sum, &map, GST_MAP_READ));
      /* every element against a naive sum over the crop of the full frame */
      std::vector<guint64> prev (CROP_W + 1, 0), cur (CROP_W + 1, 0);
      for (int y = 1; y <= CROP_H; y++) {
        guint64 r = 0;
        for (int x = 1; x <= CROP_W; x++) {
          r += full[(size_t) (CROP_Y + y - 1) * 320 + CROP_X + x - 1];
          cur[x] = prev[x] + r;
          guint64 got = ((const guint64 *) (map.data + y * m->stride))[x];
          if (got != cur[x])
            fail ("%s: sum(%d, %d) = %" G_GUINT64_FORMAT ", the crop's %"
                G_GUINT64_FORMAT, sink.c_str (), x, y, got, cur[x]);
        }
        std::swap (prev, cur);
      }
      gst_buffer_unmap (m->sum, &map);
    };
    run.run_ok ();
    fail_unless_equals_int (frames, 1);
  }
}

GST_START_TEST (test_crop_integral)
{
  crop_integral (compute_mode);
}
GST_END_TEST;

/* ---- 3. stale integral tables --------------------------------------------- */

static const char *stale_src = "videotestsrc num-buffers=1 pattern=ball ! "
    "video/x-raw,format=I420,width=320,height=240";

/* Component 0 of the first output of `middle ! cudaboxfilter ... ! fakesink`. */
static std::vector<uint8_t>
blur_of (const std::string & middle, const char *compute)
{
  return first_frame_component (std::string (stale_src) + " ! " + middle +
      "cudaboxfilter radius-x=2 radius-y=2 compute=" + compute +
      " ! fakesink name=sink", 0);
}

static void
stale_table (const char *compute)
{
  std::string integral = std::string ("cudaintegral compute=") + compute +
      " ! ";
  std::vector<uint8_t> overlaid = blur_of ("timeoverlay ! ", compute);
  std::vector<uint8_t> with_table = blur_of (integral + "timeoverlay ! ",
      compute);
  std::vector<uint8_t> plain = blur_of (integral, compute);
  fail_unless (overlaid != plain, "timeoverlay changed nothing");
  fail_unless (with_table == overlaid,
      "the blur after cudaintegral ! timeoverlay is not that of the overlaid "
      "frame (stale table reused)");
}

GST_START_TEST (test_stale_table)
{
  stale_table (compute_mode);
}
GST_END_TEST;

/* Overwrites the table of every frame arriving on the pad, counting the
 * tables overwritten (the test checks the count: no check can fail here, in
 * a streaming thread). */
static GstPadProbeReturn
scribble_table (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  int *seen = (int *) data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (buf);
  if (!m || gst_buffer_n_memory (m->sum) != 1)
    return GST_PAD_PROBE_OK;
  GstMemory *mem = gst_buffer_peek_memory (m->sum, 0);
  GstMapInfo map;
  if (!gst_memory_map (mem, &map, GST_MAP_WRITE))
    return GST_PAD_PROBE_OK;
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 37 + 11);
  gst_memory_unmap (mem, &map);
  (*seen)++;
  return GST_PAD_PROBE_OK;
}

/* Component 0 of `src ! cudaintegral ! middle cudaboxfilter` with the table
 * overwritten on cudaboxfilter's sink pad (scribble) or not. */
static std::vector<uint8_t>
blur_with_table (const std::string & middle, bool scribble)
{
  PipelineRun run (std::string (stale_src) +
      " ! cudaintegral compute=cpu ! " + middle +
      "cudaboxfilter name=box compute=cpu radius-x=2 radius-y=2"
      " ! fakesink name=sink");
  int seen = 0;
  if (scribble) {
    GstPad *pad = gst_element_get_static_pad (run.get ("box"), "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, scribble_table, &seen,
        NULL);
    gst_object_unref (pad);
  }
  std::vector<uint8_t> px;
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 320, 240);
  run.on_buffer = [&] (GstBuffer * buf) {
    px = read_component (buf, &info, 0);
  };
  run.run_ok ();
  fail_unless (!px.empty ());
  if (scribble)
    fail_unless_equals_int (seen, 1);   /* a table arrived and was overwritten */
  return px;
}

/* Reuse stays free: with nothing or a queue in between, the table is read
 * (overwriting it changes the output); with timeoverlay in between it is
 * not (the output is the blur of the overlaid frame either way). */
GST_START_TEST (test_table_reuse)
{
  for (const char *middle : { "", "queue ! " }) {
    std::vector<uint8_t> a = blur_with_table (middle, false);
    std::vector<uint8_t> b = blur_with_table (middle, true);
    fail_unless (a != b, "'%s': the upstream table was not reused", middle);
  }
  std::vector<uint8_t> a = blur_with_table ("timeoverlay ! ", false);
  std::vector<uint8_t> b = blur_with_table ("timeoverlay ! ", true);
  fail_unless (a == b, "the table of the frame before timeoverlay was read");
}
GST_END_TEST;

/* ---- 4. tight strides ------------------------------------------------------ */

/* `ref` (default strides) repacked with tight strides (321, 161, 161) and a
 * GstVideoMeta saying so. */
static GstBuffer *
tight_copy (GstBuffer * ref, const GstVideoInfo * info, gsize * size_out)
{
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 0 };
  gsize size = 0;
  for (guint p = 0; p < 3; p++) {
    strides[p] = GST_VIDEO_INFO_COMP_WIDTH (info, p);
    offsets[p] = size;
    size += (gsize) strides[p] * GST_VIDEO_INFO_COMP_HEIGHT (info, p);
  }
  fail_unless (size < GST_VIDEO_INFO_SIZE (info), "not tighter");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (guint p = 0; p < 3; p++) {
    std::vector<uint8_t> c = read_component (ref, info, p);
    memcpy (map.data + offsets[p], c.data (), c.size ());
  }
  gst_buffer_unmap (buf, &map);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_I420, info->width, info->height, 3, offsets, strides);
  if (size_out)
    *size_out = size;
  return buf;
}

GST_START_TEST (test_tight_strides)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 321, 241);
  const std::string launch = std::string ("cudaboxfilter compute=") +
      compute_mode + " radius-x=2 radius-y=2";
  GstBuffer *ref = make_video_buffer (&info, Content::natural, 3);
  GstBuffer *tight = tight_copy (ref, &info, NULL);

  ElementHarness a (launch, &info);
  GstBuffer *want = a.push (gst_buffer_ref (ref));
  ElementHarness b (launch, &info);
  GstBuffer *got = b.push (tight);
  for (guint c = 0; c < 3; c++) {
    std::vector<uint8_t> w = read_component (want, &info, c);
    fail_unless (read_component (got, &info, c) == w,
        "component %u of the tight frame's output differs", c);
    fail_unless (read_component (ref, &info, c) != w, "nothing filtered");
  }
  gst_buffer_unref (want);
  gst_buffer_unref (got);
  gst_buffer_unref (ref);
}
GST_END_TEST;

/* The way: tight bytes parsed by rawvideoparse (which attaches the
 * GstVideoMeta), no downstream pool (fakesink). */
GST_START_TEST (test_tight_strides_rawvideoparse)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 321, 241);
  GstBuffer *ref = make_video_buffer (&info, Content::random, 8);
  gsize size;
  GstBuffer *tight = tight_copy (ref, &info, &size);
  /* plain bytes: rawvideoparse describes them */
  gst_buffer_remove_meta (tight, (GstMeta *) gst_buffer_get_video_meta (tight));

  std::string box = std::string ("cudaboxfilter compute=") + compute_mode +
      " radius-x=2 radius-y=2";
  GstBuffer *want = NULL;
  {
    ElementHarness a (box, &info);
    want = a.push (gst_buffer_ref (ref));
  }
  PipelineRun run (std::string ("appsrc name=src format=bytes ! "
          "rawvideoparse use-sink-caps=false format=i420 width=321 height=241 "
          "plane-strides=\"<321,161,161>\" plane-offsets=\"<0,77361,96842>\" "
          "frame-size=") + std::to_string (size) + " ! " + box +
      " ! fakesink name=sink");
  int frames = 0;
  run.on_buffer = [&] (GstBuffer * buf) {
    frames++;
    for (guint c = 0; c < 3; c++)
      fail_unless (read_component (buf, &info, c) ==
          read_component (want, &info, c), "component %u differs", c);
  };
  GstElement *src = run.get ("src");
  GstFlowReturn r;
  g_signal_emit_by_name (src, "push-buffer", tight, &r);
  gst_buffer_unref (tight);
  fail_unless_equals_int (r, GST_FLOW_OK);
  g_signal_emit_by_name (src, "end-of-stream", &r);
  run.run_ok ();
  fail_unless_equals_int (frames, 1);
  gst_buffer_unref (want);
  gst_buffer_unref (ref);
}
GST_END_TEST;

/* ---- 5. negotiation follows the properties -------------------------------- */

/* The names of the histograms of a `histogram` message, e.g. "luma". */
static std::string
histogram_names (GstMessage * m)
{
  const GstStructure *s = gst_message_get_structure (m);
  fail_unless (gst_structure_has_name (s, "histogram"));
  std::string names;
  for (const char *n : { "luma", "red", "green", "blue" })
    if (gst_structure_has_field (s, n))
      names += std::string (names.empty () ? "" : ",") + n;
  return names;
}

GST_START_TEST (test_negotiate_rgb_histogram)
{
  PipelineRun run (std::string ("videotestsrc num-buffers=2 ! "
          "video/x-raw,format=NV12 ! videoconvert ! cudahistogram mode=rgb "
          "compute=") + compute_mode + " ! fakesink name=sink");
  run.run_ok ();
  fail_unless_equals_int (run.elements.size (), 2);
  for (GstMessage *m : run.elements) {
    /* a named string: the macro keeps the pointer past the statement */
    const std::string names = histogram_names (m);
    fail_unless_equals_string (names.c_str (), "red,green,blue");
  }
}
GST_END_TEST;

GST_START_TEST (test_negotiate_alpha_integral)
{
  PipelineRun run (std::string ("videotestsrc num-buffers=2 ! "
          "video/x-raw,format=NV12,width=64,height=48 ! videoconvert ! "
          "cudaintegral name=sat plane=3 compute=") + compute_mode +
      " ! fakesink name=sink");
  int frames = 0;
  run.on_buffer = [&] (GstBuffer * buf) {
    frames++;
    GstVideoInfo info;   /* cudaintegral passes its caps through */
    fail_unless (run.caps && gst_video_info_from_caps (&info, run.caps));
    fail_unless (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_RGBA ||
        GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_BGRA,
        "negotiated %s", GST_VIDEO_INFO_NAME (&info));
    GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (buf);
    fail_unless (m != NULL);
    fail_unless_equals_int (m->plane, 3);
    fail_unless_equals_int (m->width, 65);
    fail_unless_equals_int (m->height, 49);
    /* videoconvert's alpha is opaque: the table is 255 x y */
    GstMapInfo map;
    fail_unless (gst_buffer_map (m->sum, &map, GST_MAP_READ));
    for (guint y = 0; y <= 48; y++)
      for (guint x = 0; x <= 64; x++)
        fail_unless_equals_uint64 (((const guint32 *) (map.data +
                    y * m->stride))[x], 255u * x * y);
    gst_buffer_unmap (m->sum, &map);
  };
  run.run_ok ();
  fail_unless_equals_int (frames, 2);
}
GST_END_TEST;

/* Sets mode=rgb on the element when its 5th buffer arrives. */
static GstPadProbeReturn
switch_to_rgb (GstPad * pad, GstPadProbeInfo *, gpointer data)
{
  int *n = (int *) data;
  if (++*n == 5) {
    GstElement *e = gst_pad_get_parent_element (pad);
    gst_util_set_object_arg (G_OBJECT (e), "mode", "rgb");
    gst_object_unref (e);
  }
  return GST_PAD_PROBE_OK;
}

/* mode=rgb set while PLAYING, videoconvert upstream: the element asks for a
 * renegotiation and the later messages carry red, green and blue. */
GST_START_TEST (test_live_mode_renegotiates)
{
  PipelineRun run (std::string ("videotestsrc num-buffers=12 ! "
          "video/x-raw,format=NV12,width=64,height=48 ! videoconvert ! "
          "cudahistogram name=hist mode=luma compute=") + compute_mode +
      " ! fakesink name=sink");
  int n = 0;
  GstPad *pad = gst_element_get_static_pad (run.get ("hist"), "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, switch_to_rgb, &n, NULL);
  gst_object_unref (pad);
  run.run_ok ();
  fail_unless_equals_int (n, 12);
  fail_unless_equals_int (run.elements.size (), 12);
  fail_unless (histogram_names (run.elements[0]) == "luma");
  /* a frame or two may still be counted as luma while videoconvert
   * renegotiates; the last ones are RGB */
  for (size_t i = 8; i < run.elements.size (); i++)
    fail_unless (histogram_names (run.elements[i]) == "red,green,blue",
        "message %zu: %s", i, histogram_names (run.elements[i]).c_str ());
  fail_unless (run.warnings.empty (), "warning: %s",
      run.warnings.empty ()? "" : run.warnings[0].c_str ());
}
GST_END_TEST;

/* An upstream that cannot change (appsrc with fixed NV12 caps): the caps are
 * refused, with a warning that names the property. (Set after linking:
 * gst_parse_launch would refuse the link itself. videotestsrc would fail
 * on its own, before sending caps: see the caps query, not our warning.) */
GST_START_TEST (test_fixed_upstream_warns)
{
  const struct { const char *element, *prop, *value, *needle; } cases[] = {
    { "cudahistogram", "mode", "rgb", "mode=rgb" },
    { "cudaintegral", "plane", "3", "plane=3" },
  };
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 32, 32);
  for (const auto & c : cases) {
    PipelineRun run (std::string ("appsrc name=src format=time "
            "caps=video/x-raw,format=NV12,width=32,height=32,framerate=30/1 ! ")
        + c.element + " name=e compute=" + compute_mode +
        " ! fakesink name=sink");
    gst_util_set_object_arg (G_OBJECT (run.get ("e")), c.prop, c.value);
    GstBuffer *buf = make_video_buffer (&info, Content::random, 1);
    GST_BUFFER_PTS (buf) = 0;
    GstFlowReturn r;
    g_signal_emit_by_name (run.get ("src"), "push-buffer", buf, &r);
    gst_buffer_unref (buf);
    g_signal_emit_by_name (run.get ("src"), "end-of-stream", &r);
    run.run ();
    fail_unless (!run.eos, "%s: NV12 accepted", c.needle);
    bool named = false;
    for (const std::string & w : run.warnings)
      named |= w.find (c.needle) != std::string::npos;
    fail_unless (named, "%s: no warning naming it (error: %s)", c.needle,
        run.error.c_str ());
  }
}
GST_END_TEST;

/* ---- 6. CUDA memory of another context ------------------------------------- */

#ifdef HAVE_GST_CUDA
/* Frames from a pool of the shared context, then from a pool of a context of
 * its own: cudaboxfilter switches to the input's context before the
 * transform; every output is right, no error, and once the allocation is
 * decided again the output is memory of the new context. */
GST_START_TEST (test_gpu_context_switch)
{
  for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA }) {
    GstVideoInfo info = video_info (fmt, 130, 67);
    FrameSource first (&info, Memory::cuda);
    GstCudaContext *other = gst_cuda_context_new (0);
    fail_unless (other != NULL);
    GstCaps *caps = video_caps (&info, true);
    GstBufferPool *pool = make_cuda_pool (other, caps, &info);
    gst_caps_unref (caps);

    ElementHarness hrn ("cudaboxfilter compute=gpu radius-x=3 radius-y=2 "
        "border=clip planes=all",
        &info, true);
    uint32_t seed = 1;
    for (int i = 0; i < 4; i++) {
      GstBuffer *in = NULL;
      if (i == 0) {
        in = first.make (Content::random, seed++);
      } else {
        fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &in,
                NULL), GST_FLOW_OK);
        poison_cuda_once (in);
        fill_video_buffer (in, &info, Content::random, seed++);
      }
      GstBuffer *keep = gst_buffer_ref (in);
      GstBuffer *out = hrn.push (in);
      hrn.expect_no_message ();
      for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
        std::vector<uint8_t> src = read_component (keep, &info, c);
        std::vector<uint8_t> got = read_component (out, &info, c);
        int w = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
        int h = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
        int rx = (3 + ((1 << GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c)) >> 1)) >>
            GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
        int ry = (2 + ((1 << GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c)) >> 1)) >>
            GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
        std::vector<uint8_t> want = sliding_box (src.data (), (size_t) w, 1,
            w, h, rx, ry, false);
        fail_unless (got == want, "%s frame %d component %u differs",
            GST_VIDEO_INFO_NAME (&info), i, c);
      }
      if (i == 3) {
        GstMemory *mem = gst_buffer_peek_memory (out, 0);
        fail_unless (gst_is_cuda_memory (mem), "output not CUDA memory");
        fail_unless (GST_CUDA_MEMORY_CAST (mem)->context == other,
            "output still from the first context's pool");
      }
      gst_buffer_unref (out);
      gst_buffer_unref (keep);
    }
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
    gst_object_unref (other);
  }
}
GST_END_TEST;
#endif

#ifdef HAVE_GST_CUDA
/* runs after elementcheck's fixture, which resets compute_mode to cpu */
static void
use_gpu (void)
{
  compute_mode = "gpu";
}
#endif

static Suite *
regressions_suite (void)
{
  ElementSuite es ("regressions");

  tcase_add_test (es.cpu, test_huge_frame);
  tcase_add_test (es.cpu, test_crop_histogram);
  tcase_add_test (es.cpu, test_crop_integral);
  tcase_add_test (es.cpu, test_stale_table);
  tcase_add_test (es.cpu, test_table_reuse);
  tcase_add_test (es.cpu, test_tight_strides);
  tcase_add_test (es.cpu, test_tight_strides_rawvideoparse);
  tcase_add_test (es.cpu, test_negotiate_rgb_histogram);
  tcase_add_test (es.cpu, test_negotiate_alpha_integral);
  tcase_add_test (es.cpu, test_live_mode_renegotiates);
  tcase_add_test (es.cpu, test_fixed_upstream_warns);
#ifdef HAVE_GST_CUDA
  /* the same reproductions on the GPU path (system memory, uploaded), where
   * crops, tables and negotiation have code of their own */
  tcase_add_checked_fixture (es.gpu, use_gpu, NULL);
  tcase_add_test (es.gpu, test_crop_histogram);
  tcase_add_test (es.gpu, test_crop_integral);
  tcase_add_test (es.gpu, test_stale_table);
  tcase_add_test (es.gpu, test_tight_strides);
  tcase_add_test (es.gpu, test_tight_strides_rawvideoparse);
  tcase_add_test (es.gpu, test_negotiate_rgb_histogram);
  tcase_add_test (es.gpu, test_negotiate_alpha_integral);
  tcase_add_test (es.gpu, test_live_mode_renegotiates);
  tcase_add_test (es.gpu, test_fixed_upstream_warns);
  tcase_add_test (es.gpu, test_gpu_context_switch);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (regressions_suite, argc, argv);
}
