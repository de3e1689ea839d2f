/* cudaintegral element tests: the attached SAT equals a naive sum over the
 * frame's component (read through GstVideoFrame, not the plugin's helpers)
 * for every format and plane, padded strides, both SAT types and the squared
 * table; video passes unchanged; renegotiation; property changes between
 * frames while PLAYING; several frames through one element (recycled table
 * buffers); compute=auto; refused caps; properties.
 * CPU path always; GPU path (system and CUDA memory) when a device works
 * (tests/common/elementcheck.h runs the cases on every path). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudaimgproc/gstintegralmeta.h>

#include <cstring>
#include <string>

#include "elementcheck.h"
#include "cip/cip.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

using namespace testutil;

/* Checks the meta of `out` against a naive SAT of component `plane` of `in`. */
static void
check_meta (GstBuffer * in, GstBuffer * out, const GstVideoInfo * info,
    guint plane, bool u64, bool squared, const std::string & what)
{
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (out);
  fail_unless (m != NULL, "%s: no integral meta", what.c_str ());

  std::vector<uint32_t> px = read_values (in, info, plane);
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

  /* the meta's own accessors (what bindings call): rectangles against naive
   * sums of the pixels, the empty rectangle, and rectangles that leave the
   * plane by one pixel */
  struct Rect { int x, y, rw, rh; };
  const Rect rects[] = { {0, 0, w, h}, {w - 1, h - 1, 1, 1},
    {w / 3, h / 4, (w + 1) / 2, (h + 1) / 2}, {w, h, 0, 0} };
  for (const Rect & r : rects) {
    uint64_t sum = 0, sq = 0;
    for (int y = r.y; y < r.y + r.rh; y++)
      for (int x = r.x; x < r.x + r.rw; x++) {
        uint64_t v = px[(size_t) y * w + x];
        sum += v;
        sq += v * v;
      }
    guint64 got = 1;
    fail_unless (gst_integral_image_meta_rect_sum (m, r.x, r.y, r.rw, r.rh,
            &got), "%s: rect_sum refused (%d, %d) %dx%d", what.c_str (), r.x,
        r.y, r.rw, r.rh);
    fail_unless_equals_uint64 (got, u64 ? sum : (uint32_t) sum);
    got = 1;
    fail_unless (gst_integral_image_meta_rect_sqsum (m, r.x, r.y, r.rw, r.rh,
            &got) == squared);
    fail_unless_equals_uint64 (got, squared ? sq : 0);
  }
  guint64 got;
  fail_if (gst_integral_image_meta_rect_sum (m, 0, 0, w + 1, h, &got));
  fail_if (gst_integral_image_meta_rect_sum (m, 0, 1, w, h, &got));
  fail_if (gst_integral_image_meta_rect_sum (m, w, 0, 1, 1, &got));
  fail_if (gst_integral_image_meta_rect_sum (m, 1, 0, G_MAXUINT, 1, &got));
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

/* 10- and 16-bit formats (garbage in the bits outside each value): every
 * component, both table types, squares, padded strides; all-max 16-bit
 * frames wrap the u32 table. */
GST_START_TEST (test_high_bit_depth)
{
  for (GstVideoFormat fmt : hbd_formats) {
    const GstVideoFormatInfo *f = gst_video_format_get_info (fmt);
    for (guint plane = 0; plane < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f);
        plane++) {
      run_case (fmt, 33, 17, plane, false, false, Content::random, 0);
      run_case (fmt, 31, 9, plane, true, true, Content::natural, 6);
      run_case (fmt, 300, 200, plane, false, true, Content::all255, 0);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_sizes_and_contents)
{
  static const Size sizes[] = { {1, 1}, {31, 17}, {33, 33}, {640, 480},
    {1920, 1080} };
  for (const Size & s : sizes) {
    if (too_large_for_small (s.w, s.h))
      continue;
    for (Content c : all_contents) {
      if (s.w >= 640 && c != Content::random && c != Content::all255)
        continue;
      run_case (GST_VIDEO_FORMAT_GRAY8, s.w, s.h, 0, false, false, c, 0);
      run_case (GST_VIDEO_FORMAT_NV12, s.w + (s.w & 1), s.h + (s.h & 1), 1,
          false, false, c, 64);
    }
  }
  if (!too_large_for_small (1920, 1080))
    run_case (GST_VIDEO_FORMAT_I420, 1920, 1080, 0, true, true,
        Content::all255, 0);
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

/* Where the table of a frame on path p must live: CUDA memory for CUDA input
 * (the GPU path), system memory otherwise. */
static void
check_table_memory (GstBuffer * out, const Path & p)
{
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (out);
  fail_unless (m != NULL);
#ifdef HAVE_GST_CUDA
  bool cuda = gst_is_cuda_memory (gst_buffer_peek_memory (m->sum, 0));
  fail_unless (cuda == p.cuda (), "%s: table in %s memory", p.name ().c_str (),
      cuda ? "CUDA" : "system");
  if (m->sqsum)
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (m->sqsum, 0)) ==
        p.cuda (), "%s: squared table memory", p.name ().c_str ());
#else
  (void) p;
#endif
}

/* Pushes one frame of `src` (distinct content per seed) through hrn and
 * checks its table(s); the output is released before the next frame so the
 * element's table pools recycle buffers that hold the previous (different)
 * table. */
static void
push_check (ElementHarness & hrn, FrameSource & src, const Path & p,
    guint plane, bool u64, bool squared, uint32_t seed, int pad,
    const std::string & what)
{
  GstBuffer *in = src.make (Content::random, seed, p.cuda () ? 0 : pad);
  GstBuffer *keep = gst_buffer_ref (in);
  GstBuffer *out = hrn.push (in);
  check_meta (keep, out, src.info (), plane, u64, squared, what + " " +
      p.name () + " " + GST_VIDEO_INFO_NAME (src.info ()) + " seed " +
      std::to_string (seed));
  check_table_memory (out, p);
  gst_buffer_unref (out);
  gst_buffer_unref (keep);
}

/* New caps mid-stream on every path (scratch frames, table pools and
 * workspace rebuilt for another format and size), two frames per caps. */
GST_START_TEST (test_renegotiation)
{
  for_each_path ([] (const Path & p) {
    ElementHarness hrn (std::string ("cudaintegral compute=") + p.compute);
    const GstVideoInfo infos[3] = { video_info (GST_VIDEO_FORMAT_NV12, 64, 48),
      video_info (GST_VIDEO_FORMAT_RGBA, 33, 21),
      video_info (GST_VIDEO_FORMAT_I420, 1283, 723) };
    uint32_t seed = 5;
    for (int k : { 0, 1, 2, 0, 1 }) {
      FrameSource src (&infos[k], p.memory);
      hrn.caps (&infos[k], p.cuda ());
      for (int i = 0; i < 2; i++)
        push_check (hrn, src, p, 0, false, false, seed++, 3 * k,
            "renegotiation");
    }
  });
}
GST_END_TEST;

/* sat-type and squared changed between frames while PLAYING apply to the
 * next frame; several frames per setting (recycled tables). */
GST_START_TEST (test_live_changes)
{
  for_each_path ([] (const Path & p) {
    for (guint plane : { 0u, 2u }) {
      /* CUDA memory: an even height (see cudahistogram.cpp, odd_i420_note) */
      GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 67,
          p.cuda () ? 46 : 45);
      FrameSource src (&info, p.memory);
      ElementHarness hrn (std::string ("cudaintegral compute=") + p.compute +
          " plane=" + std::to_string (plane), &info, p.cuda ());
      GstElement *e = hrn.find ("cudaintegral");
      const struct { bool u64, squared; } steps[] = { {false, false},
        {true, false}, {true, true}, {false, true}, {false, false},
        {true, true}, {true, false}, {false, false} };
      uint32_t seed = 11;
      for (const auto & st : steps) {
        g_object_set (e, "sat-type", st.u64 ? GST_INTEGRAL_IMAGE_TYPE_U64 :
            GST_INTEGRAL_IMAGE_TYPE_U32, "squared", (gboolean) st.squared,
            NULL);
        fail_unless_equals_int (GST_STATE (e), GST_STATE_PLAYING);
        for (int i = 0; i < 3; i++)
          push_check (hrn, src, p, plane, st.u64, st.squared, seed++, 7,
              std::string ("live sat-type=") + (st.u64 ? "u64" : "u32") +
              " squared=" + (st.squared ? "true" : "false"));
      }
    }
  });
}
GST_END_TEST;

/* compute=auto (the default): the GPU when one works, else the CPU; either
 * way the tables are right, and CUDA input gets CUDA tables (GPU path). */
GST_START_TEST (test_compute_auto)
{
  compute_mode = "auto";
  run_case (GST_VIDEO_FORMAT_NV12, 66, 34, 1, false, true, Content::natural,
      5);
  run_case (GST_VIDEO_FORMAT_RGBA, 33, 17, 3, true, false, Content::random,
      0);
  run_case (GST_VIDEO_FORMAT_GRAY8, 1, 1, 0, false, false, Content::all255, 0);
  /* the default is auto: no compute= in the launch line */
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_Y444, 45, 31);
  FrameSource sys (&info, Memory::system);
  ElementHarness hrn ("cudaintegral plane=1", &info);
  for (uint32_t seed = 1; seed <= 2; seed++)
    push_check (hrn, sys, Path { Memory::system, "auto" }, 1, false, false,
        seed, 3, "default compute");
  if (gpu_works ()) {
    GstVideoInfo ci = video_info (GST_VIDEO_FORMAT_NV12, 130, 66);
    FrameSource cuda (&ci, Memory::cuda);
    ElementHarness ch ("cudaintegral squared=true plane=2", &ci, true);
    for (uint32_t seed = 1; seed <= 2; seed++)
      push_check (ch, cuda, Path { Memory::cuda, "auto" }, 2, false, true,
          seed, 0, "compute=auto");
  }
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
  if (!too_large_for_small (1920, 1080))
    run_case (GST_VIDEO_FORMAT_I420, 1920, 1080, 2, true, false,
        Content::natural, 0);
  for (GstVideoFormat fmt : hbd_formats) {
    run_case (fmt, 641, 361, 0, false, true, Content::random, 6);
    /* a chroma plane where there is one (GRAY16_LE has none) */
    const guint chroma = GST_VIDEO_FORMAT_INFO_N_COMPONENTS
        (gst_video_format_get_info (fmt)) > 1 ? 1 : 0;
    if (!too_large_for_small (1920, 1080))
      run_case (fmt, 1920, 1080, chroma, true, true, Content::all255, 0);
  }
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory from the test's own context and pool, the element given no
 * context (share_context = false): it adopts the input's context, computes
 * on the GPU and attaches CUDA memory tables; every
 * component of every format (I420 chroma, RGBA channels 1-3 too), two frames
 * per element with different content so a table left unwritten shows the
 * previous frame's values. */
GST_START_TEST (test_gpu_cuda_memory)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P016_LE,
    GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_Y444_16LE };
  static const Size sizes[] = { {2, 2}, {34, 18}, {1920, 1080}, {3840, 2160} };
  const Path cuda { Memory::cuda, "gpu" };

  for (GstVideoFormat fmt : fmts) {
    for (const Size & s : sizes) {
      if (too_large_for_small (s.w, s.h))
        continue;
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      FrameSource src (&info, Memory::cuda);
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_COMPONENTS (&info);
          plane++) {
        const bool small = s.w <= 100;
        std::string launch = "cudaintegral compute=gpu plane=" +
            std::to_string (plane) + (small ? " sat-type=u64 squared=true" :
            " sat-type=u32");
        ElementHarness hrn (launch, &info, true, false);
        for (uint32_t i = 0; i < 2; i++)
          push_check (hrn, src, cuda, plane, small, small,
              (uint32_t) s.w * 7 + plane * 3 + i, 0, launch);
      }
    }
  }
}
GST_END_TEST;

#endif

static Suite *
cudaintegral_suite (void)
{
  ElementSuite es ("cudaintegral");

  tcase_add_test (es.cpu, test_properties);
  tcase_add_test (es.cpu, test_every_format_and_plane);
  tcase_add_test (es.cpu, test_sizes_and_contents);
  tcase_add_test (es.cpu, test_high_bit_depth);
  tcase_add_test (es.cpu, test_u32_wraps_rect_sums_exact);
  tcase_add_test (es.cpu, test_renegotiation);
  tcase_add_test (es.cpu, test_live_changes);
  tcase_add_test (es.cpu, test_compute_auto);
  tcase_add_test (es.cpu, test_plane_missing_refused);
  if (!gpu_works ())
    tcase_add_test (es.cpu, test_gpu_required_without_gpu);
#ifdef HAVE_GST_CUDA
  tcase_add_test (es.gpu, test_gpu_system_memory);
  tcase_add_test (es.gpu, test_gpu_cuda_memory);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudaintegral_suite, argc, argv);
}
