/* cudaintegral element tests: the attached SAT equals a naive sum over the
 * frame's component (read through GstVideoFrame, not the plugin's helpers)
 * for every format and plane, padded strides, both SAT types and the squared
 * table; video passes unchanged; renegotiation; refused caps; properties.
 * CPU path always; GPU path (system and CUDA memory) when a device works. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudaimgproc/gstintegralmeta.h>

#include <cstring>
#include <string>

#include "cipcheck.h"
#include "testframe.h"
#include "cip/cip.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#endif

using namespace testutil;

static const char *compute_mode = "cpu";

/* Checks the meta of `out` against a naive SAT of component `plane` of `in`. */
static void
check_meta (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    guint plane, bool u64, bool squared, const std::string & what)
{
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (out);
  fail_unless (m != NULL, "%s: no integral meta", what.c_str ());

  std::vector<uint8_t> px = read_component (in, info, plane);
  int w = GST_VIDEO_INFO_COMP_WIDTH (info, plane);
  int h = GST_VIDEO_INFO_COMP_HEIGHT (info, plane);
  fail_unless_equals_int (m->width, w + 1);
  fail_unless_equals_int (m->height, h + 1);
  fail_unless_equals_int (m->plane, plane);
  fail_unless_equals_int (m->type, u64 ? GST_INTEGRAL_IMAGE_TYPE_U64 :
      GST_INTEGRAL_IMAGE_TYPE_U32);
  fail_unless ((m->sqsum != NULL) == squared, "%s: squared table",
      what.c_str ());

  GstMapInfo map, sqmap;
  fail_unless (gst_buffer_map (m->sum, &map, GST_MAP_READ));
  if (squared)
    fail_unless (gst_buffer_map (m->sqsum, &sqmap, GST_MAP_READ));
  fail_unless (m->stride * m->height <= map.size);

  /* naive exclusive SAT, row by row */
  std::vector<uint64_t> prev (w + 1, 0), cur (w + 1, 0);
  std::vector<uint64_t> sqprev (w + 1, 0), sqcur (w + 1, 0);
  for (int y = 0; y <= h; y++) {
    if (y > 0) {
      uint64_t run = 0, sqrun = 0;
      cur[0] = sqcur[0] = 0;
      for (int x = 1; x <= w; x++) {
        uint64_t v = px[(size_t) (y - 1) * w + (x - 1)];
        run += v;
        sqrun += v * v;
        cur[x] = prev[x] + run;
        sqcur[x] = sqprev[x] + sqrun;
      }
    }
    const guint8 *row = map.data + (size_t) y * m->stride;
    for (int x = 0; x <= w; x++) {
      uint64_t got = u64 ? ((const uint64_t *) row)[x] :
          ((const uint32_t *) row)[x];
      uint64_t want = u64 ? cur[x] : (uint32_t) cur[x];
      if (got != want)
        fail ("%s: SAT mismatch at (%d, %d): %" G_GUINT64_FORMAT " != %"
            G_GUINT64_FORMAT, what.c_str (), x, y, got, want);
      if (squared) {
        uint64_t sq = ((const uint64_t *) (sqmap.data +
                (size_t) y * m->sq_stride))[x];
        if (sq != sqcur[x])
          fail ("%s: squared SAT mismatch at (%d, %d)", what.c_str (), x, y);
      }
    }
    std::swap (prev, cur);
    std::swap (sqprev, sqcur);
  }
  if (squared)
    gst_buffer_unmap (m->sqsum, &sqmap);
  gst_buffer_unmap (m->sum, &map);
}

/* Pushes one frame through cudaintegral with the given properties. */
static void
run_case (GstVideoFormat fmt, int w, int h, guint plane, bool u64, bool squared,
    Content c, int pad)
{
  GstVideoInfo info = video_info (fmt, w, h);
  std::string launch = std::string ("cudaintegral compute=") + compute_mode +
      " plane=" + std::to_string (plane) + " sat-type=" + (u64 ? "u64" : "u32")
      + " squared=" + (squared ? "true" : "false");
  std::string what = launch + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c) +
      " pad " + std::to_string (pad);
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  GstCaps *caps = video_caps (&info);
  gst_harness_set_caps (hrn, gst_caps_ref (caps), caps);

  GstBuffer *in = make_video_buffer (&info, c, (uint32_t) (w * 31 + h), pad);
  GstBuffer *keep = gst_buffer_ref (in);
  GstMapInfo before;
  gst_buffer_map (keep, &before, GST_MAP_READ);
  std::vector<uint8_t> bytes (before.data, before.data + before.size);
  gst_buffer_unmap (keep, &before);

  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  check_meta (keep, out, &info, plane, u64, squared, what);

  /* the video itself passes unchanged */
  GstMapInfo after;
  gst_buffer_map (out, &after, GST_MAP_READ);
  fail_unless (after.size == bytes.size () &&
      memcmp (after.data, bytes.data (), after.size) == 0,
      "%s: video changed", what.c_str ());
  gst_buffer_unmap (out, &after);

  gst_buffer_unref (out);
  gst_buffer_unref (keep);
  gst_harness_teardown (hrn);
}

GST_START_TEST (test_every_format_and_plane)
{
  for (GstVideoFormat fmt : all_formats) {
    const GstVideoFormatInfo *f = gst_video_format_get_info (fmt);
    for (guint plane = 0; plane < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
        plane++) {
      run_case (fmt, 33, 17, plane, false, false, Content::random, 0);
      run_case (fmt, 31, 9, plane, true, true, Content::natural, 13);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_sizes_and_contents)
{
  static const Size sizes[] = { {1, 1}, {31, 17}, {33, 33}, {640, 480},
    {1920, 1080} };
  for (const Size & s : sizes) {
    for (Content c : all_contents) {
      if (s.w >= 640 && c != Content::random && c != Content::all255)
        continue;
      run_case (GST_VIDEO_FORMAT_GRAY8, s.w, s.h, 0, false, false, c, 0);
      run_case (GST_VIDEO_FORMAT_NV12, s.w + (s.w & 1), s.h + (s.h & 1), 1,
          false, false, c, 64);
    }
  }
  run_case (GST_VIDEO_FORMAT_I420, 1920, 1080, 0, true, true, Content::all255,
      0);
  run_case (GST_VIDEO_FORMAT_BGRx, 641, 479, 2, false, true, Content::gradient,
      3);
}
GST_END_TEST;

/* u32 wraps modulo 2^32 yet rectangle sums below 2^32 stay exact. */
GST_START_TEST (test_u32_wraps_rect_sums_exact)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, 4200, 4100);
  std::string launch = std::string ("cudaintegral compute=") + compute_mode;
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  GstCaps *caps = video_caps (&info);
  gst_harness_set_caps (hrn, gst_caps_ref (caps), caps);
  gst_harness_push (hrn, make_video_buffer (&info, Content::all255, 1));
  GstBuffer *out = gst_harness_pull (hrn);
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (out);
  fail_unless (m != NULL);
  GstMapInfo map;
  fail_unless (gst_buffer_map (m->sum, &map, GST_MAP_READ));
  /* the whole-frame total (4.39e9) wrapped ... */
  guint32 total = ((guint32 *) (map.data + 4100 * m->stride))[4200];
  fail_unless_equals_uint64 (total, (guint32) (4200ull * 4100 * 255));
  /* ... but a 4000 x 4000 window (4.08e9 < 2^32) is exact */
  fail_unless_equals_uint64 (gst_integral_image_rect_sum (map.data, m->stride,
          m->type, m->width, m->height, 150, 90, 4000, 4000),
      4000ull * 4000 * 255);
  gst_buffer_unmap (m->sum, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (hrn);
}
GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  std::string launch = std::string ("cudaintegral compute=") + compute_mode;
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  GstVideoInfo a = video_info (GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo b = video_info (GST_VIDEO_FORMAT_RGBA, 33, 21);

  gst_harness_set_caps (hrn, video_caps (&a), video_caps (&a));
  for (int i = 0; i < 2; i++) {
    GstVideoInfo *info = i == 0 ? &a : &b;
    if (i == 1)
      gst_harness_set_caps (hrn, video_caps (&b), video_caps (&b));
    GstBuffer *in = make_video_buffer (info, Content::random, 5 + i);
    GstBuffer *keep = gst_buffer_ref (in);
    fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (hrn);
    check_meta (keep, out, info, 0, false, false, "renegotiation");
    gst_buffer_unref (out);
    gst_buffer_unref (keep);
  }
  gst_harness_teardown (hrn);
}
GST_END_TEST;

GST_START_TEST (test_plane_missing_refused)
{
  std::string launch = std::string ("cudaintegral plane=3 compute=") +
      compute_mode;
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 32, 32);
  gst_harness_set_caps (hrn, video_caps (&info), video_caps (&info));
  GstFlowReturn r = gst_harness_push (hrn, make_video_buffer (&info,
          Content::random, 1));
  fail_unless (r == GST_FLOW_NOT_NEGOTIATED || r == GST_FLOW_ERROR,
      "plane 3 of NV12 must be refused, got %s", gst_flow_get_name (r));
  gst_harness_teardown (hrn);
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudaintegral", NULL);
  guint plane;
  gint dev, type, compute;
  gboolean squared;

  fail_unless (e != NULL);
  g_object_get (e, "plane", &plane, "sat-type", &type, "squared", &squared,
      "cuda-device-id", &dev, "compute", &compute, NULL);
  fail_unless_equals_int (plane, 0);
  fail_unless_equals_int (type, GST_INTEGRAL_IMAGE_TYPE_U32);
  fail_unless (!squared);
  fail_unless_equals_int (dev, -1);
  fail_unless_equals_int (compute, 0);

  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "plane"));
  fail_unless_equals_int (ps->maximum, 3);
  gst_object_unref (e);
}
GST_END_TEST;

/* Without a GPU, compute=gpu fails to start with an error, never crashes. */
GST_START_TEST (test_gpu_required_without_gpu)
{
  GstElement *e = gst_element_factory_make ("cudaintegral", NULL);
  GstBus *bus = gst_bus_new ();
  fail_unless (e != NULL);
  g_object_set (e, "compute", 1 /* gpu */, NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  GError *err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "compute=gpu") != NULL, "unclear error: %s",
      err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
GST_START_TEST (test_gpu_system_memory)
{
  compute_mode = "gpu";
  for (GstVideoFormat fmt : all_formats)
    run_case (fmt, 641, 361, 0, false, true, Content::random, 13);
  run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 0, false, false, Content::all255, 0);
  run_case (GST_VIDEO_FORMAT_I420, 1920, 1080, 2, true, false,
      Content::natural, 0);
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory from our own context and pool: the element adopts the context,
 * computes on the GPU and attaches CUDA memory tables. */
GST_START_TEST (test_gpu_cuda_memory)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx };
  static const Size sizes[] = { {2, 2}, {34, 18}, {1920, 1080}, {3840, 2160} };
  GstCudaContext *ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);

  for (GstVideoFormat fmt : fmts) {
    for (const Size & s : sizes) {
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      GstCaps *caps = video_caps (&info, true);
      GstBufferPool *pool = make_cuda_pool (ctx, caps, &info);

      guint planes = fmt == GST_VIDEO_FORMAT_NV12 ? 3 : 1;
      for (guint plane = 0; plane < planes; plane++) {
        std::string launch = "cudaintegral compute=gpu plane=" +
            std::to_string (plane) + (s.w > 100 ? " sat-type=u32" :
            " sat-type=u64 squared=true");
        GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
        gst_harness_set_caps (hrn, gst_caps_ref (caps), gst_caps_ref (caps));
        GstBuffer *in = NULL;
        fail_unless (gst_buffer_pool_acquire_buffer (pool, &in, NULL) ==
            GST_FLOW_OK);
        fill_video_buffer (in, &info, Content::random, s.w + plane);
        GstBuffer *keep = gst_buffer_ref (in);
        fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
        GstBuffer *out = gst_harness_pull (hrn);
        GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (out);
        fail_unless (m != NULL);
        fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (m->sum, 0)),
            "table of CUDA input must be CUDA memory");
        check_meta (keep, out, &info, plane, s.w <= 100, s.w <= 100,
            launch + " CUDA " + GST_VIDEO_INFO_NAME (&info) + " " +
            std::to_string (s.w));
        gst_buffer_unref (out);
        gst_buffer_unref (keep);
        gst_harness_teardown (hrn);
      }
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
      gst_caps_unref (caps);
    }
  }
  gst_object_unref (ctx);
}
GST_END_TEST;

#endif

static Suite *
cudaintegral_suite (void)
{
  Suite *s = suite_create ("cudaintegral");
  TCase *cpu = tcase_create ("cpu");
  gboolean gpu = cuda_device_works ();

  suite_add_tcase (s, cpu);
  tcase_add_test (cpu, test_properties);
  tcase_add_test (cpu, test_every_format_and_plane);
  tcase_add_test (cpu, test_sizes_and_contents);
  tcase_add_test (cpu, test_u32_wraps_rect_sums_exact);
  tcase_add_test (cpu, test_renegotiation);
  tcase_add_test (cpu, test_plane_missing_refused);
  if (!gpu)
    tcase_add_test (cpu, test_gpu_required_without_gpu);

#ifdef HAVE_GST_CUDA
  TCase *tc = tcase_create ("gpu");
  tcase_add_test (tc, test_gpu_system_memory);
  tcase_add_test (tc, test_gpu_cuda_memory);
  cip_check_add_gpu_tcase (s, tc, gpu);
#else
  cip_check_add_gpu_tcase (s, tcase_create ("gpu"), FALSE);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudaintegral_suite, argc, argv);
}
