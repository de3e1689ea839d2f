/* Element throughput bench: pushes already-uploaded CUDA frames (a ring of
 * distinct frames from a GstCudaBufferPool) through
 *   appsrc ! <element description> ! fakesink
 * and reports frames per second and per-frame latency (push to sink, median
 * and p99). Not a test.
 *
 *   bench_element [--frames N] [--width W] [--height H] [--format NV12]
 *                 [--ring 8] [--writable] [--consume] [--system-memory]
 *                 [--serial] [--json PATH] "cudaintegral"
 *
 * --consume: the sink waits for each frame's GPU work (gst_cuda_memory_sync,
 * GStreamer 1.24+), so latency is until the data is finished, as a consumer
 * sees it; compare runs with and without CIP_FORCE_HOST_SYNC=1 (the elements'
 * host wait per frame) for the cost of that wait.
 *
 * --system-memory: the frames are in system memory (a video buffer pool):
 * the GPU path uploads and downloads them; "ELEMENT compute=cpu" gives the
 * CPU path's figure for the same frames.
 *
 * --serial: each frame is pushed only once the previous one reached the
 * sink, so latency is one frame's way through appsrc, the element and the
 * sink, without the frames queued in appsrc (up to 4) ahead of it; "identity"
 * as the element gives the harness's own share.
 *
 * "in the element" is each frame's host time from appsrc's source pad to
 * the sink's pad (pad probes, in the streaming thread): what the element(s)
 * take before the frame goes on, without the hand-over from the pushing
 * thread to appsrc's streaming thread, which the end-to-end latency
 * includes (GPU work an element hands on without a host wait, and the
 * --consume wait, are not in it).
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#if GST_CHECK_VERSION(1, 24, 0)
#include <gst/cuda/gstcudastream.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gint64 *push_time, *lat, *in_time, *el_lat;
static guint64 n_frames;
static volatile gint n_done;
static gboolean consume;

/* appsrc's source pad: the frame leaves for the element */
static GstPadProbeReturn
on_enter (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  guint64 i = GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info));
  if (i < n_frames)
    in_time[i] = g_get_monotonic_time ();
  return GST_PAD_PROBE_OK;
}

/* the sink's pad: the element pushed the frame */
static GstPadProbeReturn
on_leave (GstPad * pad, GstPadProbeInfo * info, gpointer user)
{
  guint64 i = GST_BUFFER_OFFSET (GST_PAD_PROBE_INFO_BUFFER (info));
  if (i < n_frames)     /* offsets are the frame numbers pushed */
    el_lat[i] = g_get_monotonic_time () - in_time[i];
  return GST_PAD_PROBE_OK;
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer user)
{
  guint64 i = GST_BUFFER_OFFSET (buf);
#if GST_CHECK_VERSION(1, 24, 0)
  for (guint m = 0; consume && m < gst_buffer_n_memory (buf); m++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, m);
    if (gst_is_cuda_memory (mem))
      gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
  }
#endif
  gint64 now = g_get_monotonic_time ();
  if (i < n_frames)
    lat[i] = now - push_time[i];
  g_atomic_int_inc (&n_done);
}

static int
cmp64 (const void *a, const void *b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  gint frames = 2000, width = 3840, height = 2160, ring = 8;
  gchar *format = NULL, *json = NULL;
  gboolean writable = FALSE, sysmem = FALSE, serial = FALSE;
  gchar *pattern = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames (2000)", "N"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &width, "Width (3840)", "W"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &height, "Height (2160)", "H"},
    {"ring", 'r', 0, G_OPTION_ARG_INT, &ring, "Distinct frames (8)", "R"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Format (NV12)", "F"},
    {"consume", 0, 0, G_OPTION_ARG_NONE, &consume,
        "The sink waits for each frame's GPU work (1.24+)", NULL},
    {"json", 'j', 0, G_OPTION_ARG_STRING, &json, "Append a JSON line", "PATH"},
    {"serial", 0, 0, G_OPTION_ARG_NONE, &serial,
        "Push a frame only after the previous one reached the sink", NULL},
    {"system-memory", 0, 0, G_OPTION_ARG_NONE, &sysmem,
        "Frames in system memory (the GPU path uploads them)", NULL},
    {"pattern", 'p', 0, G_OPTION_ARG_STRING, &pattern,
        "Frame content: random (default) or gradient", "P"},
    {"writable", 0, 0, G_OPTION_ARG_NONE, &writable,
        "Push pool buffers the pipeline owns alone (in-place writers: no copy "
        "on write, as from a decoder)", NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("ELEMENT-DESCRIPTION");
  GError *err = NULL;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err) || argc < 2) {
    g_printerr ("usage: bench_element [options] \"element ! ...\"\n");
    return 2;
  }
  if (!gst_cuda_load_library ()) {
    g_printerr ("no CUDA driver\n");
    return 77;
  }
  gst_cuda_memory_init_once ();
  GstCudaContext *ctx = gst_cuda_context_new (0);
  if (!ctx) {
    g_printerr ("no CUDA device\n");
    return 77;
  }

  GstVideoInfo info;
  gst_video_info_set_format (&info, gst_video_format_from_string (format ?
          format : "NV12"), width, height);
  GST_VIDEO_INFO_FPS_N (&info) = 1000;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  GstCaps *caps = gst_video_info_to_caps (&info);
  if (!sysmem)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  GstBufferPool *pool = sysmem ? gst_video_buffer_pool_new () :
      gst_cuda_buffer_pool_new (ctx);
  GstStructure *cfg = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (cfg, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (cfg, caps, info.size, ring, ring);
#if GST_CHECK_VERSION(1, 24, 0)
  /* frames on a stream of their own, as from a decoder (1.24+) */
  GstCudaStream *stream = gst_cuda_stream_new (ctx);
  if (!sysmem)
    gst_buffer_pool_config_set_cuda_stream (cfg, stream);
#endif
  gst_buffer_pool_set_config (pool, cfg);
  gst_buffer_pool_set_active (pool, TRUE);
  GstBuffer **frames_ring = g_new0 (GstBuffer *, ring);
  for (int i = 0; i < ring; i++) {
    GstMapInfo map;
    gst_buffer_pool_acquire_buffer (pool, &frames_ring[i], NULL);
    /* CPU map + unmap uploads once; the bench then only moves device memory */
    gst_buffer_map (frames_ring[i], &map, GST_MAP_WRITE);
    guint32 s = 12345u + i * 7919u;
    const gboolean gradient = pattern && g_str_equal (pattern, "gradient");
    for (gsize k = 0; k < map.size; k++) {
      s ^= s << 13; s ^= s >> 17; s ^= s << 5;
      /* gradient: a smooth ramp along the bytes, as natural pictures are */
      map.data[k] = gradient ? (guint8) ((k / 7 + i) & 0xff) : (guint8) (s >> 24);
    }
    gst_buffer_unmap (frames_ring[i], &map);
  }

  gchar *desc = g_strdup_printf ("appsrc name=src format=time is-live=false "
      "max-buffers=4 block=true ! %s ! fakesink name=sink sync=false "
      "signal-handoffs=true", argv[1]);
  GstElement *pipeline = gst_parse_launch (desc, &err);
  if (!pipeline) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  GstContext *gctx = gst_context_new_cuda_context (ctx);
  gst_element_set_context (pipeline, gctx);
  gst_context_unref (gctx);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_object_set (src, "caps", caps, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), NULL);
  push_time = g_new0 (gint64, frames);
  n_frames = (guint64) frames;
  lat = g_new0 (gint64, frames);
  in_time = g_new0 (gint64, frames);
  el_lat = g_new0 (gint64, frames);
  GstPad *src_pad = gst_element_get_static_pad (src, "src");
  GstPad *sink_pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (src_pad, GST_PAD_PROBE_TYPE_BUFFER, on_enter, NULL, NULL);
  gst_pad_add_probe (sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_leave, NULL, NULL);
  gst_object_unref (src_pad);
  gst_object_unref (sink_pad);

  if (writable) {
    /* the ring's frames go back to the pool, keeping their content */
    for (int i = 0; i < ring; i++)
      gst_clear_buffer (&frames_ring[i]);
  }
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  int warm = frames / 10;
  gint64 t0 = 0;
  for (int i = 0; i < frames; i++) {
    if (i == warm)
      t0 = g_get_monotonic_time ();
    GstBuffer *b;
    if (writable) {
      /* back to the pool after the sink: the pipeline owns it alone */
      if (gst_buffer_pool_acquire_buffer (pool, &b, NULL) != GST_FLOW_OK)
        break;
    } else {
      b = gst_buffer_copy (frames_ring[i % ring]);     /* shares memory */
    }
    GST_BUFFER_PTS (b) = (GstClockTime) i * GST_MSECOND;
    GST_BUFFER_DURATION (b) = GST_MSECOND;
    GST_BUFFER_OFFSET (b) = i;
    push_time[i] = g_get_monotonic_time ();
    if (gst_app_src_push_buffer (GST_APP_SRC (src), b) != GST_FLOW_OK) {
      g_printerr ("push failed at frame %d\n", i);
      break;
    }
    /* (a pipeline error ends the run at the bus wait below) */
    while (serial && g_atomic_int_get (&n_done) <= i &&
        g_get_monotonic_time () - push_time[i] < G_USEC_PER_SEC)
      g_thread_yield ();
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gint64 t1 = g_get_monotonic_time ();
  int rc = 0;
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    if (msg) {
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &e, &dbg);
      g_printerr ("error: %s (%s)\n", e->message, dbg);
    } else
      g_printerr ("timeout\n");
    rc = 1;
  }
  int n = frames - warm;
  qsort (lat + warm, n, sizeof (gint64), cmp64);
  qsort (el_lat + warm, n, sizeof (gint64), cmp64);
  double fps = n / ((t1 - t0) / 1e6);
  double med = lat[warm + n / 2] / 1000.0, p99 = lat[warm + n * 99 / 100] / 1000.0;
  double el_med = el_lat[warm + n / 2] / 1000.0,
      el_p99 = el_lat[warm + n * 99 / 100] / 1000.0;
  printf ("%-40s %dx%d %s%s: %8.1f fps, latency median %.3f ms, p99 %.3f ms "
      "(%d frames, %s%s%s%s); in the element median %.3f ms, p99 %.3f ms\n",
      argv[1], width, height,
      GST_VIDEO_INFO_NAME (&info), sysmem ? " system memory" : "", fps, med,
      p99, n,
      writable ? "writable pool buffers" : "ring of shared frames",
      serial ? ", one frame at a time" : "",
      consume ? ", sink waits for the GPU" : "",
      g_strcmp0 (g_getenv ("CIP_FORCE_HOST_SYNC"), "1") ? "" :
      ", CIP_FORCE_HOST_SYNC=1", el_med, el_p99);
  if (json) {
    FILE *f = fopen (json, "a");
    if (f) {
      fprintf (f, "{\"bench\": \"element\", \"pipeline\": \"%s\", \"width\": %d, "
          "\"height\": %d, \"format\": \"%s\", \"fps\": %.1f, "
          "\"latency_median_ms\": %.4f, \"latency_p99_ms\": %.4f, "
          "\"element_median_ms\": %.4f, \"element_p99_ms\": %.4f, "
          "\"frames\": %d, \"writable\": %s, \"consume\": %s, "
          "\"host_sync\": %s, \"memory\": \"%s\", \"serial\": %s, \"gst\": \"%d.%d\"}\n",
          argv[1], width, height, GST_VIDEO_INFO_NAME (&info), fps, med, p99,
          el_med, el_p99, n,
          writable ? "true" : "false", consume ? "true" : "false",
          g_strcmp0 (g_getenv ("CIP_FORCE_HOST_SYNC"), "1") ? "false" : "true",
          sysmem ? "system" : "cuda", serial ? "true" : "false",
          GST_VERSION_MAJOR, GST_VERSION_MINOR);
      fclose (f);
    }
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  for (int i = 0; i < ring; i++)
    gst_clear_buffer (&frames_ring[i]);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
#if GST_CHECK_VERSION(1, 24, 0)
  gst_cuda_stream_unref (stream);
#endif
  gst_object_unref (ctx);
  g_free (push_time);
  g_free (lat);
  g_free (in_time);
  g_free (el_lat);
  return rc;
}
