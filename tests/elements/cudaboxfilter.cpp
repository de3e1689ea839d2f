/* cudaboxfilter element tests: output equals a naive windowed mean (computed
 * here from GstVideoFrame reads, same rounding) for every format, radii 0..50
 * and larger than the frame, both borders, both plane modes, padded strides;
 * the upstream-SAT path (cudaintegral ! cudaboxfilter) equals the internal
 * one; renegotiation; properties. CPU path always, GPU path when a device
 * works (system memory and CUDA memory). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <algorithm>
#include <string>

#include "cipcheck.h"
#include "testframe.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#endif

using namespace testutil;

static const char *compute_mode = "cpu";

/* Naive mean of a W x H plane over the window, documented rounding. */
static std::vector<uint8_t>
naive_box (const std::vector<uint8_t> & px, int w, int h, int rx, int ry,
    bool replicate)
{
  std::vector<uint8_t> out ((size_t) w * h);
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint64_t sum = 0, area = 0;
      for (int dy = -ry; dy <= ry; dy++) {
        int yy = y + dy;
        if (!replicate && (yy < 0 || yy >= h))
          continue;
        yy = std::min (std::max (yy, 0), h - 1);
        for (int dx = -rx; dx <= rx; dx++) {
          int xx = x + dx;
          if (!replicate && (xx < 0 || xx >= w))
            continue;
          xx = std::min (std::max (xx, 0), w - 1);
          sum += px[(size_t) yy * w + xx];
          area++;
        }
      }
      out[(size_t) y * w + x] = (uint8_t) ((sum + area / 2) / area);
    }
  }
  return out;
}

static int
scaled (int r, int sub)
{
  return (r + ((1 << sub) >> 1)) >> sub;
}

static std::string
launch_line (int rx, int ry, bool replicate, bool luma_only)
{
  return std::string ("cudaboxfilter compute=") + compute_mode + " radius-x=" +
      std::to_string (rx) + " radius-y=" + std::to_string (ry) + " border=" +
      (replicate ? "replicate" : "clip") + " planes=" +
      (luma_only ? "luma" : "all");
}

/* Checks every component of out against the naive filter of in. */
static void
check_output (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    int rx, int ry, bool replicate, bool luma_only, const std::string & what)
{
  const GstVideoFormatInfo *f = info->finfo;
  bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    int w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    int h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    std::vector<uint8_t> src = read_component (in, info, c);
    std::vector<uint8_t> got = read_component (out, info, c);
    bool filtered = !luma_only || c == 0 || (rgb && c < 3);
    std::vector<uint8_t> want = filtered ? naive_box (src, w, h,
        scaled (rx, GST_VIDEO_FORMAT_INFO_W_SUB (f, c)),
        scaled (ry, GST_VIDEO_FORMAT_INFO_H_SUB (f, c)), replicate) : src;
    for (size_t i = 0; i < want.size (); i++) {
      if (got[i] != want[i])
        fail ("%s: component %u differs at (%d, %d): %u != %u", what.c_str (),
            c, (int) (i % w), (int) (i / w), got[i], want[i]);
    }
  }
}

/* Runs `launch` on one frame and returns the output (caller unrefs). */
static GstBuffer *
run_one (const std::string & launch, const GstVideoInfo * info, GstBuffer * in,
    bool cuda = false)
{
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  gst_harness_set_caps (hrn, video_caps (info, cuda), video_caps (info, cuda));
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  /* copy out of the harness's pool before teardown */
  GstBuffer *copy = gst_buffer_copy_deep (out);
  gst_buffer_unref (out);
  gst_harness_teardown (hrn);
  return copy;
}

static void
run_case (GstVideoFormat fmt, int w, int h, int rx, int ry, bool replicate,
    bool luma_only, Content c, int pad)
{
  GstVideoInfo info = video_info (fmt, w, h);
  std::string launch = launch_line (rx, ry, replicate, luma_only);
  std::string what = launch + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c);
  GstBuffer *in = make_video_buffer (&info, c, (uint32_t) (w + 7 * h), pad);
  GstBuffer *out = run_one (launch, &info, gst_buffer_ref (in));
  check_output (in, out, &info, rx, ry, replicate, luma_only, what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
}

GST_START_TEST (test_every_format)
{
  for (GstVideoFormat fmt : all_formats) {
    run_case (fmt, 34, 18, 1, 1, false, false, Content::random, 0);
    run_case (fmt, 33, 17, 2, 3, true, false, Content::natural, 13);
    run_case (fmt, 32, 20, 3, 1, false, true, Content::random, 0);
  }
}
GST_END_TEST;

GST_START_TEST (test_radii_and_borders)
{
  static const int radii[] = { 0, 1, 2, 7, 50 };
  for (int r : radii) {
    for (bool rep : {false, true}) {
      run_case (GST_VIDEO_FORMAT_GRAY8, 67, 45, r, r, rep, false,
          Content::random, 3);
      run_case (GST_VIDEO_FORMAT_NV12, 66, 44, r, r / 2, rep, false,
          Content::checkerboard, 0);
    }
  }
  /* radius larger than the frame, 1x1 and thin frames */
  for (bool rep : {false, true}) {
    run_case (GST_VIDEO_FORMAT_GRAY8, 31, 17, 100, 40, rep, false,
        Content::gradient, 0);
    run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 5, 5, rep, false, Content::all255,
        0);
    run_case (GST_VIDEO_FORMAT_GRAY8, 1, 23, 3, 3, rep, false,
        Content::random, 0);
    run_case (GST_VIDEO_FORMAT_RGBA, 23, 1, 3, 3, rep, false, Content::random,
        0);
  }
  run_case (GST_VIDEO_FORMAT_I420, 320, 240, 7, 7, false, false,
      Content::natural, 64);
  for (Content c : all_contents)
    run_case (GST_VIDEO_FORMAT_GRAY8, 40, 30, 4, 4, true, false, c, 0);
}
GST_END_TEST;

/* cudaintegral's table upstream gives the same output as the internal SAT. */
GST_START_TEST (test_upstream_sat_same_output)
{
  for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
          GST_VIDEO_FORMAT_RGBA}) {
    GstVideoInfo info = video_info (fmt, 130, 66);
    GstBuffer *in = make_video_buffer (&info, Content::random, 9, 5);
    std::string box = launch_line (15, 9, true, false);
    GstBuffer *a = run_one (box, &info, gst_buffer_ref (in));
    GstBuffer *b = run_one (std::string ("cudaintegral compute=") +
        compute_mode + " ! " + box, &info, gst_buffer_ref (in));
    check_output (in, a, &info, 15, 9, true, false, "internal SAT");
    check_output (in, b, &info, 15, 9, true, false, "upstream SAT");
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    gst_buffer_unref (in);
  }
}
GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  std::string launch = launch_line (2, 2, false, false);
  GstHarness *hrn = gst_harness_new_parse (launch.c_str ());
  GstVideoInfo infos[2] = { video_info (GST_VIDEO_FORMAT_I420, 64, 48),
    video_info (GST_VIDEO_FORMAT_BGRx, 37, 29) };
  for (int i = 0; i < 2; i++) {
    gst_harness_set_caps (hrn, video_caps (&infos[i]), video_caps (&infos[i]));
    GstBuffer *in = make_video_buffer (&infos[i], Content::random, 3 + i);
    fail_unless_equals_int (gst_harness_push (hrn, gst_buffer_ref (in)),
        GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull (hrn);
    check_output (in, out, &infos[i], 2, 2, false, false, "renegotiation");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  gst_harness_teardown (hrn);
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudaboxfilter", NULL);
  guint rx, ry;
  gint border, planes;
  fail_unless (e != NULL);
  g_object_get (e, "radius-x", &rx, "radius-y", &ry, "border", &border,
      "planes", &planes, NULL);
  fail_unless_equals_int (rx, 1);
  fail_unless_equals_int (ry, 1);
  fail_unless_equals_int (border, 0);
  fail_unless_equals_int (planes, 0);
  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "radius-x"));
  fail_unless_equals_int (ps->maximum, 1024);
  gst_object_unref (e);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
GST_START_TEST (test_gpu_system_memory)
{
  compute_mode = "gpu";
  for (GstVideoFormat fmt : all_formats)
    run_case (fmt, 66, 34, 3, 2, fmt == GST_VIDEO_FORMAT_NV12, false,
        Content::random, 13);
  run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 1, 1, false, false,
      Content::all255, 0);
  for (int r : {0, 1, 2, 7, 50})
    for (bool rep : {false, true})
      run_case (GST_VIDEO_FORMAT_GRAY8, 131, 97, r, r, rep, false,
          Content::natural, 0);
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory in and out; the GPU output equals the CPU element's. */
GST_START_TEST (test_gpu_cuda_memory)
{
  GstCudaContext *ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
          GST_VIDEO_FORMAT_RGBA}) {
    for (const Size & s : {Size {66, 34}, Size {1920, 1080}}) {
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      GstCaps *caps = video_caps (&info, true);
      GstBufferPool *pool = make_cuda_pool (ctx, caps, &info);
      for (int r : {1, 15}) {
        for (bool upstream : {false, true}) {
          GstBuffer *in = NULL;
          fail_unless (gst_buffer_pool_acquire_buffer (pool, &in, NULL) ==
              GST_FLOW_OK);
          fill_video_buffer (in, &info, Content::random, s.w + r);
          compute_mode = "gpu";
          std::string box = launch_line (r, r, r == 15, false);
          std::string launch = upstream ?
              "cudaintegral compute=gpu ! " + box : box;
          compute_mode = "cpu";
          GstBuffer *out = run_one (launch, &info, gst_buffer_ref (in), true);
          GstBuffer *ref = run_one (launch_line (r, r, r == 15, false), &info,
              gst_buffer_copy_deep (in), true);
          for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++)
            fail_unless (read_component (out, &info, c) ==
                read_component (ref, &info, c), "%s: GPU != CPU, component %u",
                launch.c_str (), c);
          gst_buffer_unref (out);
          gst_buffer_unref (ref);
          gst_buffer_unref (in);
        }
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
cudaboxfilter_suite (void)
{
  Suite *s = suite_create ("cudaboxfilter");
  TCase *cpu = tcase_create ("cpu");

  suite_add_tcase (s, cpu);
  tcase_add_test (cpu, test_properties);
  tcase_add_test (cpu, test_every_format);
  tcase_add_test (cpu, test_radii_and_borders);
  tcase_add_test (cpu, test_upstream_sat_same_output);
  tcase_add_test (cpu, test_renegotiation);
#ifdef HAVE_GST_CUDA
  TCase *tc = tcase_create ("gpu");
  tcase_add_test (tc, test_gpu_system_memory);
  tcase_add_test (tc, test_gpu_cuda_memory);
  cip_check_add_gpu_tcase (s, tc, cuda_device_works ());
#else
  cip_check_add_gpu_tcase (s, tcase_create ("gpu"), FALSE);
#endif
  return s;
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudaboxfilter_suite, argc, argv);
}
