/* Example application: reads the GstIntegralImageMeta that cudaintegral
 * attaches and prints the sum of a rectangle of every frame, next to the same
 * number computed directly from the frame's pixels.
 *
 *   integral-rect [--frames N] [--width W] [--height H] [--format F]
 *                 [--compute auto|gpu|cpu] [--rect X,Y,W,H]
 *
 * Exits 1 if any frame's two numbers differ. */
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cudaimgproc/gstintegralmeta.h>

#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
  gint frames = 5, width = 1280, height = 720;
  gchar *format = NULL, *compute = NULL, *rect = NULL;
  guint rx, ry, rw, rh;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &frames, "Frames to process (5)", "N"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &width, "Frame width (1280)", "W"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &height, "Frame height (720)", "H"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Video format (NV12)",
        "F"},
    {"compute", 'c', 0, G_OPTION_ARG_STRING, &compute,
        "cudaintegral compute mode: auto, gpu or cpu (auto)", "MODE"},
    {"rect", 'r', 0, G_OPTION_ARG_STRING, &rect,
        "Rectangle X,Y,W,H (the centre half of the frame)", "R"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- sums of a rectangle from "
      "the integral image meta");
  GError *err = NULL;
  int mismatches = 0, seen = 0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  rx = width / 4;
  ry = height / 4;
  rw = width / 2;
  rh = height / 2;
  if (rect && sscanf (rect, "%u,%u,%u,%u", &rx, &ry, &rw, &rh) != 4) {
    g_printerr ("--rect takes X,Y,W,H\n");
    return 2;
  }

  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=%s,width=%d,height=%d ! cudaintegral compute=%s ! "
      "appsink name=sink sync=false", frames, format ? format : "NV12", width,
      height, compute ? compute : "auto");
  GstElement *pipeline = gst_parse_launch (desc, &err);
  if (!pipeline) {
    g_printerr ("could not build the pipeline: %s\n", err->message);
    return 2;
  }
  g_print ("pipeline: %s\n", desc);
  g_free (desc);

  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  GstSample *sample;
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    GstVideoFrame frame;
    GstMapInfo map;
    GstIntegralImageMeta *meta = gst_buffer_get_integral_image_meta (buf);

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    if (!meta) {
      g_printerr ("frame %d has no integral image meta\n", seen);
      return 1;
    }
    /* a CPU map works for both kinds of table: CUDA memory downloads */
    if (!gst_buffer_map (meta->sum, &map, GST_MAP_READ)) {
      g_printerr ("could not map the table\n");
      return 1;
    }
    guint64 from_table = gst_integral_image_rect_sum (map.data, meta->stride,
        meta->type, meta->width, meta->height, rx, ry, rw, rh);
    const gchar *where = gst_buffer_peek_memory (meta->sum, 0)->allocator ?
        gst_buffer_peek_memory (meta->sum, 0)->allocator->mem_type : "?";
    gst_buffer_unmap (meta->sum, &map);

    guint64 direct = 0;
    gst_video_frame_map (&frame, &info, buf, GST_MAP_READ);
    const guint8 *d = GST_VIDEO_FRAME_COMP_DATA (&frame, meta->plane);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, meta->plane);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, meta->plane);
    for (guint y = ry; y < ry + rh && y + 1 < meta->height; y++)
      for (guint x = rx; x < rx + rw && x + 1 < meta->width; x++)
        direct += d[(gsize) y * stride + (gsize) x * ps];
    gst_video_frame_unmap (&frame);

    g_print ("frame %d: %ux%u table (%s, in %s memory): sum of %ux%u at "
        "(%u,%u) = %" G_GUINT64_FORMAT ", direct = %" G_GUINT64_FORMAT "%s\n",
        seen, meta->width, meta->height,
        meta->type == GST_INTEGRAL_IMAGE_TYPE_U32 ? "u32" : "u64", where, rw,
        rh, rx, ry, from_table, direct, from_table == direct ? "" :
        "  MISMATCH");
    mismatches += from_table != direct;
    seen++;
    gst_sample_unref (sample);
  }

  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 0, GST_MESSAGE_ERROR);
  if (msg) {
    GError *e = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    g_printerr ("error: %s\n%s\n", e->message, dbg ? dbg : "");
    mismatches++;
    g_clear_error (&e);
    g_free (dbg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  if (seen != frames) {
    g_printerr ("expected %d frames, got %d\n", frames, seen);
    return 1;
  }
  g_print ("%d frames, %d mismatches\n", seen, mismatches);
  return mismatches ? 1 : 0;
}
