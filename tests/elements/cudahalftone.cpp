/* cudahalftone element tests: the output frame equals the kernel library's
 * CPU reference (tests/kernels/test_halftone.cpp proves the reference
 * against a textbook implementation) applied to the input's components, on
 * every path; chroma neutral with color=false (RGB: the luma halftoned to
 * grey), alpha and padding copied with RGB; the previous-output state over a sequence and its restarts; 10- and
 * 16-bit formats; properties. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "cip/halftone.h"
#include "elementcheck.h"

using namespace testutil;

struct Settings {
  cip::HalftoneKernel kernel = cip::HalftoneKernel::floyd_steinberg;
  const char *kernel_nick = "floyd-steinberg";
  cip::HalftoneMethod method = cip::HalftoneMethod::error_diffusion;
  int levels = 2;
  bool color = false;
  float stability = 0.f;

  std::string launch (const char *compute) const
  {
    return std::string ("cudahalftone compute=") + compute + " kernel=" +
        kernel_nick + " method=" + (method == cip::HalftoneMethod::ordered ?
        "ordered" : "error-diffusion") + " levels=" + std::to_string (levels) +
        " color=" + (color ? "true" : "false") + " temporal-stability=" +
        std::to_string (stability);
  }
};

static cip::HalftoneOptions
options_of (const Settings & s, bool history_valid)
{
  cip::HalftoneOptions params;
  params.kernel = s.kernel;
  params.method = s.method;
  params.levels = s.levels;
  params.temporal_stability = s.stability;
  params.history_valid = history_valid;
  return params;
}

/* The expected component `c` of the output: the reference on the input's
 * component, with `history` (in/out) when the setting keeps one. */
static std::vector<uint8_t>
expected (const std::vector<uint8_t> & src, int w, int h, const Settings & s,
    std::vector<uint8_t> * history, bool history_valid)
{
  std::vector<uint8_t> out ((size_t) w * h, 0x5A);
  cip::HalftonePlane p;
  p.src.data = src.data ();
  p.src.pitch = (size_t) w;
  p.src.width = w;
  p.src.height = h;
  p.dst = out.data ();
  p.dst_pitch = (size_t) w;
  if (history) {
    p.history = history->data ();
    p.history_pitch = (size_t) w;
  }
  fail_unless (cip::ref::halftone (&p, 1, options_of (s, history_valid)) ==
      cip::Status::ok);
  return out;
}

/* The same for the values of a 10/16-bit component (`depth` bits), as
 * values: the reference on words of the values (no shift). */
static std::vector<uint32_t>
expected16 (const std::vector<uint32_t> & src, int w, int h, int depth,
    const Settings & s, std::vector<uint16_t> * history, bool history_valid)
{
  std::vector<uint16_t> in (src.begin (), src.end ());
  std::vector<uint16_t> out ((size_t) w * h, 0x5A5A);
  cip::HalftonePlane p;
  p.src.data = (const uint8_t *) in.data ();
  p.src.pitch = (size_t) w * 2;
  p.src.width = w;
  p.src.height = h;
  p.src.step = 2;
  p.src.bytes = 2;
  p.src.depth = depth;
  p.dst = (uint8_t *) out.data ();
  p.dst_pitch = (size_t) w * 2;
  p.dst_step = 2;
  if (history) {
    p.history = (uint8_t *) history->data ();
    p.history_pitch = (size_t) w * 2;
  }
  fail_unless (cip::ref::halftone (&p, 1, options_of (s, history_valid)) ==
      cip::Status::ok);
  return std::vector<uint32_t> (out.begin (), out.end ());
}

/* Pushes `frames` frames of one content and checks every component. */
static void
run_sequence (const Path & path, GstVideoFormat fmt, int w, int h,
    const Settings & s, int frames, uint32_t seed)
{
/* GStreamer 1.22's GstCudaMemory moves odd-height I420 chroma wrongly
   * between its CPU staging copy and the device (frames written through a CPU
   * map, as FrameSource does); cudaupload/cudadownload round trips are right
   * and so are the elements on them (checked on the GPU machine), so CUDA
   * memory cases here use even heights. */
  if (path.cuda () && (fmt == GST_VIDEO_FORMAT_I420 ||
          fmt == GST_VIDEO_FORMAT_I420_10LE) && h % 2)
    h++;
  GstVideoInfo info = video_info (fmt, w, h);
  FrameSource src (&info, path.memory);
  ElementHarness hrn (s.launch (path.compute), &info, path.cuda ());
  const bool rgb = GST_VIDEO_INFO_IS_RGB (&info);
  const guint n_comp = GST_VIDEO_INFO_N_COMPONENTS (&info);
  const guint halftoned = s.color ? (rgb ? 3 : n_comp) : 1;
  /* RGB with color=false: the BT.601 luma halftoned, written to R, G, B */
  const bool grey_rgb = rgb && !s.color;
  const int depth = (int) GST_VIDEO_FORMAT_INFO_DEPTH (info.finfo, 0);
  std::vector<std::vector<uint8_t>> hist (4);
  std::vector<std::vector<uint16_t>> hist16 (4);
  const bool temporal = s.stability > 0.f &&
      s.method == cip::HalftoneMethod::error_diffusion;
  for (int f = 0; f < frames; f++) {
    GstBuffer *in = src.make (f % 3 == 2 ? Content::random : Content::natural,
        seed + (uint32_t) f / 3, path.cuda () ? 0 : (depth > 8 ? 6 : 5));
    std::vector<std::vector<uint8_t>> comp (n_comp);
    std::vector<std::vector<uint32_t>> vals (n_comp);
    for (guint c = 0; c < n_comp; c++) {
      if (depth > 8)
        vals[c] = read_values (in, &info, c);
      else
        comp[c] = read_component (in, &info, c);
    }
    std::vector<uint8_t> in_pad = x_bytes (in, &info);
    GstBuffer *out = hrn.push (in);
    std::vector<uint8_t> out_pad = x_bytes (out, &info);
    std::vector<uint8_t> grey;
    if (grey_rgb) {
      std::vector<uint8_t> luma ((size_t) w * h);
      for (size_t i = 0; i < luma.size (); i++)
        luma[i] = cip::halftone_luma (comp[0][i], comp[1][i], comp[2][i]);
      if (temporal && hist[0].empty ())
        hist[0].assign (luma.size (), 0);
      grey = expected (luma, w, h, s, temporal ? &hist[0] : nullptr,
          temporal && f > 0);
    }
    for (guint c = 0; c < n_comp; c++) {
      const int cw = GST_VIDEO_INFO_COMP_WIDTH (&info, c);
      const int ch = GST_VIDEO_INFO_COMP_HEIGHT (&info, c);
      if (depth > 8) {
        /* whole words: the value at the shift, the other bits zero;
         * neutral chroma is mid-range */
        const std::vector<uint32_t> got = read_values (out, &info, c, true);
        std::vector<uint32_t> want;
        if (c < halftoned) {
          if (temporal && hist16[c].empty ())
            hist16[c].assign ((size_t) cw * ch, 0);
          want = expected16 (vals[c], cw, ch, depth, s,
              temporal ? &hist16[c] : nullptr, temporal && f > 0);
        } else {
          want.assign ((size_t) cw * ch, 1u << (depth - 1));
        }
        const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, c);
        for (size_t i = 0; i < want.size (); i++)
          if (got[i] != want[i] << shift)
            fail ("%s %s %dx%d frame %d comp %u: %s: sample %zu: %u != %u",
                path.name ().c_str (), GST_VIDEO_INFO_NAME (&info), w, h, f, c,
                s.launch (path.compute).c_str (), i, got[i], want[i] << shift);
        continue;
      }
      std::vector<uint8_t> got = read_component (out, &info, c);
      std::vector<uint8_t> want;
      if (grey_rgb && c < 3) {
        want = grey;
      } else if (c < halftoned) {
        if (temporal && hist[c].empty ())
          hist[c].assign ((size_t) cw * ch, 0);
        want = expected (comp[c], cw, ch, s, temporal ? &hist[c] : nullptr,
            temporal && f > 0);
      } else if (rgb) {
        want = comp[c];         /* alpha copied */
      } else {
        want.assign ((size_t) cw * ch, 128);    /* neutral chroma */
      }
      for (size_t i = 0; i < want.size (); i++)
        if (got[i] != want[i])
          fail ("%s %s %dx%d frame %d comp %u: %s: pixel %zu: %u != %u",
              path.name ().c_str (), GST_VIDEO_INFO_NAME (&info), w, h, f, c,
              s.launch (path.compute).c_str (), i, got[i], want[i]);
    }
    if (GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_RGBx ||
        GST_VIDEO_INFO_FORMAT (&info) == GST_VIDEO_FORMAT_BGRx) {
      /* the padding byte (not a component) is copied too */
      for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
          if (out_pad[(size_t) y * w + x] != in_pad[(size_t) y * w + x])
            fail ("%s %s frame %d: padding byte (%d, %d): %u != %u",
                path.name ().c_str (), GST_VIDEO_INFO_NAME (&info), f, x, y,
                out_pad[(size_t) y * w + x], in_pad[(size_t) y * w + x]);
    }
    gst_buffer_unref (out);
  }
}

GST_START_TEST (test_formats_luma)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
            GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444,
            GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx}) {
      if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY8)
        continue;
      for (auto wh : { std::pair<int, int> (67, 41), {1, 1}, {33, 2} })
        run_sequence (p, fmt, wh.first, wh.second, Settings (), 2, 3);
    }
  });
}
GST_END_TEST;

GST_START_TEST (test_color_and_kernels)
{
  static const struct { cip::HalftoneKernel k; const char *nick; } kernels[] = {
    {cip::HalftoneKernel::floyd_steinberg, "floyd-steinberg"},
    {cip::HalftoneKernel::jarvis_judice_ninke, "jarvis-judice-ninke"},
    {cip::HalftoneKernel::stucki, "stucki"},
    {cip::HalftoneKernel::burkes, "burkes"},
    {cip::HalftoneKernel::sierra, "sierra"},
    {cip::HalftoneKernel::sierra_lite, "sierra-lite"},
    {cip::HalftoneKernel::atkinson, "atkinson"},
  };
  for_each_path ([] (const Path & p) {
    int i = 0;
    for (const auto & k : kernels) {
      Settings s;
      s.kernel = k.k;
      s.kernel_nick = k.nick;
      s.color = true;
      s.levels = (i % 3 == 0) ? 2 : (i % 3 == 1 ? 4 : 256);
      GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx,
        GST_VIDEO_FORMAT_NV12 };
      run_sequence (p, fmts[i % 3], 45, 31, s, 1, 10 + i);
      i++;
    }
    Settings ordered;
    ordered.method = cip::HalftoneMethod::ordered;
    ordered.levels = 3;
    run_sequence (p, GST_VIDEO_FORMAT_I420, 45, 31, ordered, 1, 40);
  });
}
GST_END_TEST;

/* temporal-stability keeps the previous outputs across frames (reference
 * with the same history), restarted by a change of levels. */
GST_START_TEST (test_temporal_sequence)
{
  for_each_path ([] (const Path & p) {
    Settings s;
    s.stability = 0.5f;
    run_sequence (p, GST_VIDEO_FORMAT_NV12, 64, 36, s, 6, 50);
    s.levels = 4;
    s.color = true;
    run_sequence (p, GST_VIDEO_FORMAT_I420, 31, 17, s, 4, 60);
  });
}
GST_END_TEST;

/* The previous outputs restart (the frame equals the reference without a
 * history, and differs from the one that keeps the old outputs) after: a
 * levels change, a frame without temporal-stability, and a flush. */
GST_START_TEST (test_temporal_restarts)
{
  const int w = 40, h = 30;
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, w, h);
  FrameSource src (&info, Memory::system);
  ElementHarness hrn ("cudahalftone compute=cpu temporal-stability=0.8",
      &info);
  GstElement *e = hrn.find ("cudahalftone");
  Settings s;
  s.stability = 0.8f;

  /* pushes a frame and checks that it started over: `last` holds the
   * previous output the element must not have kept */
  /* natural content of `seed`, every sample raised by `delta` (sensor drift) */
  auto make = [&] (uint32_t seed, int delta) {
    GstBuffer *b = src.make (Content::natural, seed);
    GstVideoFrame f;
    fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_WRITE));
    for (int r = 0; r < h; r++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
          (gsize) r * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
      for (int x = 0; x < w; x++)
        row[x] = (guint8) CLAMP (row[x] + delta, 0, 255);
    }
    gst_video_frame_unmap (&f);
    return b;
  };
  auto restarted = [&] (uint32_t seed, int delta,
      const std::vector<uint8_t> & last, const Settings & prev,
      const char *what) {
    GstBuffer *in = make (seed, delta);
    std::vector<uint8_t> y = read_component (in, &info, 0);
    GstBuffer *out = hrn.push (in);
    std::vector<uint8_t> got = read_component (out, &info, 0);
    gst_buffer_unref (out);
    std::vector<uint8_t> fresh ((size_t) w * h, 0), kept = last;
    std::vector<uint8_t> want = expected (y, w, h, s, &fresh, false);
    std::vector<uint8_t> stale = expected (y, w, h, s, &kept, true);
    fail_unless (want != stale, "%s: the data cannot tell a restart", what);
    fail_unless (got == want, "%s did not restart the history", what);
    (void) prev;
    return got;
  };
  auto push = [&] (uint32_t seed) {
    GstBuffer *out = hrn.push (make (seed, 0));
    std::vector<uint8_t> got = read_component (out, &info, 0);
    gst_buffer_unref (out);
    return got;
  };

  /* each restart frame is close to a frame whose output the element must
   * not keep (the same content, or the same 3 levels brighter), so that
   * keeping it and starting over differ */
  g_object_set (e, "levels", 4, NULL);
  s.levels = 4;
  push (1);
  std::vector<uint8_t> last = push (2);
  g_object_set (e, "levels", 5, NULL);
  Settings prev = s;
  s.levels = 5;
  restarted (2, 0, last, prev, "a levels change");
  push (1);
  last = push (2);
  g_object_set (e, "temporal-stability", 0.0, NULL);
  push (3);
  g_object_set (e, "temporal-stability", 0.8, NULL);
  restarted (2, 3, last, s, "a frame without temporal-stability");
  push (1);
  last = push (2);
  fail_unless (gst_harness_push_event (hrn.h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hrn.h, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hrn.h, gst_event_new_segment (&seg)));
  restarted (2, 3, last, s, "a flush");
}
GST_END_TEST;

/* RGB with color=false is halftoned to grey (every order of the colour
 * bytes, a history over frames); color=true set while playing halftones the
 * channels from the next frame on. */
GST_START_TEST (test_rgb_grey)
{
  for_each_path ([] (const Path & p) {
    Settings s;
    for (GstVideoFormat fmt : {GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx})
      run_sequence (p, fmt, 45, 31, s, 1, 70);
    s.stability = 0.5f;
    s.kernel = cip::HalftoneKernel::atkinson;
    s.kernel_nick = "atkinson";
    run_sequence (p, GST_VIDEO_FORMAT_BGRA, 64, 36, s, 4, 80);
  });

  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_RGBA, 16, 16);
  ElementHarness hrn ("cudahalftone compute=cpu", &info);
  FrameSource src (&info, Memory::system);
  GstBuffer *in = src.make (Content::random, 1);
  GstBuffer *out = hrn.push (in);
  std::vector<uint8_t> r0 = read_component (out, &info, 0),
      g0 = read_component (out, &info, 1);
  fail_unless (r0 == g0, "color=false: R and G differ");
  gst_buffer_unref (out);
  g_object_set (hrn.find ("cudahalftone"), "color", TRUE, NULL);
  in = src.make (Content::random, 2);
  std::vector<uint8_t> r = read_component (in, &info, 0);
  out = hrn.push (in);
  Settings c;
  c.color = true;
  fail_unless (read_component (out, &info, 0) == expected (r, 16, 16, c,
          nullptr, false), "color=true while playing: R not halftoned on its own");
  gst_buffer_unref (out);
}
GST_END_TEST;

/* 10- and 16-bit formats (garbage in the input's unused bits) are halftoned
 * in their own values and written back in the same format: luma with
 * neutral chroma, every plane with color=true, kernels, levels 2/4/256,
 * ordered dithering, temporal stability over frames; odd sizes; in the pad
 * templates (CUDA memory: all but GRAY16_LE). */
GST_START_TEST (test_high_bit_depth)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : hbd_formats) {
      if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY16_LE)
        continue;
      for (auto wh : { std::pair<int, int> (67, 41), {1, 1}, {33, 2} })
        run_sequence (p, fmt, wh.first, wh.second, Settings (), 1, 3);
      Settings c;
      c.color = true;
      c.levels = 256;
      c.kernel = cip::HalftoneKernel::stucki;
      c.kernel_nick = "stucki";
      run_sequence (p, fmt, 45, 31, c, 1, 20);
      c.levels = 4;
      c.kernel = cip::HalftoneKernel::atkinson;
      c.kernel_nick = "atkinson";
      run_sequence (p, fmt, 45, 31, c, 1, 21);
      Settings o;
      o.method = cip::HalftoneMethod::ordered;
      o.levels = 3;
      o.color = true;
      run_sequence (p, fmt, 45, 31, o, 1, 22);
      Settings t;
      t.stability = 0.5f;
      t.color = fmt == GST_VIDEO_FORMAT_P010_10LE;
      run_sequence (p, fmt, 64, 36, t, 4, 23);
    }
  });
  for (GstVideoFormat fmt : hbd_formats)
    for (bool cuda : { false, true }) {
#ifndef HAVE_GST_CUDA
      if (cuda)
        continue;
#endif
      if (cuda && fmt == GST_VIDEO_FORMAT_GRAY16_LE)
        continue;
      GstVideoInfo info = video_info (fmt, 16, 16);
      GstCaps *caps = video_caps (&info, cuda);
      GstElement *e = gst_element_factory_make ("cudahalftone", NULL);
      GstPad *sink = gst_element_get_static_pad (e, "sink");
      GstCaps *templ = gst_pad_get_pad_template_caps (sink);
      fail_unless (gst_caps_can_intersect (templ, caps), "%s%s not in the "
          "templates", GST_VIDEO_INFO_NAME (&info), cuda ? " (CUDA)" : "");
      gst_caps_unref (templ);
      gst_object_unref (sink);
      gst_object_unref (e);
      gst_caps_unref (caps);
    }
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudahalftone", NULL);
  fail_unless (e != NULL);
  guint levels;
  gboolean color;
  gdouble ts;
  g_object_get (e, "levels", &levels, "color", &color, "temporal-stability",
      &ts, NULL);
  fail_unless_equals_int (levels, 2);
  fail_unless (!color);
  fail_unless (ts == 0.0);
  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "levels"));
  fail_unless_equals_int (ps->minimum, 2);
  fail_unless_equals_int (ps->maximum, 256);
  gst_object_unref (e);
}
GST_END_TEST;

static Suite *
cudahalftone_suite (void)
{
  ElementSuite es ("cudahalftone");

  tcase_add_test (es.cpu, test_properties);
  tcase_add_test (es.cpu, test_formats_luma);
  tcase_add_test (es.cpu, test_color_and_kernels);
  tcase_add_test (es.cpu, test_temporal_sequence);
  tcase_add_test (es.cpu, test_temporal_restarts);
  tcase_add_test (es.cpu, test_rgb_grey);
  tcase_add_test (es.cpu, test_high_bit_depth);
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudahalftone_suite, argc, argv);
}
